#include "board/kmsg_result.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "board/net_path.h"

/* The devices and drivers on r's path: env.path's through[] and its NIC's driver. */
static size_t path_names(const struct bp_result *r, const char **names, size_t max)
{
	const json_t *path = json_object_get(r->env, "path");
	const json_t *through = json_object_get(path, "through");
	const char *driver = json_string_value(json_object_get(json_object_get(path, "nic"),
							       "driver"));
	size_t n = 0;

	for (size_t i = 0; i < json_array_size(through) && n + 2 < max; i++)
		if (json_string_value(json_array_get(through, i)))
			names[n++] = json_string_value(json_array_get(through, i));
	if (driver && n + 1 < max)
		names[n++] = driver;
	names[n] = NULL;
	return n;
}

int bp_kmsg_to_result(const struct bp_kmsg *k, struct bp_result *r)
{
	const char *names[BP_NET_PATH_MAX + 2];
	char quoted[BP_KMSG_QUOTED * (BP_KMSG_TEXT + 16)] = "";
	size_t on_path = 0, shown = 0;
	json_t *msgs;

	if (!k)
		return 0;
	if (!r->monitor)
		bp_result_set_monitor(r, json_object());
	if (!r->monitor)
		return -ENOMEM;
	if (k->fd < 0 && k->open_errno) {
		json_object_set_new(r->monitor, "kernel_messages", json_null());
		return 0;
	}
	path_names(r, names, sizeof(names) / sizeof(names[0]));
	msgs = bp_kmsg_json(k, names);
	if (!msgs || json_object_set_new(r->monitor, "kernel_messages", msgs) ||
	    json_object_set_new(r->monitor, "kernel_messages_more", json_integer((json_int_t)k->more)) ||
	    json_object_set_new(r->monitor, "kernel_messages_lost", json_integer((json_int_t)k->lost)))
		return -ENOMEM;
	if (!k->n)
		return 0;
	/* the ones on the path first (so any there is gets quoted), then the rest, each in the
	 * order they came */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < k->n && shown < BP_KMSG_QUOTED; i++) {
			bool mine = bp_kmsg_names_any(k->kept[i].text, names);

			if (mine != (pass == 0))
				continue;
			on_path += mine;
			snprintf(quoted + strlen(quoted), sizeof(quoted) - strlen(quoted),
				 "%s%s: \"%s\"", shown ? "; " : "",
				 bp_kmsg_level_name(k->kept[i].level), k->kept[i].text);
			shown++;
		}
	return bp_result_add_warning(r, "kernel-messages", "the kernel's log got %llu message%s "
				     "of warning level or worse during the test%s: %s%s",
				     (unsigned long long)(k->n + k->more), k->n + k->more == 1 ?
				     "" : "s", on_path ? " (some name a device or driver on "
				     "the test's path)" : "", quoted,
				     k->n + k->more > shown ? "; the rest in monitor.kernel_messages"
				     : "");
}
