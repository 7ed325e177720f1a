/* Unit tests for the extender's HTTP client (plugins/extender/ext_http.c) against the harness's
 * loopback server (kernel/cli/ext_server.c), and for the server on raw sockets: a 200 reply read
 * to its first value, other statuses, unknown verbs (404), garbage and oversized bodies, a server
 * that accepts and never answers (the call fails after httpTimeout, not later), a closed port,
 * many calls at once over kept-alive connections, and the server's handling of pipelined,
 * continued, chunked, oversized and non-POST requests. Only 127.0.0.1; every wait is bounded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ext_server.h"
#include "extender/extender.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static ext_server *serve(const tph_extender_response *a, uint32_t n)
{
	ext_server *s = NULL;
	char err[256];
	if (ext_server_start(a, n, &s, err, sizeof err) != TPH_OK)
		fail_msg("%s", err);
	return s;
}

static ext_http *client(uint16_t port, int64_t timeout_ms)
{
	char url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%u//", (unsigned)port); /* slashes trimmed */
	ext_http *h = NULL;
	assert_int_equal(ext_http_open(url, timeout_ms, &h), TPH_OK);
	return h;
}

/* One call; returns it (reply freed by the caller with ext_calls_done). */
static ext_call call(ext_http *h, const char *verb, bool want)
{
	ext_call c = {.body = "{\"task\":{}}", .len = 11};
	ext_http_perform(h, verb, &c, 1, want);
	return c;
}

static void test_replies(void **state)
{
	(void)state;
	const tph_extender_response a[] = {
	    {"predicate", 200, "{\"status\":\"no\",\"code\":2}\n", true},
	    {"trailing", 200, "{\"a\":1} and then garbage", false},
	    {"broken", 200, "{\"status\": nope}", false},
	    {"empty", 200, "", false},
	    {"down", 500, "{\"status\":\"ignored\"}", true},
	    {"pre dicate", 200, "{}", true},
	};
	ext_server *s = serve(a, 6);
	ext_http *h = client(ext_server_port(s), 2000);
	ext_call c = call(h, "predicate", true);
	assert_true(c.ok);
	assert_string_equal(c.reply, "{\"status\":\"no\",\"code\":2}");
	ext_calls_done(&c, 1);
	c = call(h, "trailing", true);
	assert_true(c.ok);
	assert_string_equal(c.reply, "{\"a\":1}");
	ext_calls_done(&c, 1);
	c = call(h, "broken", true);
	assert_false(c.ok);
	assert_string_equal(c.err, "invalid character 'o' in literal null (expecting 'u')");
	c = call(h, "empty", true);
	assert_false(c.ok);
	assert_string_equal(c.err, "EOF");
	c = call(h, "empty", false); /* no result wanted: the status alone */
	assert_true(c.ok);
	c = call(h, "down", true);
	assert_false(c.ok);
	char want[160];
	snprintf(want, sizeof want,
	         "failed down with extender at URL http://127.0.0.1:%u/down, code 500",
	         (unsigned)ext_server_port(s));
	assert_string_equal(c.err, want);
	c = call(h, "nothere", false);
	assert_false(c.ok);
	assert_non_null(strstr(c.err, "code 404"));
	c = call(h, "pre dicate", true); /* escaped in the URL, decoded by the server */
	assert_true(c.ok);
	ext_calls_done(&c, 1);
	ext_http_close(h);
	assert_int_equal(ext_server_requests(s), 8);
	ext_server_stop(s);
}

/* 10 MiB: a value that ends within them is read; one that does not is "too large". */
static void test_body_limit(void **state)
{
	(void)state;
	size_t n = EJ_MAX_BODY + 1024;
	char *big = malloc(n + 1), *late = malloc(n + 1);
	assert_non_null(big);
	assert_non_null(late);
	memset(big, ' ', n);
	big[0] = '{', big[1] = '"', big[2] = 'a', big[3] = '"', big[4] = ':', big[5] = '"';
	memset(big + 6, 'x', n - 8);
	big[n - 2] = '"', big[n - 1] = '}', big[n] = 0;
	memset(late, ' ', n);
	memcpy(late, "{\"status\":\"\"}", 13);
	late[n] = 0;
	const tph_extender_response a[] = {{"big", 200, big, true}, {"late", 200, late, true}};
	ext_server *s = serve(a, 2);
	ext_http *h = client(ext_server_port(s), 5000);
	ext_call c = call(h, "big", true);
	assert_false(c.ok);
	assert_string_equal(c.err, "http: request body too large");
	c = call(h, "late", true);
	assert_true(c.ok);
	assert_int_equal(c.reply_len, 13);
	ext_calls_done(&c, 1);
	ext_http_close(h);
	ext_server_stop(s);
	free(big);
	free(late);
}

