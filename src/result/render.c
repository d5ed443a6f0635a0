#include <errno.h>

#include "result/render.h"

int bp_render(FILE *out, const struct bp_result *r, enum bp_format format)
{
	switch (format) {
	case BP_FORMAT_TEXT:
		return bp_render_text(out, r);
	case BP_FORMAT_JSON:
		return bp_render_json(out, r);
	case BP_FORMAT_CSV:
		return bp_render_csv(out, r);
	}
	return -EINVAL;
}
