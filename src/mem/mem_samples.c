#include "mem/mem_samples.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

int bp_mem_samples_push(struct bp_mem_samples *s, double v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		double *p = realloc(s->v, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->v = p;
		s->cap = cap;
	}
	s->v[s->n++] = v;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bp_mem_samples_median(struct bp_mem_samples *s)
{
	if (!s->n)
		return NAN;
	qsort(s->v, s->n, sizeof(*s->v), cmp_double);
	if (s->n % 2)
		return s->v[s->n / 2];
	return (s->v[s->n / 2 - 1] + s->v[s->n / 2]) / 2;
}

void bp_mem_samples_free(struct bp_mem_samples *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}
