/* Session lifecycle: open over a snapshot (copy the mutable columns into the arena, instantiate
 * the tiers' plugins), run the conf's actions serially, close (plugins' close, phases). */
#include "session/session_int.h"

#include "cache/cluster_int.h"
#include "load/conf_int.h"
#include "ep.h"
#include "session/topo/hypernode.h"
#include "base/diag.h"
#include "base/mem.h"
#include "prof.h"
#include "base/registry_int.h"
#include "tephra/registry.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#ifdef TPH_HAVE_OPENMP
#include <omp.h>
#endif

double tph_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void *tph_ssn_alloc(tph_session *s, size_t size)
{
	return tph_arena_calloc(&s->arena, 1, size, TPH_CACHELINE);
}

static void *dup_col(tph_session *s, const void *src, size_t bytes)
{
	void *d = tph_arena_alloc(&s->arena, bytes ? bytes : 1, TPH_CACHELINE);
	if (d && bytes)
		memcpy(d, src, bytes);
	return d;
}

/* A column that is all zero in the snapshot (no task releasing or pipelined, the usual case)
 * comes from the arena zeroed, so its pages stay untouched until a write; others are copied.
 * The read costs far less than the copy and the page faults it saves. */
static void *zero_or_dup(tph_session *s, const int64_t *src, size_t bytes)
{
	size_t n = bytes / sizeof *src;
	int64_t any = 0;
	for (size_t i = 0; i < n; i++)
		any |= src[i];
	return any ? dup_col(s, src, bytes)
	           : tph_arena_calloc(&s->arena, 1, bytes ? bytes : 1, TPH_CACHELINE);
}

/* The nodes' cpu and memory lines (tph_node_store.cm) from the columns. */
static int64_t *cm_lines(tph_session *s)
{
	const tph_node_store *ns = &s->nodes;
	int64_t *cm = tph_arena_alloc(&s->arena, ((size_t)ns->n + 1) * TPH_NODE_CM * sizeof *cm,
	                              TPH_CACHELINE);
	const int64_t *a = ns->alloc, *u = ns->used;
	for (size_t i = 0; cm && i < ns->n; i++) {
		int64_t *l = cm + i * TPH_NODE_CM;
		l[TPH_CM_ALLOC_CPU] = a[TPH_RES_CPU * ns->stride + i];
		l[TPH_CM_ALLOC_MEM] = a[TPH_RES_MEMORY * ns->stride + i];
		l[TPH_CM_USED_CPU] = u[TPH_RES_CPU * ns->stride + i];
		l[TPH_CM_USED_MEM] = u[TPH_RES_MEMORY * ns->stride + i];
	}
	return cm;
}

/* Mutable node and task columns get session copies; the rest point at the snapshot. */
static int copy_columns(tph_session *s)
{
	const tph_snapshot *sn = s->snap;
	size_t rows = (size_t)sn->dims.n * sn->nodes.stride * sizeof(int64_t);
	s->nodes = sn->nodes;
	s->nodes.used = dup_col(s, sn->nodes.used, rows);
	s->nodes.idle = dup_col(s, sn->nodes.idle, rows);
	s->nodes.releasing = zero_or_dup(s, sn->nodes.releasing, rows);
	s->nodes.pipelined = zero_or_dup(s, sn->nodes.pipelined, rows);
	s->nodes.ntasks = dup_col(s, sn->nodes.ntasks, sn->nodes.n * sizeof(uint32_t));
	s->nodes.cm = s->nodes.used ? cm_lines(s) : NULL;
	s->tasks = sn->tasks;
	s->tasks.status = dup_col(s, sn->tasks.status, sn->tasks.n);
	s->tasks.node = dup_col(s, sn->tasks.node, sn->tasks.n * sizeof(tph_idx));
	/* allocate clears the nominated nodes of a nomination it invalidates */
	s->tasks.nominated = dup_col(s, sn->tasks.nominated, sn->tasks.n * sizeof(tph_idx));
	s->jobs = &sn->jobs;
	s->queues = &sn->queues;
	s->ready_nodes = TPH_ARENA_NEW(&s->arena, tph_idx, sn->nodes.n + 1);
	if (!s->nodes.used || !s->nodes.idle || !s->nodes.releasing || !s->nodes.pipelined ||
	    !s->nodes.ntasks || !s->nodes.cm || !s->tasks.status || !s->tasks.node ||
	    !s->tasks.nominated || !s->ready_nodes)
		return TPH_ENOMEM;
	/* Volcano leaves nodes that are not ready out of the session entirely. */
	for (tph_idx n = 0; n < sn->nodes.n; n++)
		if (sn->nodes.flags[n] & TPH_NODE_READY)
			s->ready_nodes[s->n_ready++] = n;
	return TPH_OK;
}

