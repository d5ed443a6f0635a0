/* Well-formed UTF-8 as JSON takes it: the offset of the first byte that is not. */
#include "core/utf8.h"
#include "tap.h"

int main(void)
{
	CHECK_INT(bp_utf8_invalid_at(""), -1);
	CHECK_INT(bp_utf8_invalid_at("opi-5 lab"), -1);
	CHECK_INT(bp_utf8_invalid_at("r\xc3\xa9seau \xe2\x82\xac \xf0\x9f\x93\xa1"), -1);
	CHECK_INT(bp_utf8_invalid_at("ab\xff" "cd"), 2);          /* never in UTF-8 */
	CHECK_INT(bp_utf8_invalid_at("ab\xc3"), 2);               /* cut short by the end */
	CHECK_INT(bp_utf8_invalid_at("a\xc3(b"), 1);              /* not a continuation */
	CHECK_INT(bp_utf8_invalid_at("x\xc0\xaf"), 1);            /* overlong '/' */
	CHECK_INT(bp_utf8_invalid_at("x\xe0\x80\xaf"), 1);        /* overlong, 3 bytes */
	CHECK_INT(bp_utf8_invalid_at("xy\xed\xa0\x80"), 2);       /* a surrogate, U+D800 */
	CHECK_INT(bp_utf8_invalid_at("\xf4\x90\x80\x80"), 0);     /* above U+10FFFF */
	CHECK_INT(bp_utf8_invalid_at("\xf4\x8f\xbf\xbf"), -1);    /* U+10FFFF itself */
	CHECK_INT(bp_utf8_invalid_at("\xe9t\xe9"), 0);            /* Latin-1 "été" */
	CHECK_INT((int)bp_utf8_seq_len((const unsigned char *)"\xe2\x82\xac"), 3);
	return tap_done();
}
