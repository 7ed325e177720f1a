/* The harness's loopback extender (ext_server.h): one thread polls the listening socket, a wake
 * pipe and up to MAX_CONN connections, each a small state machine: read the head (bounded),
 * drop the body (bounded, never kept), write the answer, then the next request or close. Every
 * socket is non-blocking, so one slow client never holds up the others or the stop. */
#include "ext_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONN 64
#define HEAD_MAX 16384         /* request line and headers */
#define BODY_MAX (256LL << 20) /* bodies are dropped, but not without end */
#define IDLE_MS  60000         /* a connection that says nothing for this long goes */

typedef struct answer {
	char *verb;
	int status;
	char *body;
	size_t len;
} answer;

typedef enum conn_state {
	C_FREE = 0,
	C_HEAD,  /* reading the request line and headers */
	C_BODY,  /* dropping body_left bytes */
	C_WRITE, /* writing out[off..len) */
} conn_state;

typedef struct conn {
	int fd;
	conn_state state;
	char in[HEAD_MAX];
	size_t in_len;
	long long body_left;
	bool close_after; /* HTTP/1.0, Connection: close, or an error answer */
	char *out;
	size_t out_len, off;
	const answer *ans; /* what the request in progress gets (NULL: 404) */
	int status;        /* an error status decided from the head; 0 none */
	int64_t last_ms;
} conn;

struct ext_server {
	int lfd, wake[2];
	uint16_t port;
	pthread_t thread;
	answer *ans;
	uint32_t n_ans;
	conn *conns;
	_Atomic uint64_t requests;
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *reason_phrase(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 413:
		return "Content Too Large";
	case 431:
		return "Request Header Fields Too Large";
	case 500:
		return "Internal Server Error";
	case 501:
		return "Not Implemented";
	default:
		return "Status";
	}
}

static void conn_close(conn *c)
{
	close(c->fd);
	free(c->out);
	c->out = NULL;
	c->state = C_FREE;
}

/* ---- answering ---- */

static bool respond(conn *c, int status, const char *body, size_t len, bool json)
{
	char head[256];
	int h =
	    snprintf(head, sizeof head, "HTTP/1.1 %d %s\r\n%sContent-Length: %zu\r\n%s\r\n", status,
	             reason_phrase(status), json ? "Content-Type: application/json\r\n" : "", len,
	             c->close_after ? "Connection: close\r\n" : "");
	free(c->out);
	c->out = malloc((size_t)h + len);
	if (!c->out)
		return false;
	memcpy(c->out, head, (size_t)h);
	if (len)
		memcpy(c->out + h, body, len);
	c->out_len = (size_t)h + len;
	c->off = 0;
	c->state = C_WRITE;
	return true;
}

static bool answer_request(ext_server *s, conn *c)
{
	atomic_fetch_add(&s->requests, 1);
	if (c->status)
		return respond(c, c->status, "", 0, false);
	if (!c->ans)
		return respond(c, 404, "", 0, false);
	return respond(c, c->ans->status, c->ans->body, c->ans->len, true);
}

/* ---- reading the head ---- */

static int hexval(char ch)
{
	return ch >= '0' && ch <= '9'                     ? ch - '0'
	       : (ch | 0x20) >= 'a' && (ch | 0x20) <= 'f' ? (ch | 0x20) - 'a' + 10
	                                                  : -1;
}

/* The answer for target "/<verb>[?query]" (verb percent-decoded), NULL when none. */
static const answer *find_answer(const ext_server *s, const char *t, size_t n)
{
	char verb[1024];
	size_t w = 0;
	if (!n || t[0] != '/')
		return NULL;
	for (size_t i = 1; i < n && t[i] != '?' && w + 1 < sizeof verb; i++) {
		int hi = i + 2 < n ? hexval(t[i + 1]) : -1, lo = i + 2 < n ? hexval(t[i + 2]) : -1;
		if (t[i] == '%' && hi >= 0 && lo >= 0) {
			verb[w++] = (char)(hi * 16 + lo);
			i += 2;
		} else {
			verb[w++] = t[i];
		}
	}
	verb[w] = 0;
	for (uint32_t i = 0; i < s->n_ans; i++)
		if (!strcmp(s->ans[i].verb, verb))
			return &s->ans[i];
	return NULL;
}

static bool header_value(const char *line, size_t len, const char *name, const char **v,
                         size_t *vlen)
{
	size_t n = strlen(name);
	if (len <= n || strncasecmp(line, name, n) || line[n] != ':')
		return false;
	const char *p = line + n + 1, *e = line + len;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	*v = p;
	*vlen = (size_t)(e - p);
	return true;
}

static bool value_is(const char *v, size_t n, const char *word)
{
	return n == strlen(word) && !strncasecmp(v, word, n);
}