/* Per-job status counts and allocated resources: the snapshot's sums (its tasks pass made
 * them), copied since the session changes them; the open-time-only sums are read in place. */
static int init_job_state(tph_session *s)
{
	const tph_job_store *jobs = s->jobs;
	uint32_t nj = jobs->n, nd = s->ndim;
	s->js.count = dup_col(s, jobs->ts_count, (size_t)nj * TPH_TS_COUNT * sizeof *s->js.count);
	s->js.allocated = dup_col(s, jobs->alloc_req, (size_t)nj * nd * sizeof *s->js.allocated);
	s->js.phase = dup_col(s, jobs->phase, nj);
	s->js.unschedulable = TPH_ARENA_NEW(&s->arena, uint8_t, nj + 1);
	s->js.open_top_prio = jobs->top_prio;
	s->js.open_be_pending = jobs->be_pending;
	if (!s->js.count || !s->js.allocated || !s->js.phase || !s->js.unschedulable)
		return TPH_ENOMEM;
	return TPH_OK;
}

/* One session-shared object: the key it was created under and its bytes. */
struct tph_shared {
	struct tph_shared *next;
	const char *key;
	void *obj;
};

int tph_session_shared(tph_session *s, const char *key, size_t size, tph_shared_init_fn init,
                       void **out)
{
	*out = NULL;
	for (struct tph_shared *e = s->shared; e; e = e->next)
		if (!strcmp(e->key, key)) {
			*out = e->obj;
			return TPH_OK;
		}
	struct tph_shared *e = TPH_ARENA_NEW(&s->arena, struct tph_shared, 1);
	void *obj = tph_arena_calloc(&s->arena, 1, size ? size : 1, TPH_CACHELINE);
	if (!e || !obj)
		return TPH_ENOMEM;
	int rc = init ? init(obj, s) : TPH_OK;
	if (rc)
		return rc;
	*e = (struct tph_shared){s->shared, key, obj};
	s->shared = e;
	*out = obj;
	return TPH_OK;
}

/* No more threads than the cores other processes leave free. With OMP_DYNAMIC=false every
 * parallel region waits for all its workers, and a worker descheduled for a busy core holds the
 * region for a time slice: two threads on two loaded cores measured 36x one thread. The 1-minute
 * load average, less this process's own running thread, says how many cores are busy. Teams
 * never change a decision, only the time; TPH_THREADS_EXACT=1 keeps the count asked for. */
static int free_cores_cap(int want)
{
	const char *exact = getenv("TPH_THREADS_EXACT");
	double load;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (want <= 1 || (exact && *exact && strcmp(exact, "0")) || cores < 1 ||
	    getloadavg(&load, 1) != 1)
		return want;
	double others = load > 1.0 ? load - 1.0 : 0.0;
	long spare = (long)((double)cores - others + 0.5);
	spare = spare < 1 ? 1 : spare;
	return want < spare ? want : (int)spare;
}

static int resolve_threads(const tph_session_opts *o)
{
	int want = 1;
	if (o && o->threads > 0)
		want = o->threads;
#ifdef TPH_HAVE_OPENMP
	else
		want = omp_get_max_threads();
#endif
	return free_cores_cap(want);
}

/* A plugin that refuses its arguments at open (Volcano exits there) is bad input: point at the
 * plugin's `arguments` when the conf came from a file; its warning said which one. */
static int open_failed(const tph_args *args, uint32_t t, const char *name, int rc, tph_diag *d)
{
	if (rc == TPH_EINVAL && args->file && args->line)
		return tph_diag_set(d, rc,
		                    "%s:%u:%u: conf tier %u plugin %s: field arguments: refused at "
		                    "session open (see the warning above)",
		                    args->file, args->line, args->col, t + 1, name);
	return tph_diag_set(d, rc, "plugin %s: on_session_open failed: %s", name, tph_strerror(rc));
}

static int open_plugin(tph_session *s, uint32_t i, uint32_t t, uint32_t p, tph_diag *d)
{
	const char *name = tph_conf_plugin_name(s->conf, t, p);
	tph_plugin_inst *pi = &s->plugins[i];
	int rc = tph_registry_plugin(name, &pi->desc, d);
	if (rc)
		return rc;
	pi->tier = (uint16_t)t;
	pi->args = &s->conf->tiers[t].plugins[p].args;
	for (uint32_t f = 0; f < TPH_FLAG_COUNT; f++)
		pi->flags[f] = (int8_t)tph_conf_flag_on(s->conf, t, p, (tph_conf_flag)f);
	pi->st = tph_arena_calloc(&s->arena, 1, pi->desc->state_size ? pi->desc->state_size : 1,
	                          TPH_CACHELINE);
	if (!pi->st)
		return tph_diag_set(d, TPH_ENOMEM, "plugin %s: out of memory", name);
	if (pi->desc->args)
		tph_args_apply(pi->args, pi->desc->args, pi->st, d, name);
	tph_args_check_unknown(pi->args, pi->desc->args, d, name);
	tph_args_set_diag(pi->args, d, name);
	s->cur_plugin = (int)i;
	s->n_opened = i + 1;
	rc = pi->desc->on_session_open(s, pi->st, pi->args);
	s->cur_plugin = -1;
	if (rc && d && !d->msg[0])
		open_failed(pi->args, t, name, rc, d);
	return rc;
}

