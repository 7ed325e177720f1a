/* extender: the requests, as Volcano's json.Marshal writes its scheduler objects (api.TaskInfo,
 * NodeInfo, JobInfo, QueueInfo and the Kubernetes objects inside them): the same field names, in
 * struct order, with Go's string escaping and sorted map keys. A subset: the fields tephra knows
 * (no volumes, NUMA, DRA, per-node task maps), since the replies never depend on the request
 * here and an extender reads what it needs. */
#include "extender.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tephra/alloc.h"
#include "tephra/plugin.h"

/* ---- the buffer ---- */

void jb_raw(ej_buf *b, const char *s, size_t n)
{
	if (b->oom || !n)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 1024;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = tph_realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

void jb_lit(ej_buf *b, const char *s)
{
	jb_raw(b, s, strlen(s));
}

/* encodeState.string with HTML escaping on (json.Marshal's default). */
void jb_str(ej_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	jb_raw(b, "\"", 1);
	size_t start = 0;
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		char esc[8];
		size_t elen = 0, skip = 1;
		if (c < 0x80) {
			if (c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' &&
			    c != '&') {
				i++;
				continue;
			}
			const char *named = c == '"'    ? "\\\""
			                    : c == '\\' ? "\\\\"
			                    : c == '\n' ? "\\n"
			                    : c == '\r' ? "\\r"
			                    : c == '\t' ? "\\t"
			                                : NULL;
			if (named)
				elen = (size_t)snprintf(esc, sizeof esc, "%s", named);
			else
				elen = (size_t)snprintf(esc, sizeof esc, "\\u00%c%c", hex[c >> 4],
				                        hex[c & 15]);
		} else {
			/* Invalid UTF-8 becomes \ufffd; U+2028 and U+2029 are escaped. */
			unsigned char c1 = i + 1 < n ? (unsigned char)s[i + 1] : 0;
			unsigned char c2 = i + 2 < n ? (unsigned char)s[i + 2] : 0;
			size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
			bool valid = len && i + len <= n;
			for (size_t k = 1; valid && k < len; k++)
				valid = ((unsigned char)s[i + k] & 0xc0) == 0x80;
			if (valid && len == 3 && c == 0xe2 && c1 == 0x80 &&
			    (c2 == 0xa8 || c2 == 0xa9)) {
				elen = (size_t)snprintf(esc, sizeof esc, "\\u202%c",
				                        c2 == 0xa8 ? '8' : '9');
				skip = 3;
			} else if (valid) {
				i += len;
				continue;
			} else {
				elen = (size_t)snprintf(esc, sizeof esc, "\\ufffd");
			}
		}
		jb_raw(b, s + start, i - start);
		jb_raw(b, esc, elen);
		i += skip;
		start = i;
	}
	jb_raw(b, s + start, n - start);
	jb_raw(b, "\"", 1);
}

void jb_int(ej_buf *b, int64_t v)
{
	char buf[24];
	jb_raw(b, buf, (size_t)snprintf(buf, sizeof buf, "%lld", (long long)v));
}

void jb_free(ej_buf *b)
{
	tph_free(b->p);
	*b = (ej_buf){0};
}

/* ---- pieces ---- */

static void key(ej_buf *b, const char *k)
{
	jb_str(b, k, strlen(k));
	jb_raw(b, ":", 1);
}

static void sid(ej_buf *b, const tph_session *s, tph_sid id)
{
	const char *t = id == TPH_SID_NONE ? "" : tph_session_str(s, id);
	jb_str(b, t ? t : "", t ? strlen(t) : 0);
}

/* metav1.Time: RFC 3339 in UTC, seconds; the zero time for an unset one. */
static void timestamp(ej_buf *b, tph_time ms)
{
	if (!ms)
		ms = TPH_GO_ZERO_TIME_MS;
	time_t t = (time_t)(ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000));
	struct tm tm;
	char buf[40];
	if (!gmtime_r(&t, &tm) || !strftime(buf, sizeof buf, "\"%Y-%m-%dT%H:%M:%SZ\"", &tm))
		snprintf(buf, sizeof buf, "null");
	jb_lit(b, buf);
}

