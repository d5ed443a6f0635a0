/*
 * A `boardperf serve` inside this process, on a loopback port the kernel picks, for suites
 * that test the network stack of this very machine (`boardperf run`).
 *
 * Its log lines ("listening on ...", one line per test) are not the suite's output: they are
 * kept apart (core/log.h's thread sink) and shown on stderr, each as "server: LINE", only
 * with -v (as they come) or when the suite asks for them (a test that failed). Its thread
 * takes the name BP_THREAD_NAME_LOCAL_SERVER, which the threads it starts inherit, so that
 * each side of a test counts only its own CPU time (core/side_cpu.h).
 */
#ifndef BP_SUITE_LOCAL_SERVER_H
#define BP_SUITE_LOCAL_SERVER_H

#include <stdbool.h>
#include <stddef.h>

struct bp_local_server;

/* Listening on 127.0.0.1 when it returns; NULL with a message otherwise. */
struct bp_local_server *bp_local_server_start(char *err, size_t errlen);
unsigned bp_local_server_port(const struct bp_local_server *ls);
/*
 * Stop it (whatever it is doing) and free it; with show_log, first its log lines kept so far
 * go to stderr (those -v already showed are not kept).
 */
void bp_local_server_stop(struct bp_local_server *ls, bool show_log);

#endif
