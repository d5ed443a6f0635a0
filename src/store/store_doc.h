/*
 * Result documents from outside: a file another board wrote (`boardperf ... --json > f`),
 * checked before import, compare or report trust it. The checks are those the store and
 * every reader lean on (docs/json.md, "JSON result contract"): schema boardperf/1, a test name,
 * metrics with a name, a number (or null), a unit and a direction, a suite's children
 * documents themselves. Fields the contract adds later are let through.
 */
#ifndef BP_STORE_STORE_DOC_H
#define BP_STORE_STORE_DOC_H

#include <stddef.h>

#include <jansson.h>

/* Largest document file read (a suite with every interval is well under 1 MiB). */
#define BP_STORE_DOC_MAX (64u << 20)

/* 0 when doc is a boardperf/1 result document; -EINVAL with the first reason in err
 * ("metrics[3].value: expected a number or null"). */
int bp_store_doc_check(const json_t *doc, char *err, size_t errlen);

/* Parses len bytes and checks them as above: the document (a new reference), or NULL with
 * a reason ("line 3 column 7: ..."). */
json_t *bp_store_doc_parse(const char *buf, size_t len, char *err, size_t errlen);

/* Reads the file at path and parses it: NULL with a reason naming path. */
json_t *bp_store_doc_load(const char *path, char *err, size_t errlen);

/* env.collected_at as Unix seconds, or -1 when the document has none or it is malformed. */
long long bp_store_doc_time(const json_t *doc);

#endif
