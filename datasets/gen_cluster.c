/* The generated cluster: racks of one node type each (so racks are also the tier-1
 * hypernodes), zones over racks, a few tainted, cordoned or unready nodes, queues with weights
 * and a few tight capabilities, and three priority classes. */
#include "gen.h"

#include <stdlib.h>

/* CPU types first, then GPU types (gpu > 0); weights are within each group. */
const gen_node_type gen_node_types[] = {
    {"cpu-small", 16000, 64 * GIB, 0, 30},  {"cpu-medium", 32000, 128 * GIB, 0, 35},
    {"cpu-large", 64000, 256 * GIB, 0, 20}, {"mem-large", 32000, 512 * GIB, 0, 15},
    {"gpu-t4", 32000, 192 * GIB, 4, 50},    {"gpu-a100", 96000, 1024 * GIB, 8, 50},
};
const uint32_t gen_n_node_types = sizeof gen_node_types / sizeof gen_node_types[0];
const char *const gen_zones[GEN_ZONES] = {"zone-a", "zone-b", "zone-c", "zone-d"};

enum {
	SECTION_RACKS = 1,
	SECTION_NODES = 2,
	SECTION_QUEUES = 3
};

int gen_plan_racks(gen_state *g)
{
	const tph_gen_opts *o = g->o;
	g->n_racks = (o->nodes + o->rack_size - 1) / o->rack_size;
	g->rack_type = malloc(g->n_racks + 1);
	if (!g->rack_type)
		return -1;
	uint32_t cpu_w[8], gpu_w[8], n_cpu = 0, n_gpu = 0;
	for (uint32_t t = 0; t < gen_n_node_types; t++) {
		if (gen_node_types[t].gpu)
			gpu_w[n_gpu++] = gen_node_types[t].weight;
		else
			cpu_w[n_cpu++] = gen_node_types[t].weight;
	}
	gen_rng r = rng_stream(o->seed, SECTION_RACKS);
	for (uint32_t k = 0; k < g->n_racks; k++) {
		bool gpu = rng_pct(&r, o->gpu_pct);
		uint32_t t =
		    gpu ? n_cpu + rng_weighted(&r, gpu_w, n_gpu) : rng_weighted(&r, cpu_w, n_cpu);
		g->rack_type[k] = (uint8_t)t;
	}
	for (uint32_t i = 0; i < o->nodes; i++)
		g->total_cpu += gen_node(g, i)->cpu;
	return 0;
}

void gen_write_classes(gen_state *g)
{
	out_str(g->w, "priorityClasses:\n"
	              "  - {name: high, value: 1000}\n"
	              "  - {name: normal, value: 100, globalDefault: true}\n"
	              "  - {name: low, value: 10}\n");
}

/* Weights 1-4; every fourth queue has a capability of 4% of the cluster's cpu, which binds
 * under this much demand, so proportion has something to refuse. */
void gen_write_queues(gen_state *g)
{
	gen_out *w = g->w;
	gen_rng r = rng_stream(g->o->seed, SECTION_QUEUES);
	out_str(w, "queues:\n");
	for (uint32_t q = 0; q < g->o->queues; q++) {
		g->queue_weight[q] = rng_range(&r, 1, 4);
		out_str(w, "  - {name: q");
		out_u64(w, q);
		out_str(w, ", weight: ");
		out_u64(w, g->queue_weight[q]);
		if (q % 4 == 3) {
			int64_t cpu = g->total_cpu / 25 / 1000 * 1000;
			out_str(w, ", capability: {cpu: ");
			out_milli(w, cpu);
			out_str(w, ", memory: ");
			out_bytes(w, cpu / 1000 * 4 * GIB);
			out_str(w, "}");
		}
		out_str(w, "}\n");
	}
	g->st.queues = g->o->queues;
}

static void write_node_labels(gen_out *w, const gen_state *g, uint32_t i)
{
	uint32_t rack = i / g->o->rack_size;
	out_str(w, ", labels: {kubernetes.io/hostname: n");
	out_u64(w, i);
	out_str(w, ", topology.kubernetes.io/zone: ");
	out_str(w, gen_zones[rack % GEN_ZONES]);
	out_str(w, ", node.kubernetes.io/instance-type: ");
	out_str(w, gen_node(g, i)->name);
	out_str(w, ", tephra.io/rack: rack");
	out_u64(w, rack);
	out_str(w, "}");
}

/* 2% of CPU nodes are dedicated to infrastructure (tainted), 0.5% cordoned, 0.3% not ready;
 * every GPU node carries the usual nvidia.com/gpu taint. */
static void write_node(gen_state *g, gen_rng *r, uint32_t i)
{
	gen_out *w = g->w;
	const gen_node_type *t = gen_node(g, i);
	out_str(w, "  - {name: n");
	out_u64(w, i);
	out_str(w, ", allocatable: {cpu: ");
	out_milli(w, t->cpu);
	out_str(w, ", memory: ");
	out_bytes(w, t->mem);
	out_str(w, ", pods: \"110\"");
	if (t->gpu) {
		out_str(w, ", nvidia.com/gpu: ");
		out_milli(w, (int64_t)t->gpu * 1000);
	}
	out_str(w, "}");
	write_node_labels(w, g, i);
	uint32_t roll = rng_below(r, 1000);
	if (t->gpu)
		out_str(w, ", taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]");
	else if (roll < 20)
		out_str(w, ", taints: [{key: dedicated, value: infra, effect: NoSchedule}]");
	if (roll >= 20 && roll < 25)
		out_str(w, ", unschedulable: true");
	else if (roll >= 25 && roll < 28)
		out_str(w, ", ready: false");
	out_str(w, "}\n");
}

void gen_write_nodes(gen_state *g)
{
	gen_rng r = rng_stream(g->o->seed, SECTION_NODES);
	out_str(g->w, "nodes:\n");
	for (uint32_t i = 0; i < g->o->nodes; i++)
		write_node(g, &r, i);
	g->st.nodes = g->o->nodes;
}

static const char *tier_name(uint32_t tier)
{
	static const char *const names[] = {"", "rack", "spine", "pod", "zone"};
	return tier < sizeof names / sizeof names[0] ? names[tier] : "tier";
}

/* Tier 1 groups the nodes of a rack, each higher tier groups 8 of the tier below. */
static void write_tier(gen_state *g, uint32_t tier, uint32_t count, uint32_t below)
{
	gen_out *w = g->w;
	uint32_t fan = tier == 1 ? g->o->rack_size : 8;
	for (uint32_t h = 0; h < count; h++) {
		out_fmt(w, "  - {name: %s%u, tier: %u, tierName: %s, members: [", tier_name(tier),
		        h, tier, tier_name(tier));
		uint32_t first = h * fan, last = first + fan < below ? first + fan : below;
		for (uint32_t m = first; m < last; m++) {
			out_str(w, m > first ? ", " : "");
			out_str(w, tier == 1 ? "n" : tier_name(tier - 1));
			out_u64(w, m);
		}
		out_str(w, "]}\n");
	}
	g->st.hypernodes += count;
}

void gen_write_hypernodes(gen_state *g)
{
	if (!g->o->tiers)
		return;
	out_str(g->w, "hyperNodes:\n");
	uint32_t below = g->o->nodes;
	for (uint32_t t = 1; t <= g->o->tiers; t++) {
		uint32_t fan = t == 1 ? g->o->rack_size : 8;
		uint32_t count = (below + fan - 1) / fan;
		write_tier(g, t, count, below);
		below = count;
	}
}
