/* Every command boardperf knows (src/cli/registry.c): the only place that lists them all. */
#ifndef BP_CLI_REGISTRY_H
#define BP_CLI_REGISTRY_H

#include "core/test.h"

/* NULL-terminated, in the order `boardperf --help` lists them. */
extern const struct bp_test *const bp_tests[];

/*
 * Hand every command's kind (bp_test.kind) down to result/kind.c, once before a command
 * runs, so the levels below cli/ find a kind by name without calling up.
 */
void bp_registry_install_kinds(void);

/* The command named name, or NULL. */
const struct bp_test *bp_test_find(const char *name);

#endif