static void labels(ej_buf *b, const tph_session *s, tph_labels l)
{
	if (!l.n) {
		jb_lit(b, "null");
		return;
	}
	/* Go sorts map keys by their text (ids are not in text order); a longer list than this
	 * keeps its own order. */
	uint32_t ord[64];
	uint32_t n = l.n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t j = i;
		const char *k = tph_session_str(s, l.items[i].key);
		if (n > 64) {
			ord[0] = i;
			continue;
		}
		while (j && strcmp(tph_session_str(s, l.items[ord[j - 1]].key), k) > 0) {
			ord[j] = ord[j - 1];
			j--;
		}
		ord[j] = i;
	}
	jb_raw(b, "{", 1);
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			jb_raw(b, ",", 1);
		uint32_t at = n > 64 ? i : ord[i];
		sid(b, s, l.items[at].key);
		jb_raw(b, ":", 1);
		sid(b, s, l.items[at].value);
	}
	jb_raw(b, "}", 1);
}

/* Dimensions in name order (Go's sorted map keys). */
static uint32_t dims_by_name(const tph_session *s, uint32_t *ord)
{
	uint32_t n = tph_session_dim_count(s);
	n = n < TPH_RES_MAX ? n : TPH_RES_MAX;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t j = i;
		while (j && strcmp(tph_session_dim_name(s, ord[j - 1]),
		                   tph_session_dim_name(s, i)) > 0) {
			ord[j] = ord[j - 1];
			j--;
		}
		ord[j] = i;
	}
	return n;
}

/* api.Resource: cpu in millicores, memory in bytes, other resources as milli-values
 * (MilliValue(): bytes * 1000 for ephemeral-storage and hugepages), pods as MaxTaskNum. */
static void resource(ej_buf *b, const tph_session *s, const int64_t *row, int64_t pods_less)
{
	const tph_view *v = tph_view_of(s);
	uint32_t ord[TPH_RES_MAX], n = dims_by_name(s, ord), k = 0;
	jb_lit(b, "{\"MilliCPU\":");
	jb_int(b, row[TPH_RES_CPU]);
	jb_lit(b, ",\"Memory\":");
	jb_int(b, row[TPH_RES_MEMORY]);
	jb_lit(b, ",\"ScalarResources\":");
	for (uint32_t i = 0; i < n; i++) {
		uint32_t d = ord[i];
		if (d == TPH_RES_CPU || d == TPH_RES_MEMORY || d == TPH_RES_PODS || !row[d])
			continue;
		jb_raw(b, k++ ? "," : "{", 1);
		key(b, tph_session_dim_name(s, d));
		jb_int(b, v->dims->unit[d] == TPH_UNIT_BYTES ? row[d] * 1000 : row[d]);
	}
	jb_lit(b, k ? "}" : "null");
	jb_lit(b, ",\"MaxTaskNum\":");
	jb_int(b, (row[TPH_RES_PODS] - pods_less) / 1000);
	jb_raw(b, "}", 1);
}

/* A Kubernetes quantity: "2", "100m", bytes as a plain number. */
static void quantity(ej_buf *b, int64_t v, uint8_t unit)
{
	char buf[32];
	if (unit == TPH_UNIT_BYTES || v % 1000 == 0)
		snprintf(buf, sizeof buf, "\"%lld\"",
		         (long long)(unit == TPH_UNIT_BYTES ? v : v / 1000));
	else
		snprintf(buf, sizeof buf, "\"%lldm\"", (long long)v);
	jb_lit(b, buf);
}

