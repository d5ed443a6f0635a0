#include "cli/save.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "result/render.h"
#include "store/store.h"

int bp_cli_check_store_opts(const struct bp_common_opts *c, char *err, size_t errlen)
{
	size_t n = c->label ? strlen(c->label) : 1;

	if (n == 0 || n > 63) {
		snprintf(err, errlen, "--label '%s': expected a name of 1 to 63 characters",
			 c->label);
		return -EINVAL;
	}
	for (const char *p = c->label; p && *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			snprintf(err, errlen, "--label: expected a name without control characters");
			return -EINVAL;
		}
	}
	if (c->db && !c->db[0]) {
		snprintf(err, errlen, "--db '': expected a file name");
		return -EINVAL;
	}
	return 0;
}

/* One result's forms: the printed one, and text and CSV rendered where they are not it. */
#define MAX_FORMS 3
struct forms_of {
	struct bp_store_form v[MAX_FORMS];
	char *owned[MAX_FORMS];
	size_t n;
};

static void add_form(struct forms_of *f, const char *format, const char *body, size_t len,
		     bool printed, char *owned)
{
	if (f->n >= MAX_FORMS) {
		free(owned);
		return;
	}
	f->v[f->n] = (struct bp_store_form){ format, body, len, printed };
	f->owned[f->n++] = owned;
}

/* r rendered as fmt into memory; nothing added when rendering fails. */
static void add_rendered(struct forms_of *f, const struct bp_result *r, enum bp_format fmt,
			 const char *format)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int rc;

	if (!m)
		return;
	rc = bp_render(m, r, fmt);
	if (fclose(m) || rc) {
		free(buf);
		return;
	}
	add_form(f, format, buf, len, false, buf);
}

static void fill_forms(struct forms_of *f, const struct bp_result *r, const char *printed,
		       size_t len, const char *format)
{
	memset(f, 0, sizeof(*f));
	if (printed && format)
		add_form(f, format, printed, len, true, NULL);
	if (!printed || !format || strcmp(format, "text"))
		add_rendered(f, r, BP_FORMAT_TEXT, "text");
	if (!printed || !format || strcmp(format, "csv"))
		add_rendered(f, r, BP_FORMAT_CSV, "csv");
}

static void free_forms(struct forms_of *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < f[i].n; k++)
			free(f[i].owned[k]);
	free(f);
}

void bp_cli_save(const struct bp_result *r, const struct bp_common_opts *c, const char *printed,
		 size_t len, const char *format)
{
	size_t nforms = 1 + r->nchildren;
	struct forms_of *f = calloc(nforms, sizeof(*f));
	struct bp_store_forms *lists = calloc(nforms, sizeof(*lists));
	json_t *doc = bp_result_to_json(r);
	char err[640] = "";
	struct bp_store *s = NULL;
	int64_t id = 0;
	int rc = -ENOMEM;

	if (!f || !lists || !doc) {
		snprintf(err, sizeof(err), "out of memory");
		goto out;
	}
	fill_forms(&f[0], r, printed, len, format);
	for (size_t i = 0; i < r->nchildren; i++)
		fill_forms(&f[1 + i], r->children[i], NULL, 0, NULL);
	for (size_t i = 0; i < nforms; i++)
		lists[i] = (struct bp_store_forms){ f[i].v, f[i].n };
	s = bp_store_open(c->db, true, err, sizeof(err));
	rc = s ? bp_store_save_forms(s, doc, lists, nforms, &id, err, sizeof(err)) : -EIO;
out:
	if (rc)
		bp_warn("not saved: %s (the result above is complete; --no-save skips saving)",
			err);
	else
		bp_debug("saved as result %lld in %s", (long long)id, bp_store_path(s));
	bp_store_close(s);
	json_decref(doc);
	free(lists);
	if (f)
		free_forms(f, nforms);
}
