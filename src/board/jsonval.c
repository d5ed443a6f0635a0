#include "board/jsonval.h"

#include <math.h>
#include <string.h>

#include "board/sysfs.h"

json_t *bp_json_str_or_null(const char *s)
{
	if (!s || !*s || !strcmp(s, "unknown"))
		return json_null();
	return json_string(s);
}

json_t *bp_json_int_or_null(int64_t v)
{
	return v == BP_INT_UNKNOWN ? json_null() : json_integer((json_int_t)v);
}

json_t *bp_json_real_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

json_t *bp_json_number_or_null(double v)
{
	if (isnan(v))
		return json_null();
	if (v == floor(v) && fabs(v) < 9e15)
		return json_integer((json_int_t)v);
	return json_real(v);
}

json_t *bp_json_bool_or_null(int v)
{
	return v < 0 ? json_null() : json_boolean(v);
}

void bp_json_put(json_t *obj, const char *key, json_t *val)
{
	if (!obj) {
		json_decref(val);
		return;
	}
	json_object_set_new(obj, key, val);
}
