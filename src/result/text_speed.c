#include "result/text_speed.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result/text_table.h"

#define NAME_LEN 64
#define MAX_ROWS 64
#define MAX_SIZES 16

/*
 * name is "ALGO.KEY" + suffix (suffix "" for one core, ".all" for every worker's sum):
 * copies ALGO and KEY. "sha256.16.worker0" or "rsa2048.sign.cpu" do not match "".
 */
static bool split_name(const char *name, const char *suffix, char *algo, char *key)
{
	size_t n = strlen(name), sl = strlen(suffix), dot;

	if (n <= sl || strcmp(name + n - sl, suffix))
		return false;
	n -= sl;
	for (dot = n; dot > 0 && name[dot - 1] != '.'; dot--)
		;
	if (dot < 2 || dot - 1 >= NAME_LEN || n - dot >= NAME_LEN || n == dot)
		return false;
	memcpy(algo, name, dot - 1);
	algo[dot - 1] = '\0';
	memcpy(key, name + dot, n - dot);
	key[n - dot] = '\0';
	return true;
}

static bool all_digits(const char *s)
{
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

enum kind { RATE, SIGNATURE };

/* A block rate in B/s ("sha256.8192") or a signature rate in op/s ("rsa2048.sign"). */
static bool classify(const struct bp_metric *m, const char *suffix, char *algo,
		     unsigned long *size, enum kind *kind)
{
	char key[NAME_LEN];

	if (!isfinite(m->value) || !split_name(m->name, suffix, algo, key))
		return false;
	if (!strcmp(m->unit, "B/s") && all_digits(key)) {
		*kind = RATE;
		*size = strtoul(key, NULL, 10);
		return *size > 0;
	}
	*kind = SIGNATURE;
	return !strcmp(m->unit, "op/s") && (!strcmp(key, "sign") || !strcmp(key, "verify"));
}

/* What one table shows: its algorithms in the result's order and the block sizes. */
struct layout {
	char algos[MAX_ROWS][NAME_LEN];
	size_t nalgos;
	unsigned long sizes[MAX_SIZES];
	size_t nsizes;
};

static void add_algo(struct layout *l, const char *algo)
{
	for (size_t i = 0; i < l->nalgos; i++)
		if (!strcmp(l->algos[i], algo))
			return;
	if (l->nalgos < MAX_ROWS)
		snprintf(l->algos[l->nalgos++], NAME_LEN, "%s", algo);
}

static void add_size(struct layout *l, unsigned long size)
{
	size_t i;

	for (i = 0; i < l->nsizes && l->sizes[i] < size; i++)
		;
	if ((i < l->nsizes && l->sizes[i] == size) || l->nsizes == MAX_SIZES)
		return;
	memmove(&l->sizes[i + 1], &l->sizes[i], (l->nsizes - i) * sizeof(l->sizes[0]));
	l->sizes[i] = size;
	l->nsizes++;
}

static void lay_out(const struct bp_result *r, const char *suffix, enum kind want,
		    struct layout *l)
{
	char algo[NAME_LEN];
	unsigned long size = 0;
	enum kind kind;

	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < r->nmetrics; i++) {
		if (!classify(&r->metrics[i], suffix, algo, &size, &kind) || kind != want)
			continue;
		add_algo(l, algo);
		if (kind == RATE)
			add_size(l, size);
	}
}

static const struct bp_metric *find(const struct bp_result *r, const char *algo,
				    const char *key, const char *suffix)
{
	char name[3 * NAME_LEN];

	snprintf(name, sizeof(name), "%s.%s%s", algo, key, suffix);
	return bp_result_find_metric(r, name);
}

