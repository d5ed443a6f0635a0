#include "board/board.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "board/jsonval.h"
#include "board/sysfs.h"

/* Vendor prefixes of root compatible strings that name a SoC, with how people write them. */
static const struct {
	const char *prefix;
	const char *name;
} soc_vendors[] = {
	{ "allwinner", "Allwinner" },	{ "brcm", "Broadcom" },
	{ "rockchip", "Rockchip" },	{ "amlogic", "Amlogic" },
	{ "fsl", "NXP" },		{ "nxp", "NXP" },
	{ "qcom", "Qualcomm" },		{ "mediatek", "MediaTek" },
	{ "samsung", "Samsung" },	{ "ti", "TI" },
	{ "nvidia", "NVIDIA" },		{ "starfive", "StarFive" },
	{ "marvell", "Marvell" },	{ "sophgo", "Sophgo" },
};

/* Chip part of a compatible as marketed: "sun8i-h2-plus" -> "H2+", "imx6q" -> "i.MX6Q". */
static int chip_name(const char *vendor, const char *part, char *out, size_t len)
{
	const char *dash;
	size_t o = 0;

	/* Allwinner names the die family first (sun7i, sun50i, suniv); the chip follows. */
	if (strcmp(vendor, "allwinner") == 0 && strncmp(part, "sun", 3) == 0) {
		dash = strchr(part, '-');
		if (!dash)
			return -1;
		part = dash + 1;
	}
	/* "meson-gxl" is a family of several chips, not one we can name */
	if (strncmp(part, "meson", 5) == 0)
		return -1;
	if (strncmp(part, "imx", 3) == 0) {
		o = (size_t)snprintf(out, len, "i.MX");
		part += 3;
	}
	for (; *part && o + 2 < len; part++) {
		if (strcmp(part, "-plus") == 0) {
			out[o++] = '+';
			break;
		}
		out[o++] = (char)toupper((unsigned char)*part);
	}
	out[o] = '\0';
	return o ? 0 : -1;
}

const char *bp_soc_from_compatible(const char *compat, char *buf, size_t len)
{
	const char *comma = strchr(compat, ',');
	char vendor[32], chip[48];
	size_t vlen;

	if (!comma || comma == compat)
		return NULL;
	vlen = (size_t)(comma - compat);
	if (vlen >= sizeof(vendor))
		return NULL;
	memcpy(vendor, compat, vlen);
	vendor[vlen] = '\0';
	for (size_t i = 0; i < sizeof(soc_vendors) / sizeof(soc_vendors[0]); i++) {
		if (strcmp(vendor, soc_vendors[i].prefix) != 0)
			continue;
		if (chip_name(vendor, comma + 1, chip, sizeof(chip)) < 0)
			return NULL;
		snprintf(buf, len, "%s %s", soc_vendors[i].name, chip);
		return buf;
	}
	return NULL;
}

/* The device tree's root compatible: NUL-separated, most specific first. */
static void read_compatible(const char *root, struct bp_board_info *b)
{
	static const char *const paths[] = {
		"/sys/firmware/devicetree/base/compatible",
		"/proc/device-tree/compatible",
	};
	char raw[1024];
	ssize_t n = -1;

	for (size_t i = 0; i < 2 && n <= 0; i++)
		n = bp_sysfs_raw(root, raw, sizeof(raw), "%s", paths[i]);
	for (ssize_t off = 0; n > 0 && off < n && b->n_compatible < BP_BOARD_MAX_COMPAT;) {
		const char *s = raw + off;
		size_t sl = strlen(s);

		if (sl)
			bp_strlcpy(b->compatible[b->n_compatible++], s, sizeof(b->compatible[0]));
		off += (ssize_t)sl + 1;
	}
	/* the last entries are the generic ones, which is where the SoC is named */
	for (int i = b->n_compatible - 1; i >= 0; i--)
		if (bp_soc_from_compatible(b->compatible[i], b->soc, sizeof(b->soc)))
			break;
}

