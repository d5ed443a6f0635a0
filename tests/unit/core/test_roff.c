/* Text into roff (core/roff.h), as boardperf --man writes every string of its tables. */
#include <stdlib.h>

#include "core/roff.h"
#include "tap.h"

/* s through bp_roff_text, in a buffer kept until the next call; roff(NULL) frees it. */
static const char *roff(const char *s)
{
	static char *buf;
	size_t len = 0;
	FILE *f;

	free(buf);
	buf = NULL;
	if (!s)
		return NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	bp_roff_text(f, s);
	fclose(f);
	return buf;
}

int main(void)
{
	CHECK_STR(roff(""), "");
	CHECK_STR(roff("plain text, 100 % (a|b) [default: 5]"), "plain text, 100 % (a|b) [default: 5]");
	/* a minus, not a hyphen: options stay copy-and-pasteable */
	CHECK_STR(roff("-c, --client"), "\\-c, \\-\\-client");
	CHECK_STR(roff("C:\\dir\\"), "C:\\edir\\e");
	CHECK_STR(roff("\\fB"), "\\efB");  /* a font change in the text is text */
	/* a line that would start with a request's '.' */
	CHECK_STR(roff(".hidden"), "\\&.hidden");
	CHECK_STR(roff("a. b."), "a. b.");
	CHECK_STR(roff("one\n.two\n'three"), "one\n\\&.two\n\\(aqthree");
	CHECK_STR(roff("..."), "\\&...");
	/* straight quotes, as --help prints them; '"' also inside a quoted macro argument */
	CHECK_STR(roff("'NAME: VALUE'"), "\\(aqNAME: VALUE\\(aq");
	CHECK_STR(roff("`boardperf serve`"), "\\(gaboardperf serve\\(ga");
	CHECK_STR(roff("\"TEST ARGS\""), "\\(dqTEST ARGS\\(dq");
	/* control characters are spaces, not requests or escapes */
	CHECK_STR(roff("a\tb\rc\x1b"), "a b c ");
	/* UTF-8: two, three and four bytes */
	CHECK_STR(roff("RFC 2544 \xc2\xa7" "26.1"), "RFC 2544 \\[u00A7]26.1");
	CHECK_STR(roff("\xe2\x80\xa6"), "\\[u2026]");
	CHECK_STR(roff("\xf0\x9f\x98\x80!"), "\\[u1F600]!");
	/* not UTF-8: a '?' per byte that starts nothing valid */
	CHECK_STR(roff("\xff"), "?");
	CHECK_STR(roff("x\xc2"), "x?");              /* cut short by the end */
	CHECK_STR(roff("\xc2-"), "?\\-");            /* cut short by ASCII */
	CHECK_STR(roff("\xc0\xaf"), "??");           /* overlong '/' */
	CHECK_STR(roff("\xed\xa0\x80"), "???");      /* a surrogate */
	CHECK_STR(roff("\xf4\x90\x80\x80"), "????"); /* past U+10FFFF */
	CHECK_STR(roff("\x80"), "?");                /* a lone continuation byte */
	roff(NULL);
	return tap_done();
}
