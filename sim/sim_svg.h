/* Inline SVG line charts for the report (sim_svg.c). */
#ifndef TPH_SIM_SVG_H
#define TPH_SIM_SVG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define SVG_POINTS 600 /* points drawn per series at most */

typedef struct svg_series {
	const char *label;
	const double *x, *y;
	uint32_t n;
	const char *color; /* NULL: the palette's, by position */
	bool dashed;
} svg_series;

typedef struct svg_chart {
	const char *id; /* the svg element's id: the test finds each plot by it */
	const char *title, *xlabel, *ylabel;
	const svg_series *series;
	uint32_t n_series;
	double ymax; /* the y axis reaches at least this (0: the data's maximum) */
} svg_chart;

void svg_chart_write(FILE *f, const svg_chart *c);
/* XML-escaped text. */
void svg_text(FILE *f, const char *s);
const char *svg_color(uint32_t i);

#endif
