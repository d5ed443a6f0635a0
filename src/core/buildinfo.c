#include "core/buildinfo.h"

#include <gnu/libc-version.h>
#include <openssl/crypto.h>

#include "bp_config.h"

const char *bp_version(void)
{
	return BP_VERSION;
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
