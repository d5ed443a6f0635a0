#include "suite/local_server.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "io/loop.h"
#include "server/server.h"

struct bp_local_server {
	pthread_t tid;
	struct bp_server_opts o;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int state;            /* 0 starting, 1 listening, -1 failed */
	unsigned port;
	struct bp_loop *loop;
	char err[256];
};

static void on_ready(void *arg, int rc, const char *err, unsigned port, struct bp_loop *loop)
{
	struct bp_local_server *ls = arg;

	pthread_mutex_lock(&ls->lock);
	ls->state = rc ? -1 : 1;
	ls->port = port;
	ls->loop = loop;
	if (rc)
		snprintf(ls->err, sizeof(ls->err), "%s", err);
	pthread_cond_broadcast(&ls->cond);
	pthread_mutex_unlock(&ls->lock);
}

static void *server_thread(void *arg)
{
	struct bp_local_server *ls = arg;
	char err[256];

	bp_server_run(&ls->o, err, sizeof(err));
	return NULL;
}

struct bp_local_server *bp_local_server_start(char *err, size_t errlen)
{
	struct bp_local_server *ls = calloc(1, sizeof(*ls));

	if (!ls) {
		snprintf(err, errlen, "local server: out of memory");
		return NULL;
	}
	ls->o = (struct bp_server_opts){
		.bind = "127.0.0.1", .port = 0, .max_clients = 4,
		.idle_timeout_ns = 5 * BP_NS_PER_SEC, .ready = on_ready, .ready_arg = ls,
	};
	pthread_mutex_init(&ls->lock, NULL);
	pthread_cond_init(&ls->cond, NULL);
	if (pthread_create(&ls->tid, NULL, server_thread, ls)) {
		snprintf(err, errlen, "local server: cannot start a thread");
		free(ls);
		return NULL;
	}
	pthread_mutex_lock(&ls->lock);
	while (!ls->state)
		pthread_cond_wait(&ls->cond, &ls->lock);
	pthread_mutex_unlock(&ls->lock);
	if (ls->state < 0) {
		snprintf(err, errlen, "local server: %s", ls->err);
		pthread_join(ls->tid, NULL);
		free(ls);
		return NULL;
	}
	return ls;
}

unsigned bp_local_server_port(const struct bp_local_server *ls)
{
	return ls->port;
}

void bp_local_server_stop(struct bp_local_server *ls)
{
	if (!ls)
		return;
	bp_loop_stop(ls->loop);
	bp_loop_wake(ls->loop);
	pthread_join(ls->tid, NULL);
	pthread_mutex_destroy(&ls->lock);
	pthread_cond_destroy(&ls->cond);
	free(ls);
}