/* One header line of the head. */
static void header(conn *c, const char *line, size_t len)
{
	const char *v;
	size_t n;
	if (header_value(line, len, "content-length", &v, &n)) {
		long long cl = 0;
		for (size_t i = 0; i < n && cl <= BODY_MAX; i++)
			cl = v[i] >= '0' && v[i] <= '9' ? cl * 10 + (v[i] - '0') : BODY_MAX + 1;
		if (!n || cl > BODY_MAX) {
			c->status = n ? 413 : 400;
			c->close_after = true;
		} else {
			c->body_left = cl;
		}
	} else if (header_value(line, len, "transfer-encoding", &v, &n)) {
		c->status = 501; /* chunked bodies: the extender client never sends them */
		c->close_after = true;
	} else if (header_value(line, len, "connection", &v, &n)) {
		if (value_is(v, n, "close"))
			c->close_after = true;
		else if (value_is(v, n, "keep-alive"))
			c->close_after = false;
	} else if (header_value(line, len, "expect", &v, &n) && value_is(v, n, "100-continue")) {
		static const char go_on[] = "HTTP/1.1 100 Continue\r\n\r\n";
		(void)!send(c->fd, go_on, sizeof go_on - 1, MSG_NOSIGNAL);
	}
}

/* Parse the head in[0..end); returns false when the connection must just close. */
static bool parse_head(const ext_server *s, conn *c, size_t end)
{
	char *line = c->in, *stop = c->in + end;
	char *eol = memchr(line, '\n', (size_t)(stop - line));
	char *sp1 = eol ? memchr(line, ' ', (size_t)(eol - line)) : NULL;
	char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1)) : NULL;
	c->status = 0;
	c->body_left = 0;
	c->ans = NULL;
	if (!sp2) {
		c->status = 400;
		c->close_after = true;
		return true;
	}
	c->close_after = strncmp(sp2 + 1, "HTTP/1.1", 8) != 0; /* 1.0 closes by default */
	bool post = sp1 - line == 4 && !memcmp(line, "POST", 4);
	c->ans = find_answer(s, sp1 + 1, (size_t)(sp2 - sp1 - 1));
	if (!post)
		c->status = 405;
	for (line = eol + 1; line < stop; line = eol + 1) {
		eol = memchr(line, '\n', (size_t)(stop - line));
		if (!eol)
			break;
		header(c, line, (size_t)(eol - line));
	}
	return true;
}

