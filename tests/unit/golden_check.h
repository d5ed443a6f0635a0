/*
 * Golden-file checks for a unit test that renders results: the rendering is compared byte
 * for byte with GOLDEN_DIR/<name>.<txt|json|csv> (golden_check_text: any text against
 * GOLDEN_DIR/<file>), and BP_UPDATE_GOLDEN=1 rewrites the file
 * instead (then review `git diff tests/unit/golden`). Include after tap.h.
 */
#ifndef BP_TESTS_GOLDEN_CHECK_H
#define BP_TESTS_GOLDEN_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result/render.h"

static inline char *golden_render(const struct bp_result *r, enum bp_format format)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return NULL;
	err = bp_render(f, r, format);
	fclose(f);
	if (err)
		printf("# bp_render: %s\n", strerror(-err));
	return buf;
}

static inline char *golden_read(const char *path)
{
	FILE *f = fopen(path, "rb"), *m;
	char *buf = NULL;
	size_t len = 0;
	int c;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	while (m && (c = fgetc(f)) != EOF)
		fputc(c, m);
	if (m)
		fclose(m);
	fclose(f);
	return buf;
}

/* The first line where two texts differ, as TAP comments. */
static inline void golden_first_difference(const char *got, const char *want)
{
	const char *g = got, *w = want;
	int line = 1;

	for (; *g && *g == *w; g++, w++)
		if (*g == '\n') {
			line++;
			got = g + 1;
			want = w + 1;
		}
	printf("#   first difference on line %d\n", line);
	printf("#   got:  '%.*s'\n", (int)strcspn(got, "\n"), got);
	printf("#   want: '%.*s'\n", (int)strcspn(want, "\n"), want);
}

/*
 * Any rendered text against GOLDEN_DIR/file (a file name with its extension: an SVG chart,
 * an HTML page); got may be NULL (the rendering failed), which fails the check.
 */
static inline void golden_check_text(const char *dir, const char *got, const char *file)
{
	const char *update = getenv("BP_UPDATE_GOLDEN");
	char path[4096], what[256];
	char *want;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	snprintf(what, sizeof(what), "golden %s", file);
	if (got && update && !strcmp(update, "1")) {
		f = fopen(path, "wb");
		tap_result(f && fputs(got, f) >= 0 && !fclose(f), __FILE__, __LINE__, what);
		printf("# rewrote %s\n", path);
		return;
	}
	want = golden_read(path);
	tap_result(got && want && !strcmp(got, want), __FILE__, __LINE__, what);
	if (!want)
		printf("#   cannot read %s (BP_UPDATE_GOLDEN=1 creates it)\n", path);
	else if (got && strcmp(got, want))
		golden_first_difference(got, want);
	free(want);
}

static inline void golden_check(const char *dir, const struct bp_result *r, const char *name,
			 enum bp_format format)
{
	static const char *const ext[] = { "txt", "json", "csv" };
	char file[256];
	char *got = golden_render(r, format);

	snprintf(file, sizeof(file), "%s.%s", name, ext[format]);
	golden_check_text(dir, got, file);
	free(got);
}

#endif
