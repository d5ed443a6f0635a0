/*
 * The per-thread log sink (core/log.h): a thread with a sink gets its own lines there and
 * only those; the level filter still applies; without a sink, lines go to stderr. Every
 * line is escaped on its way out.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "tap.h"

struct kept {
	char text[512];
	int lines;
};

static void keep(void *arg, enum bp_log_level level, const char *line)
{
	struct kept *k = arg;
	size_t used = strlen(k->text);

	snprintf(k->text + used, sizeof(k->text) - used, "%d:%s|", (int)level, line);
	k->lines++;
}

static struct kept in_thread;

/* A peer's text in a line: still one line, nothing a terminal would obey. */
static void *escaped_in_thread(void *arg)
{
	(void)arg;
	bp_log_set_thread_sink(keep, &in_thread);
	bp_info("bad parameters: test '%s'", "x\nFORGED LINE\x1b[2J\r");
	bp_log_set_thread_sink(NULL, NULL);
	return NULL;
}

static void *with_sink(void *arg)
{
	(void)arg;
	bp_log_set_thread_sink(keep, &in_thread);
	bp_info("listening on %s", "127.0.0.1:5201");
	bp_debug("not at this level");
	bp_warn("accept: %d", 24);
	bp_log_set_thread_sink(NULL, NULL);
	return NULL;
}

int main(void)
{
	pthread_t t;
	char buf[512] = { 0 };
	FILE *err;
	int saved;

	bp_log_set_level(BP_LOG_INFO);
	/* stderr into a file, to see what the main thread (no sink) printed meanwhile */
	fflush(stderr);
	saved = dup(2);
	err = tmpfile();
	dup2(fileno(err), 2);
	pthread_create(&t, NULL, with_sink, NULL);
	pthread_join(t, NULL);
	bp_info("main thread line");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(err);
	if (!fread(buf, 1, sizeof(buf) - 1, err))
		buf[0] = '\0';
	fclose(err);
	CHECK_INT(in_thread.lines, 2);
	CHECK(!strcmp(in_thread.text, "2:listening on 127.0.0.1:5201|1:accept: 24|"));
	CHECK(strstr(buf, "boardperf: main thread line\n") != NULL);
	CHECK(!strstr(buf, "listening") && !strstr(buf, "accept"));

	memset(&in_thread, 0, sizeof(in_thread));
	pthread_create(&t, NULL, escaped_in_thread, NULL);
	pthread_join(t, NULL);
	CHECK_INT(in_thread.lines, 1);
	CHECK_STR(in_thread.text, "2:bad parameters: test 'x\\x0AFORGED LINE\\x1B[2J\\x0D'|");
	return tap_done();
}
