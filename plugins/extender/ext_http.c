/* extender: the HTTP client, libcurl standing in for Volcano's http.Client{Timeout: httpTimeout}.
 * A request is POST <urlPrefix without trailing '/'>/<verb> with Content-Type application/json;
 * the timeout bounds the whole exchange; redirects are followed as Go's client follows them.
 * Anything but 200 is an error. A reply is read only as far as json.Decoder reads it: the first
 * JSON value, within 10 MiB, checked byte by byte as it arrives (ext_json.c), so a slow, endless
 * or hostile body costs at most the timeout and 10 MiB.
 *
 * Requests go out on lanes: a curl multi handle with up to LANE_WIDTH transfers in flight and
 * its own connection cache. A caller takes a lane for one batch and gives it back, so callers on
 * several threads (predicates over node spans) never share one. */
#include "extender.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tephra/alloc.h"
#include "tephra/status.h"

/* Volcano's predicate runs on 16 workers (workqueue.ParallelizeUntil). */
#define LANE_WIDTH 16
/* net.Dialer's timeout in Go's DefaultTransport: it applies even without a client timeout. */
#define CONNECT_TIMEOUT_MS 30000L

typedef struct slot {
	CURL *easy;
	ext_call *call; /* NULL: free */
	bool want_reply;
	long status;    /* of the response being read */
	bool location;  /* it names a Location */
	long long clen; /* its Content-Length; -1 unknown */
	size_t got;     /* its body bytes so far */
	bool stop;      /* the transfer was ended on purpose (enough was read) */
	bool too_big;   /* the value did not end within EJ_MAX_BODY */
	bool oom;
	ej_scan scan;
	char *buf; /* the value's bytes so far */
	size_t len, cap;
	char errbuf[CURL_ERROR_SIZE];
} slot;

typedef struct lane {
	CURLM *multi;
	slot slot[LANE_WIDTH];
	struct lane *next;
} lane;

struct ext_http {
	pthread_mutex_t mu; /* guards idle */
	lane *idle;
	char *prefix;  /* urlPrefix, trailing slashes trimmed */
	char *noproxy; /* loopback and $NO_PROXY: Go never proxies loopback addresses */
	struct curl_slist *hdrs;
	long timeout_ms; /* 0: none */
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void curl_init(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_ALL);
}

/* ---- reading a response ---- */

static bool is_redirect(long status)
{
	return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

static bool header_is(const char *line, size_t len, const char *name)
{
	size_t n = strlen(name);
	return len > n && !strncasecmp(line, name, n);
}

/* A header line. At the end of a final response's headers, stop when its body does not
 * matter: Volcano's send() returns on a status other than 200 without reading the body, and
 * reads no body when it wants no result. */
static size_t on_header(char *line, size_t size, size_t n, void *ud)
{
	slot *sl = ud;
	size_t len = size * n;
	if (header_is(line, len, "HTTP/")) {
		const char *sp = memchr(line, ' ', len);
		sl->status = sp ? strtol(sp + 1, NULL, 10) : 0;
		sl->location = false;
		sl->clen = -1;
		sl->got = 0;
	} else if (header_is(line, len, "location:")) {
		sl->location = true;
	} else if (header_is(line, len, "content-length:")) {
		sl->clen = strtoll(line + 15, NULL, 10);
	} else if (len <= 2 && (line[0] == '\r' || line[0] == '\n')) {
		bool interim = sl->status >= 100 && sl->status < 200;
		if (interim || (is_redirect(sl->status) && sl->location) || sl->clen == 0)
			return len;
		if (sl->status != 200 || !sl->want_reply) {
			sl->stop = true;
			return 0;
		}
	}
	return len;
}

static bool keep(slot *sl, const char *p, size_t n)
{
	if (sl->len + n + 1 > sl->cap) {
		size_t cap = sl->cap ? sl->cap : 4096;
		while (cap < sl->len + n + 1)
			cap *= 2;
		char *b = tph_realloc(sl->buf, cap);
		if (!b) {
			sl->oom = true;
			return false;
		}
		sl->buf = b;
		sl->cap = cap;
	}
	memcpy(sl->buf + sl->len, p, n);
	sl->len += n;
	sl->buf[sl->len] = 0;
	return true;
}

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
	slot *sl = ud;
	size_t len = size * n;
	sl->got += len;
	if (sl->status != 200 || !sl->want_reply || sl->scan.status != EJ_MORE)
		return len; /* a redirect's body, or what follows the value */
	size_t room = EJ_MAX_BODY - sl->scan.fed, take = len < room ? len : room;
	size_t used = ej_scan_feed(&sl->scan, p, take);
	if (!keep(sl, p, used)) {
		sl->stop = true;
		return 0;
	}
	if (sl->scan.status == EJ_MORE) {
		if (take == len)
			return len;
		sl->too_big = true; /* http.MaxBytesReader: "request body too large" */
		sl->stop = true;
		return 0;
	}
	/* The value is complete (or wrong): Decoder reads no further. Let a body that ends here
	 * end on its own, which keeps the connection for the next request. */
	if (sl->scan.status == EJ_DONE && sl->clen >= 0 && (long long)sl->got >= sl->clen)
		return len;
	sl->stop = true;
	return 0;
}

