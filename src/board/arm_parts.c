#include "board/arm_parts.h"

#include <stddef.h>

struct part {
	unsigned id;
	const char *name;
};

/* Arm Ltd designs (implementer 0x41): every core a cheap board has shipped with, and more. */
static const struct part arm_parts[] = {
	{ 0xb02, "ARM11 MPCore" },	{ 0xb36, "ARM1136" },
	{ 0xb56, "ARM1156" },		{ 0xb76, "ARM1176" },
	{ 0xc05, "Cortex-A5" },		{ 0xc07, "Cortex-A7" },
	{ 0xc08, "Cortex-A8" },		{ 0xc09, "Cortex-A9" },
	{ 0xc0d, "Cortex-A17" },	{ 0xc0e, "Cortex-A17" },
	{ 0xc0f, "Cortex-A15" },	{ 0xd01, "Cortex-A32" },
	{ 0xd02, "Cortex-A34" },	{ 0xd03, "Cortex-A53" },
	{ 0xd04, "Cortex-A35" },	{ 0xd05, "Cortex-A55" },
	{ 0xd06, "Cortex-A65" },	{ 0xd07, "Cortex-A57" },
	{ 0xd08, "Cortex-A72" },	{ 0xd09, "Cortex-A73" },
	{ 0xd0a, "Cortex-A75" },	{ 0xd0b, "Cortex-A76" },
	{ 0xd0c, "Neoverse-N1" },	{ 0xd0d, "Cortex-A77" },
	{ 0xd0e, "Cortex-A76AE" },	{ 0xd40, "Neoverse-V1" },
	{ 0xd41, "Cortex-A78" },	{ 0xd42, "Cortex-A78AE" },
	{ 0xd43, "Cortex-A65AE" },	{ 0xd44, "Cortex-X1" },
	{ 0xd46, "Cortex-A510" },	{ 0xd47, "Cortex-A710" },
	{ 0xd48, "Cortex-X2" },		{ 0xd49, "Neoverse-N2" },
	{ 0xd4a, "Neoverse-E1" },	{ 0xd4b, "Cortex-A78C" },
	{ 0xd4c, "Cortex-X1C" },	{ 0xd4d, "Cortex-A715" },
	{ 0xd4e, "Cortex-X3" },		{ 0xd4f, "Neoverse-V2" },
	{ 0xd80, "Cortex-A520" },	{ 0xd81, "Cortex-A720" },
	{ 0xd82, "Cortex-X4" },
	{ 0, NULL },
};

static const struct part broadcom_parts[] = {
	{ 0x00f, "Brahma-B15" },	{ 0x100, "Brahma-B53" },
	{ 0x516, "ThunderX2" },
	{ 0, NULL },
};

static const struct part qualcomm_parts[] = {
	{ 0x00f, "Scorpion" },		{ 0x02d, "Scorpion" },
	{ 0x04d, "Krait" },		{ 0x06f, "Krait" },
	{ 0x201, "Kryo" },		{ 0x205, "Kryo" },
	{ 0x211, "Kryo" },		{ 0x800, "Kryo-2XX-Gold" },
	{ 0x801, "Kryo-2XX-Silver" },	{ 0x802, "Kryo-3XX-Gold" },
	{ 0x803, "Kryo-3XX-Silver" },	{ 0x804, "Kryo-4XX-Gold" },
	{ 0x805, "Kryo-4XX-Silver" },	{ 0xc00, "Falkor" },
	{ 0xc01, "Saphira" },
	{ 0, NULL },
};

static const struct part apple_parts[] = {
	{ 0x020, "Icestorm-A14" },	{ 0x021, "Firestorm-A14" },
	{ 0x022, "Icestorm-M1" },	{ 0x023, "Firestorm-M1" },
	{ 0x024, "Icestorm-M1-Pro" },	{ 0x025, "Firestorm-M1-Pro" },
	{ 0x028, "Icestorm-M1-Max" },	{ 0x029, "Firestorm-M1-Max" },
	{ 0x032, "Blizzard-M2" },	{ 0x033, "Avalanche-M2" },
	{ 0, NULL },
};

static const struct part nvidia_parts[] = {
	{ 0x000, "Denver" },	{ 0x003, "Denver-2" },	{ 0x004, "Carmel" },
	{ 0, NULL },
};

static const struct part marvell_parts[] = {
	{ 0x131, "Feroceon-88FR131" },	{ 0x581, "PJ4/PJ4b" },	{ 0x584, "PJ4B-MP" },
	{ 0, NULL },
};

static const struct impl {
	unsigned id;
	const char *name;
	const struct part *parts;
} implementers[] = {
	{ 0x41, "ARM", arm_parts },
	{ 0x42, "Broadcom", broadcom_parts },
	{ 0x43, "Cavium", NULL },
	{ 0x46, "Fujitsu", NULL },
	{ 0x48, "HiSilicon", NULL },
	{ 0x4e, "NVIDIA", nvidia_parts },
	{ 0x50, "APM", NULL },
	{ 0x51, "Qualcomm", qualcomm_parts },
	{ 0x53, "Samsung", NULL },
	{ 0x56, "Marvell", marvell_parts },
	{ 0x61, "Apple", apple_parts },
	{ 0x69, "Intel", NULL },
	{ 0xc0, "Ampere", NULL },
};

static const struct impl *find_impl(unsigned implementer)
{
	for (size_t i = 0; i < sizeof(implementers) / sizeof(implementers[0]); i++)
		if (implementers[i].id == implementer)
			return &implementers[i];
	return NULL;
}

const char *bp_arm_implementer_name(unsigned implementer)
{
	const struct impl *im = find_impl(implementer);

	return im ? im->name : NULL;
}

const char *bp_arm_core_name(unsigned implementer, unsigned part)
{
	const struct impl *im = find_impl(implementer);

	if (!im || !im->parts)
		return NULL;
	for (const struct part *p = im->parts; p->name; p++)
		if (p->id == part)
			return p->name;
	return NULL;
}
