/*
 * Which board this is: the device-tree model and compatible list on ARM boards, DMI on
 * PCs, and a SoC name guessed from the compatible list ("allwinner,sun7i-a20" ->
 * "Allwinner A20") so results from the same chip group together.
 */
#ifndef BP_BOARD_BOARD_H
#define BP_BOARD_BOARD_H

#include <jansson.h>

#define BP_BOARD_MAX_COMPAT 8

struct bp_dmi_info {
	char sys_vendor[64];
	char product_name[96];
	char board_vendor[64];
	char board_name[64];
	char bios_version[64];
};

struct bp_board_info {
	char model[192];	/* DT model, else DMI product, else cpuinfo "Model" */
	char source[16];	/* "device-tree", "dmi", "cpuinfo" or "" */
	char soc[64];		/* "Broadcom BCM2711" or "" */
	int n_compatible;
	char compatible[BP_BOARD_MAX_COMPAT][64];	/* most specific first */
	struct bp_dmi_info dmi;
};

/* Fills b; absent facts stay "". Returns 0 (nothing here is an error). */
int bp_board_read(const char *root, struct bp_board_info *b);

/*
 * The SoC named by one compatible string, or NULL when we do not know the vendor:
 * "allwinner,sun8i-h2-plus" -> "Allwinner H2+", "brcm,bcm2711" -> "Broadcom BCM2711".
 */
const char *bp_soc_from_compatible(const char *compat, char *buf, size_t len);

json_t *bp_board_to_json(const struct bp_board_info *b);

#endif