/* ---- lanes ---- */

static void lane_free(lane *l)
{
	for (int k = 0; k < LANE_WIDTH; k++) {
		if (l->slot[k].easy)
			curl_easy_cleanup(l->slot[k].easy);
		tph_free(l->slot[k].buf);
	}
	if (l->multi)
		curl_multi_cleanup(l->multi);
	tph_free(l);
}

static bool easy_setup(const ext_http *h, slot *sl)
{
	CURL *e = sl->easy = curl_easy_init();
	if (!e)
		return false;
	bool ok = !curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) &&
	          !curl_easy_setopt(e, CURLOPT_HTTPHEADER, h->hdrs) &&
	          !curl_easy_setopt(e, CURLOPT_USERAGENT, "Go-http-client/1.1") &&
	          !curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L) &&
	          !curl_easy_setopt(e, CURLOPT_MAXREDIRS, 10L) &&
	          !curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https") &&
	          !curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") &&
	          !curl_easy_setopt(e, CURLOPT_NOPROXY, h->noproxy) &&
	          !curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, CONNECT_TIMEOUT_MS) &&
	          !curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, h->timeout_ms) &&
	          !curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header) &&
	          !curl_easy_setopt(e, CURLOPT_HEADERDATA, sl) &&
	          !curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body) &&
	          !curl_easy_setopt(e, CURLOPT_WRITEDATA, sl) &&
	          !curl_easy_setopt(e, CURLOPT_ERRORBUFFER, sl->errbuf) &&
	          !curl_easy_setopt(e, CURLOPT_PRIVATE, sl);
	return ok;
}

static lane *lane_new(const ext_http *h)
{
	lane *l = tph_calloc(1, sizeof *l);
	if (!l || !(l->multi = curl_multi_init())) {
		tph_free(l);
		return NULL;
	}
	for (int k = 0; k < LANE_WIDTH; k++)
		if (!easy_setup(h, &l->slot[k])) {
			lane_free(l);
			return NULL;
		}
	return l;
}

static lane *take(ext_http *h)
{
	pthread_mutex_lock(&h->mu);
	lane *l = h->idle;
	if (l)
		h->idle = l->next;
	pthread_mutex_unlock(&h->mu);
	return l ? l : lane_new(h);
}

static void give(ext_http *h, lane *l)
{
	pthread_mutex_lock(&h->mu);
	l->next = h->idle;
	h->idle = l;
	pthread_mutex_unlock(&h->mu);
}

/* ---- the client ---- */

