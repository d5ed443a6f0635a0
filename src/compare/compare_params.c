/*
 * Which parameters make two runs measure different things. Each result carries its
 * effective parameters; the ones compared are the test's own (udp's length, tcp's
 * parallel, cpu's algo), not those that say where or on what it ran: the peer's address
 * and port (the quick suite picks a new port each time), the label, a folder, credentials,
 * the reporting interval and time-outs, and the facts a test records about the machine
 * (its CPU features, OpenSSL's version, the cache line, the storage device, how many
 * workers its cores allowed). Those differ between any two boards and would flag every
 * comparison; the headings show the board.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare_model.h"
#include "core/unconst.h"
#include "result/text_tree.h"

static const char *const ignored[] = {
	/* where, who, how it was reported */
	"label", "client", "server", "port", "bind", "dir", "folder", "username",
	"rsa-public-key-path", "rsa-padding", "psk", "connect-timeout", "idle-timeout",
	"interval",
	/* what the run found out about the machine */
	"workers", "openssl", "cpu_features", "line_bytes", "llc_bytes", "device",
	"filesystem", "cached_percent",
};

bool bp_cmp_param_ignored(const char *key)
{
	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		if (!strcmp(key, ignored[i]))
			return true;
	return false;
}

/* http's URL is compared by its path: the host and port are where, "/64k" is what. */
static const char *url_path(const char *url)
{
	const char *p = strstr(url, "://");

	p = p ? strchr(p + 3, '/') : NULL;
	return p ? p : "/";
}

/* Equal values; absent and null alike; 64 and 64.0 alike (a document read back). */
static bool same_value(const char *key, const json_t *a, const json_t *b)
{
	if (json_is_null(a))
		a = NULL;
	if (json_is_null(b))
		b = NULL;
	if (!a || !b)
		return a == b;
	if (json_is_number(a) && json_is_number(b))
		return json_number_value(a) == json_number_value(b);
	if (!strcmp(key, "url") && json_is_string(a) && json_is_string(b))
		return !strcmp(url_path(json_string_value(a)), url_path(json_string_value(b)));
	return json_equal(a, b);
}

/*
 * The facts of env.path (docs/json.md, "The path under a figure") that change what a
 * network figure measures, compared as parameters: a run over Wi-Fi against one over a
 * cable, one through a VLAN, at another negotiated speed or duplex. The device's name is
 * not among them: boards name the same port eth0 or end0.
 */
static const struct {
	const char *key, *path[3];
} path_facts[] = {
	{ "path.medium", { "medium" } },
	{ "path.vlan_id", { "vlan_id" } },
	{ "path.speed_mbps", { "nic", "speed_mbps" } },
	{ "path.duplex", { "nic", "duplex" } },
};

json_t *bp_cmp_params_compared(const json_t *doc)
{
	const json_t *params = json_object_get(doc, "params");
	const json_t *path = json_object_get(json_object_get(doc, "env"), "path");
	json_t *o = json_is_object(params) ? json_copy(bp_unconst(params)) : json_object();

	for (size_t i = 0; o && json_is_object(path) && i < sizeof(path_facts) /
	     sizeof(path_facts[0]); i++) {
		const json_t *v = path;

		for (size_t j = 0; j < 3 && path_facts[i].path[j]; j++)
			v = json_object_get(v, path_facts[i].path[j]);
		if (v && !json_is_null(v))
			json_object_set(o, path_facts[i].key, bp_unconst(v));
	}
	return o;
}

char *bp_cmp_param_text(const json_t *v)
{
	if (!v || json_is_null(v))
		return strdup("-");
	return bp_json_inline_text(v, BP_SCALAR_PLAIN);
}

static bool seen_before(const json_t *const *params, size_t k, const char *key)
{
	for (size_t j = 0; j < k; j++)
		if (json_object_get(params[j], key))
			return true;
	return false;
}

static int add_param(struct bp_cmp_group *g, const json_t *const *params, const char *key)
{
	struct bp_cmp_param *v = realloc(g->params, (g->nparams + 1) * sizeof(*v));
	struct bp_cmp_param *p;

	if (!v)
		return -ENOMEM;
	g->params = v;
	p = &v[g->nparams++];
	p->name = strdup(key);
	p->value = calloc(g->ncols, sizeof(*p->value));
	p->differs = calloc(g->ncols, sizeof(*p->differs));
	if (!p->name || !p->value || !p->differs)
		return -ENOMEM;
	for (size_t k = 0; k < g->ncols; k++) {
		p->value[k] = json_incref(json_object_get(params[k], key));
		p->differs[k] = !same_value(key, p->value[0], p->value[k]);
	}
	return 0;
}

int bp_cmp_params_diff(struct bp_cmp_group *g, const json_t *const *params)
{
	for (size_t k = 0; k < g->ncols; k++) {
		const char *key;
		json_t *val;

		json_object_foreach(bp_unconst(params[k]), key, val) {
			bool differs = false;
			int rc;

			(void)val;
			if (bp_cmp_param_ignored(key) || seen_before(params, k, key))
				continue;
			for (size_t j = 1; j < g->ncols && !differs; j++)
				differs = !same_value(key, json_object_get(params[0], key),
						      json_object_get(params[j], key));
			if (!differs)
				continue;
			rc = add_param(g, params, key);
			if (rc)
				return rc;
		}
	}
	return 0;
}
