#include "result/result_starve.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CODE "tester-cpu-starved"

/* r->cpu's "local" object, made (or a null put in its place) when the test left none. */
static json_t *local_object(struct bp_result *r)
{
	json_t *local;

	if (!json_is_object(r->cpu))
		bp_result_set_cpu(r, json_object());
	if (!r->cpu)
		return NULL;
	local = json_object_get(r->cpu, "local");
	if (json_is_object(local))
		return local;
	local = json_object();
	if (!local || json_object_set_new(r->cpu, "local", local))
		return NULL;
	return local;
}

/* A test that found starvation its own way (cpu, mem: a worker's share of its core) keeps
 * one warning of the code, with this sentence after its own. */
static int join_warning(struct bp_result *r, const char *msg)
{
	for (size_t i = 0; i < r->nwarnings; i++) {
		struct bp_warning *w = &r->warnings[i];
		size_t len;
		char *joined;

		if (strcmp(w->code, CODE))
			continue;
		len = strlen(w->message) + strlen(msg) + 3;
		joined = malloc(len);
		if (!joined)
			return -ENOMEM;
		snprintf(joined, len, "%s; %s", w->message, msg);
		free(w->message);
		w->message = joined;
		return 0;
	}
	return bp_result_add_warning(r, CODE, "%s", msg);
}

/*
 * A peer on this machine (-c 127.0.0.1, ::1, localhost): its threads are runnable on the
 * same CPUs, so on a machine with fewer cores than both ends' busy threads the tester
 * waits for its own peer, and the figure is what the machine does running both ends.
 */
static bool peer_on_this_machine(const struct bp_result *r)
{
	const char *host = json_string_value(json_object_get(r->params, "client"));

	return host && (!strncmp(host, "127.", 4) || !strcmp(host, "::1") ||
			!strcmp(host, "localhost"));
}

int bp_result_add_starvation(struct bp_result *r, const struct bp_starve_figures *f)
{
	char msg[768];
	json_t *local;

	if (!r->nmetrics && !r->nintervals)
		return 0;
	local = local_object(r);
	if (!local)
		return -ENOMEM;
	bp_starve_json_into(local, f);
	if (!bp_starve_judge(f, msg, sizeof(msg) - 256))
		return 0;
	if (peer_on_this_machine(r))
		snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), " (the peer runs on this "
			 "machine too: part of the wait was for its threads, and the figure is what "
			 "this machine does running both ends)");
	return join_warning(r, msg);
}
