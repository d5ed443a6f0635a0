#include "disk/disk_device.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "board/cpu.h"
#include "board/cpufreq.h"
#include "board/devpath.h"
#include "board/sysfs.h"
#include "core/units.h"
#include "result/result.h"

/* Appends ", label value" when value is known. */
static void append_field(char *buf, size_t len, const char *label, const char *value)
{
	size_t used = strlen(buf);

	if (value[0] && used < len)
		snprintf(buf + used, len - used, ", %s %s", label, value);
}

void bp_disk_device_describe(const struct bp_blockdev_info *dev, char *buf, size_t len)
{
	bp_blockdev_describe(dev, buf, len);
	/* a card's CID tells cards of one name apart: who made it, and when */
	if (dev->is_block == 1 && !strcmp(dev->bus, "mmc")) {
		append_field(buf, len, "manfid", dev->mmc.manfid);
		append_field(buf, len, "oemid", dev->mmc.oemid);
		append_field(buf, len, "date", dev->mmc.date);
	}
}

/* obj[key] as an object, made when missing; NULL when out of memory or not an object. */
static json_t *child_object(json_t *obj, const char *key)
{
	json_t *o = json_object_get(obj, key);

	if (o)
		return json_is_object(o) ? o : NULL;
	o = json_object();
	if (!o || json_object_set_new(obj, key, o))
		return NULL;
	return o;
}

int bp_disk_device_record(struct bp_result *r, const struct bp_blockdev_info *dev)
{
	char text[512];
	json_t *inv;

	bp_disk_device_describe(dev, text, sizeof(text));
	if (!r->params)
		bp_result_set_params(r, json_object());
	if (!r->env)
		bp_result_set_env(r, json_object());
	inv = r->env ? child_object(r->env, "inventory") : NULL;
	if (!json_is_object(r->params) || !inv ||
	    json_object_set_new(r->params, "device", json_string(text)) ||
	    json_object_set_new(r->params, "filesystem",
				dev->fstype[0] ? json_string(dev->fstype) : json_null()) ||
	    json_object_set_new(inv, "storage", bp_blockdev_to_json(dev)))
		return -ENOMEM;
	return 0;
}

double bp_disk_bus_ceiling(const struct bp_blockdev_info *dev)
{
	return isfinite(dev->usb_speed_mbps) && dev->usb_speed_mbps > 0 ?
	       dev->usb_speed_mbps * 1e6 / 8 : NAN;
}

static int warn_page_cache(struct bp_result *r, const struct bp_disk_facts *f)
{
	char set[32], ram[32], cached[64] = "";

	if (f->direct)
		return 0;
	if (bp_disk_mode_reads(f->mode) && f->mem_total != BP_INT_UNKNOWN &&
	    f->working_set <= (uint64_t)f->mem_total) {
		if (isfinite(f->cached_share))
			snprintf(cached, sizeof(cached), " (%.0f %% of it was cached when the run "
				 "started)", f->cached_share * 100);
		return bp_result_add_warning(r, "page-cache", "the %s working set fits in the %s "
					     "of RAM and --direct is off: reads may come from the "
					     "page cache%s, not from the device; use --direct, or a "
					     "--size well above the RAM",
					     bp_format_bytes(set, sizeof(set), (double)f->working_set),
					     bp_format_bytes(ram, sizeof(ram), (double)f->mem_total),
					     cached);
	}
	if (bp_disk_mode_writes(f->mode) && !f->syncs)
		return bp_result_add_warning(r, "page-cache", "no fsync and no --direct: the "
					     "writes stay in the page cache, the device may not "
					     "have seen them yet");
	return 0;
}

static int warn_bus(struct bp_result *r, const struct bp_disk_facts *f)
{
	double ceiling = bp_disk_bus_ceiling(f->dev);
	const double rate[2] = { f->read_rate, f->write_rate };
	const char *const what[2] = { "read", "write" };
	char speed[16], a[32], b[32];
	int rc = 0;

	if (isnan(ceiling))
		return 0;
	bp_usb_speed_label(f->dev->usb_speed_mbps, speed, sizeof(speed));
	if (f->dev->usb_speed_mbps <= 480)
		rc = bp_result_add_warning(r, "usb-2.0-storage", "%s hangs on a USB %s link: no "
					   "figure can pass %s, whatever the device could do; a "
					   "USB 3 port lifts that ceiling", f->dev->name, speed,
					   bp_format_byte_rate(a, sizeof(a), ceiling));
	for (int i = 0; i < 2 && !rc; i++)
		if (isfinite(rate[i]) && rate[i] > ceiling)
			rc = bp_result_add_warning(r, "exceeds-bus", "%s %s is above the %s a "
						   "USB %s link carries: those bytes came from the "
						   "page cache, not from %s", what[i],
						   bp_format_byte_rate(a, sizeof(a), rate[i]),
						   bp_format_byte_rate(b, sizeof(b), ceiling), speed,
						   f->dev->name);
	return rc;
}

int bp_disk_device_warn(struct bp_result *r, const struct bp_disk_facts *f)
{
	int rc = 0;

	if (f->dev->is_block == 0)
		rc = bp_result_add_warning(r, "not-a-block-device", "%s is on %s, not on a block "
					   "device: the figures are not a disk's", f->dir,
					   f->dev->fstype[0] ? f->dev->fstype : "an unknown filesystem");
	if (!rc)
		rc = warn_page_cache(r, f);
	if (!rc)
		rc = warn_bus(r, f);
	return rc;
}

/* A core whose clock may wander: a governor other than performance, and room to move. */
static bool clock_may_drop(const struct bp_cpufreq_core *c)
{
	return c->governor[0] && strcmp(c->governor, "performance") &&
	       c->scaling_min_khz != BP_INT_UNKNOWN && c->scaling_max_khz != BP_INT_UNKNOWN &&
	       c->scaling_min_khz < c->scaling_max_khz;
}

int bp_disk_governor_warn(struct bp_result *r, const char *root)
{
	struct bp_cpu_info cpu;
	struct bp_cpufreq_core first = { 0 }, c;
	int n = 0, rc = 0;

	if (bp_cpu_read(root, &cpu))
		return -ENOMEM;
	for (int i = 0; i < cpu.n_cores; i++) {
		if (bp_cpufreq_read(root, cpu.cores[i].cpu, &c) || !clock_may_drop(&c))
			continue;
		if (!n++)
			first = c;
	}
	if (n)
		rc = bp_result_add_warning(r, "cpu-governor", "CPU %d runs the '%s' governor "
					   "(%.0f to %.0f MHz; %d of %d cores may lower their "
					   "clock): while a request waits for the device the core "
					   "idles and its clock may drop, which slows the next "
					   "request; 'performance' gives repeatable figures",
					   first.cpu, first.governor, first.scaling_min_khz / 1e3,
					   first.scaling_max_khz / 1e3, n, cpu.n_cores);
	bp_cpu_free(&cpu);
	return rc;
}