/* Firmware fills unused DMI fields with these; they name nothing. */
static int dmi_placeholder(const char *s)
{
	static const char *const junk[] = {
		"To Be Filled By O.E.M.", "System Product Name", "Default string",
		"System manufacturer", "Not Applicable", "None", "O.E.M.",
	};

	if (!*s)
		return 1;
	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
		if (strcasecmp(s, junk[i]) == 0)
			return 1;
	return 0;
}

static void read_dmi(const char *root, struct bp_board_info *b)
{
	struct bp_dmi_info *d = &b->dmi;
	const char *vendor, *product;

	bp_sysfs_str(root, d->sys_vendor, sizeof(d->sys_vendor), "/sys/class/dmi/id/sys_vendor");
	bp_sysfs_str(root, d->product_name, sizeof(d->product_name),
		     "/sys/class/dmi/id/product_name");
	bp_sysfs_str(root, d->board_vendor, sizeof(d->board_vendor),
		     "/sys/class/dmi/id/board_vendor");
	bp_sysfs_str(root, d->board_name, sizeof(d->board_name), "/sys/class/dmi/id/board_name");
	bp_sysfs_str(root, d->bios_version, sizeof(d->bios_version),
		     "/sys/class/dmi/id/bios_version");
	if (b->model[0])
		return;
	vendor = dmi_placeholder(d->sys_vendor) ? d->board_vendor : d->sys_vendor;
	product = dmi_placeholder(d->product_name) ? d->board_name : d->product_name;
	if (dmi_placeholder(product))
		return;
	snprintf(b->model, sizeof(b->model), "%s%s%s", dmi_placeholder(vendor) ? "" : vendor,
		 dmi_placeholder(vendor) ? "" : " ", product);
	bp_strlcpy(b->source, "dmi", sizeof(b->source));
}

/* Raspberry Pi kernels repeat the model as "Model : ..." at the end of /proc/cpuinfo. */
static void read_cpuinfo_model(const char *root, struct bp_board_info *b)
{
	FILE *f = bp_sysfs_fopen(root, "/proc/cpuinfo");
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "Model", 5) != 0 || !colon || !isspace((unsigned char)line[5]))
			continue;
		bp_strlcpy(b->model, bp_trim(colon + 1), sizeof(b->model));
		if (b->model[0])
			bp_strlcpy(b->source, "cpuinfo", sizeof(b->source));
	}
	fclose(f);
}

int bp_board_read(const char *root, struct bp_board_info *b)
{
	memset(b, 0, sizeof(*b));
	/*
	 * sysfs first: /proc/device-tree is an absolute symlink to it, which in a copied
	 * tree (--root) would lead to the host's device tree instead of the board's.
	 */
	if (bp_sysfs_str(root, b->model, sizeof(b->model), "/sys/firmware/devicetree/base/model"))
		bp_sysfs_str(root, b->model, sizeof(b->model), "/proc/device-tree/model");
	if (b->model[0])
		bp_strlcpy(b->source, "device-tree", sizeof(b->source));
	read_compatible(root, b);
	read_dmi(root, b);
	if (!b->model[0])
		read_cpuinfo_model(root, b);
	return 0;
}

json_t *bp_board_to_json(const struct bp_board_info *b)
{
	json_t *o = json_object(), *compat = json_array(), *dmi = json_object();

	for (int i = 0; i < b->n_compatible; i++)
		json_array_append_new(compat, json_string(b->compatible[i]));
	bp_json_put(dmi, "sys_vendor", bp_json_str_or_null(b->dmi.sys_vendor));
	bp_json_put(dmi, "product_name", bp_json_str_or_null(b->dmi.product_name));
	bp_json_put(dmi, "board_vendor", bp_json_str_or_null(b->dmi.board_vendor));
	bp_json_put(dmi, "board_name", bp_json_str_or_null(b->dmi.board_name));
	bp_json_put(dmi, "bios_version", bp_json_str_or_null(b->dmi.bios_version));
	bp_json_put(o, "model", bp_json_str_or_null(b->model));
	bp_json_put(o, "model_source", bp_json_str_or_null(b->source));
	bp_json_put(o, "soc", bp_json_str_or_null(b->soc));
	bp_json_put(o, "compatible", compat);
	bp_json_put(o, "dmi", dmi);
	return o;
}
