/*
 * Every measuring kind's catalogue installed for a unit test that renders headlines
 * (result/headline.h reads them from the installed kinds; boardperf installs the
 * registry's at start, a unit test without the CLI installs these).
 */
#ifndef BP_TESTS_UNIT_KINDS_H
#define BP_TESTS_UNIT_KINDS_H

#include "cpu/cpu_metrics.h"
#include "disk/disk_metrics.h"
#include "gpio/gpio_metrics.h"
#include "http/http_metrics.h"
#include "mem/mem_metrics.h"
#include "rfc2544/rfc2544_metrics.h"
#include "rr/rr_metrics.h"
#include "stream/stream_metrics.h"
#include "suite/latency_metrics.h"
#include "suite/together_metrics.h"

static inline void install_all_kinds(void)
{
	static const struct bp_kind *const kinds[] = {
		&bp_kind_cpu, &bp_kind_mem, &bp_kind_disk, &bp_kind_gpio, &bp_kind_tcp,
		&bp_kind_udp, &bp_kind_rfc2544, &bp_kind_rr, &bp_kind_crr, &bp_kind_latency,
		&bp_kind_http, &bp_kind_together,
	};

	bp_kinds_install(kinds, sizeof(kinds) / sizeof(kinds[0]));
}

#endif
