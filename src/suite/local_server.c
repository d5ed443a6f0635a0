#include "suite/local_server.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/log.h"
#include "core/side_cpu.h"
#include "io/loop.h"
#include "server/server.h"

/* The log kept for a failure: a test's few lines, bounded against a chatty one. */
#define LOG_KEEP_BYTES (16 * 1024)

struct bp_local_server {
	pthread_t tid;
	struct bp_server_opts o;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int state;            /* 0 starting, 1 listening, -1 failed */
	unsigned port;
	struct bp_loop *loop;
	char err[256];
	char log[LOG_KEEP_BYTES];  /* kept lines, each ending in '\n'; only its thread writes */
	size_t log_len;
	bool log_cut;              /* lines were dropped: the buffer was full */
};

/* The server thread's log: shown at once with -v, else kept for bp_local_server_stop. */
static void keep_line(void *arg, enum bp_log_level level, const char *line)
{
	struct bp_local_server *ls = arg;
	size_t n = strlen(line);

	if (bp_log_get_level() >= BP_LOG_DEBUG) {
		/* on stderr like the suite's own lines, marked as the server's */
		bp_log_set_thread_sink(NULL, NULL);
		bp_log(level, "server: %s", line);
		bp_log_set_thread_sink(keep_line, ls);
		return;
	}
	if (ls->log_len + n + 1 >= sizeof(ls->log)) {
		ls->log_cut = true;
		return;
	}
	memcpy(ls->log + ls->log_len, line, n);
	ls->log_len += n;
	ls->log[ls->log_len++] = '\n';
}

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

	/* before the server starts a thread: they take this name (core/side_cpu.h) */
	pthread_setname_np(pthread_self(), BP_THREAD_NAME_LOCAL_SERVER);
	bp_log_set_thread_sink(keep_line, ls);
	bp_server_run(&ls->o, err, sizeof(err));
	bp_log_set_thread_sink(NULL, NULL);
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

/* The kept lines on stderr, each as the -v form shows it. */
static void show_log(const struct bp_local_server *ls)
{
	for (size_t at = 0; at < ls->log_len;) {
		const char *nl = memchr(ls->log + at, '\n', ls->log_len - at);
		size_t n = (size_t)(nl - (ls->log + at));

		bp_info("server: %.*s", (int)n, ls->log + at);
		at += n + 1;
	}
	if (ls->log_cut)
		bp_info("server: (later lines dropped: more than %d KiB of log)",
			LOG_KEEP_BYTES / 1024);
}

void bp_local_server_stop(struct bp_local_server *ls, bool show)
{
	if (!ls)
		return;
	bp_loop_stop(ls->loop);
	bp_loop_wake(ls->loop);
	pthread_join(ls->tid, NULL);
	if (show)
		show_log(ls);
	pthread_mutex_destroy(&ls->lock);
	pthread_cond_destroy(&ls->cond);
	free(ls);
}
