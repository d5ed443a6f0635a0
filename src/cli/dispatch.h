/* Runs one command: parse its options, check, run the test, render the result. */
#ifndef BP_CLI_DISPATCH_H
#define BP_CLI_DISPATCH_H

#include "core/test.h"

/* Exit status of a run (docs/ARCHITECTURE.md, "Exit status"). */
enum {
	BP_EXIT_OK = 0,        /* measured */
	BP_EXIT_FAILED = 1,    /* could not measure: peer gone, permission, ... */
	BP_EXIT_USAGE = 2,     /* bad command line */
	BP_EXIT_VERDICT = 3,   /* measured, and the result failed its own threshold (pass 0) */
};

/* argv[0..argc) are the arguments after the command word. Returns the exit status. */
int bp_cli_run_command(const struct bp_test *t, int argc, char **argv, const char *argv0);

#endif
