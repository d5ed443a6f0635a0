#include "export/om_text.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"

const char *bp_om_content_type(enum bp_om_format f)
{
	return f == BP_OM_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; charset=utf-8" :
	       "text/plain; version=0.0.4; charset=utf-8";
}

void bp_om_utf8_clean(char *s)
{
	unsigned char *p = (unsigned char *)s;

	while (*p) {
		size_t n = bp_utf8_seq_len(p);

		if (!n)
			*p = '?';
		p += n ? n : 1;
	}
}

void bp_om_escape(FILE *out, enum bp_om_format f, const char *s, bool help)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = bp_utf8_seq_len(p);

		if (*p == '\\')
			fputs("\\\\", out);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '"' && (!help || f == BP_OM_OPENMETRICS))
			fputs("\\\"", out);
		else if (n == 0)
			fputc('?', out);
		else
			fwrite(p, 1, n, out);
		p += n ? n : 1;
	}
}

void bp_om_family(FILE *out, enum bp_om_format f, const char *name, enum bp_om_type type,
		  const char *unit, const char *help)
{
	/* The text format names a counter by its sample; OpenMetrics by the family. */
	const char *suffix = type == BP_OM_COUNTER && f == BP_OM_PROMETHEUS ? "_total" : "";

	fprintf(out, "# TYPE %s%s %s\n", name, suffix, type == BP_OM_COUNTER ? "counter" : "gauge");
	if (f == BP_OM_OPENMETRICS && unit && *unit)
		fprintf(out, "# UNIT %s %s\n", name, unit);
	if (help && *help) {
		fprintf(out, "# HELP %s%s ", name, suffix);
		bp_om_escape(out, f, help, true);
		fputc('\n', out);
	}
}

void bp_om_number(FILE *out, double v)
{
	char buf[40];

	/* The shortest of 15 or 17 digits that reads back as the same double. */
	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof(buf), "%.17g", v);
	fputs(buf, out);
}

bool bp_om_sample(FILE *out, enum bp_om_type type, const char *name,
		  const struct bp_om_label *labels, size_t nlabels, double value)
{
	bool open = false;

	if (!isfinite(value))
		return false;
	fprintf(out, "%s%s", name, type == BP_OM_COUNTER ? "_total" : "");
	for (size_t i = 0; i < nlabels; i++) {
		if (!labels[i].value || !*labels[i].value)
			continue;
		fprintf(out, "%s%s=\"", open ? "," : "{", labels[i].name);
		/* Label values escape the same in both formats. */
		bp_om_escape(out, BP_OM_OPENMETRICS, labels[i].value, false);
		fputc('"', out);
		open = true;
	}
	fprintf(out, "%s ", open ? "}" : "");
	bp_om_number(out, value);
	fputc('\n', out);
	return true;
}

void bp_om_end(FILE *out, enum bp_om_format f)
{
	if (f == BP_OM_OPENMETRICS)
		fputs("# EOF\n", out);
}

bool bp_om_valid_name(const char *s, bool label)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' ||
		      (*s >= '0' && *s <= '9') || (*s == ':' && !label)))
			return false;
	return true;
}
