/*
 * Fuzz target for the export of stored figures (src/export: om_name.c, om_text.c,
 * om_figures.c): what a database hands the writer (board, label, test, metric name, unit,
 * value) is bytes anyone may have put there, a document imported from another board or a
 * database edited by hand. The input is split at NUL bytes into such fields, six per
 * figure (the value as text), and the figures are written in both formats.
 *
 * Besides crashes and leaks, the target aborts when the output breaks the formats: every
 * line must be a "# TYPE|UNIT|HELP" line of a valid name, "# EOF", or a sample
 * `name{label="value",...} number` with a valid name, label values escaped as the specs
 * say (only \\, \" and \n), a finite number, and all of it UTF-8; no family may appear
 * twice, no two samples may be the same series.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export/om_figures.h"
#include "fuzz.h"

#define FIELDS 6
#define MAX_FIGURES 64

static bool name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
	       (!first && c >= '0' && c <= '9');
}

/* The name at *p (advanced past it); false when there is none. */
static bool read_name(const char **p)
{
	const char *s = *p;

	if (!name_char(*s, true))
		return false;
	while (name_char(*s, false))
		s++;
	*p = s;
	return true;
}

static bool utf8_ok(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 :
			     c >= 0xf0 && c <= 0xf4 ? 4 : 0;

		if (!len || i + len > n)
			return false;
		for (size_t k = 1; k < len; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
		i += len;
	}
	return true;
}

static void check_sample(const char *line)
{
	const char *p = line;
	char *end;
	double v;

	if (!read_name(&p))
		abort();
	if (*p == '{') {
		do {
			p++;
			if (!read_name(&p) || *p++ != '=' || *p++ != '"')
				abort();
			while (*p != '"') {
				if (!*p)
					abort();
				if (*p == '\\' && !(p[1] == '\\' || p[1] == '"' || p[1] == 'n'))
					abort();
				p += *p == '\\' ? 2 : 1;
			}
			p++;
		} while (*p == ',');
		if (*p++ != '}')
			abort();
	}
	if (*p++ != ' ')
		abort();
	v = strtod(p, &end);
	if (end == p || *end || !isfinite(v))
		abort();
}

static void check_output(char *text, size_t len, enum bp_om_format f)
{
	char *save = NULL;
	/* Names and series seen, each line "\nNAME\n" searchable as a whole. */
	char *families = calloc(1, len + 3), *series = calloc(1, len + 3), *skey;

	if (!families || !series || !utf8_ok((const unsigned char *)text, len))
		abort();
	families[0] = series[0] = '\n';
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(l, "# TYPE ", 7)) {
			const char *p = l + 7, *start = p;
			char key[256];

			if (!read_name(&p) || *p != ' ' || (size_t)(p - start) >= sizeof(key) - 2)
				abort();
			snprintf(key, sizeof(key), "\n%.*s\n", (int)(p - start), start);
			if (strstr(families, key))
				abort();  /* a family twice */
			strcat(families, key + 1);
		} else if (!strncmp(l, "# UNIT ", 7) || !strncmp(l, "# HELP ", 7)) {
			const char *p = l + 7;

			if (!read_name(&p) || *p != ' ' || (l[2] == 'U' && f != BP_OM_OPENMETRICS))
				abort();
		} else if (l[0] == '#') {
			if (strcmp(l, "# EOF") || f != BP_OM_OPENMETRICS)
				abort();
		} else {
			check_sample(l);
			*strrchr(l, ' ') = '\0';
			if (asprintf(&skey, "\n%s\n", l) < 0)
				abort();
			if (strstr(series, skey))
				abort();  /* the same series twice */
			strcat(series, skey + 1);
			free(skey);
		}
	}
	free(families);
	free(series);
}

static void write_and_check(struct bp_om_figures *set, enum bp_om_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		abort();
	bp_om_figures_write(set, out, f);
	bp_om_end(out, f);
	fclose(out);
	check_output(buf, len, f);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bp_om_figures set = { 0 };
	char *copy = malloc(size + 1);
	const char *field[FIELDS];
	size_t off = 0, nf = 0;

	if (!copy)
		abort();
	memcpy(copy, data, size);
	copy[size] = '\0';
	while (off <= size && set.n < MAX_FIGURES) {
		field[nf++] = copy + off;
		off += strlen(copy + off) + 1;
		if (nf == FIELDS) {
			if (bp_om_figures_add(&set, field[0], field[1], field[2], field[3], field[4],
					      strtod(field[5], NULL), (int64_t)set.n * 1000))
				abort();
			nf = 0;
		}
	}
	/* Each format writes from its own sort; both must hold. */
	write_and_check(&set, BP_OM_OPENMETRICS);
	write_and_check(&set, BP_OM_PROMETHEUS);
	bp_om_figures_free(&set);
	free(copy);
	return 0;
}
