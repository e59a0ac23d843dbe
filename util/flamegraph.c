// SPDX-License-Identifier: GPL-2.0
/*
 * The flame graph SVG of report --flamegraph (util/flamegraph.h): the
 * folded stacks merged into a tree of frames, laid out as flamegraph.pl
 * lays them out (the outermost frame at the bottom, each frame's callees
 * above it, left to right in the order they were first seen), with the
 * interaction in an embedded script.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/array.h"
#include "util/flamegraph.h"
#include "util/json.h"
#include "util/usage.h"
#include "util/wrapper.h"

#define FG_WIDTH	1200	/* of the frames, in px */
#define FG_PAD		10	/* left and right of the frames */
#define FG_FRAME_H	16	/* a frame's row */
#define FG_TOP		44	/* the title and the reset button */
#define FG_BOTTOM	30	/* the details line */
/* Verdana 12px is about 7 px a character (flamegraph.pl's estimate too). */
#define FG_CHAR_W	7

struct fg_node {
	char *name;
	uint64_t count;	/* samples in this frame and its callees */
	struct fg_node *kids;
	int nr_kids, alloc_kids;
};

struct flamegraph {
	struct fg_node root;	/* "all" */
	int depth;		/* of the deepest frame, the root's being 0 */
};

struct flamegraph *flamegraph_new(void)
{
	struct flamegraph *fg = xcalloc(1, sizeof(*fg));

	fg->root.name = xstrdup("all");
	return fg;
}

static void node_release(struct fg_node *n)
{
	int i;

	for (i = 0; i < n->nr_kids; i++)
		node_release(&n->kids[i]);
	free(n->kids);
	free(n->name);
}

void flamegraph_free(struct flamegraph *fg)
{
	if (!fg)
		return;
	node_release(&fg->root);
	free(fg);
}

/* The callee of n named name[0..len), added when new. */
static struct fg_node *kid_of(struct fg_node *n, const char *name, size_t len)
{
	struct fg_node *k;
	int i;

	/* Sorted input adds to the last callee most often: search back. */
	for (i = n->nr_kids - 1; i >= 0; i--)
		if (!strncmp(n->kids[i].name, name, len) &&
		    !n->kids[i].name[len])
			return &n->kids[i];
	grow_array(n->kids, n->nr_kids, n->alloc_kids, 4);
	k = &n->kids[n->nr_kids++];
	memset(k, 0, sizeof(*k));
	k->name = xstrndup(name, len);
	return k;
}

void flamegraph_add(struct flamegraph *fg, const char *stack, uint64_t count)
{
	struct fg_node *n = &fg->root;
	const char *end;
	int depth = 0;

	n->count += count;
	for (; *stack; stack = *end ? end + 1 : end) {
		end = strchrnul(stack, ';');
		n = kid_of(n, stack, end - stack);
		n->count += count;
		depth++;
	}
	if (depth > fg->depth)
		fg->depth = depth;
}

uint64_t flamegraph_total(const struct flamegraph *fg)
{
	return fg->root.count;
}

/*
 * Names are bytes in no known encoding (a task's comm, a symbol), while
 * one byte XML 1.0 does not allow makes the browser refuse the whole
 * file.  So, as util/json.h does for JSON: well-formed UTF-8 is copied,
 * any other byte b >= 0x80 is the character U+00bb (&#xbb;), and the
 * characters XML forbids even as references (the C0 controls but tab,
 * U+FFFE and U+FFFF) are U+FFFD.
 */
static void add_xml(struct strbuf *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), run;

	for (; *s; s += run, n -= run) {
		run = json_utf8_len(s, n);
		if (run == 3 && s[0] == 0xef && s[1] == 0xbf && s[2] >= 0xbe) {
			strbuf_addstr(out, "\xef\xbf\xbd");
		} else if (run) {
			strbuf_add(out, s, run);
		} else if (*s >= 0x80) {
			strbuf_addf(out, "&#x%x;", *s);
			run = 1;
		} else {
			switch (*s) {
			case '&': strbuf_addstr(out, "&amp;"); break;
			case '<': strbuf_addstr(out, "&lt;"); break;
			case '>': strbuf_addstr(out, "&gt;"); break;
			case '"': strbuf_addstr(out, "&quot;"); break;
			default:
				if (*s < 0x20 && *s != '\t')
					strbuf_addstr(out, "\xef\xbf\xbd");
				else
					strbuf_addch(out, *s);
			}
			run = 1;
		}
	}
}

