/* tdm's revocable zones: the `tdm.revocable-zone.<zone>` windows read at open, whether each is
 * open at the session clock, and the predicate reasons, with the texts of Volcano's errors
 * (parseRevocableZone, availableRevocableZone in pkg/scheduler/plugins/tdm/tdm.go). */
#include "tdm.h"

#include <stdio.h>
#include <string.h>

#define PREFIX     "tdm.revocable-zone."
#define PREFIX_LEN (sizeof PREFIX - 1)
#define DAY_S      86400

typedef struct text {
	char *p;
	size_t n, cap;
} text;

static void put(text *t, const char *s, size_t len)
{
	for (size_t i = 0; i < len && t->n + 1 < t->cap; i++)
		t->p[t->n++] = s[i];
	t->p[t->n] = 0;
}

/* Go's time.quote: bytes outside printable ASCII as \xNN, '"' and '\' escaped. */
static void put_quoted(text *t, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	put(t, "\"", 1);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x80 || c < ' ') {
			char esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
			put(t, esc, 4);
			continue;
		}
		if (c == '"' || c == '\\')
			put(t, "\\", 1);
		put(t, s + i, 1);
	}
	put(t, "\"", 1);
}

static bool digit(const char *s, size_t len, size_t i)
{
	return i < len && s[i] >= '0' && s[i] <= '9';
}

/* time.ParseError for the layout "15:04": "cannot parse <rest> as <elem>" when `elem` is set,
 * else `msg` (": hour out of range"), then the quoted `rest` when there is one (extra text).
 * Returns -1. */
static int parse_error(text *err, const char *v, size_t len, const char *rest, size_t rlen,
                       const char *elem, const char *msg)
{
	put(err, "parsing time ", 13);
	put_quoted(err, v, len);
	if (elem) {
		put(err, " as \"15:04\": cannot parse ", 26);
		put_quoted(err, rest, rlen);
		put(err, " as ", 4);
		put_quoted(err, elem, strlen(elem));
	} else {
		put(err, msg, strlen(msg));
		if (rest)
			put_quoted(err, rest, rlen);
	}
	return -1;
}

/* time.Parse("15:04", v[0..len)): minutes of the day, or -1 with Go's message in err. The hour
 * takes one or two digits, the minute exactly two. */
static int parse_clock(const char *v, size_t len, text *err)
{
	if (!digit(v, len, 0))
		return parse_error(err, v, len, v, len, "15", NULL);
	size_t i = digit(v, len, 1) ? 2 : 1;
	int hour = i == 2 ? (v[0] - '0') * 10 + (v[1] - '0') : v[0] - '0';
	if (hour >= 24)
		return parse_error(err, v, len, NULL, 0, NULL, ": hour out of range");
	if (i >= len || v[i] != ':')
		return parse_error(err, v, len, v + i, len - i, ":", NULL);
	i++;
	if (!digit(v, len, i) || !digit(v, len, i + 1))
		return parse_error(err, v, len, v + i, len - i, "04", NULL);
	int min = (v[i] - '0') * 10 + (v[i + 1] - '0');
	if (min >= 60)
		return parse_error(err, v, len, NULL, 0, NULL, ": minute out of range");
	i += 2;
	if (i < len)
		return parse_error(err, v, len, v + i, len - i, NULL, ": extra text: ");
	return hour * 60 + min;
}

static bool space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* parseRevocableZone: "HH:MM-HH:MM" after strings.TrimSpace, split at '-' into exactly two
 * clocks. 0 with the two clocks in minutes, or -1 with Volcano's error text in err. */
static int parse_window(const char *raw, int *from, int *to, text *err)
{
	const char *a = raw, *b = raw + strlen(raw);
	while (a < b && space(*a))
		a++;
	while (b > a && space(b[-1]))
		b--;
	const char *dash = memchr(a, '-', (size_t)(b - a));
	if (!dash || memchr(dash + 1, '-', (size_t)(b - dash - 1))) {
		put(err, "revocable zone ", 15);
		put(err, raw, strlen(raw));
		put(err, " format error", 13);
		return -1;
	}
	*from = parse_clock(a, (size_t)(dash - a), err);
	if (*from < 0)
		return -1;
	*to = parse_clock(dash + 1, (size_t)(b - dash - 1), err);
	return *to < 0 ? -1 : 0;
}

static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* availableRevocableZone's time test on the session clock, in UTC: today's start clock up to
 * the end clock, which is tomorrow's when it is not after the start; whole seconds, both ends
 * included. */
