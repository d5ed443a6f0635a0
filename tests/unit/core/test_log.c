/*
 * The per-thread log sink (core/log.h): a thread with a sink gets its own lines there and
 * only those; the level filter still applies; without a sink, lines go to stderr.
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

/*
 * A flood of the same line: a burst of five, then one a second, each after the first
 * counting what it dropped; a quiet while refills the burst.
 */
static void check_ratelimit_pass(void)
{
	static const struct {
		uint64_t at_ns;
		bool pass;
		unsigned long suppressed; /* reported with a passing line */
	} steps[] = {
		{ 0, true, 0 },                 /* the first line */
		{ 1, true, 0 },                 /* a burst: five lines close together all go out */
		{ 2, true, 0 },
		{ 3, true, 0 },
		{ 4, true, 0 },
		{ 5, false, 0 },                /* the sixth does not */
		{ 999999999, false, 0 },        /* nor anything until a second's credit came back */
		{ 1000000004, true, 2 },        /* then out, with the 2 dropped */
		{ 1000000005, false, 0 },
		{ 2000000004, true, 1 },        /* a flood: one a second */
		{ 2000000005, false, 0 },
		{ 9000000000, true, 1 },        /* a quiet while: the burst is back */
		{ 9000000001, true, 0 },
		{ 9000000002, true, 0 },
		{ 9000000003, true, 0 },
		{ 9000000004, true, 0 },
		{ 9000000005, false, 0 },
		{ 9000000006, false, 0 },
		{ 10000000000, true, 2 },
	};
	struct bp_ratelimit rl = { 0 };

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		unsigned long dropped = 99;
		/* from 10 s on, as a monotonic clock reads (0 is the limiter's "never") */
		bool pass = bp_ratelimit_pass(&rl, 10 * BP_RATELIMIT_NS + steps[i].at_ns, &dropped);

		CHECK_INT(pass, steps[i].pass);
		if (pass)
			CHECK_INT(dropped, steps[i].suppressed);
		else
			CHECK_INT(dropped, 99); /* untouched when the line is dropped */
	}
}

static void *ratelimited_in_thread(void *arg)
{
	struct bp_ratelimit *rl = arg;

	bp_log_set_thread_sink(keep, &in_thread);
	/* 1,000 lines in far less than a second: the burst goes out, the rest are counted */
	for (int i = 0; i < 1000; i++)
		bp_warn_ratelimited(rl, "accept: %s", "Too many open files");
	/* as if two seconds went by */
	rl->last_ns -= 2 * BP_RATELIMIT_NS;
	rl->refill_ns -= 2 * BP_RATELIMIT_NS;
	bp_warn_ratelimited(rl, "accept: %s", "Too many open files");
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

	check_ratelimit_pass();
	{
		struct bp_ratelimit rl = { 0 };

		memset(&in_thread, 0, sizeof(in_thread));
		pthread_create(&t, NULL, ratelimited_in_thread, &rl);
		pthread_join(t, NULL);
		CHECK_INT(in_thread.lines, BP_RATELIMIT_BURST + 1);
		CHECK(strstr(in_thread.text, "1:accept: Too many open files|1:accept: Too many "
			     "open files (995 similar lines suppressed in the last 2.0 s)|") != NULL);
		printf("# %s\n", in_thread.text);
	}
	return tap_done();
}