/* A listening socket nobody accepts on: the handshake completes, no answer ever comes. */
static int silent_listener(uint16_t *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(fd, 16), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

static void test_timeout(void **state)
{
	(void)state;
	uint16_t port;
	int fd = silent_listener(&port);
	ext_http *h = client(port, 300);
	ext_call calls[3] = {
	    {.body = "{}", .len = 2}, {.body = "{}", .len = 2}, {.body = "{}", .len = 2}};
	double t0 = now_ms();
	ext_http_perform(h, "predicate", calls, 3, true);
	double ms = now_ms() - t0;
	for (int i = 0; i < 3; i++) {
		assert_false(calls[i].ok);
		assert_non_null(strstr(calls[i].err, "Client.Timeout exceeded"));
	}
	/* Concurrent: about one timeout for the three, never much more. */
	if (ms < 250 || ms > 3000)
		fail_msg("3 calls with a 300 ms timeout took %.0f ms", ms);
	ext_http_close(h);
	close(fd);
}

static void test_refused(void **state)
{
	(void)state;
	uint16_t port;
	int fd = silent_listener(&port);
	close(fd); /* nothing listens there now */
	ext_http *h = client(port, 1000);
	ext_call c = call(h, "predicate", true);
	assert_false(c.ok);
	assert_true(!strncmp(c.err, "Post \"http://127.0.0.1:", 23));
	ext_http_close(h);
}

static void test_many(void **state)
{
	(void)state;
	const tph_extender_response a[] = {{"p", 200, "{\"status\":\"\"}", true}};
	ext_server *s = serve(a, 1);
	ext_http *h = client(ext_server_port(s), 5000);
	enum {
		N = 200
	};
	ext_call *calls = calloc(N, sizeof *calls);
	for (int i = 0; i < N; i++)
		calls[i] = (ext_call){.body = "{}", .len = 2};
	for (int round = 0; round < 2; round++) {
		ext_http_perform(h, "p", calls, N, true);
		for (int i = 0; i < N; i++)
			assert_true(calls[i].ok);
		ext_calls_done(calls, N);
	}
	assert_int_equal(ext_server_requests(s), 2 * N);
	free(calls);
	ext_http_close(h);
	ext_server_stop(s);
}

/* ---- the server on raw sockets ---- */

static int dial(uint16_t port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct timeval tv = {.tv_sec = 5};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	return fd;
}

/* Send `req`, read until `want` occurrences of "HTTP/1.1 " or EOF; returns what came. */
static char *exchange(uint16_t port, const char *req, int want)
{
	int fd = dial(port);
	assert_int_equal(send(fd, req, strlen(req), MSG_NOSIGNAL), (ssize_t)strlen(req));
	static char buf[8192];
	size_t len = 0;
	buf[0] = 0;
	for (;;) {
		int seen = 0;
		for (const char *p = buf; (p = strstr(p, "HTTP/1.1 ")); p++)
			seen++;
		if (seen >= want && strstr(buf, "\r\n\r\n"))
			break;
		ssize_t r = recv(fd, buf + len, sizeof buf - 1 - len, 0);
		if (r <= 0)
			break;
		len += (size_t)r;
		buf[len] = 0;
	}
	close(fd);
	return buf;
}

static void test_server_requests(void **state)
{
	(void)state;
	const tph_extender_response a[] = {{"v", 418, "{\"x\":1}", true}};
	ext_server *s = serve(a, 1);
	uint16_t port = ext_server_port(s);
	char *r =
	    exchange(port,
	             "POST /v HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcPOST /nope?q=1 HTTP/1.1\r\n"
	             "Content-Length: 0\r\nConnection: close\r\n\r\n",
	             2);
	assert_non_null(strstr(r, "HTTP/1.1 418 "));
	assert_non_null(
	    strstr(r, "Content-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"x\":1}"));
	assert_non_null(strstr(r, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n"));
	r = exchange(port, "GET /v HTTP/1.1\r\n\r\n", 1);
	assert_non_null(strstr(r, "HTTP/1.1 405 "));
	r = exchange(port,
	             "POST /v HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n{}", 2);
	assert_non_null(strstr(r, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 418 "));
	r = exchange(port, "POST /v HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 1);
	assert_non_null(strstr(r, "HTTP/1.1 501 "));
	r = exchange(port, "POST /v HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n", 1);
	assert_non_null(strstr(r, "HTTP/1.1 413 "));
	r = exchange(port, "garbage\r\n\r\n", 1);
	assert_non_null(strstr(r, "HTTP/1.1 400 "));
	char *huge = malloc(20000);
	memset(huge, 'a', 19999);
	huge[19999] = 0;
	memcpy(huge, "POST /v HTTP/1.1\r\nX: ", 21);
	r = exchange(port, huge, 1);
	assert_non_null(strstr(r, "HTTP/1.1 431 "));
	free(huge);
	/* A client that connects and says nothing does not hold up the stop. */
	int idle = dial(port);
	double t0 = now_ms();
	ext_server_stop(s);
	assert_true(now_ms() - t0 < 3000);
	close(idle);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_replies), cmocka_unit_test(test_body_limit),
	    cmocka_unit_test(test_timeout), cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_many),    cmocka_unit_test(test_server_requests),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
