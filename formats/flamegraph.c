/*
 * flamegraph.c - the "flamegraph" format: an interactive flame graph, one
 * self-contained SVG file (its script inline, nothing fetched).
 *
 * The stacks and their counts are -f folded's (stackprof.h: folded.c run
 * into memory; --folded-key honoured), kernel frames marked by folded.c
 * so that they get their own colours.  The graph is drawn from the folded
 * lines at the end: the lines are sorted frame by frame, so that a stack
 * and its extensions come together and the tree is built in one pass
 * with a path of open nodes; frame widths are counts, frames narrower than
 * MINWIDTH pixels are left out (the title says how many) so that a file
 * of a million distinct stacks stays one a browser can open.
 *
 * The page: hover shows a frame's name, count and share at the bottom;
 * a click zooms to it (its ancestors stay, greyed, below it); "Reset
 * zoom" and Escape undo that; "Search" (or Ctrl-F) asks for a regular
 * expression and paints the matching frames, with the share of the
 * samples under them.  The functions fg_zoom, fg_reset and fg_search are
 * the page's API (the browser tests drive them).  Colours come from a
 * hash of the name, so a function has the same colour in every graph:
 * warm red-yellow for user frames (and aggregation keys), cool
 * blue-green for kernel frames.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emitter.h"
#include "stackprof.h"

#define WIDTH 1200          /* px */
#define FRAMEH 16           /* px a frame */
#define PAD 10
#define TOPH 56             /* title and controls */
#define BOTTOMH 28          /* details line */
#define FONT 12
#define MINWIDTH 0.1        /* px: narrower frames are not drawn */

typedef struct fnode {
	const char *name;        /* in a folded line (stackprof's buffer) */
	uint32_t len;
	uint32_t depth;
	int kernel;
	uint64_t value;          /* samples through this frame */
	uint64_t x;              /* samples left of it */
} fnode;

typedef struct fg_state {
	stackprof sp;
	FILE *out;
	fnode *n;
	size_t nn, capn;
} fg_state;

static void *
fg_create(const dtc_emitter_opts *o)
{
	fg_state *st = calloc(1, sizeof(*st));
	dtc_emitter_opts so = *o;

	if (st == NULL)
		return NULL;
	so.folded_kmark = 1;
	if (stackprof_init(&st->sp, &so, 0) != 0) {
		stackprof_free(&st->sp);
		free(st);
		return NULL;
	}
	st->out = o->out;
	return st;
}

#define H(name) \
static int name(const dtc_event *ev, void *arg) \
{ \
	return stackprof_handler.name(ev, &((fg_state *)arg)->sp); \
}
H(begin) H(record) H(agg) H(drop) H(error) H(notice)
#undef H

/* Frame by frame: the count's blank before ';' before any other byte. */
static int
frame_order(const void *a, const void *b)
{
	const sp_line *x = a, *y = b;
	size_t i, n = x->len < y->len ? x->len : y->len;
	int cx, cy;

	for (i = 0; i < n; i++) {
		cx = x->frames[i] == ';' ? -1 : (unsigned char)x->frames[i];
		cy = y->frames[i] == ';' ? -1 : (unsigned char)y->frames[i];
		if (cx != cy)
			return cx - cy;
	}
	return x->len < y->len ? -1 : x->len > y->len;
}

static fnode *
new_node(fg_state *st)
{
	fnode *p;

	if (st->nn == st->capn) {
		size_t ncap = st->capn != 0 ? st->capn * 2 : 1024;

		if ((p = realloc(st->n, ncap * sizeof(*p))) == NULL)
			return NULL;
		st->n = p;
		st->capn = ncap;
	}
	p = &st->n[st->nn++];
	memset(p, 0, sizeof(*p));
	return p;
}

/*
 * The tree in preorder: node 0 is "all"; path[d] is the node at depth d
 * of the previous line (indexes: st->n moves as it grows), prev its
 * depth.  Returns the deepest depth, or -1 without memory.
 */