/* v1.ResourceList of a row (pods less `pods_less`), or null. */
static void resource_list(ej_buf *b, const tph_session *s, const int64_t *row, int64_t pods_less)
{
	const tph_view *v = tph_view_of(s);
	uint32_t ord[TPH_RES_MAX], n = dims_by_name(s, ord), k = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t d = ord[i];
		int64_t x = row[d] - (d == TPH_RES_PODS ? pods_less : 0);
		if (!x)
			continue;
		jb_raw(b, k++ ? "," : "{", 1);
		key(b, tph_session_dim_name(s, d));
		quantity(b, x, v->dims->unit[d]);
	}
	jb_lit(b, k ? "}" : "null");
}

/* ---- objects ---- */

static void pod(ej_buf *b, const tph_session *s, tph_idx t)
{
	const tph_view *v = tph_view_of(s);
	const tph_task_store *ts = v->tasks;
	const tph_pod_meta *m = ts->meta[t];
	jb_lit(b, "{\"metadata\":{\"name\":");
	sid(b, s, ts->name[t]);
	jb_lit(b, ",\"namespace\":");
	sid(b, s, ts->ns[t]);
	jb_lit(b, ",\"uid\":");
	sid(b, s, ts->uid[t]);
	jb_lit(b, ",\"creationTimestamp\":");
	timestamp(b, ts->creation[t]);
	jb_lit(b, ",\"labels\":");
	labels(b, s, m ? m->labels : (tph_labels){0});
	jb_lit(b, ",\"annotations\":");
	labels(b, s, m ? m->annotations : (tph_labels){0});
	jb_lit(b, "},\"spec\":{\"containers\":[{\"name\":\"\",\"resources\":{\"limits\":");
	uint32_t nl = m ? m->n_limits : 0;
	for (uint32_t i = 0; i < nl; i++) {
		uint32_t d = tph_session_dim_find(s, tph_session_str(s, m->limits[i].name),
		                                  strlen(tph_session_str(s, m->limits[i].name)));
		jb_raw(b, i ? "," : "{", 1);
		sid(b, s, m->limits[i].name);
		jb_raw(b, ":", 1);
		quantity(b, m->limits[i].value,
		         d != TPH_NOIDX ? v->dims->unit[d] : (uint8_t)TPH_UNIT_MILLI);
	}
	jb_lit(b, nl ? "}" : "null");
	jb_lit(b, ",\"requests\":");
	resource_list(b, s, ts->req + (size_t)t * v->ndim, 1000);
	jb_lit(b, "}}],\"nodeName\":");
	tph_idx n = ts->node[t];
	sid(b, s, n == TPH_NOIDX ? TPH_SID_EMPTY : v->nodes->name[n]);
	jb_lit(b, ",\"priority\":");
	jb_int(b, ts->priority[t]);
	jb_lit(b, "},\"status\":{}}");
}

void enc_task(ej_buf *b, const tph_session *s, tph_idx t)
{
	const tph_view *v = tph_view_of(s);
	const tph_task_store *ts = v->tasks;
	const int64_t *req = ts->req + (size_t)t * v->ndim;
	tph_idx j = ts->job[t], n = ts->node[t];
	jb_lit(b, "{\"UID\":");
	sid(b, s, ts->uid[t]);
	jb_lit(b, ",\"Job\":");
	sid(b, s, j == TPH_NOIDX ? TPH_SID_EMPTY : v->jobs->uid[j]);
	jb_lit(b, ",\"Name\":");
	sid(b, s, ts->name[t]);
	jb_lit(b, ",\"Namespace\":");
	sid(b, s, ts->ns[t]);
	jb_lit(b, ",\"TaskRole\":");
	sid(b, s, ts->role[t]);
	jb_lit(b, ",\"Resreq\":");
	resource(b, s, req, 1000);
	jb_lit(b, ",\"InitResreq\":");
	resource(b, s, req, 1000);
	jb_lit(b, ",\"NodeName\":");
	sid(b, s, n == TPH_NOIDX ? TPH_SID_EMPTY : v->nodes->name[n]);
	jb_lit(b, ",\"EvictionOccurred\":false,\"JobAllocatedHyperNode\":\"\",\"Status\":");
	jb_int(b, (int64_t)1 << ts->status[t]); /* api.TaskStatus: 1 << its index */
	jb_lit(b, ",\"LastTransaction\":null,\"Priority\":");
	jb_int(b, ts->priority[t]);
	jb_lit(b, ",\"VolumeReady\":false,\"Preemptable\":");
	jb_lit(b, ts->flags[t] & TPH_TASK_PREEMPTABLE ? "true" : "false");
	jb_lit(b, ",\"BestEffort\":");
	jb_lit(b, ts->flags[t] & TPH_TASK_BEST_EFFORT ? "true" : "false");
	jb_lit(b,
	       ",\"HasRestartableInitContainer\":false,\"SchGated\":false,\"RevocableZone\":\"\","
	       "\"NumaInfo\":null,\"Pod\":");
	pod(b, s, t);
	jb_lit(b, ",\"CustomBindErrHandlerSucceeded\":false}");
}

