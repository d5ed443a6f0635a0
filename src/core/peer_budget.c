/* The bytes buffered for peers, against one limit (peer_budget.h). */
#include <stdatomic.h>

#include "core/peer_budget.h"

void bp_peer_budget_init(struct bp_peer_budget *b, size_t limit)
{
	b->limit = limit;
	atomic_init(&b->used, 0);
	atomic_init(&b->peak, 0);
	atomic_init(&b->refused, 0);
}

bool bp_peer_budget_take(struct bp_peer_budget *b, size_t n)
{
	size_t used = atomic_load(&b->used), peak;

	do {
		/* used <= limit always holds, so limit - used cannot wrap. */
		if (n > b->limit - used) {
			atomic_fetch_add(&b->refused, 1);
			return false;
		}
	} while (!atomic_compare_exchange_weak(&b->used, &used, used + n));
	used += n;
	peak = atomic_load(&b->peak);
	while (used > peak && !atomic_compare_exchange_weak(&b->peak, &peak, used))
		;
	return true;
}

void bp_peer_budget_give(struct bp_peer_budget *b, size_t n)
{
	size_t used = atomic_load(&b->used);

	while (!atomic_compare_exchange_weak(&b->used, &used, n < used ? used - n : 0))
		;
}
