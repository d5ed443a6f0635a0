/*
 * The client's transport, the wrk idea of a tiny socket interface: a connection is read
 * and written through these calls whether it is plain TCP or TLS (OpenSSL), and each
 * answers done, would-block or failed. TLS wants its own reads and writes at times (a
 * handshake, a key update), so a would-block says which way to wait.
 */
#ifndef BP_HTTP_HTTP_IO_H
#define BP_HTTP_HTTP_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <openssl/ssl.h>

struct bp_http_io {
	int fd;
	SSL *ssl;             /* NULL for plain TCP */
	bool want_write;      /* the last would-block waits for the socket to take data */
};

/*
 * One SSL_CTX per worker thread (no shared locks on the hot path): TLS 1.2 and up, ALPN
 * http/1.1 (a server that offers HTTP/2 must not pick it), and, with verify, the system's
 * trust store. NULL with a message when OpenSSL refuses.
 */
SSL_CTX *bp_http_tls_ctx_new(bool verify, char *err, size_t errlen);

/*
 * Start TLS on the connected socket io->fd: SNI and, with verify, the name check for host.
 * 0 or -ENOMEM.
 */
int bp_http_io_tls_begin(struct bp_http_io *io, SSL_CTX *ctx, const char *host, bool verify);

/* Drive the handshake: 0 done, -EAGAIN (wait per want_write), or -EPROTO with the reason. */
int bp_http_io_handshake(struct bp_http_io *io, char *err, size_t errlen);

/*
 * Read or write: the bytes moved (> 0); 0 for a read at the peer's clean close; -EAGAIN
 * (wait per want_write); or a negative errno (-ECONNRESET, -EPROTO for a TLS failure).
 */
ssize_t bp_http_io_read(struct bp_http_io *io, void *buf, size_t len);
ssize_t bp_http_io_write(struct bp_http_io *io, const void *buf, size_t len);

/* Plain TCP: discard up to len bytes in the kernel without copying them (MSG_TRUNC). */
ssize_t bp_http_io_discard(struct bp_http_io *io, size_t len);

/* Free the TLS state and close the socket (no TLS close_notify: a load tool just hangs up). */
void bp_http_io_close(struct bp_http_io *io);

/* "TLSv1.3 TLS_AES_256_GCM_SHA384" for the result, or "" for plain TCP. */
void bp_http_io_describe(const struct bp_http_io *io, char *buf, size_t len);

#endif
