/*
 * Hardware and OS inventory, read only from files under a root directory ("/" on the real
 * machine; a fixture tree shaped like a Cubietruck, an Orange Pi Zero, a Raspberry Pi 4 or
 * an x86 PC in unit tests). Anything missing reads as null in JSON ("unknown" in the text);
 * nothing here fails because a file is absent.
 */
#ifndef BP_BOARD_INVENTORY_H
#define BP_BOARD_INVENTORY_H

#include <jansson.h>

/*
 * The whole inventory as a JSON object (new reference): board, cpu (with per-core clocks
 * and governor), thermal, memory, os (kernel, distribution), nics, throttle, gpio (the GPIO
 * chips: name, label, lines), and, when
 * dir is not NULL, storage: the block device behind dir.
 */
json_t *bp_inventory_collect(const char *root, const char *dir);

#endif
