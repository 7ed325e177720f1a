/* extender plugin, private: what its four files share. extender.c reads the arguments and
 * registers one callback per configured verb; ext_encode.c writes the requests as Volcano's
 * json.Marshal spells its objects; ext_http.c sends them with libcurl, reading each reply only
 * as far as Volcano's json.Decoder would; ext_json.c checks and decodes the replies with
 * encoding/json's rules and messages. */
#ifndef TPH_PLUGINS_EXTENDER_H
#define TPH_PLUGINS_EXTENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tephra/plugin.h"

/* ---- ext_json.c: the scanner ----
 * encoding/json's scanner as json.Decoder runs it over a reply: leading spaces, then one value;
 * the value ends at its last byte (an object, array, string or literal) or at the first byte
 * after it (a number), and nothing after it is read. Bytes come in as they arrive. */

#define EJ_MAX_BODY  (10u << 20) /* Volcano's maxBodySize (http.MaxBytesReader) */
#define EJ_MAX_DEPTH 10000u      /* encoding/json's maxNestingDepth */

enum {
	EJ_MORE = 0, /* the value is not complete yet */
	EJ_DONE,     /* the value is complete: `end` bytes */
	EJ_ERROR,    /* a syntax error, or the input ended early: `err` says which */
};

typedef struct ej_scan {
	uint8_t status;   /* EJ_MORE, EJ_DONE, EJ_ERROR */
	uint8_t state;    /* private */
	uint8_t lit;      /* private: bytes of a literal (true, false, null) still expected */
	uint8_t hex;      /* private: hex digits of a \u escape still expected */
	bool key;         /* private: the string being read is an object key */
	bool nonspace;    /* a byte other than a space was seen */
	uint32_t depth;   /* open objects and arrays */
	size_t fed;       /* bytes consumed */
	size_t end;       /* EJ_DONE: the value is bytes [0, end) */
	const char *word; /* private: the literal being read */
	char err[96];     /* EJ_ERROR: encoding/json's message */
	uint8_t stack[(EJ_MAX_DEPTH + 7) / 8]; /* bit set: that level is an object */
} ej_scan;

void ej_scan_init(ej_scan *s);
/* Consume bytes p[0..n) until the value completes or an error; returns how many were consumed
 * (a number's value ends before the byte that ended it, which is not consumed). */
size_t ej_scan_feed(ej_scan *s, const char *p, size_t n);
/* The input ended: completes a number or a top-level literal, else EJ_ERROR with "EOF" (only
 * spaces were seen) or "unexpected EOF". No-op once DONE or ERROR. */
void ej_scan_eof(ej_scan *s);

/* ---- ext_json.c: decoding a checked value into a reply ----
 * json.Decoder.Decode into one of Volcano's response structs: the top level null or an object;
 * fields matched by name, exactly or folded as encoding/json folds; unknown keys skipped; a value
 * of the wrong type records an UnmarshalTypeError (the first one is the error) and decoding goes
 * on, so fields before and after it keep their values, as in Go. */

typedef enum ej_ftype {
	EJ_STRING = 0, /* string */
	EJ_INT,        /* int */
	EJ_BOOL,       /* bool */
	EJ_SCORES,     /* map[string]float64 */
	EJ_VICTIMS,    /* []*api.TaskInfo: each element's UID */
} ej_ftype;

typedef struct ej_field {
	const char *name; /* the json tag */
	uint8_t type;     /* ej_ftype */
} ej_field;

#define EJ_MAX_FIELDS 4

typedef struct ej_type {
	const char *go_name; /* "PredicateResponse", for messages */
	const ej_field *fields;
	uint32_t n_fields;
} ej_type;

/* A collection's entry: a nodeScore (key, value) or a victim (key = its UID). */
typedef struct ej_entry {
	uint32_t key, klen; /* into ej_out.text; victims: klen UINT32_MAX for a null element */
	double num;
} ej_entry;

