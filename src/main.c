/* boardperf: command dispatch only. Everything else lives in src/cli and below. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/dispatch.h"
#include "cli/help.h"
#include "cli/registry.h"
#include "core/buildinfo.h"
#include "core/log.h"

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "run";
	const struct bp_test *t;
	int first = 2;

	bp_registry_install_kinds();

	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		bp_buildinfo_print(stdout);
		return BP_EXIT_OK;
	}
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		bp_cli_usage(stdout);
		return BP_EXIT_OK;
	}
	/*
	 * For packaging, not in --help (tools/deb/build.sh runs them on the build machine, under
	 * qemu-user for a cross build): `boardperf --man [DATE]` writes boardperf(1) in roff,
	 * `boardperf --bash-completion` the bash completion, both from the option tables
	 * (cli/help.h), in the same bytes whatever the terminal.
	 */
	if (!strcmp(cmd, "--man") || !strcmp(cmd, "--bash-completion")) {
		bool man = !strcmp(cmd, "--man");
		int rc;

		if (argc > (man ? 3 : 2)) {
			bp_error("usage: boardperf --man [DATE] or boardperf --bash-completion");
			return BP_EXIT_USAGE;
		}
		rc = man ? bp_cli_man(stdout, argc > 2 ? argv[2] : NULL) : bp_cli_completion(stdout);
		if (rc) {
			bp_error("writing the %s: %s", man ? "man page" : "completion", strerror(-rc));
			return BP_EXIT_FAILED;
		}
		return BP_EXIT_OK;
	}
	/* `boardperf -J` means `boardperf run -J`: options without a command go to run. */
	if (cmd[0] == '-') {
		cmd = "run";
		first = 1;
	}
	t = bp_test_find(cmd);
	if (!t) {
		bp_error("unknown command '%s' (try 'boardperf --help')", cmd);
		return BP_EXIT_USAGE;
	}
	if (argc < first)
		first = argc;
	return bp_cli_run_command(t, argc - first, argv + first, argv[0]);
}