/* The end of the head in in[0..in_len): the offset after the blank line, 0 when not yet. */
static size_t head_end(const conn *c)
{
	for (size_t i = 0; i + 1 < c->in_len; i++) {
		if (c->in[i] != '\n')
			continue;
		if (c->in[i + 1] == '\n')
			return i + 2;
		if (c->in[i + 1] == '\r' && i + 2 < c->in_len && c->in[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

/* Move on with what is buffered: a complete head, then the body's bytes. */
static bool advance(ext_server *s, conn *c)
{
	for (;;) {
		if (c->state == C_HEAD) {
			size_t end = head_end(c);
			if (!end) {
				if (c->in_len < sizeof c->in)
					return true;
				c->close_after = true;
				c->status = 431;
				return answer_request(s, c);
			}
			if (!parse_head(s, c, end))
				return false;
			memmove(c->in, c->in + end, c->in_len - end);
			c->in_len -= end;
			c->state = C_BODY;
		}
		if (c->state != C_BODY)
			return true;
		size_t drop =
		    c->body_left < (long long)c->in_len ? (size_t)c->body_left : c->in_len;
		memmove(c->in, c->in + drop, c->in_len - drop);
		c->in_len -= drop;
		c->body_left -= (long long)drop;
		/* An answer that closes the connection need not wait for the body. */
		if (c->body_left > 0 && !(c->status && c->close_after))
			return true;
		return answer_request(s, c);
	}
}

/* ---- the loop ---- */

static bool on_readable(ext_server *s, conn *c)
{
	char sink[HEAD_MAX];
	char *dst = c->state == C_BODY && !c->in_len ? sink : c->in + c->in_len;
	size_t room = dst == sink ? sizeof sink : sizeof c->in - c->in_len;
	if (!room)
		return true;
	ssize_t r = recv(c->fd, dst, room, 0);
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
		return false;
	if (r < 0)
		return true;
	c->last_ms = now_ms();
	if (dst == sink) { /* body bytes, then perhaps the next request's head */
		size_t body = (long long)r < c->body_left ? (size_t)r : (size_t)c->body_left;
		c->body_left -= (long long)body;
		memcpy(c->in, sink + body, (size_t)r - body); /* in_len is 0 and in holds a sink */
		c->in_len = (size_t)r - body;
		return advance(s, c);
	}
	c->in_len += (size_t)r;
	return advance(s, c);
}

static bool on_writable(ext_server *s, conn *c)
{
	ssize_t w = send(c->fd, c->out + c->off, c->out_len - c->off, MSG_NOSIGNAL);
	if (w < 0)
		return errno == EAGAIN || errno == EINTR;
	c->off += (size_t)w;
	c->last_ms = now_ms();
	if (c->off < c->out_len)
		return true;
	if (c->close_after)
		return false;
	c->state = C_HEAD;
	return advance(s, c);
}

static void accept_one(ext_server *s)
{
	int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	for (int i = 0; i < MAX_CONN; i++)
		if (s->conns[i].state == C_FREE) {
			conn *c = &s->conns[i];
			c->fd = fd;
			c->state = C_HEAD;
			c->in_len = 0;
			c->close_after = false;
			c->last_ms = now_ms();
			return;
		}
	close(fd);
}

static void *serve(void *arg)
{
	ext_server *s = arg;
	struct pollfd pf[MAX_CONN + 2];
	int who[MAX_CONN + 2];
	for (;;) {
		int n = 0, free_slots = 0;
		pf[n++] = (struct pollfd){.fd = s->wake[0], .events = POLLIN};
		for (int i = 0; i < MAX_CONN; i++) {
			conn *c = &s->conns[i];
			if (c->state == C_FREE) {
				free_slots++;
				continue;
			}
			who[n] = i;
			pf[n++] = (struct pollfd){.fd = c->fd,
			                          .events = c->state == C_WRITE ? POLLOUT : POLLIN};
		}
		int lidx = free_slots ? n : -1; /* stop accepting while every slot is taken */
		if (free_slots)
			pf[n++] = (struct pollfd){.fd = s->lfd, .events = POLLIN};
		if (poll(pf, (nfds_t)n, 1000) < 0 && errno != EINTR)
			break;
		if (pf[0].revents)
			break;
		int64_t now = now_ms();
		for (int k = 1; k < n; k++) {
			if (k == lidx) {
				if (pf[k].revents & POLLIN)
					accept_one(s);
				continue;
			}
			conn *c = &s->conns[who[k]];
			bool keep = true;
			if (pf[k].revents & (POLLERR | POLLNVAL))
				keep = false;
			else if (pf[k].revents & POLLOUT)
				keep = on_writable(s, c);
			else if (pf[k].revents & (POLLIN | POLLHUP))
				keep = on_readable(s, c);
			else if (now - c->last_ms > IDLE_MS)
				keep = false;
			if (!keep)
				conn_close(c);
		}
	}
	return NULL;
}

/* ---- start and stop ---- */

static void free_answers(ext_server *s)
{
	for (uint32_t i = 0; i < s->n_ans; i++) {
		free(s->ans[i].verb);
		free(s->ans[i].body);
	}
	free(s->ans);
}

static int fail(ext_server *s, char *err, size_t cap, const char *what)
{
	snprintf(err, cap, "extender server: %s: %s", what, strerror(errno));
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->wake[0] >= 0)
		close(s->wake[0]), close(s->wake[1]);
	free_answers(s);
	free(s->conns);
	free(s);
	return TPH_EINVAL;
}

static int listen_loopback(ext_server *s)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof a;
	s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->lfd < 0 || bind(s->lfd, (struct sockaddr *)&a, sizeof a) || listen(s->lfd, 128) ||
	    getsockname(s->lfd, (struct sockaddr *)&a, &len))
		return -1;
	s->port = ntohs(a.sin_port);
	return 0;
}

int ext_server_start(const tph_extender_response *answers, uint32_t n, ext_server **out, char *err,
                     size_t cap)
{
	*out = NULL;
	ext_server *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, cap, "extender server: out of memory");
		return TPH_ENOMEM;
	}
	s->lfd = s->wake[0] = s->wake[1] = -1;
	s->ans = calloc(n + 1, sizeof *s->ans);
	s->conns = calloc(MAX_CONN, sizeof *s->conns);
	for (uint32_t i = 0; s->ans && i < n; i++, s->n_ans++) {
		const char *body = answers[i].body ? answers[i].body : "";
		s->ans[i] = (answer){strdup(answers[i].verb), answers[i].status, strdup(body),
		                     strlen(body)};
		if (!s->ans[i].verb || !s->ans[i].body) {
			s->n_ans++;
			break;
		}
	}
	if (!s->ans || !s->conns || s->n_ans != n || (n && !s->ans[n - 1].body)) {
		errno = ENOMEM;
		return fail(s, err, cap, "answers");
	}
	if (listen_loopback(s))
		return fail(s, err, cap, "listen on 127.0.0.1");
	if (pipe2(s->wake, O_CLOEXEC | O_NONBLOCK))
		return fail(s, err, cap, "pipe");
	int rc = pthread_create(&s->thread, NULL, serve, s);
	if (rc) {
		errno = rc;
		return fail(s, err, cap, "thread");
	}
	*out = s;
	return TPH_OK;
}

uint16_t ext_server_port(const ext_server *s)
{
	return s->port;
}

uint64_t ext_server_requests(const ext_server *s)
{
	return atomic_load(&((ext_server *)s)->requests);
}

void ext_server_stop(ext_server *s)
{
	if (!s)
		return;
	(void)!write(s->wake[1], "x", 1);
	pthread_join(s->thread, NULL);
	for (int i = 0; i < MAX_CONN; i++)
		if (s->conns[i].state != C_FREE)
			conn_close(&s->conns[i]);
	close(s->lfd);
	close(s->wake[0]);
	close(s->wake[1]);
	free_answers(s);
	free(s->conns);
	free(s);
}