static int
build(fg_state *st, sp_line *l, size_t nl)
{
	size_t *path = NULL, i, pos, capp = 0, depth, prev = 0;
	uint32_t maxd = 0;
	const char *f;
	size_t fn;
	int kernel, same;
	fnode *p;

	if ((p = new_node(st)) == NULL)
		return -1;
	p->name = "all";
	p->len = 3;
	for (i = 0; i < nl; i++) {
		if (l[i].count <= 0)
			continue;
		st->n[0].value += (uint64_t)l[i].count;
		pos = 0;
		depth = 0;
		same = 1;
		while (stackprof_next_frame(&l[i], &pos, &f, &fn, &kernel)) {
			depth++;
			if (depth >= capp) {
				size_t *np = realloc(path,
				    (depth + 64) * sizeof(*np));

				if (np == NULL)
					goto nomem;
				path = np;
				capp = depth + 64;
			}
			if (same && depth <= prev) {
				p = &st->n[path[depth]];
				if (p->len == fn && p->kernel == kernel &&
				    memcmp(p->name, f, fn) == 0) {
					p->value += (uint64_t)l[i].count;
					continue;
				}
			}
			same = 0;
			if ((p = new_node(st)) == NULL)
				goto nomem;
			p->name = f;
			p->len = (uint32_t)fn;
			p->kernel = kernel;
			p->depth = (uint32_t)depth;
			p->value = (uint64_t)l[i].count;
			path[depth] = st->nn - 1;
			if (depth > maxd)
				maxd = (uint32_t)depth;
		}
		prev = depth;
	}
	free(path);
	return (int)maxd;
nomem:
	free(path);
	return -1;
}

/* x of every node: preorder, a cursor per depth */
static int
place(fg_state *st, uint32_t maxd)
{
	uint64_t *cur = calloc((size_t)maxd + 2, sizeof(*cur));
	size_t i;

	if (cur == NULL)
		return -1;
	for (i = 0; i < st->nn; i++) {
		fnode *p = &st->n[i];

		p->x = cur[p->depth];
		cur[p->depth] += p->value;
		cur[p->depth + 1] = p->x;
	}
	free(cur);
	return 0;
}

/* The length of the UTF-8 character at s (n bytes left), 0 if none */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	size_t k, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		k = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		k = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		k = 4;
	else
		return 0;
	if (k > n)
		return 0;
	for (i = 1; i < k; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return k;
}

/* Text for XML: escaped; bytes that are not UTF-8 read as Latin-1 (as
 * json.c does), since one bad byte makes a browser refuse the file. */
static void
xml_text(FILE *fp, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, k;

	for (i = 0; i < n; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", fp); continue;
		case '<': fputs("&lt;", fp); continue;
		case '>': fputs("&gt;", fp); continue;
		case '"': fputs("&quot;", fp); continue;
		}
		if (u[i] < 0x20) {
			/* XML 1.0 has no other control characters */
			putc('?', fp);
		} else if (u[i] < 0x80) {
			putc(s[i], fp);
		} else if ((k = utf8_len(u + i, n - i)) != 0) {
			fwrite(s + i, 1, k, fp);
			i += k - 1;
		} else {
			putc(0xc0 | u[i] >> 6, fp);
			putc(0x80 | (u[i] & 0x3f), fp);
		}
	}
}

