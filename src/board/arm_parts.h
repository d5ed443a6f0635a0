/*
 * ARM core names from the MIDR fields /proc/cpuinfo prints as "CPU implementer" and
 * "CPU part". The table was checked against the Linux kernel's
 * arch/arm64/include/asm/cputype.h and util-linux's lscpu-arm.c.
 */
#ifndef BP_BOARD_ARM_PARTS_H
#define BP_BOARD_ARM_PARTS_H

/* "Cortex-A72" for (0x41, 0xd08); NULL when unknown. */
const char *bp_arm_core_name(unsigned implementer, unsigned part);

/* "ARM", "Broadcom", "Qualcomm", "Apple", ...; NULL when unknown. */
const char *bp_arm_implementer_name(unsigned implementer);

#endif