static int open_plugins(tph_session *s, tph_diag *d)
{
	const tph_conf *c = s->conf;
	s->n_tiers = tph_conf_tier_count(c);
	for (uint32_t t = 0; t < s->n_tiers; t++)
		s->n_plugins += tph_conf_plugin_count(c, t);
	s->plugins = TPH_ARENA_NEW(&s->arena, tph_plugin_inst, s->n_plugins + 1);
	if (!s->plugins)
		return TPH_ENOMEM;
	uint32_t i = 0;
	for (uint32_t t = 0; t < s->n_tiers; t++)
		for (uint32_t p = 0; p < tph_conf_plugin_count(c, t); p++, i++) {
			int rc = open_plugin(s, i, t, p, d);
			if (rc)
				return rc;
		}
	return TPH_OK;
}

/* What plugins read (tephra/columns.h): pointers into the session, set once its columns and
 * topology exist. */
static void fill_view(tph_session *s)
{
	const tph_snapshot *sn = s->snap;
	s->view = (tph_view){
	    .size = sizeof(tph_view),
	    .ndim = s->ndim,
	    .dims = &sn->dims,
	    .nodes = &s->nodes,
	    .tasks = &s->tasks,
	    .open_tasks = &sn->tasks,
	    .jobs = s->jobs,
	    .js = &s->js,
	    .queues = s->queues,
	    .pclasses = &sn->pclasses,
	    .quotas = &sn->quotas,
	    .hypernodes = &sn->hypernodes,
	    .ready_nodes = s->ready_nodes,
	    .n_ready = s->n_ready,
	    .n_specs = sn->n_specs,
	    .now = sn->now,
	    .eviction = &s->eviction,
	    .topo = s->topo,
	    .pdbs = &sn->pdbs,
	    .rev = TPH_COLUMNS_REV,
	};
}

/* The session's node sampling: its option, else the cache's; VOLCANO starts where the last
 * session over the cache left Volcano's lastProcessedNodeIndex. */
static void open_sampling(tph_session *s)
{
	tph_cluster *c = s->snap->cache;
	tph_node_sampling m = s->opts.node_sampling;
	if (m == TPH_SAMPLING_CACHE)
		m = (tph_node_sampling)c->sampling;
	s->sampling = m == TPH_SAMPLING_VOLCANO ? TPH_SAMPLING_VOLCANO : TPH_SAMPLING_FULL;
	if (s->sampling == TPH_SAMPLING_VOLCANO)
		s->sample_rr = atomic_load_explicit(&c->sample_start, memory_order_acquire);
}

static int open_inner(tph_session *s, tph_diag *d)
{
	if (s->opts.profile && !(s->prof = TPH_ARENA_NEW(&s->arena, struct tph_prof, 1)))
		return tph_diag_set(d, TPH_ENOMEM, "session open: out of memory");
	int rc = copy_columns(s);
	if (!rc)
		rc = init_job_state(s);
	if (!rc)
		rc = tph_ep_init(s);
	if (!rc)
		rc = tph_topo_open(s);
	if (rc)
		return tph_diag_set(d, rc, "session open: %s", tph_strerror(rc));
	fill_view(s);
	open_sampling(s);
	if (s->opts.plugin_dir && (rc = tph_plugins_load(s->opts.plugin_dir, d)))
		return rc;
	if ((rc = open_plugins(s, d)))
		return rc;
	s->scores_declared = tph_scores_declared(s);
	s->frozen = true;
	return TPH_OK;
}

/* Session arenas come from the pool (arena.h) and go back to it at free. */
#define SESSION_CHUNK ((size_t)4 << 20)