typedef struct ej_out {
	bool set[EJ_MAX_FIELDS];      /* the field was written */
	int64_t num[EJ_MAX_FIELDS];   /* EJ_INT; EJ_BOOL as 0/1 */
	uint32_t str[EJ_MAX_FIELDS];  /* EJ_STRING: offset into text */
	uint32_t slen[EJ_MAX_FIELDS]; /* EJ_STRING: length */
	bool nil;                     /* the collection field is nil (absent or null) */
	ej_entry *ent;                /* the collection's entries, in document order */
	uint32_t n_ent, cap_ent;
	char *text; /* decoded strings, each NUL-terminated */
	uint32_t n_text, cap_text;
	bool oom;
	char err[200]; /* the first error; "" when none */
} ej_out;

/* Decode text[0..len), a value ej_scan accepted (text[len] must be readable: a NUL). Returns
 * true when Decode would return nil; else out->err holds its message. Free with ej_out_free
 * either way. */
bool ej_decode(const char *text, size_t len, const ej_type *t, ej_out *out);
void ej_out_free(ej_out *out);
static inline const char *ej_str(const ej_out *o, uint32_t field)
{
	return o->set[field] ? o->text + o->str[field] : "";
}

/* ---- ext_encode.c: a JSON text being written ---- */

typedef struct ej_buf {
	char *p;
	size_t len, cap;
	bool oom;
} ej_buf;

void jb_raw(ej_buf *b, const char *s, size_t n);
void jb_lit(ej_buf *b, const char *s); /* a NUL-terminated piece of JSON */
/* s[0..n) as a JSON string, escaped as Go's encoder escapes it. */
void jb_str(ej_buf *b, const char *s, size_t n);
void jb_int(ej_buf *b, int64_t v);
void jb_free(ej_buf *b);

/* Volcano's objects: api.TaskInfo (with its v1.Pod), api.NodeInfo (with its v1.Node),
 * api.JobInfo (with its tasks), api.QueueInfo, and the OnSessionOpenRequest of them all. */
void enc_task(ej_buf *b, const tph_session *s, tph_idx t);
void enc_node(ej_buf *b, const tph_session *s, tph_idx n);
void enc_job(ej_buf *b, const tph_session *s, tph_idx j);
void enc_queue(ej_buf *b, const tph_session *s, tph_idx q);
void enc_session(ej_buf *b, const tph_session *s);
/* {"<one>": <task>, "<many>": [enc(items[0]), ...]}: PrioritizeRequest ("task", "nodes"),
 * PreemptableRequest ("evictor", "evictees"). */
typedef void (*enc_fn)(ej_buf *b, const tph_session *s, tph_idx i);
void enc_task_and_list(ej_buf *b, const tph_session *s, const char *one, tph_idx task,
                       const char *many, const tph_idx *items, uint32_t n, enc_fn enc);

/* ---- ext_http.c: the client ---- */

typedef struct ext_http ext_http;

/* One request and what came back. */
typedef struct ext_call {
	const char *body; /* the request's JSON */
	size_t len;
	bool ok;     /* a 200 answer (and, when a reply is wanted, a well-formed one) */
	char *reply; /* the reply's JSON value, NUL-terminated (tph_free); NULL unless ok */
	size_t reply_len;
	char err[320]; /* !ok: the error as Volcano's send() returns it */
} ext_call;

/* A client for one urlPrefix; timeout_ms <= 0: none (Volcano's http.Client{Timeout: 0}). */
int ext_http_open(const char *url_prefix, int64_t timeout_ms, ext_http **out);
void ext_http_close(ext_http *h);
/* POST calls[0..n) to <urlPrefix>/<verb>, up to 16 at once (Volcano's predicate workers), each
 * with its own total timeout. want_reply: read and check the body (false: the status alone, as
 * Volcano's send() with a nil result). Thread-safe: concurrent callers use their own
 * connections. */
void ext_http_perform(ext_http *h, const char *verb, ext_call *calls, uint32_t n, bool want_reply);
/* Free the replies of calls[0..n). */
void ext_calls_done(ext_call *calls, uint32_t n);

#endif
