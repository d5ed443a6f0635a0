/*
 * `boardperf show ID`: a saved result again, exactly as it was printed: the bytes the
 * command wrote (text with its interval lines, JSON, CSV or JSON Lines), or with --text,
 * --json or --csv that form as the command would have printed it. JSON is the document
 * itself, dumped as the JSON renderer dumps it; an imported document has only that form.
 * A control byte in a saved form is shown escaped (put_form).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "core/test.h"
#include "core/text_escape.h"
#include "store/store.h"

struct show_params {
	bool text;
};

static const struct bp_opt show_opts[] = {
	{ 0, "text", BP_OPT_FLAG, offsetof(struct show_params, text), NULL, NULL, 0, 0, NULL,
	  "the text form, whichever form the command printed" },
	BP_OPT_END_WITHOUT(BP_COMMON_SAVE | BP_COMMON_LABEL | BP_COMMON_REPEAT | BP_COMMON_MONITOR |
			   BP_COMMON_START),
};

static int show_check(void *params, const struct bp_parsed *parsed, char *err, size_t errlen)
{
	(void)params;
	if (parsed->npos != 1) {
		snprintf(err, errlen, "%s: expected one result id or label (see 'boardperf "
			 "history')", parsed->npos ? "too many arguments" : "no result given");
		return -EINVAL;
	}
	return 0;
}

/* The id spec names: a number as history prints it (#12 too), else a label's newest. */
static int64_t find_id(struct bp_store *s, const char *spec, char *err, size_t errlen)
{
	const char *digits = spec[0] == '#' ? spec + 1 : spec;
	char *end;
	long long id;

	if (digits[0] >= '0' && digits[0] <= '9') {
		id = strtoll(digits, &end, 10);
		if (!*end && id > 0)
			return id;
	}
	id = bp_store_latest_by_label(s, spec, NULL);
	if (id < 0)
		bp_store_read_failed(s, (int)id, err, errlen);
	else if (id == 0)
		snprintf(err, errlen, "'%s': expected a result id or a label: no such result "
			 "(see 'boardperf history')", spec);
	return id > 0 ? id : 0;
}

/* A failed write's reason: EPIPE when the reader went away (`| head`, no line then). */
static int write_error(void)
{
	return errno == EPIPE ? -EPIPE : -EIO;
}

/* The document as `--json` prints it (result/render_json.c: the same flags). */
static int print_doc(struct bp_store *s, int64_t id, FILE *out, char *err, size_t errlen)
{
	json_t *doc;
	int rc = bp_store_get_doc(s, id, &doc);

	if (rc && rc != -ENOENT)
		return bp_store_read_failed(s, rc, err, errlen);
	if (rc)
		return rc;
	if (json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))
	    || fputc('\n', out) == EOF)
		rc = write_error();
	json_decref(doc);
	return rc;
}

/*
 * A saved form as printed, but for what a peer's text could have left in it (a result
 * saved by an older boardperf holds a server's error as it came): control bytes other
 * than the lines' own and invalid UTF-8 are shown as \xNN (core/text_escape.h).
 */
static int put_form(const char *body, size_t len, FILE *out)
{
	char *safe = len < (SIZE_MAX - 1) / 4 ? malloc(4 * len + 1) : NULL;
	size_t n;
	int rc = 0;

	if (!safe)
		return -ENOMEM;
	n = bp_text_escape(safe, 4 * len + 1, body, len, BP_ESC_KEEP_LINES);
	if (fwrite(safe, 1, n, out) != n)
		rc = write_error();
	free(safe);
	return rc;
}

static int print_form(struct bp_store *s, int64_t id, const char *want, FILE *out, char *err,
		      size_t errlen)
{
	char fmt[16] = "", *body = NULL;
	size_t len = 0;
	int rc = bp_store_get_form(s, id, want, &body, &len, fmt, sizeof(fmt));

	/* A suite's child printed nothing of its own: its text is the default. */
	if (rc == -ENOENT && !want)
		rc = bp_store_get_form(s, id, "text", &body, &len, fmt, sizeof(fmt));
	if (rc && rc != -ENOENT)
		return bp_store_read_failed(s, rc, err, errlen);
	if (rc == -ENOENT && (!want || !strcmp(want, "json")))
		return print_doc(s, id, out, err, errlen);
	if (rc == -ENOENT) {
		snprintf(err, errlen, "result %lld has no %s form: %s", (long long)id, want,
			 !strcmp(want, "json-stream") ? "it was not printed with --json-stream"
			 : "it was imported from a file (show it with --json)");
		return -ENOENT;
	}
	if (!rc)
		rc = put_form(body, len, out);
	free(body);
	return rc;
}

static int show_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		    char *err, size_t errlen)
{
	const struct show_params *p = params;
	const struct bp_common_opts *c = ctx->common;
	const char *want = c->json ? "json" : c->csv ? "csv" : c->json_stream ? "json-stream"
			 : p->text ? "text" : NULL;
	struct bp_store *s;
	int64_t id;
	int rc;

	(void)r;
	if (p->text && (c->json || c->csv || c->json_stream)) {
		snprintf(err, errlen, "--text and --%s exclude each other",
			 c->json ? "json" : c->csv ? "csv" : "json-stream");
		return -EINVAL;
	}
	s = bp_store_open(c->db, false, err, errlen);
	if (!s)
		return -ENOENT;
	id = find_id(s, ctx->parsed->pos[0], err, errlen);
	rc = id ? print_form(s, id, want, ctx->out, err, errlen) : -ENOENT;
	if (rc == -ENOENT && id && !err[0])
		snprintf(err, errlen, "'%s': no such result (see 'boardperf history')",
			 ctx->parsed->pos[0]);
	bp_store_close(s);
	if (!rc && (fflush(ctx->out) || ferror(ctx->out)))
		rc = write_error();
	if (rc == -EIO && !err[0])
		snprintf(err, errlen, "writing the result: %s", strerror(EIO));
	return rc;
}

const struct bp_test bp_cmd_show = {
	.name = "show",
	.summary = "a saved result again, exactly as it was printed (or --text, --json, --csv)",
	.synopsis = "ID|LABEL [--text|--json|--csv|--json-stream]",
	.opts = show_opts,
	.params_size = sizeof(struct show_params),
	.check = show_check,
	.run = show_run,
	.no_result = true,
};