static bool window_open(int64_t now_ms, int from, int to)
{
	int64_t now = floor_div(now_ms, 1000), day = floor_div(now, DAY_S) * DAY_S;
	int64_t start = day + from * 60, end = day + (from >= to ? DAY_S : 0) + to * 60;
	return now >= start && now <= end;
}

/* One zone from its argument: open or not, and the reason its nodes fail the predicate. */
static int zone_set(tph_session *s, tdm_zone *z, const char *name, const char *raw)
{
	char buf[512];
	text err = {buf, 0, sizeof buf};
	buf[0] = 0;
	int from = 0, to = 0;
	z->open = false;
	if (parse_window(raw, &from, &to, &err) == 0) {
		z->open = window_open(tph_view_of(s)->now, from, to);
		snprintf(buf, sizeof buf, "current time beyond revocable zone %s:%s", name, raw);
	}
	z->why = z->open ? TPH_PASS : tph_reason(s, buf, true);
	return z->why == TPH_REASON_INVALID ? TPH_ENOMEM : TPH_OK;
}

/* New: every argument whose key contains "tdm.revocable-zone." names the zone left when the
 * first occurrence is cut out; its value must be a string (Volcano's type assertion panics on
 * anything else; here it is dropped with the getters' warning). A name seen twice keeps the
 * later window (Go's map keeps one of them). */
int tdm_zones_open(tph_session *s, tdm_st *g, const tph_args *args)
{
	uint32_t n = tph_args_count(args);
	g->zone = TPH_SESSION_NEW(s, tdm_zone, n + 1);
	if (!g->zone)
		return TPH_ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const char *key = tph_args_key_at(args, i), *raw = NULL;
		const char *at = key ? strstr(key, PREFIX) : NULL;
		if (!at || tph_args_string(args, key, &raw) != TPH_OK)
			continue;
		char name[512];
		snprintf(name, sizeof name, "%.*s%s", (int)(at - key), key, at + PREFIX_LEN);
		tph_sid sid = tph_session_sid(s, name, strlen(name));
		uint32_t z = 0;
		while (z < g->n_zone && strcmp(g->zone[z].name, name))
			z++;
		if (z == g->n_zone) {
			char *copy = tph_session_alloc(s, strlen(name) + 1);
			if (!copy)
				return TPH_ENOMEM;
			memcpy(copy, name, strlen(name) + 1);
			g->zone[g->n_zone++] = (tdm_zone){.name = copy, .sid = sid};
		}
		int rc = zone_set(s, &g->zone[z], name, raw);
		if (rc)
			return rc;
	}
	return TPH_OK;
}

/* Each node's zone (NodeInfo.RevocableZone: the label, "" for none) and what the predicate
 * says of it: no zone passes, an open zone asks the task, any other fails with the zone's
 * reason, or "not support" for a zone no argument names. */
int tdm_nodes_open(tph_session *s, tdm_st *g)
{
	const tph_node_store *ns = tph_view_of(s)->nodes;
	tph_sid key = tph_session_sid(s, "volcano.sh/revocable-zone", 25);
	g->node_state = TPH_SESSION_NEW(s, uint8_t, ns->n + 1);
	g->node_zone = TPH_SESSION_NEW(s, uint32_t, ns->n + 1);
	g->node_why = TPH_SESSION_NEW(s, tph_reason_code, ns->n + 1);
	if (!g->node_state || !g->node_zone || !g->node_why)
		return TPH_ENOMEM;
	for (tph_idx i = 0; i < ns->n; i++) {
		const tph_node_meta *m = ns->meta ? ns->meta[i] : NULL;
		tph_sid v =
		    key == TPH_SID_NONE || !m ? TPH_SID_NONE : tph_labels_get(m->labels, key);
		g->node_zone[i] = TPH_NOIDX;
		if (v == TPH_SID_NONE || v == TPH_SID_EMPTY)
			continue;
		uint32_t z = 0;
		while (z < g->n_zone && g->zone[z].sid != v)
			z++;
		if (z < g->n_zone) {
			g->node_zone[i] = z;
			g->node_state[i] = g->zone[z].open ? TDM_NODE_OPEN : TDM_NODE_SHUT;
			g->node_why[i] = g->zone[z].why;
			g->any_open |= g->zone[z].open;
			continue;
		}
		char buf[512];
		snprintf(buf, sizeof buf, "revocable zone %s not support", tph_session_str(s, v));
		g->node_state[i] = TDM_NODE_SHUT;
		g->node_why[i] = tph_reason(s, buf, true);
		if (g->node_why[i] == TPH_REASON_INVALID)
			return TPH_ENOMEM;
	}
	return TPH_OK;
}