int tph_session_open(const tph_snapshot *snap, const tph_conf *conf, const tph_session_opts *opts,
                     tph_session **out, tph_diag *d)
{
	double t0 = tph_now_ms();
	tph_diag_begin(d);
	if (!out || !snap)
		return tph_diag_set(d, TPH_EINVAL, "session open: no snapshot or no output");
	*out = NULL;
	if (tph_conf_flavour_of(conf) == TPH_CONF_KAI)
		return tph_diag_set(d, TPH_ENOTSUP, "session open: kai sessions are not built yet");
	tph_session *s = tph_calloc(1, sizeof *s);
	if (!s)
		return tph_diag_set(d, TPH_ENOMEM, "session open: out of memory");
	if (tph_arena_take(&s->arena, SESSION_CHUNK) != TPH_OK) {
		tph_free(s);
		return tph_diag_set(d, TPH_ENOMEM, "session open: out of memory");
	}
	/* The session holds what it reads until it is freed (session.h, lifetimes). */
	s->snap = snap;
	tph_snapshot_hold(snap);
	s->conf = conf;
	if (conf)
		tph_conf_hold(conf);
	tph_registry_session_open();
	if (opts)
		s->opts = *opts;
	s->diag = d;
	s->threads = resolve_threads(opts);
	s->ndim = snap->dims.n;
	s->cur_plugin = -1;
	s->heap.base = &s->arena.allocated;
	tph_heap_acct *prev = tph_heap_enter(&s->heap);
	int rc = open_inner(s, d);
	tph_heap_leave(prev);
	if (rc) {
		tph_session_free(s);
		return rc;
	}
	s->open_ms = tph_now_ms() - t0;
	*out = s;
	return TPH_OK;
}

static int run_action(tph_session *s, const char *name, tph_diag *d)
{
	const tph_action *a;
	int rc = tph_registry_action(name, &a, d);
	if (rc)
		return rc;
	const tph_conf_action_args *ca = tph_conf_find_action_args(s->conf, name);
	const tph_args *args = ca ? &ca->args : NULL;
	tph_args_set_diag(args, d, name);
	tph_args_check_unknown(args, a->args, d, name);
	double t0 = tph_now_ms();
	if (a->initialize && (rc = a->initialize(s, args)))
		return tph_diag_set(d, rc, "action %s: initialize failed", name);
	rc = a->execute(s, args);
	if (rc == TPH_OK && s->oom)
		rc = TPH_ENOMEM; /* an extension point degraded its answer (session.h) */
	if (a->uninitialize)
		a->uninitialize(s);
	tph_action_time *at = &s->action_times[s->n_action_times++];
	at->action = name;
	at->ms = tph_now_ms() - t0;
	if (rc && d && !d->msg[0])
		tph_diag_set(d, rc, "action %s failed: %s", name, tph_strerror(rc));
	return rc;
}

int tph_session_run(tph_session *s, tph_diag *d)
{
	tph_diag_begin(d);
	if (!s)
		return tph_diag_set(d, TPH_EINVAL, "session run: no session");
	if (s->action_times || s->closed) /* the log has room for one run's actions */
		return tph_diag_set(d, TPH_EINVAL, "session run: the session already ran");
	uint32_t n = tph_conf_action_count(s->conf);
	s->action_times = TPH_ARENA_NEW(&s->arena, tph_action_time, n + 1);
	if (!s->action_times)
		return tph_diag_set(d, TPH_ENOMEM, "session run: out of memory");
	s->diag = d; /* plugins' warnings go to the call in progress */
	tph_heap_acct *prev = tph_heap_enter(&s->heap);
	int rc = TPH_OK;
	for (uint32_t i = 0; i < n && !rc; i++) {
		rc = run_action(s, tph_conf_action(s->conf, i), d);
		tph_act_scratch_end(s);
	}
	tph_heap_leave(prev);
	return rc;
}

void tph_session_free(tph_session *s)
{
	if (!s)
		return;
	tph_heap_acct *prev = tph_heap_enter(&s->heap);
	s->diag = NULL; /* the last call's diag may be gone: warnings from here go to stderr */
	tph_close_plugins(s); /* a session freed without close still releases plugin state */
	tph_ep_free(s);
	tph_free(s->log.binds);
	tph_free(s->log.evictions);
	tph_free(s->log.pipelined);
	tph_free(s->log.reasons);
	tph_heap_leave(prev);
	tph_heap_release(&s->heap);
	tph_arena_park(&s->arena);
	/* after the plugins, whose close may still read their arguments in the conf */
	tph_snapshot_release((tph_snapshot *)s->snap);
	tph_conf_free((tph_conf *)s->conf);
	tph_registry_session_free();
	tph_free(s);
}

size_t tph_session_cache_trim(void)
{
	return tph_arena_pool_trim();
}

unsigned tph_session_cache_limit(unsigned n)
{
	return tph_arena_pool_set_limit(n);
}

unsigned tph_session_cache_count(size_t *bytes)
{
	return tph_arena_pool_count(bytes);
}
