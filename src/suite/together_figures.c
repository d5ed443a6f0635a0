#include "suite/together_figures.h"

#include <math.h>
#include <stdlib.h>

double bp_together_degradation(double alone, double together, enum bp_better better)
{
	if (!isfinite(alone) || !isfinite(together) || alone == 0)
		return NAN;
	if (better == BP_BETTER_HIGHER)
		return (alone - together) / alone * 100.0;
	if (better == BP_BETTER_LOWER)
		return (together - alone) / alone * 100.0;
	return NAN;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A sorted copy of the finite values (rounds are few: --repeat is at most 100). */
void bp_spread_of(const double *v, size_t n, struct bp_spread *s)
{
	double *f = n ? malloc(n * sizeof(*f)) : NULL;

	s->n = 0;
	s->median = s->min = s->max = NAN;
	for (size_t i = 0; f && i < n; i++)
		if (isfinite(v[i]))
			f[s->n++] = v[i];
	if (s->n) {
		qsort(f, s->n, sizeof(*f), cmp_double);
		s->min = f[0];
		s->max = f[s->n - 1];
		s->median = s->n % 2 ? f[s->n / 2] : (f[s->n / 2 - 1] + f[s->n / 2]) / 2;
	}
	free(f);
}
