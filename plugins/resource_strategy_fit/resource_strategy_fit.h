/* Private to the resource-strategy-fit plugin: its state, filled from the nested arguments by
 * resource_strategy_fit_args.c and read by resource_strategy_fit.c. */
#ifndef TPH_RESOURCE_STRATEGY_FIT_H
#define TPH_RESOURCE_STRATEGY_FIT_H

#include "tephra/plugin.h"

typedef struct rsf_st {
	int64_t weight; /* resourceStrategyFitWeight */
	/* resources: the strategy of each dimension (exact name, else the longest wildcard) */
	uint8_t has[TPH_RES_MAX], most[TPH_RES_MAX];
	int64_t w[TPH_RES_MAX];
	/* sra: scarce resource avoidance */
	int64_t sra_weight, sra_sum;
	uint32_t n_sra;
	uint32_t sra_dim[TPH_RES_MAX]; /* the sra resources tephra has a dimension for */
	int64_t sra_w[TPH_RES_MAX];
	/* proportional: idle cpu and memory kept per idle unit of a resource */
	bool proportional;
	uint32_t n_prop;
	uint32_t prop_dim[TPH_RES_MAX];
	double prop_cpu[TPH_RES_MAX], prop_mem[TPH_RES_MAX];
	tph_reason_code prop_code[TPH_RES_MAX];
	/* pod-level strategy annotations */
	tph_sid ann_type, ann_weight;
} rsf_st;

/* The dimension named name[0..len), or TPH_NOIDX. */
uint32_t tph_rsf_dim(const tph_session *s, const char *name, size_t len);
/* Read resourceStrategyFitWeight, resources, sra and proportional as Volcano's New does
 * (mapstructure: field names match case-insensitively). */
int tph_rsf_args(rsf_st *st, tph_session *s, const tph_args *args);

#endif