static char *dup_str(const char *s, size_t n)
{
	char *d = tph_malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

static char *no_proxy_list(void)
{
	static const char loopback[] = "localhost,127.0.0.1,::1";
	const char *env = getenv("NO_PROXY");
	if (!env || !*env)
		env = getenv("no_proxy");
	size_t n = strlen(loopback) + (env ? strlen(env) + 1 : 0);
	char *s = tph_malloc(n + 1);
	if (s)
		snprintf(s, n + 1, "%s%s%s", loopback, env && *env ? "," : "", env ? env : "");
	return s;
}

int ext_http_open(const char *url_prefix, int64_t timeout_ms, ext_http **out)
{
	*out = NULL;
	pthread_once(&curl_once, curl_init);
	if (curl_init_rc != CURLE_OK)
		return TPH_EINVAL;
	ext_http *h = tph_calloc(1, sizeof *h);
	if (!h)
		return TPH_ENOMEM;
	size_t n = url_prefix ? strlen(url_prefix) : 0;
	while (n && url_prefix[n - 1] == '/')
		n--;
	h->prefix = dup_str(url_prefix ? url_prefix : "", n);
	h->noproxy = no_proxy_list();
	h->hdrs = curl_slist_append(NULL, "Content-Type: application/json");
	/* Go sends no Expect: 100-continue, so the body follows the headers at once. */
	struct curl_slist *more = h->hdrs ? curl_slist_append(h->hdrs, "Expect:") : NULL;
	h->timeout_ms =
	    timeout_ms > 0 ? (long)(timeout_ms < 2147483647 ? timeout_ms : 2147483647) : 0;
	pthread_mutex_init(&h->mu, NULL);
	if (!h->prefix || !h->noproxy || !more) {
		ext_http_close(h);
		return TPH_ENOMEM;
	}
	*out = h;
	return TPH_OK;
}

void ext_http_close(ext_http *h)
{
	if (!h)
		return;
	while (h->idle) {
		lane *l = h->idle;
		h->idle = l->next;
		lane_free(l);
	}
	curl_slist_free_all(h->hdrs);
	pthread_mutex_destroy(&h->mu);
	tph_free(h->prefix);
	tph_free(h->noproxy);
	tph_free(h);
}

/* <prefix>/<verb>, the verb's bytes that cannot stand in a URL path percent-escaped. */
static char *make_url(const ext_http *h, const char *verb)
{
	size_t p = strlen(h->prefix), v = strlen(verb);
	char *u = tph_malloc(p + 1 + 3 * v + 1), *w;
	if (!u)
		return NULL;
	memcpy(u, h->prefix, p);
	w = u + p;
	*w++ = '/';
	for (const unsigned char *c = (const unsigned char *)verb; *c; c++) {
		if (*c > 0x20 && *c < 0x7f && !strchr("\"<>\\^`{|}", *c))
			*w++ = (char)*c;
		else
			w += sprintf(w, "%%%02X", *c);
	}
	*w = 0;
	return u;
}

static void start(lane *l, slot *sl, ext_call *c, const char *url, bool want_reply)
{
	sl->call = c;
	sl->want_reply = want_reply;
	sl->status = 0;
	sl->location = sl->stop = sl->too_big = sl->oom = false;
	sl->clen = -1;
	sl->got = sl->len = 0;
	sl->errbuf[0] = 0;
	ej_scan_init(&sl->scan);
	CURL *e = sl->easy;
	if (curl_easy_setopt(e, CURLOPT_URL, url) ||
	    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)c->len) ||
	    curl_easy_setopt(e, CURLOPT_POSTFIELDS, c->body) ||
	    curl_multi_add_handle(l->multi, e)) {
		snprintf(c->err, sizeof c->err, "Post \"%.200s\": cannot start the request", url);
		sl->call = NULL;
	}
}