/* FNV-1a of the name: the same function, the same colour */
static uint32_t
name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	size_t i;

	/* the function, not its offset: "mod`f+0x1" and "mod`f+0x2" alike */
	for (i = 0; i < n && s[i] != '+'; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static void
colour(const fnode *p, char *buf, size_t len)
{
	uint32_t h = name_hash(p->name, p->len);
	unsigned a = h & 0xff, b = (h >> 8) & 0xff, c = (h >> 16) & 0xff;

	if (p->depth == 0)
		snprintf(buf, len, "rgb(200,200,200)");
	else if (p->kernel)
		snprintf(buf, len, "rgb(%u,%u,%u)", 60 + a * 60 / 255,
		    150 + b * 70 / 255, 190 + c * 55 / 255);
	else
		snprintf(buf, len, "rgb(%u,%u,%u)", 205 + a * 50 / 255,
		    b * 210 / 255, c * 55 / 255);
}

/* The page's script (CDATA: no '&' or '<' escapes needed in it). */
static const char script[] =
"var fg_svg=document.documentElement,fg_frames=[],fg_total=0,fg_zoomed=null,\n"
"fg_W=" "%d" ",fg_PAD=" "%d" ",fg_term=null;\n"
"function fg_init(){var gs=document.querySelectorAll('g.f');\n"
" for(var i=0;i<gs.length;i++){var g=gs[i],r=g.querySelector('rect');\n"
"  var f={g:g,r:r,t:g.querySelector('text'),o:+g.getAttribute('data-o'),\n"
"   v:+g.getAttribute('data-v'),d:+g.getAttribute('data-d'),\n"
"   k:g.getAttribute('data-k')==='1',n:g.getAttribute('data-n'),\n"
"   fill:r.getAttribute('fill')};\n"
"  fg_frames.push(f);if(f.d===0)fg_total=f.v;\n"
"  g.addEventListener('click',(function(f){return function(e){fg_zoom(f);}})(f));\n"
"  g.addEventListener('mouseover',(function(f){return function(){fg_details(f);}})(f));\n"
"  g.addEventListener('mouseout',function(){fg_details(null);});}\n"
" document.getElementById('reset').addEventListener('click',fg_reset);\n"
" document.getElementById('search').addEventListener('click',function(){\n"
"  if(fg_term!==null){fg_search(null);return;}\n"
"  var t=prompt('Search (regular expression)','');if(t)fg_search(t);});\n"
" window.addEventListener('keydown',function(e){\n"
"  if(e.key==='Escape')fg_reset();\n"
"  if((e.ctrlKey||e.metaKey)&&e.key==='f'){e.preventDefault();\n"
"   var t=prompt('Search (regular expression)','');if(t)fg_search(t);}});\n"
" fg_draw(null);}\n"
"function fg_pct(v){return (100*v/fg_total).toFixed(2)+'%%';}\n"
"function fg_details(f){document.getElementById('details').textContent=\n"
" f?f.n+' ('+(f.k?'kernel, ':'')+f.v+' samples, '+fg_pct(f.v)+')':' ';}\n"
"function fg_label(f,w){var n=f.n,c=Math.floor((w-6)/(%d*0.59));\n"
" if(c<3)return '';if(n.length<=c)return n;return n.substr(0,c-2)+'..';}\n"
"function fg_draw(z){var x0=z?z.o:0,span=z?z.v:fg_total,s=(fg_W-2*fg_PAD)/span;\n"
" for(var i=0;i<fg_frames.length;i++){var f=fg_frames[i],x,w,vis;\n"
"  if(!z||(f.d>=z.d&&f.o>=x0&&f.o+f.v<=x0+span)){x=fg_PAD+(f.o-x0)*s;w=f.v*s;vis=true;\n"
"   f.g.removeAttribute('opacity');}\n"
"  else if(f.d<z.d&&f.o<=x0&&f.o+f.v>=x0+span){x=fg_PAD;w=fg_W-2*fg_PAD;vis=true;\n"
"   f.g.setAttribute('opacity','0.5');}\n"
"  else vis=false;\n"
"  f.g.style.display=vis?'':'none';if(!vis)continue;\n"
"  f.r.setAttribute('x',x.toFixed(2));f.r.setAttribute('width',Math.max(w,0).toFixed(2));\n"
"  f.t.setAttribute('x',(x+3).toFixed(2));f.t.textContent=fg_label(f,w);}\n"
" document.getElementById('reset').style.display=z?'':'none';}\n"
"function fg_zoom(f){if(typeof f==='string'){for(var i=0;i<fg_frames.length;i++)\n"
"  if(fg_frames[i].n===f){f=fg_frames[i];break;}if(typeof f==='string')return false;}\n"
" fg_zoomed=f.d===0?null:f;fg_draw(fg_zoomed);return true;}\n"
"function fg_reset(){fg_zoomed=null;fg_draw(null);}\n"
"function fg_search(t){var re=null,m={},sum=0,n=0;\n"
" if(t){try{re=new RegExp(t);}catch(e){re=null;}}fg_term=re?t:null;\n"
" for(var i=0;i<fg_frames.length;i++){var f=fg_frames[i];\n"
"  if(re&&f.d>0&&re.test(f.n)){f.r.setAttribute('fill','rgb(230,0,230)');n++;\n"
"   /* count each sample once: skip frames inside a counted one */\n"
"   var inside=false;for(var k in m){var a=m[k];if(f.o>=a[0]&&f.o+f.v<=a[0]+a[1]&&f.d>a[2]){inside=true;break;}}\n"
"   if(!inside){m[f.o+':'+f.d]=[f.o,f.v,f.d];sum+=f.v;}}\n"
"  else f.r.setAttribute('fill',f.fill);}\n"
" var el=document.getElementById('matched');\n"
" el.textContent=re?'Matched: '+fg_pct(sum)+' ('+n+' frames)':'';\n"
" document.getElementById('search').textContent=re?'Clear search':'Search';\n"
" return re?{frames:n,samples:sum}:null;}\n"
"window.addEventListener('load',function(){fg_init();\n"
" var q=/[?&]s=([^&]*)/.exec(location.search);if(q)fg_search(decodeURIComponent(q[1]));});\n";

static int
write_svg(fg_state *st, uint32_t maxd, size_t hidden)
{
	FILE *fp = st->out;
	int height = TOPH + (int)(maxd + 1) * FRAMEH + BOTTOMH;
	double scale = st->n[0].value > 0 ?
	    (double)(WIDTH - 2 * PAD) / (double)st->n[0].value : 0;
	char fill[32];
	size_t i;

	fprintf(fp, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
	    "<svg version=\"1.1\" width=\"%d\" height=\"%d\" "
	    "viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">\n",
	    WIDTH, height, WIDTH, height);
	fputs("<style>text{font-family:Verdana,sans-serif;font-size:", fp);
	fprintf(fp, "%dpx;fill:#000}g.f text{pointer-events:none}"
	    "g.f:hover rect{stroke:#000;stroke-width:0.5}"
	    ".btn{cursor:pointer;fill:#14e}#title{font-size:16px}"
	    "</style>\n", FONT);
	fputs("<script type=\"text/ecmascript\"><![CDATA[\n", fp);
	fprintf(fp, script, WIDTH, PAD, FONT);
	fputs("]]></script>\n", fp);
	fprintf(fp, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
	    "fill=\"#f8f8f0\"/>\n", WIDTH, height);
	fputs("<text id=\"title\" x=\"600\" y=\"22\" text-anchor=\"middle\">"
	    "Flame graph: ", fp);
	xml_text(fp, st->sp.sources.s != NULL ? st->sp.sources.s : "",
	    st->sp.sources.len);
	fputs("</text>\n<text id=\"subtitle\" x=\"600\" y=\"40\" "
	    "text-anchor=\"middle\">", fp);
	if (st->sp.labels.len > 0)
		xml_text(fp, st->sp.labels.s, st->sp.labels.len);
	else
		fputs("no stacks", fp);
	fprintf(fp, " \u2014 %" PRIu64 " samples", st->n[0].value);
	if (hidden > 0)
		fprintf(fp, ", %zu frames under %.1f px not drawn", hidden,
		    MINWIDTH);
	fputs("</text>\n", fp);
	fprintf(fp, "<text id=\"reset\" class=\"btn\" x=\"%d\" y=\"22\" "
	    "style=\"display:none\">Reset zoom</text>\n", PAD);
	fprintf(fp, "<text id=\"search\" class=\"btn\" x=\"%d\" y=\"22\" "
	    "text-anchor=\"end\">Search</text>\n", WIDTH - PAD);
	fprintf(fp, "<text id=\"matched\" x=\"%d\" y=\"%d\" "
	    "text-anchor=\"end\"></text>\n", WIDTH - PAD, height - 10);
	fprintf(fp, "<rect x=\"%d\" y=\"30\" width=\"10\" height=\"10\" "
	    "fill=\"rgb(230,80,30)\"/><text x=\"%d\" y=\"39\">user</text>\n"
	    "<rect x=\"%d\" y=\"30\" width=\"10\" height=\"10\" "
	    "fill=\"rgb(90,180,220)\"/><text x=\"%d\" y=\"39\">kernel"
	    "</text>\n", PAD, PAD + 14, PAD + 50, PAD + 64);
	fprintf(fp, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n",
	    PAD, height - 10);
	fputs("<g id=\"frames\">\n", fp);
	for (i = 0; i < st->nn; i++) {
		const fnode *p = &st->n[i];
		double x = PAD + (double)p->x * scale;
		double w = (double)p->value * scale;
		int y = height - BOTTOMH - (int)(p->depth + 1) * FRAMEH;

		if (w < MINWIDTH)
			continue;
		colour(p, fill, sizeof(fill));
		fprintf(fp, "<g class=\"f\" data-o=\"%" PRIu64 "\" data-v=\"%"
		    PRIu64 "\" data-d=\"%" PRIu32 "\" data-k=\"%d\" data-n=\"",
		    p->x, p->value, p->depth, p->kernel);
		xml_text(fp, p->name, p->len);
		fputs("\"><title>", fp);
		xml_text(fp, p->name, p->len);
		fprintf(fp, " (%s%" PRIu64 " samples, %.2f%%)</title>",
		    p->kernel ? "kernel, " : "", p->value,
		    st->n[0].value > 0 ? 100.0 * (double)p->value /
		    (double)st->n[0].value : 0.0);
		fprintf(fp, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" "
		    "height=\"%d\" rx=\"2\" fill=\"%s\"/><text x=\"%.2f\" "
		    "y=\"%d\"></text></g>\n", x, y, w, FRAMEH - 1, fill,
		    x + 3, y + FRAMEH - 4);
	}
	fputs("</g>\n</svg>\n", fp);
	return ferror(fp) ? -1 : 0;
}

static int
fg_destroy(void *state)
{
	fg_state *st = state;
	sp_group *g;
	sp_line *l = NULL, one;
	size_t nl = 0, capl = 0, pos = 0, i, hidden = 0;
	double scale;
	int rc, maxd;

	rc = stackprof_finish(&st->sp);
	g = &st->sp.g[0];
	while (g->buf != NULL && stackprof_next_line(g->buf, g->len, &pos,
	    &one)) {
		if (nl == capl) {
			sp_line *nv = realloc(l, (capl ? capl * 2 : 1024) *
			    sizeof(*nv));

			if (nv == NULL) {
				rc = -1;
				break;
			}
			l = nv;
			capl = capl ? capl * 2 : 1024;
		}
		l[nl++] = one;
	}
	qsort(l, nl, sizeof(*l), frame_order);
	if ((maxd = build(st, l, nl)) < 0 || place(st, (uint32_t)maxd) != 0) {
		fputs("dtconsume: out of memory: no flame graph\n",
		    st->sp.o.err);
		rc = -1;
	} else {
		scale = st->n[0].value > 0 ? (double)(WIDTH - 2 * PAD) /
		    (double)st->n[0].value : 0;
		for (i = 0; i < st->nn; i++)
			hidden += (double)st->n[i].value * scale < MINWIDTH;
		if (write_svg(st, (uint32_t)maxd, hidden) != 0)
			rc = -1;
	}
	if (fflush(st->out) != 0)
		rc = -1;
	free(l);
	free(st->n);
	stackprof_free(&st->sp);
	free(st);
	return rc;
}

const dtc_emitter dtc_fmt_flamegraph = {
	.name = "flamegraph",
	.description = "an interactive flame graph (one SVG file)",
	.create = fg_create,
	.destroy = fg_destroy,
	.handler = {
		.begin = begin,
		.record = record,
		.agg = agg,
		.drop = drop,
		.error = error,
		.notice = notice,
	},
};
