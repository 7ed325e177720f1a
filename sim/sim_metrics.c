/* The figures a cycle records besides counts: percentiles of job wait, FGD's fragmentation of
 * the unallocated GPU capacity, and proportion's deserved share of each queue. */
#include "sim_loop.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

double sim_percentile(int64_t *v, size_t n, double p)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof *v, cmp_i64);
	size_t rank = (size_t)ceil(p / 100.0 * (double)n);
	return (double)v[rank ? rank - 1 : 0];
}

/* What a node's devices have free, as far as one GPU total tells: whole free devices and one
 * partly used device (the allocation packed, the least fragmented layout with that total). */
double sim_frag_node(const sim_node *n, const sim_shape *shapes, uint32_t n_shapes)
{
	int64_t free_gpu = n->alloc[R_GPU] - n->used[R_GPU];
	if (free_gpu <= 0)
		return 0;
	int64_t whole = free_gpu / 1000, part = free_gpu % 1000;
	double f = 0;
	for (uint32_t i = 0; i < n_shapes; i++) {
		const int64_t *q = shapes[i].req;
		bool fits = q[R_CPU] <= n->alloc[R_CPU] - n->used[R_CPU] &&
		            q[R_MEM] <= n->alloc[R_MEM] - n->used[R_MEM];
		if (q[R_GPU] >= 1000)
			fits = fits && whole >= q[R_GPU] / 1000;
		else if (q[R_GPU] > 0)
			fits = fits && (whole > 0 || part >= q[R_GPU]);
		int64_t frag;
		if (!fits || q[R_GPU] == 0)
			frag = free_gpu; /* the task cannot use any of it */
		else if (q[R_GPU] >= 1000 || part < q[R_GPU])
			frag = part; /* the partly used device is too small for it */
		else
			frag = 0;
		f += shapes[i].weight * (double)frag;
	}
	return f;
}

static int cmp_shape(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(int64_t) * R_N);
}

uint32_t sim_shapes(const sim_workload *w, sim_shape **out)
{
	sim_shape *s = calloc(w->n_pods + 1, sizeof *s);
	*out = s;
	if (!s)
		return 0;
	for (uint32_t p = 0; p < w->n_pods; p++)
		memcpy(s[p].req, w->pods[p].req, sizeof s[p].req);
	qsort(s, w->n_pods, sizeof *s, cmp_shape);
	uint32_t n = 0;
	for (uint32_t p = 0; p < w->n_pods; p++) {
		if (n && !cmp_shape(&s[n - 1], &s[p])) {
			s[n - 1].weight += 1;
			continue;
		}
		memmove(s[n].req, s[p].req, sizeof s[n].req);
		s[n++].weight = 1;
	}
	for (uint32_t i = 0; i < n; i++)
		s[i].weight /= w->n_pods;
	return n;
}

int sim_frag_init(sim_frag *f, const sim_workload *w)
{
	memset(f, 0, sizeof *f);
	f->n_shapes = sim_shapes(w, &f->shapes);
	f->node = calloc(w->n_nodes + 1, sizeof *f->node);
	f->dirty = calloc(w->n_nodes + 1, 1);
	f->touched = malloc((w->n_nodes + 1) * sizeof *f->touched);
	if (!f->shapes || !f->node || !f->dirty || !f->touched)
		return -1;
	for (uint32_t i = 0; i < w->n_nodes; i++)
		sim_frag_touch(f, (int32_t)i);
	return 0;
}

void sim_frag_touch(sim_frag *f, int32_t node)
{
	if (node >= 0 && !f->dirty[node]) {
		f->dirty[node] = 1;
		f->touched[f->n_touched++] = (uint32_t)node;
	}
}

double sim_frag_measure(sim_frag *f, const sim_workload *w, const int64_t *used)
{
	for (uint32_t i = 0; i < f->n_touched; i++) {
		uint32_t n = f->touched[i];
		f->sum -= f->node[n];
		f->node[n] = sim_frag_node(&w->nodes[n], f->shapes, f->n_shapes);
		f->sum += f->node[n];
		f->dirty[n] = 0;
	}
	f->n_touched = 0;
	int64_t free_gpu = w->cap[R_GPU] - used[R_GPU];
	return free_gpu > 0 ? f->sum / (double)free_gpu : 0;
}

void sim_frag_free(sim_frag *f)
{
	free(f->shapes);
	free(f->node);
	free(f->dirty);
	free(f->touched);
	memset(f, 0, sizeof *f);
}

/* One resource: give every queue not yet met its weight's part of what is left, capped by its
 * request and capability, until nothing is left or every queue is met. */
static void fill(sim_queue *q, uint32_t n, int r, int64_t total)
{
	double left = (double)total;
	for (uint32_t i = 0; i < n; i++)
		q[i].got = 0, q[i].met = q[i].weight <= 0;
	for (int round = 0; left > 0.5 && round < 64; round++) {
		double wsum = 0, share = left;
		for (uint32_t i = 0; i < n; i++)
			wsum += q[i].met ? 0 : q[i].weight;
		if (wsum <= 0)
			break;
		for (uint32_t i = 0; i < n; i++) {
			if (q[i].met)
				continue;
			double want = (double)q[i].request[r];
			if (q[i].capability[r] >= 0 && q[i].capability[r] < want)
				want = (double)q[i].capability[r];
			double give = share * q[i].weight / wsum;
			if (q[i].got + give >= want) {
				give = want - q[i].got;
				q[i].met = true;
			}
			q[i].got += give;
			left -= give;
		}
	}
	for (uint32_t i = 0; i < n; i++)
		q[i].deserved[r] = (int64_t)q[i].got;
}

void sim_deserved(sim_queue *q, uint32_t n, const int64_t *total)
{
	for (int r = 0; r < R_N; r++)
		fill(q, n, r, total[r]);
}