/* What Volcano's send() returns for the finished transfer of `sl`. */
static void finish(slot *sl, CURLcode rc, const char *verb, const char *url)
{
	ext_call *c = sl->call;
	bool ended = rc == CURLE_OK || (rc == CURLE_WRITE_ERROR && sl->stop);
	if (sl->oom) {
		snprintf(c->err, sizeof c->err, "out of memory reading the reply");
	} else if (!ended) {
		const char *why = rc == CURLE_OPERATION_TIMEDOUT
		                      ? "context deadline exceeded (Client.Timeout exceeded while "
		                        "awaiting headers)"
		                  : sl->errbuf[0] ? sl->errbuf
		                                  : curl_easy_strerror(rc);
		snprintf(c->err, sizeof c->err, "Post \"%.160s\": %.140s", url, why);
	} else if (sl->status != 200) {
		snprintf(c->err, sizeof c->err,
		         "failed %.60s with extender at URL %.200s, code %ld", verb, url,
		         sl->status);
	} else if (!sl->want_reply) {
		c->ok = true;
	} else {
		if (sl->scan.status == EJ_MORE && sl->too_big)
			snprintf(sl->scan.err, sizeof sl->scan.err, "http: request body too large");
		else if (rc == CURLE_OK)
			ej_scan_eof(&sl->scan);
		if (sl->scan.status == EJ_DONE && (sl->buf || keep(sl, "", 0))) {
			c->ok = true;
			c->reply = sl->buf;
			c->reply_len = sl->scan.end;
			c->reply[c->reply_len] = 0;
			sl->buf = NULL;
			sl->cap = 0;
		} else {
			snprintf(c->err, sizeof c->err, "%s",
			         sl->scan.err[0] ? sl->scan.err : "unexpected EOF");
		}
	}
	sl->call = NULL;
}

/* Start what fits, run the transfers, finish what ended; returns the calls finished. */
static uint32_t turn(lane *l, ext_call *calls, uint32_t n, uint32_t *next, const char *verb,
                     const char *url, bool want_reply)
{
	uint32_t done = 0;
	for (int k = 0; k < LANE_WIDTH && *next < n; k++)
		if (!l->slot[k].call) {
			ext_call *c = &calls[(*next)++];
			start(l, &l->slot[k], c, url, want_reply);
			done += !l->slot[k].call;
		}
	int running = 0, queued;
	curl_multi_perform(l->multi, &running);
	for (CURLMsg *m; (m = curl_multi_info_read(l->multi, &queued));) {
		if (m->msg != CURLMSG_DONE)
			continue;
		CURL *e = m->easy_handle;
		CURLcode rc = m->data.result;
		slot *sl = NULL;
		curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&sl);
		curl_multi_remove_handle(l->multi, e);
		finish(sl, rc, verb, url);
		done++;
	}
	return done;
}

void ext_http_perform(ext_http *h, const char *verb, ext_call *calls, uint32_t n, bool want_reply)
{
	for (uint32_t i = 0; i < n; i++) {
		calls[i].ok = false;
		calls[i].reply = NULL;
		calls[i].reply_len = 0;
		calls[i].err[0] = 0;
	}
	lane *l = n ? take(h) : NULL;
	char *url = l ? make_url(h, verb) : NULL;
	if (!url) {
		for (uint32_t i = 0; i < n; i++)
			snprintf(calls[i].err, sizeof calls[i].err,
			         "out of memory sending the request");
		if (l)
			give(h, l);
		return;
	}
	/* Each transfer ends by its own timeout (none only when Volcano's has none), so the loop
	 * ends; curl_multi_poll wakes for any socket or timer of the lane. */
	uint32_t next = 0, done = 0;
	while (done < n) {
		uint32_t k = turn(l, calls, n, &next, verb, url, want_reply);
		done += k;
		if (!k && done < n)
			curl_multi_poll(l->multi, NULL, 0, 1000, NULL);
	}
	tph_free(url);
	give(h, l);
}

void ext_calls_done(ext_call *calls, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		tph_free(calls[i].reply);
		calls[i].reply = NULL;
	}
}