static void node_row(const tph_node_store *ns, const int64_t *col, tph_idx n, uint32_t ndim,
                     int64_t *row)
{
	for (uint32_t d = 0; d < ndim && d < TPH_RES_MAX; d++)
		row[d] = col[(size_t)d * ns->stride + n];
}

void enc_node(ej_buf *b, const tph_session *s, tph_idx n)
{
	const tph_view *v = tph_view_of(s);
	const tph_node_store *ns = v->nodes;
	const tph_node_meta *m = ns->meta[n];
	int64_t row[TPH_RES_MAX] = {0};
	jb_lit(b, "{\"Name\":");
	sid(b, s, ns->name[n]);
	jb_lit(b, ",\"Node\":{\"metadata\":{\"name\":");
	sid(b, s, ns->name[n]);
	jb_lit(b, ",\"labels\":");
	labels(b, s, m ? m->labels : (tph_labels){0});
	jb_lit(b, ",\"annotations\":");
	labels(b, s, m ? m->annotations : (tph_labels){0});
	jb_lit(b, "},\"spec\":{\"unschedulable\":");
	jb_lit(b, ns->flags[n] & TPH_NODE_UNSCHEDULABLE ? "true" : "false");
	jb_lit(b, "},\"status\":{\"capacity\":");
	node_row(ns, ns->capacity, n, v->ndim, row);
	resource_list(b, s, row, 0);
	jb_lit(b, ",\"allocatable\":");
	node_row(ns, ns->alloc, n, v->ndim, row);
	resource_list(b, s, row, 0);
	jb_lit(b, "}},\"State\":{\"Phase\":");
	jb_int(b, ns->flags[n] & TPH_NODE_READY ? 1 : 2); /* api.NodePhase: Ready 1, NotReady 2 */
	jb_lit(b, ",\"Reason\":\"\"}");
	static const char *const cols[] = {"Releasing", "Pipelined",   "Idle",
	                                   "Used",      "Allocatable", "Capacity"};
	const int64_t *src[] = {ns->releasing, ns->pipelined, ns->idle,
	                        ns->used,      ns->alloc,     ns->capacity};
	for (int i = 0; i < 6; i++) {
		jb_raw(b, ",", 1);
		key(b, cols[i]);
		node_row(ns, src[i], n, v->ndim, row);
		resource(b, s, row, 0);
	}
	jb_lit(b, ",\"RevocableZone\":\"\",\"OversubscriptionNode\":false,"
	          "\"OfflineJobEvicting\":false}");
}