/*
 * flamegraph.pl's palettes, chosen by a hash of the name so a function
 * keeps its colour across graphs: warm for user frames, orange for the
 * kernel's ("_[k]"), grey for the root.
 */
static void add_colour(struct strbuf *out, const struct fg_node *n, int root)
{
	size_t len = strlen(n->name);
	unsigned int h = 2166136261u;
	const char *p;

	if (root) {
		strbuf_addstr(out, "rgb(200,200,200)");
		return;
	}
	for (p = n->name; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	if (len > 4 && !strcmp(n->name + len - 4, "_[k]"))
		strbuf_addf(out, "rgb(%u,%u,0)", 220 + h % 30,
			    110 + (h >> 8) % 60);
	else
		strbuf_addf(out, "rgb(%u,%u,%u)", 205 + h % 50,
			    (h >> 8) % 230, (h >> 16) % 55);
}

/* The label that fits w px: the name, cut with "..", or nothing. */
static void add_label(struct strbuf *out, const char *name, double w)
{
	size_t fit = (size_t)(w / FG_CHAR_W), len = strlen(name);
	struct strbuf cut = STRBUF_INIT;

	if (fit < 3)
		return;
	if (len <= fit) {
		add_xml(out, name);
		return;
	}
	strbuf_add(&cut, name, fit - 2);
	strbuf_addstr(&cut, "..");
	add_xml(out, cut.buf);
	strbuf_release(&cut);
}

struct fg_layout {
	struct strbuf *out;
	uint64_t total;
	int height;
};

static void add_frame(const struct fg_layout *l, const struct fg_node *n,
		      uint64_t x0, int depth)
{
	double x = FG_PAD + (double)x0 * FG_WIDTH / l->total;
	double w = (double)n->count * FG_WIDTH / l->total;
	int y = l->height - FG_BOTTOM - (depth + 1) * FG_FRAME_H;
	uint64_t kx = x0;
	int i;

	strbuf_addf(l->out, "<g class=\"f\" data-x=\"%llu\" data-w=\"%llu\" data-d=\"%d\"><title>",
		    (unsigned long long)x0, (unsigned long long)n->count,
		    depth);
	add_xml(l->out, n->name);
	strbuf_addf(l->out, " (%llu samples, %.2f%%)</title><rect x=\"%.2f\" y=\"%d\" "
		    "width=\"%.2f\" height=\"%d\" fill=\"",
		    (unsigned long long)n->count, 100.0 * n->count / l->total,
		    x, y, w, FG_FRAME_H - 1);
	add_colour(l->out, n, !depth);
	strbuf_addf(l->out, "\" rx=\"2\"/><text x=\"%.2f\" y=\"%d\">", x + 3,
		    y + FG_FRAME_H - 4);
	add_label(l->out, n->name, w);
	strbuf_addstr(l->out, "</text></g>\n");
	for (i = 0; i < n->nr_kids; i++) {
		add_frame(l, &n->kids[i], kx, depth + 1);
		kx += n->kids[i].count;
	}
}

/*
 * The interaction.  A frame's data-x and data-w are its first sample and
 * its samples, data-d its depth: zooming into frame Z draws each frame
 * inside Z's samples at (x - Z.x) / Z.w of the width, Z's callers (the
 * frames beneath it that hold its samples) across the whole width, and
 * hides the rest.  Reset zooms into the root.
 */
static const char fg_script[] =
"<script type=\"text/ecmascript\"><![CDATA[\n"
"'use strict';\n"
"var svg = document.documentElement, W = +svg.getAttribute('data-width');\n"
"var PAD = +svg.getAttribute('data-pad'), CW = +svg.getAttribute('data-char');\n"
"var details = document.getElementById('details'), reset = document.getElementById('reset');\n"
"function num(g, a) { return +g.getAttribute(a); }\n"
"function nameOf(g) {\n"
"	var t = g.querySelector('title').textContent;\n"
"	return t.substring(0, t.lastIndexOf(' ('));\n"
"}\n"
"function label(g, w) {\n"
"	var name = nameOf(g), fit = Math.floor(w / CW);\n"
"	if (fit < 3) return '';\n"
"	return name.length <= fit ? name : name.substring(0, fit - 2) + '..';\n"
"}\n"
"function zoom(z) {\n"
"	var zx = num(z, 'data-x'), zw = num(z, 'data-w'), zd = num(z, 'data-d');\n"
"	var frames = document.querySelectorAll('g.f'), i;\n"
"	for (i = 0; i < frames.length; i++) {\n"
"		var g = frames[i], x = num(g, 'data-x'), w = num(g, 'data-w'), d = num(g, 'data-d');\n"
"		var r = g.querySelector('rect'), t = g.querySelector('text'), nx, nw;\n"
"		if (d < zd && x <= zx && x + w >= zx + zw) {\n"
"			nx = PAD; nw = W;\n"
"		} else if (d >= zd && x >= zx && x + w <= zx + zw) {\n"
"			nx = PAD + (x - zx) * W / zw; nw = w * W / zw;\n"
"		} else {\n"
"			g.style.display = 'none';\n"
"			continue;\n"
"		}\n"
"		g.style.display = '';\n"
"		r.setAttribute('x', nx.toFixed(2));\n"
"		r.setAttribute('width', nw.toFixed(2));\n"
"		t.setAttribute('x', (nx + 3).toFixed(2));\n"
"		t.textContent = label(g, nw);\n"
"	}\n"
"	reset.style.opacity = zd ? 1 : 0;\n"
"}\n"
"svg.addEventListener('click', function (e) {\n"
"	var g = e.target.closest('g.f');\n"
"	if (g)\n"
"		zoom(g);\n"
"	else if (e.target.closest('#reset'))\n"
"		zoom(document.querySelector('g.f[data-d=\"0\"]'));\n"
"});\n"
"svg.addEventListener('mouseover', function (e) {\n"
"	var g = e.target.closest('g.f');\n"
"	details.textContent = g ? g.querySelector('title').textContent : ' ';\n"
"});\n"
"]]></script>\n";

int flamegraph_write(const struct flamegraph *fg, const char *path,
		     const char *title, struct strbuf *err)
{
	struct strbuf out = STRBUF_INIT;
	struct fg_layout l = { &out, fg->root.count, 0 };
	int w = FG_WIDTH + 2 * FG_PAD, ret;

	if (!l.total) {
		strbuf_addf(err, "%s: no call stacks to draw", path);
		return -EINVAL;
	}
	l.height = FG_TOP + (fg->depth + 1) * FG_FRAME_H + FG_BOTTOM;
	strbuf_addf(&out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		    "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		    "height=\"%d\" viewBox=\"0 0 %d %d\" data-width=\"%d\" data-pad=\"%d\" "
		    "data-char=\"%d\">\n", w, l.height, w, l.height, FG_WIDTH,
		    FG_PAD, FG_CHAR_W);
	strbuf_addstr(&out, "<style>text { font-family: Verdana, sans-serif; font-size: 12px; }\n"
		      "g.f { cursor: pointer; } g.f:hover rect { stroke: black; }\n"
		      "#reset { cursor: pointer; }</style>\n");
	strbuf_addf(&out, "<rect width=\"100%%\" height=\"100%%\" fill=\"rgb(248,248,248)\"/>\n"
		    "<text x=\"%d\" y=\"24\" text-anchor=\"middle\" style=\"font-size: 17px\">",
		    w / 2);
	add_xml(&out, title);
	strbuf_addf(&out, "</text>\n<text id=\"reset\" x=\"%d\" y=\"24\" style=\"opacity: 0\">"
		    "Reset Zoom</text>\n<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n",
		    FG_PAD, FG_PAD, l.height - 10);
	add_frame(&l, &fg->root, 0, 0);
	strbuf_addstr(&out, fg_script);
	strbuf_addstr(&out, "</svg>\n");
	ret = write_file_atomic(path, out.buf, out.len, 0644, err);
	strbuf_release(&out);
	return ret;
}
