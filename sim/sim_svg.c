/* Line charts as inline SVG: axes with round ticks, one polyline per series (at most
 * SVG_POINTS points: longer series are thinned to every k-th point, the last one kept), a
 * legend. Written as XML so that the report stays well-formed XHTML. */
#include "sim_svg.h"

#include <math.h>
#include <string.h>

#define W  640
#define H  260
#define ML 56
#define MR 150
#define MT 28
#define MB 36

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                      "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};

const char *svg_color(uint32_t i)
{
	return palette[i % (sizeof palette / sizeof *palette)];
}

void svg_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\n')
				fputc(*s, f);
		}
	}
}

static double nice_step(double range)
{
	double raw = range / 5, mag = pow(10, floor(log10(raw)));
	double n = raw / mag;
	return (n < 1.5 ? 1 : n < 3 ? 2 : n < 7 ? 5 : 10) * mag;
}

static void bounds(const svg_series *s, uint32_t n, double *x0, double *x1, double *y1)
{
	*x0 = INFINITY, *x1 = -INFINITY, *y1 = 0;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < s[i].n; k++) {
			double x = s[i].x[k], y = s[i].y[k];
			*x0 = x < *x0 ? x : *x0;
			*x1 = x > *x1 ? x : *x1;
			*y1 = isfinite(y) && y > *y1 ? y : *y1;
		}
	if (!(*x1 > *x0))
		*x0 = isfinite(*x0) ? *x0 : 0, *x1 = *x0 + 1;
	if (*y1 <= 0)
		*y1 = 1;
}

static void axes(FILE *f, const svg_chart *c, double x0, double x1, double y1)
{
	double sx = (W - ML - MR) / (x1 - x0), sy = (H - MT - MB) / y1;
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"frame\"/>\n", ML, MT,
	        W - ML - MR, H - MT - MB);
	double st = nice_step(y1);
	for (double v = 0; v <= y1 * 1.0001; v += st)
		fprintf(f,
		        "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
		        "<text x=\"%d\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%g</text>\n",
		        ML, W - MR, H - MB - v * sy, H - MB - v * sy, ML - 4, H - MB - v * sy + 4,
		        v);
	st = nice_step(x1 - x0);
	for (double v = ceil(x0 / st) * st; v <= x1 * 1.0001; v += st)
		fprintf(
		    f,
		    "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%g</text>\n",
		    ML + (v - x0) * sx, H - MB + 14, v);
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"title\">", ML, MT - 10);
	svg_text(f, c->title);
	fprintf(f, "</text>\n<text x=\"%d\" y=\"%d\" class=\"label\" text-anchor=\"middle\">",
	        ML + (W - ML - MR) / 2, H - 4);
	svg_text(f, c->xlabel);
	fprintf(f,
	        "</text>\n<text x=\"12\" y=\"%d\" class=\"label\" transform=\"rotate(-90 12 %d)\" "
	        "text-anchor=\"middle\">",
	        MT + (H - MT - MB) / 2, MT + (H - MT - MB) / 2);
	svg_text(f, c->ylabel);
	fputs("</text>\n", f);
}

static void line(FILE *f, const svg_series *s, uint32_t i, double x0, double x1, double y1)
{
	double sx = (W - ML - MR) / (x1 - x0), sy = (H - MT - MB) / y1;
	uint32_t step = s->n > SVG_POINTS ? (s->n + SVG_POINTS - 1) / SVG_POINTS : 1;
	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s points=\"",
	        s->color ? s->color : svg_color(i), s->dashed ? " stroke-dasharray=\"5,3\"" : "");
	for (uint32_t k = 0; k < s->n; k += step) {
		uint32_t j = k + step >= s->n ? s->n - 1 : k;
		double y = isfinite(s->y[j]) ? s->y[j] : 0;
		fprintf(f, "%.1f,%.1f ", ML + (s->x[j] - x0) * sx, H - MB - y * sy);
	}
	fputs("\"/>\n", f);
	fprintf(f,
	        "<line x1=\"%d\" x2=\"%d\" y1=\"%u\" y2=\"%u\" stroke=\"%s\" stroke-width=\"2\"%s/>"
	        "<text x=\"%d\" y=\"%u\" class=\"legend\">",
	        W - MR + 8, W - MR + 28, MT + 6 + 14 * i, MT + 6 + 14 * i,
	        s->color ? s->color : svg_color(i), s->dashed ? " stroke-dasharray=\"5,3\"" : "",
	        W - MR + 32, MT + 10 + 14 * i);
	svg_text(f, s->label);
	fputs("</text>\n", f);
}

void svg_chart_write(FILE *f, const svg_chart *c)
{
	double x0, x1, y1;
	bounds(c->series, c->n_series, &x0, &x1, &y1);
	if (c->ymax > 0 && c->ymax > y1)
		y1 = c->ymax;
	fprintf(f,
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"%s\" width=\"%d\" height=\"%d\" "
	        "viewBox=\"0 0 %d %d\" role=\"img\">\n",
	        c->id, W, H, W, H);
	axes(f, c, x0, x1, y1);
	for (uint32_t i = 0; i < c->n_series; i++)
		if (c->series[i].n)
			line(f, &c->series[i], i, x0, x1, y1);
	fputs("</svg>\n", f);
}
