/* Stable accessors over the session's columns, for external plugins that cannot depend on the
 * internal layout. Built-in plugins read the columns directly. */
#include "session/session_int.h"

#include <string.h>

static const char *str(const tph_session *s, tph_sid id)
{
	return tph_strtab_str(s->snap->strs, id);
}

uint32_t tph_session_node_count(const tph_session *s)
{
	return s->nodes.n;
}

uint32_t tph_session_task_count(const tph_session *s)
{
	return s->tasks.n;
}

uint32_t tph_session_job_count(const tph_session *s)
{
	return s->jobs->n;
}

uint32_t tph_session_queue_count(const tph_session *s)
{
	return s->queues->n;
}

uint32_t tph_session_dim_count(const tph_session *s)
{
	return s->ndim;
}

const char *tph_session_dim_name(const tph_session *s, uint32_t dim)
{
	return dim < s->ndim ? str(s, s->snap->dims.name[dim]) : NULL;
}

const char *tph_session_node_name(const tph_session *s, tph_idx node)
{
	return node < s->nodes.n ? str(s, s->nodes.name[node]) : NULL;
}

static int64_t node_col(const tph_session *s, const int64_t *col, tph_idx node, uint32_t dim)
{
	return node < s->nodes.n && dim < s->ndim ? col[(size_t)dim * s->nodes.stride + node] : 0;
}

int64_t tph_session_node_allocatable(const tph_session *s, tph_idx node, uint32_t dim)
{
	return node_col(s, s->nodes.alloc, node, dim);
}

int64_t tph_session_node_idle(const tph_session *s, tph_idx node, uint32_t dim)
{
	return node_col(s, s->nodes.idle, node, dim);
}

int64_t tph_session_node_used(const tph_session *s, tph_idx node, uint32_t dim)
{
	return node_col(s, s->nodes.used, node, dim);
}

const char *tph_session_node_label(const tph_session *s, tph_idx node, const char *key)
{
	if (node >= s->nodes.n)
		return NULL;
	tph_sid k = tph_strtab_find(s->snap->strs, key, strlen(key));
	tph_sid v =
	    k == TPH_SID_NONE ? TPH_SID_NONE : tph_labels_get(s->nodes.meta[node]->labels, k);
	return v == TPH_SID_NONE ? NULL : str(s, v);
}

const char *tph_session_task_name(const tph_session *s, tph_idx task)
{
	return task < s->tasks.n ? str(s, s->tasks.name[task]) : NULL;
}

const char *tph_session_task_namespace(const tph_session *s, tph_idx task)
{
	return task < s->tasks.n ? str(s, s->tasks.ns[task]) : NULL;
}

int64_t tph_session_task_request(const tph_session *s, tph_idx task, uint32_t dim)
{
	return task < s->tasks.n && dim < s->ndim ? s->tasks.req[(size_t)task * s->ndim + dim] : 0;
}

int32_t tph_session_task_priority(const tph_session *s, tph_idx task)
{
	return task < s->tasks.n ? s->tasks.priority[task] : 0;
}

tph_idx tph_session_task_job(const tph_session *s, tph_idx task)
{
	return task < s->tasks.n ? s->tasks.job[task] : TPH_NOIDX;
}

tph_idx tph_session_task_node(const tph_session *s, tph_idx task)
{
	return task < s->tasks.n ? s->tasks.node[task] : TPH_NOIDX;
}

const char *tph_session_job_name(const tph_session *s, tph_idx job)
{
	return job < s->jobs->n ? str(s, s->jobs->name[job]) : NULL;
}

int32_t tph_session_job_priority(const tph_session *s, tph_idx job)
{
	return job < s->jobs->n ? s->jobs->priority[job] : 0;
}

int32_t tph_session_job_min_member(const tph_session *s, tph_idx job)
{
	return job < s->jobs->n ? s->jobs->min_member[job] : 0;
}

tph_idx tph_session_job_queue(const tph_session *s, tph_idx job)
{
	return job < s->jobs->n ? s->jobs->queue[job] : TPH_NOIDX;
}

const char *tph_session_queue_name(const tph_session *s, tph_idx queue)
{
	return queue < s->queues->n ? str(s, s->queues->name[queue]) : NULL;
}

int64_t tph_session_now(const tph_session *s)
{
	return s->snap->now;
}

void *tph_session_alloc(tph_session *s, size_t size)
{
	return tph_ssn_alloc(s, size);
}

void *tph_session_calloc(tph_session *s, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return tph_ssn_alloc(s, n * size);
}

const char *tph_session_str(const tph_session *s, tph_sid id)
{
	return id == TPH_SID_NONE ? NULL : tph_strtab_str(s->snap->strs, id);
}

tph_sid tph_session_sid(const tph_session *s, const char *text, size_t len)
{
	return tph_strtab_find(s->snap->strs, text, len);
}

uint32_t tph_session_dim_find(const tph_session *s, const char *name, size_t len)
{
	tph_sid id = tph_strtab_find(s->snap->strs, name, len);
	for (uint32_t d = 0; id != TPH_SID_NONE && d < s->snap->dims.n; d++)
		if (s->snap->dims.name[d] == id)
			return d;
	return TPH_NOIDX;
}

void tph_session_warn(tph_session *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tph_diag_vwarn(s->diag, fmt, ap);
	va_end(ap);
}

int tph_plugin_flag(const tph_session *s, tph_conf_flag flag)
{
	if (s->cur_plugin < 0 || (unsigned)flag >= TPH_FLAG_COUNT)
		return -1;
	return s->plugins[s->cur_plugin].flags[flag];
}
