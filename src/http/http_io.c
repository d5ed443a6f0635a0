#include "http/http_io.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "core/unconst.h"

SSL_CTX *bp_http_tls_ctx_new(bool verify, char *err, size_t errlen)
{
	/* ALPN wire format: length-prefixed protocol names. */
	static const unsigned char alpn[] = { 8, 'h', 't', 't', 'p', '/', '1', '.', '1' };
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());

	if (!ctx) {
		snprintf(err, errlen, "TLS: cannot create a context: %s",
			 ERR_reason_error_string(ERR_get_error()));
		return NULL;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_alpn_protos(ctx, alpn, sizeof(alpn));
	/* Partial writes keep the request buffer's offsets ours to track, as with TCP. */
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
			 SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
	if (verify) {
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
		if (!SSL_CTX_set_default_verify_paths(ctx)) {
			snprintf(err, errlen, "--verify: cannot load the system's trusted "
				 "certificates");
			SSL_CTX_free(ctx);
			return NULL;
		}
	} else {
		SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
	}
	return ctx;
}

static bool is_ip_literal(const char *host)
{
	return strspn(host, "0123456789.") == strlen(host) || strchr(host, ':');
}

int bp_http_io_tls_begin(struct bp_http_io *io, SSL_CTX *ctx, const char *host, bool verify)
{
	io->ssl = SSL_new(ctx);
	if (!io->ssl || !SSL_set_fd(io->ssl, io->fd)) {
		SSL_free(io->ssl);
		io->ssl = NULL;
		return -ENOMEM;
	}
	/* SNI carries names only; an address in it is a protocol error (RFC 6066). */
	/* The macro passes the name as void * (SSL_ctrl); OpenSSL copies it, never writes it. */
	if (!is_ip_literal(host))
		SSL_set_tlsext_host_name(io->ssl, bp_unconst(host));
	if (verify)
		SSL_set1_host(io->ssl, host);
	SSL_set_connect_state(io->ssl);
	return 0;
}

/* The reason of a failed TLS call, from OpenSSL's queue (emptied, so it cannot leak into
 * another connection's message on this thread). */
static void tls_reason(struct bp_http_io *io, int ret, char *err, size_t errlen)
{
	unsigned long e = ERR_get_error();
	long vr = SSL_get_verify_result(io->ssl);

	if (vr != X509_V_OK)
		snprintf(err, errlen, "certificate verify failed: %s",
			 X509_verify_cert_error_string(vr));
	else if (e)
		snprintf(err, errlen, "%s", ERR_reason_error_string(e) ?
			 ERR_reason_error_string(e) : "TLS error");
	else if (ret == 0 || errno == 0)
		snprintf(err, errlen, "the server closed the connection during the handshake");
	else
		snprintf(err, errlen, "%s", strerror(errno));
	ERR_clear_error();
}

/* -EAGAIN for the two would-block answers, setting which way to wait. */
static int tls_wait(struct bp_http_io *io, int code)
{
	if (code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE) {
		io->want_write = code == SSL_ERROR_WANT_WRITE;
		return -EAGAIN;
	}
	return 0;
}

int bp_http_io_handshake(struct bp_http_io *io, char *err, size_t errlen)
{
	int ret = SSL_do_handshake(io->ssl), code;

	if (ret == 1)
		return 0;
	code = SSL_get_error(io->ssl, ret);
	if (tls_wait(io, code))
		return -EAGAIN;
	tls_reason(io, ret, err, errlen);
	return -EPROTO;
}

static ssize_t tls_failure(struct bp_http_io *io, int ret)
{
	int code = SSL_get_error(io->ssl, ret);

	if (tls_wait(io, code))
		return -EAGAIN;
	if (code == SSL_ERROR_ZERO_RETURN)
		return 0;
	ERR_clear_error();
	/* A peer that just hangs up without close_notify is a reset, as over plain TCP. */
	if (code == SSL_ERROR_SYSCALL)
		return errno ? -errno : 0;
	return -EPROTO;
}

ssize_t bp_http_io_read(struct bp_http_io *io, void *buf, size_t len)
{
	ssize_t n;

	io->want_write = false;
	if (io->ssl) {
		int ret = SSL_read(io->ssl, buf, len > INT32_MAX ? INT32_MAX : (int)len);

		return ret > 0 ? ret : tls_failure(io, ret);
	}
	n = recv(io->fd, buf, len, MSG_DONTWAIT);
	if (n >= 0)
		return n;
	return errno == EWOULDBLOCK || errno == EINTR ? -EAGAIN : -errno;
}

ssize_t bp_http_io_write(struct bp_http_io *io, const void *buf, size_t len)
{
	ssize_t n;

	io->want_write = true;
	if (io->ssl) {
		int ret = SSL_write(io->ssl, buf, len > INT32_MAX ? INT32_MAX : (int)len);

		return ret > 0 ? ret : tls_failure(io, ret);
	}
	n = send(io->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n >= 0)
		return n;
	return errno == EWOULDBLOCK || errno == EINTR ? -EAGAIN : -errno;
}

ssize_t bp_http_io_discard(struct bp_http_io *io, size_t len)
{
	ssize_t n = recv(io->fd, NULL, len, MSG_DONTWAIT | MSG_TRUNC);

	io->want_write = false;
	if (n >= 0)
		return n;
	return errno == EWOULDBLOCK || errno == EINTR ? -EAGAIN : -errno;
}

void bp_http_io_close(struct bp_http_io *io)
{
	if (io->ssl)
		SSL_free(io->ssl);
	io->ssl = NULL;
	if (io->fd >= 0)
		close(io->fd);
	io->fd = -1;
}

void bp_http_io_describe(const struct bp_http_io *io, char *buf, size_t len)
{
	if (!io->ssl) {
		snprintf(buf, len, "%s", "");
		return;
	}
	snprintf(buf, len, "%s %s", SSL_get_version(io->ssl),
		 SSL_CIPHER_get_name(SSL_get_current_cipher(io->ssl)));
}