/* openssl speed's block table: "type  16 bytes  64 bytes ...", then "1234.56k" cells. */
static int print_rates(FILE *out, const struct bp_result *r, const struct layout *l,
		       const char *suffix)
{
	struct bp_table t;
	char cell[48];
	int err = bp_table_init(&t, 1 + l->nsizes, 0);

	if (!err)
		err = bp_table_add_row(&t);
	if (!err)
		err = bp_table_set(&t, 0, "type");
	for (size_t c = 0; !err && c < l->nsizes; c++) {
		t.right[1 + c] = true;
		snprintf(cell, sizeof(cell), "%lu bytes", l->sizes[c]);
		err = bp_table_set(&t, 1 + c, cell);
	}
	for (size_t a = 0; !err && a < l->nalgos; a++) {
		err = bp_table_add_row(&t);
		if (!err)
			err = bp_table_set(&t, 0, l->algos[a]);
		for (size_t c = 0; !err && c < l->nsizes; c++) {
			const struct bp_metric *m;
			char key[24];

			snprintf(key, sizeof(key), "%lu", l->sizes[c]);
			m = find(r, l->algos[a], key, suffix);
			if (!m || !isfinite(m->value))
				continue;
			/* "The 'numbers' are in 1000s of bytes per second processed." */
			snprintf(cell, sizeof(cell), "%.2fk", m->value / 1000);
			err = bp_table_set(&t, 1 + c, cell);
		}
	}
	if (!err)
		err = bp_table_print(out, &t);
	bp_table_free(&t);
	return err;
}

/* One signature cell pair: seconds per operation ("0.000672s") and per second ("1489.6"). */
static int sig_cells(struct bp_table *t, const struct bp_metric *m, size_t time_col,
		     size_t rate_col)
{
	char cell[48];
	int err;

	if (!m || !(m->value > 0))
		return 0;
	snprintf(cell, sizeof(cell), "%.6fs", 1 / m->value);
	err = bp_table_set(t, time_col, cell);
	snprintf(cell, sizeof(cell), "%.1f", m->value);
	return err ? err : bp_table_set(t, rate_col, cell);
}

/* openssl speed's key table: "sign  verify  sign/s  verify/s". */
static int print_signatures(FILE *out, const struct bp_result *r, const struct layout *l,
			    const char *suffix)
{
	static const char *const head[] = { "", "sign", "verify", "sign/s", "verify/s" };
	struct bp_table t;
	int err = bp_table_init(&t, 5, 0);

	if (!err)
		err = bp_table_add(&t, head);
	for (size_t c = 1; c < 5; c++)
		t.right[c] = true;
	for (size_t a = 0; !err && a < l->nalgos; a++) {
		err = bp_table_add_row(&t);
		if (!err)
			err = bp_table_set(&t, 0, l->algos[a]);
		if (!err)
			err = sig_cells(&t, find(r, l->algos[a], "sign", suffix), 1, 3);
		if (!err)
			err = sig_cells(&t, find(r, l->algos[a], "verify", suffix), 2, 4);
	}
	if (!err)
		err = bp_table_print(out, &t);
	bp_table_free(&t);
	return err;
}

/* Both tables for one scope (suffix), each only when it has rows; *printed counts them. */
static int print_scope(FILE *out, const struct bp_result *r, const char *suffix,
		       const char *title, int *printed)
{
	struct layout *l = malloc(sizeof(*l));
	int err = l ? 0 : -ENOMEM;
	bool titled = false;

	for (int k = RATE; !err && k <= SIGNATURE; k++) {
		lay_out(r, suffix, (enum kind)k, l);
		if (!l->nalgos)
			continue;
		if ((*printed)++)
			fputc('\n', out);
		if (!titled)
			fprintf(out, "%s\n", title);
		titled = true;
		err = k == RATE ? print_rates(out, r, l, suffix) : print_signatures(out, r, l, suffix);
	}
	free(l);
	return err;
}

bool bp_text_speed_applies(const struct bp_result *r)
{
	char algo[NAME_LEN];
	unsigned long size;
	enum kind kind;

	for (size_t i = 0; i < r->nmetrics; i++)
		if (classify(&r->metrics[i], "", algo, &size, &kind))
			return true;
	return false;
}

int bp_text_speed_print(FILE *out, const struct bp_result *r)
{
	const json_t *w = json_object_get(r->params, "workers");
	char title[160];
	int printed = 0;
	int err = print_scope(out, r, "",
			      "as openssl speed prints it (one core; k = 1000s of bytes per second)",
			      &printed);

	if (!err && json_is_integer(w) && json_integer_value(w) > 1) {
		snprintf(title, sizeof(title),
			 "all %lld workers at once, summed (as openssl speed -multi %lld)",
			 (long long)json_integer_value(w), (long long)json_integer_value(w));
		err = print_scope(out, r, ".all", title, &printed);
	}
	return !err && ferror(out) ? -EIO : err;
}