void enc_job(ej_buf *b, const tph_session *s, tph_idx j)
{
	const tph_view *v = tph_view_of(s);
	const tph_job_store *js = v->jobs;
	tph_idx q = js->queue[j];
	jb_lit(b, "{\"UID\":");
	sid(b, s, js->uid[j]);
	jb_lit(b, ",\"PgUID\":");
	sid(b, s, js->uid[j]);
	jb_lit(b, ",\"Name\":");
	sid(b, s, js->name[j]);
	jb_lit(b, ",\"Namespace\":");
	sid(b, s, js->ns[j]);
	jb_lit(b, ",\"Queue\":");
	sid(b, s, q == TPH_NOIDX ? TPH_SID_EMPTY : v->queues->name[q]);
	jb_lit(b, ",\"Priority\":");
	jb_int(b, js->priority[j]);
	jb_lit(b, ",\"MinAvailable\":");
	jb_int(b, js->min_member[j]);
	jb_lit(b, ",\"Tasks\":");
	uint32_t k = 0;
	/* TasksMap: keyed by task UID, which Go sorts; snapshot order is close enough for a
	 * reader, and the keys are unique. */
	for (uint32_t i = js->task_off[j]; i < js->task_off[j + 1]; i++) {
		tph_idx t = js->task_idx[i];
		jb_raw(b, k++ ? "," : "{", 1);
		sid(b, s, v->tasks->uid[t]);
		jb_raw(b, ":", 1);
		enc_task(b, s, t);
	}
	jb_lit(b, k ? "}" : "{}");
	jb_lit(b, ",\"Allocated\":");
	resource(b, s, v->js->allocated + (size_t)j * v->ndim, 0);
	jb_lit(b, ",\"CreationTimestamp\":");
	timestamp(b, js->creation[j]);
	jb_lit(b, ",\"Preemptable\":false,\"RevocableZone\":\"\"}");
}

void enc_queue(ej_buf *b, const tph_session *s, tph_idx q)
{
	const tph_queue_store *qs = tph_view_of(s)->queues;
	const tph_queue_meta *m = qs->meta[q];
	jb_lit(b, "{\"UID\":");
	sid(b, s, qs->name[q]);
	jb_lit(b, ",\"Name\":");
	sid(b, s, qs->name[q]);
	jb_lit(b, ",\"Weight\":");
	jb_int(b, qs->weight[q]);
	jb_lit(b, ",\"Weights\":\"\",\"Hierarchy\":\"\",\"Queue\":{\"metadata\":{\"name\":");
	sid(b, s, qs->name[q]);
	jb_lit(b, ",\"annotations\":");
	labels(b, s, m ? m->annotations : (tph_labels){0});
	jb_lit(b, "},\"spec\":{\"weight\":");
	jb_int(b, qs->weight[q]);
	jb_lit(b, "},\"status\":{}}}");
}

/* A Go map of objects keyed by a name column: {"<keys[0]>": <enc(0)>, ...}. */
static void object_map(ej_buf *b, const tph_session *s, const tph_sid *keys, uint32_t n, enc_fn enc)
{
	jb_raw(b, "{", 1);
	for (uint32_t i = 0; i < n && !b->oom; i++) {
		if (i)
			jb_raw(b, ",", 1);
		sid(b, s, keys[i]);
		jb_raw(b, ":", 1);
		enc(b, s, i);
	}
	jb_raw(b, "}", 1);
}

/* OnSessionOpenRequest: untagged fields, so Go's field names. */
void enc_session(ej_buf *b, const tph_session *s)
{
	const tph_view *v = tph_view_of(s);
	jb_lit(b, "{\"Jobs\":");
	object_map(b, s, v->jobs->uid, v->jobs->n, enc_job);
	jb_lit(b, ",\"Nodes\":");
	object_map(b, s, v->nodes->name, v->nodes->n, enc_node);
	jb_lit(b, ",\"Queues\":");
	object_map(b, s, v->queues->name, v->queues->n, enc_queue);
	jb_lit(b, ",\"NamespaceInfo\":{},\"RevocableNodes\":{},\"NodeList\":null}");
}

void enc_task_and_list(ej_buf *b, const tph_session *s, const char *one, tph_idx task,
                       const char *many, const tph_idx *items, uint32_t n, enc_fn enc)
{
	jb_raw(b, "{", 1);
	key(b, one);
	enc_task(b, s, task);
	jb_raw(b, ",", 1);
	key(b, many);
	jb_raw(b, "[", 1);
	for (uint32_t i = 0; i < n && !b->oom; i++) {
		if (i)
			jb_raw(b, ",", 1);
		enc(b, s, items[i]);
	}
	jb_lit(b, "]}");
}
