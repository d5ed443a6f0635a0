#include "core/buildinfo.h"

#include <gnu/libc-version.h>
#include <string.h>
#include <openssl/crypto.h>

#include "bp_config.h"

const char *bp_version(void)
{
	return BP_VERSION;
}

const char *bp_build_caveat(void)
{
	if (strcmp(BP_SANITIZE, "none"))
		return "this boardperf was built with sanitizers (" BP_SANITIZE "): "
		       "its speed figures are not representative";
	if (!strcmp(BP_BUILDTYPE, "debug") || !strcmp(BP_BUILDTYPE, "plain"))
		return "this boardperf is an unoptimised " BP_BUILDTYPE " build: "
		       "its speed figures are not representative";
	return NULL;
}

json_t *bp_buildinfo_json(void)
{
	char libc[64];

	snprintf(libc, sizeof(libc), "glibc %s", gnu_get_libc_version());
	/* Library versions come from the libraries at run time: a static or cross build
	 * may differ from the headers it was compiled against. */
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:{s:s, s:s, s:s}}",
			 "version", BP_VERSION,
			 "compiler", BP_COMPILER,
			 "buildtype", BP_BUILDTYPE,
			 "cflags", BP_CFLAGS,
			 "sanitize", BP_SANITIZE,
			 "arch", BP_HOST_CPU,
			 "libraries",
			 "openssl", OpenSSL_version(OPENSSL_VERSION),
			 "jansson", jansson_version_str(),
			 "libc", libc);
}
