/*
 * perfetto.c - the "perfetto" format: a Perfetto trace (protobuf: a
 * Trace of TracePackets with TrackEvents, perfetto_trace.proto), what
 * -f trace-event writes as JSON, for captures too large for JSON.
 *
 * The same content as trace_event.c (dtconsume(1), PERFETTO):
 *  - a process track per capture (pid CAPTURE_PID + 1, ... named after
 *    the file), a thread track per CPU ("CPU n", tid n) and one for what
 *    belongs to no CPU ("capture", tid CAPTURE_TID);
 *  - each firing a TYPE_INSTANT event on its CPU's track, named after the
 *    probe or its first printf() line, or a slice (TYPE_SLICE_BEGIN/END)
 *    for entry/return probes paired as trace_event.c pairs them; a firing
 *    whose records carry a pid also on that process's thread track;
 *  - its args: the firing's dt2json line (model.c) as debug annotations,
 *    objects as dictionaries, arrays as arrays;
 *  - drops, faults, headers and the rest as instant events on the capture
 *    track, their category ("drop", "ERROR", ...) saying which;
 *  - aggregation printings as counter tracks (TYPE_COUNTER), one per
 *    variable and row ("@name key"), the first TIMELINE_MAXSERIES rows and the rest
 *    summed as "(other rows)", under the capture's process.
 * Timestamps as trace_event.c chooses them (ns; DTrace v2: 1 us apart in
 * the order read), in the packet's default clock.
 *
 * Size: one packet sequence (trusted_packet_sequence_id SEQ_ID) with
 * interned data: event names, annotation names and string values (stack
 * frames, keys) are written once and referred to by iid after that, so a
 * frame repeated in every firing costs a byte or two.  The interning
 * table is bounded (MAXINTERN strings, then strings go inline).
 *
 * Streaming: every TracePacket is packed by protobuf-c on its own and
 * written as a length-delimited field 1 of Trace, so the output is one
 * Trace message nobody holds whole; memory is the interning table, the
 * tracks and one packet.  model.c builds the dt2json line into a tape
 * (modeltape.c: its builder calls, with the values a JSON reader would
 * read back), which becomes the annotations: no JSON is written or
 * parsed.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emitter.h"
#include "model.h"
#include "modeltape.h"
#include "timeline.h"
#include "perfetto_trace.pb-c.h"

#define CAPTURE_TID 1000000
#define MAXOPEN 256
#define SEQ_ID 1                /* our one packet sequence */
#define MAXINTERN (1u << 21)    /* strings interned, at most */
#define MAXSTRLEN 4096          /* longer string values go inline */
#define CHUNK 4096              /* annotations per arena chunk */

/* uuid spaces of the tracks (TrackDescriptor.uuid is trace-global) */
#define U_CAPTURE (1ULL << 60)  /* | capture: its process */
#define U_CTHREAD (2ULL << 60)  /* | capture: its "capture" thread */
#define U_CPU     (3ULL << 60)  /* | capture << 32 | cpu */
#define U_PROC    (4ULL << 60)  /* | id: a user process */
#define U_THREAD  (5ULL << 60)  /* | id: a user thread */
#define U_COUNTER (6ULL << 60)  /* | id: a counter series */

/* what an interned key is (its first byte) */
enum { K_NAME = 'n', K_ANAME = 'a', K_STR = 's', K_PROC = 'p',
	K_THREAD = 't', K_COUNTER = 'c', K_NKINDS = 6 };

typedef Perfetto__Protos__DebugAnnotation pf_da;

typedef struct ientry {
	uint64_t hash;
	size_t off;              /* key in st->keys: kind, bytes, NUL */
	uint32_t len;            /* bytes after the kind */
	uint64_t id;
} ientry;

typedef struct pfcpu {
	uint32_t capture;
	int cpu;
	const char *open[MAXOPEN]; /* the reader's strings */
	int nopen;
} pfcpu;

/* an interned string new in this packet: written with it */
typedef struct pending {
	int kind;
	size_t off, len;
	uint64_t id;
} pending;

typedef struct pf_state {
	timeline tl;             /* first: the capture, the firing */
	FILE *out, *err;
	dtc_emitter_opts o;
	model_out *pt, *ot;      /* the probe lines' and other lines' tapes */
	const dtc_event *ev;     /* the event whose lines are drained */
	int packets;             /* written so far */
	pfcpu *cpus;
	size_t ncpus;
	/* interning: one table for every kind, ids counted per kind */
	ientry *tab;
	size_t tabcap, ntab;
	dtc_buf keys;
	uint64_t nid[128];
	pending *pend;
	size_t npend, cappend;
	/* one packet's annotations: chunks that never move */
	pf_da **chunks;
	size_t nchunks, chunk, inchunk;
	pf_da ***pchunks;        /* pointer arrays, the same way */
	size_t *pchunklen, npchunks, pchunk, inpchunk;
	/* one packet's interned data */
	Perfetto__Protos__EventName *en;
	Perfetto__Protos__DebugAnnotationName *an;
	Perfetto__Protos__InternedString *is;
	void **ptrs;
	size_t capi;
	uint8_t *pkbuf;
	size_t pkcap;
	dtc_buf scratch, name;
	int nomem;
} pf_state;

/* ------------------------------------------------------------------ */
/* Interning                                                           */
/* ------------------------------------------------------------------ */

static uint64_t
fnv(int kind, const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)kind;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static int
tab_grow(pf_state *st)
{
	size_t ncap = st->tabcap ? st->tabcap * 2 : 4096, i, j;
	ientry *nt = calloc(ncap, sizeof(*nt));

	if (nt == NULL)
		return -1;
	for (i = 0; i < st->tabcap; i++) {
		if (st->tab[i].len == 0 && st->tab[i].off == 0)
			continue;
		for (j = st->tab[i].hash & (ncap - 1); nt[j].off != 0;
		    j = (j + 1) & (ncap - 1))
			continue;
		nt[j] = st->tab[i];
	}
	free(st->tab);
	st->tab = nt;
	st->tabcap = ncap;
	return 0;
}

/*
 * The id of (kind, s): found, or made (*isnew; a new string is queued to
 * go out with the packet being made); 0 when the table is full or out
 * of memory (the caller writes the string inline).
 */
static uint64_t
intern(pf_state *st, int kind, const char *s, size_t n, int *isnew)
{
	uint64_t h = fnv(kind, s, n);
	ientry *e;
	size_t j;

	*isnew = 0;
	if (st->keys.len == 0 && dtc_buf_append(&st->keys, "", 1) != 0)
		return 0;        /* offset 0 marks a free slot */
	if (2 * (st->ntab + 1) > st->tabcap && tab_grow(st) != 0)
		return 0;
	for (j = h & (st->tabcap - 1); st->tab[j].off != 0;
	    j = (j + 1) & (st->tabcap - 1)) {
		e = &st->tab[j];
		if (e->hash == h && e->len == n &&
		    st->keys.s[e->off] == kind &&
		    memcmp(st->keys.s + e->off + 1, s, n) == 0)
			return e->id;
	}
	if (st->ntab >= MAXINTERN || n > UINT32_MAX)
		return 0;
	if (st->npend == st->cappend) {
		size_t nc = st->cappend ? st->cappend * 2 : 64;
		pending *np = realloc(st->pend, nc * sizeof(*np));

		if (np == NULL)
			return 0;
		st->pend = np;
		st->cappend = nc;
	}
	e = &st->tab[j];
	e->hash = h;
	e->off = st->keys.len;
	e->len = (uint32_t)n;
	{
		char k = (char)kind;

		if (dtc_buf_append(&st->keys, &k, 1) != 0 ||
		    dtc_buf_append(&st->keys, s, n) != 0 ||
		    dtc_buf_append(&st->keys, "", 1) != 0) {
			e->off = 0;
			return 0;
		}
	}
	e->id = ++st->nid[kind];
	st->ntab++;
	st->pend[st->npend].kind = kind;
	st->pend[st->npend].off = e->off;
	st->pend[st->npend].len = n;
	st->pend[st->npend].id = e->id;
	st->npend++;
	*isnew = 1;
	return e->id;
}

/* ------------------------------------------------------------------ */
/* Packets                                                             */
/* ------------------------------------------------------------------ */

static void
put_varint(FILE *fp, uint64_t v)
{
	uint8_t b[10];
	int n = 0;

	do {
		b[n] = v & 0x7f;
		v >>= 7;
		if (v != 0)
			b[n] |= 0x80;
		n++;
	} while (v != 0);
	fwrite(b, 1, (size_t)n, fp);
}

/* The interned strings new in this packet into id (which the packet
 * points at); names of kinds that are not sent (tracks) are dropped. */
static int
interned(pf_state *st, Perfetto__Protos__InternedData *id)
{
	size_t i, ne = 0, na = 0, ns = 0, k;
	void **p;

	if (st->npend > st->capi) {
		size_t nc = st->npend * 2;
		void *a = realloc(st->en, nc * sizeof(*st->en));

		if (a == NULL)
			return -1;
		st->en = a;
		if ((a = realloc(st->an, nc * sizeof(*st->an))) == NULL)
			return -1;
		st->an = a;
		if ((a = realloc(st->is, nc * sizeof(*st->is))) == NULL)
			return -1;
		st->is = a;
		if ((a = realloc(st->ptrs, 3 * nc * sizeof(*st->ptrs))) == NULL)
			return -1;
		st->ptrs = a;
		st->capi = nc;
	}
	for (i = 0; i < st->npend; i++) {
		const pending *q = &st->pend[i];
		char *s = st->keys.s + q->off + 1;

		switch (q->kind) {
		case K_NAME:
			perfetto__protos__event_name__init(&st->en[ne]);
			st->en[ne].has_iid = 1;
			st->en[ne].iid = q->id;
			st->en[ne++].name = s;
			break;
		case K_ANAME:
			perfetto__protos__debug_annotation_name__init(
			    &st->an[na]);
			st->an[na].has_iid = 1;
			st->an[na].iid = q->id;
			st->an[na++].name = s;
			break;
		case K_STR:
			perfetto__protos__interned_string__init(&st->is[ns]);
			st->is[ns].has_iid = 1;
			st->is[ns].iid = q->id;
			st->is[ns].has_str = 1;
			st->is[ns].str.data = (uint8_t *)s;
			st->is[ns++].str.len = q->len;
			break;
		}
	}
	p = st->ptrs;
	for (k = 0; k < ne; k++)
		p[k] = &st->en[k];
	id->n_event_names = ne;
	id->event_names = (Perfetto__Protos__EventName **)p;
	p += ne;
	for (k = 0; k < na; k++)
		p[k] = &st->an[k];
	id->n_debug_annotation_names = na;
	id->debug_annotation_names =
	    (Perfetto__Protos__DebugAnnotationName **)p;
	p += na;
	for (k = 0; k < ns; k++)
		p[k] = &st->is[k];
	id->n_debug_annotation_string_values = ns;
	id->debug_annotation_string_values =
	    (Perfetto__Protos__InternedString **)p;
	return ne + na + ns > 0;
}

/* pack pk and write it as one Trace.packet; then forget the packet's
 * annotations and new strings */
static void
emit(pf_state *st, Perfetto__Protos__TracePacket *pk)
{
	Perfetto__Protos__InternedData id =
	    PERFETTO__PROTOS__INTERNED_DATA__INIT;
	size_t n;
	int r;

	pk->has_trusted_packet_sequence_id = 1;
	pk->trusted_packet_sequence_id = SEQ_ID;
	if (st->packets == 0) {
		pk->has_sequence_flags = 1;
		pk->sequence_flags =
		    PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED;
	} else if (pk->track_event != NULL) {
		pk->has_sequence_flags = 1;
		pk->sequence_flags =
		    PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
	}
	if ((r = interned(st, &id)) < 0)
		st->nomem = 1;
	else if (r > 0)
		pk->interned_data = &id;
	n = perfetto__protos__trace_packet__get_packed_size(pk);
	if (n > st->pkcap) {
		uint8_t *b = realloc(st->pkbuf, n * 2);

		if (b == NULL) {
			st->nomem = 1;
			goto done;
		}
		st->pkbuf = b;
		st->pkcap = n * 2;
	}
	perfetto__protos__trace_packet__pack(pk, st->pkbuf);
	putc(0x0a, st->out);     /* Trace.packet: field 1, length-delimited */
	put_varint(st->out, n);
	fwrite(st->pkbuf, 1, n, st->out);
	st->packets++;
done:
	st->npend = 0;
	st->chunk = st->inchunk = 0;
	st->pchunk = st->inpchunk = 0;
}

/* An annotation of this packet (zeroed); NULL without memory. */
static pf_da *
da_new(pf_state *st)
{
	pf_da *d;

	if (st->inchunk == CHUNK) {
		st->chunk++;
		st->inchunk = 0;
	}
	if (st->chunk == st->nchunks) {
		pf_da **nc = realloc(st->chunks, (st->nchunks + 1) *
		    sizeof(*nc));

		if (nc == NULL)
			return NULL;
		st->chunks = nc;
		if ((nc[st->nchunks] = malloc(CHUNK * sizeof(pf_da))) == NULL)
			return NULL;
		st->nchunks++;
	}
	d = &st->chunks[st->chunk][st->inchunk++];
	perfetto__protos__debug_annotation__init(d);
	return d;
}

/* n pointers for this packet; NULL without memory */
static pf_da **
da_ptrs(pf_state *st, size_t n)
{
	size_t want = n > CHUNK ? n : CHUNK;

	if (st->pchunk < st->npchunks &&
	    st->inpchunk + n > st->pchunklen[st->pchunk]) {
		st->pchunk++;
		st->inpchunk = 0;
	}
	while (st->pchunk < st->npchunks && st->pchunklen[st->pchunk] < n)
		st->pchunk++;
	if (st->pchunk == st->npchunks) {
		pf_da ***nc = realloc(st->pchunks, (st->npchunks + 1) *
		    sizeof(*nc));
		size_t *nl;

		if (nc == NULL)
			return NULL;
		st->pchunks = nc;
		if ((nl = realloc(st->pchunklen, (st->npchunks + 1) *
		    sizeof(*nl))) == NULL)
			return NULL;
		st->pchunklen = nl;
		if ((nc[st->npchunks] = malloc(want * sizeof(pf_da *))) == NULL)
			return NULL;
		nl[st->npchunks++] = want;
		st->inpchunk = 0;
	}
	st->inpchunk += n;
	return st->pchunks[st->pchunk] + st->inpchunk - n;
}

/* d's name: interned */
static void
da_name(pf_state *st, pf_da *d, const char *name, size_t n)
{
	int isnew;
	uint64_t id = intern(st, K_ANAME, name, n, &isnew);

	if (id != 0) {
		d->has_name_iid = 1;
		d->name_iid = id;
	} else {
		d->name = (char *)name;
	}
}

/* past the value at ops[i]: the index after it */
static size_t
skip(const mt_op *ops, size_t i)
{
	size_t depth = 0;

	do {
		if (ops[i].op == MT_MAP || ops[i].op == MT_ARR)
			depth++;
		else if (ops[i].op == MT_END)
			depth--;
		i++;
	} while (depth > 0);
	return i;
}

/* The value at ops[i] as d's value (its strings stay the tape's until
 * the packet is written); the index after it.  What is built, and the
 * order in which names and strings are interned, is what jansson's tree
 * of the JSON line gave, member by member. */
static size_t
da_value(pf_state *st, pf_da *d, const mt_op *ops, size_t i,
    const char *text)
{
	const mt_op *v = &ops[i];
	size_t k, n;
	uint64_t id;
	int isnew;

	switch (v->op) {
	case MT_MAP:
	case MT_ARR:
		n = v->nkids;
		i++;
		if (n == 0 || (v->op == MT_MAP ? (d->dictionary_entries =
		    da_ptrs(st, n)) : (d->array_values = da_ptrs(st, n))) ==
		    NULL)
			return skip(ops, i - 1);
		for (k = 0; k < n; k++) {
			pf_da *e = da_new(st);

			if (e == NULL) {
				st->nomem = 1;
				break;
			}
			if (v->op == MT_MAP) {
				da_name(st, e, text + ops[i].key,
				    ops[i].klen);
				i = da_value(st, e, ops, i, text);
				d->dictionary_entries[k] = e;
			} else {
				i = da_value(st, e, ops, i, text);
				d->array_values[k] = e;
			}
		}
		if (v->op == MT_MAP)
			d->n_dictionary_entries = k;
		else
			d->n_array_values = k;
		/* what is left when memory ran out, and the end */
		for (; k < n; k++)
			i = skip(ops, i);
		return i + 1;
	case MT_STR:
		n = v->v.s.len;
		id = n <= MAXSTRLEN ? intern(st, K_STR, text + v->v.s.off, n,
		    &isnew) : 0;
		if (id != 0) {
			d->has_string_value_iid = 1;
			d->string_value_iid = id;
		} else {
			d->string_value = (char *)text + v->v.s.off;
		}
		break;
	case MT_INT:
		d->has_int_value = 1;
		d->int_value = v->v.i;
		break;
	case MT_DBL:
		d->has_double_value = 1;
		d->double_value = v->v.d;
		break;
	case MT_BOOL:
		d->has_bool_value = 1;
		d->bool_value = v->v.b;
		break;
	default:
		break;           /* null in an array: an empty annotation */
	}
	return i + 1;
}

/* A line's members as te's annotations */
static void
annotate(pf_state *st, Perfetto__Protos__TrackEvent *te, const mt_op *ops,
    size_t n, const char *text)
{
	pf_da top;

	if (n == 0)
		return;
	perfetto__protos__debug_annotation__init(&top);
	da_value(st, &top, ops, 0, text);
	te->n_debug_annotations = top.n_dictionary_entries;
	te->debug_annotations = top.dictionary_entries;
}

/* ------------------------------------------------------------------ */
/* Tracks                                                              */
/* ------------------------------------------------------------------ */

static void
track(pf_state *st, uint64_t uuid, uint64_t parent, const char *name,
    Perfetto__Protos__ProcessDescriptor *p,
    Perfetto__Protos__ThreadDescriptor *t, int counter)
{
	Perfetto__Protos__TracePacket pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__TrackDescriptor td =
	    PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__CounterDescriptor cd =
	    PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;

	td.has_uuid = 1;
	td.uuid = uuid;
	if (parent != 0) {
		td.has_parent_uuid = 1;
		td.parent_uuid = parent;
	}
	td.name = (char *)name;
	td.process = p;
	td.thread = t;
	if (counter)
		td.counter = &cd;
	pk.track_descriptor = &td;
	emit(st, &pk);
}

static void
thread_track(pf_state *st, uint64_t uuid, int32_t pid, int32_t tid,
    const char *name)
{
	Perfetto__Protos__ThreadDescriptor t =
	    PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;

	t.has_pid = t.has_tid = 1;
	t.pid = pid;
	t.tid = tid;
	t.thread_name = (char *)name;
	track(st, uuid, 0, name, NULL, &t, 0);
}

static pfcpu *
cpu_track(pf_state *st, int cpu)
{
	pfcpu *c;
	size_t i;
	char name[32];

	for (i = 0; i < st->ncpus; i++)
		if (st->cpus[i].capture == st->tl.capture &&
		    st->cpus[i].cpu == cpu)
			return &st->cpus[i];
	if ((c = realloc(st->cpus, (st->ncpus + 1) * sizeof(*c))) == NULL) {
		st->nomem = 1;
		return NULL;
	}
	st->cpus = c;
	c = &st->cpus[st->ncpus++];
	memset(c, 0, sizeof(*c));
	c->capture = st->tl.capture;
	c->cpu = cpu;
	snprintf(name, sizeof(name), "CPU %d", cpu);
	thread_track(st, U_CPU | (uint64_t)st->tl.capture << 32 | (uint32_t)cpu,
	    (int32_t)st->tl.cpid, cpu, name);
	return c;
}

static uint64_t
cpu_uuid(const pf_state *st, int cpu)
{
	return U_CPU | (uint64_t)st->tl.capture << 32 | (uint32_t)cpu;
}

/* an event named name (interned) of type on uuid at ns; the caller adds
 * annotations and emits */
static void
event_init(pf_state *st, Perfetto__Protos__TracePacket *pk,
    Perfetto__Protos__TrackEvent *te, int type, uint64_t uuid,
    const char *name, size_t n, uint64_t ns)
{
	uint64_t id;
	int isnew;

	perfetto__protos__trace_packet__init(pk);
	perfetto__protos__track_event__init(te);
	pk->has_timestamp = 1;
	pk->timestamp = ns;
	pk->track_event = te;
	te->has_type = 1;
	te->type = (Perfetto__Protos__TrackEvent__Type)type;
	te->has_track_uuid = 1;
	te->track_uuid = uuid;
	if (name == NULL)
		return;
	if ((id = intern(st, K_NAME, name, n, &isnew)) != 0) {
		te->has_name_iid = 1;
		te->name_iid = id;
	} else {
		/* inline: NUL-terminated in st->name */
		dtc_buf_reset(&st->name);
		if (dtc_buf_append(&st->name, name, n) != 0 ||
		    dtc_buf_append(&st->name, "", 1) != 0)
			st->nomem = 1;
		else
			te->name = st->name.s;
	}
}

static void
slice_end(pf_state *st, uint64_t uuid, uint64_t ns)
{
	Perfetto__Protos__TracePacket pk;
	Perfetto__Protos__TrackEvent te;

	event_init(st, &pk, &te, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END,
	    uuid, NULL, 0, ns);
	emit(st, &pk);
}

/* The firing again on its process's thread (trace_event.c's
 * process_copy): pid/tid from the user value's pid word. */
static void
process_copy(pf_state *st, const char *name, size_t n)
{
	Perfetto__Protos__TracePacket pk;
	Perfetto__Protos__TrackEvent te;
	Perfetto__Protos__ProcessDescriptor p =
	    PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
	pf_da *d[2], *a, *b;
	uint32_t pid, tid;
	uint64_t key, tid_id, pid_id;
	int isnew;
	char tname[32];

	tid = (uint32_t)st->tl.upid;
	pid = st->tl.upid >> 32 != 0 ? (uint32_t)(st->tl.upid >> 32) : tid;
	key = (uint64_t)pid << 32 | tid;
	if ((pid_id = intern(st, K_PROC, (const char *)&pid, sizeof(pid),
	    &isnew)) == 0)
		return;
	st->npend -= isnew;      /* not sent: a track, not a string */
	if (isnew) {
		snprintf(tname, sizeof(tname), "pid %" PRIu32, pid);
		p.has_pid = 1;
		p.pid = (int32_t)pid;
		p.process_name = tname;
		track(st, U_PROC | pid_id, 0, tname, &p, NULL, 0);
	}
	if ((tid_id = intern(st, K_THREAD, (const char *)&key, sizeof(key),
	    &isnew)) == 0)
		return;
	st->npend -= isnew;
	if (isnew) {
		snprintf(tname, sizeof(tname), "tid %" PRIu32, tid);
		thread_track(st, U_THREAD | tid_id, (int32_t)pid,
		    (int32_t)tid, tname);
	}
	event_init(st, &pk, &te, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT,
	    U_THREAD | tid_id, name, n, st->tl.pts);
	if ((a = da_new(st)) != NULL && (b = da_new(st)) != NULL) {
		da_name(st, a, "cpu", 3);
		a->has_int_value = 1;
		a->int_value = st->tl.pcpu;
		da_name(st, b, "capture", 7);
		b->has_int_value = 1;
		b->int_value = st->tl.capture;
		d[0] = a;
		d[1] = b;
		te.n_debug_annotations = 2;
		te.debug_annotations = d;
	}
	emit(st, &pk);
}

/* ------------------------------------------------------------------ */
/* Lines from model.c                                                  */
/* ------------------------------------------------------------------ */



static void
firing_line(void *arg, const mt_op *ops, size_t nops, const char *text)
{
	pf_state *st = arg;
	const dtc_event *ev = st->ev;
	Perfetto__Protos__TracePacket pk;
	Perfetto__Protos__TrackEvent te;
	pfcpu *c = cpu_track(st, st->tl.pcpu);
	const char *fn = ev->probe != NULL && ev->probe->function != NULL &&
	    ev->probe->function[0] != '\0' ? ev->probe->function : st->tl.pname;
	const char *name;
	size_t nn;
	int i, type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT;

	if (c == NULL)
		return;
	if (st->tl.flow == 1 && c->nopen < MAXOPEN) {
		c->open[c->nopen++] = fn;
		type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN;
	} else if (st->tl.flow == 2) {
		for (i = c->nopen; i > 0 && strcmp(c->open[i - 1], fn) != 0;
		    i--)
			continue;
		if (i > 0) {
			while (c->nopen > i) {
				c->nopen--;
				slice_end(st, cpu_uuid(st, st->tl.pcpu), st->tl.pts);
			}
			c->nopen--;
			type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END;
		}
	}
	if (type != PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT) {
		name = fn;
		nn = strlen(fn);
	} else if (st->tl.havemsg) {
		name = st->tl.msg.s;
		nn = st->tl.msg.len;
	} else {
		name = st->tl.pname;
		nn = strlen(st->tl.pname);
	}
	event_init(st, &pk, &te, type, cpu_uuid(st, st->tl.pcpu), name, nn,
	    st->tl.pts);
	annotate(st, &te, ops, nops, text);
	emit(st, &pk);
	if (st->tl.haveupid)
		process_copy(st, name, nn);
}

static void
other_line(void *arg, const mt_op *ops, size_t nops, const char *text)
{
	pf_state *st = arg;
	const dtc_event *ev = st->ev;
	Perfetto__Protos__TracePacket pk;
	Perfetto__Protos__TrackEvent te;
	static const char *const kinds[][2] = {
		{ "header", "header" }, { "drop", "drop" },
		{ "error", "ERROR" }, { "aggregation", "aggregation" },
		{ "notice", "notice" }, { "end", "end" },
	};
	char *cat[1];
	const char *name = "event";
	size_t i;
	uint64_t ns;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (modeltape_starts(ops, nops, text, kinds[i][0])) {
			name = kinds[i][1];
			break;
		}
	ns = ev->type == DTC_EV_RECORD ? st->tl.pts : timeline_event_ns(&st->tl, ev, 0);
	event_init(st, &pk, &te, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT,
	    U_CTHREAD | st->tl.capture, name, strlen(name), ns);
	cat[0] = (char *)name;
	te.n_categories = 1;
	te.categories = cat;
	annotate(st, &te, ops, nops, text);
	emit(st, &pk);
}

/* model.c's finished lines of ev */
static void
drain_other(timeline *t, const dtc_event *ev)
{
	pf_state *st = (pf_state *)t;

	st->ev = ev;
	modeltape_drain(st->ot, st, other_line);
}

static void
drain_probe(timeline *t, const dtc_event *ev)
{
	pf_state *st = (pf_state *)t;

	st->ev = ev;
	modeltape_drain(st->pt, st, firing_line);
}

/* ------------------------------------------------------------------ */
/* Aggregations as counter tracks                                      */
/* ------------------------------------------------------------------ */

static void
counter(pf_state *st, const char *var, const char *series, size_t sn,
    int64_t value, uint64_t ns)
{
	Perfetto__Protos__TracePacket pk;
	Perfetto__Protos__TrackEvent te;
	uint64_t id;
	int isnew;

	/* the key: capture, "@var", NUL, series */
	dtc_buf_reset(&st->name);
	dtc_buf_append(&st->name, (const char *)&st->tl.capture,
	    sizeof(st->tl.capture));
	dtc_buf_printf(&st->name, "@%s", var);
	dtc_buf_append(&st->name, "", 1);
	if (dtc_buf_append(&st->name, series, sn) != 0 ||
	    (id = intern(st, K_COUNTER, st->name.s, st->name.len,
	    &isnew)) == 0) {
		st->nomem = 1;
		return;
	}
	st->npend -= isnew;
	if (isnew) {
		dtc_buf_reset(&st->name);
		dtc_buf_printf(&st->name, "@%s ", var);
		dtc_buf_append(&st->name, series, sn);
		dtc_buf_append(&st->name, "", 1);
		track(st, U_COUNTER | id, U_CAPTURE | st->tl.capture,
		    st->name.s, NULL, NULL, 1);
	}
	event_init(st, &pk, &te, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER,
	    U_COUNTER | id, NULL, 0, ns);
	te.has_counter_value = 1;
	te.counter_value = value;
	emit(st, &pk);
}

/* one series of a variable's counters */
struct series_arg {
	pf_state *st;
	const char *var;
	uint64_t ns;
};

static void
series(void *arg, const char *name, size_t n, int64_t value, int first)
{
	struct series_arg *a = arg;

	(void)first;
	counter(a->st, a->var, name, n, value, a->ns);
}

static void
counters(timeline *t, const dtc_event *ev, const dtc_aggprint *ap,
    uint64_t ns)
{
	pf_state *st = (pf_state *)t;
	struct series_arg a = { st, NULL, ns };
	uint32_t j;

	for (j = 0; j < ap->nvars; j++) {
		a.var = ap->vars[j].name != NULL ? ap->vars[j].name : "";
		timeline_series(ap, j, ev->reader, &st->scratch, &a, series);
	}
}

/* ------------------------------------------------------------------ */
/* Events                                                              */
/* ------------------------------------------------------------------ */

/* a new capture: its process and its "capture" thread */
static void
begin(timeline *t, const dtc_event *ev)
{
	pf_state *st = (pf_state *)t;
	Perfetto__Protos__ProcessDescriptor p =
	    PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;

	p.has_pid = 1;
	p.pid = (int32_t)st->tl.cpid;
	p.process_name = (char *)(ev->source != NULL ? ev->source :
	    "capture");
	track(st, U_CAPTURE | st->tl.capture, 0, p.process_name, &p, NULL, 0);
	thread_track(st, U_CTHREAD | st->tl.capture, (int32_t)st->tl.cpid,
	    CAPTURE_TID, "capture");
}

/* slices still open end with their capture */
static void
end(timeline *t, const dtc_event *ev, uint64_t ns)
{
	pf_state *st = (pf_state *)t;
	size_t i;

	(void)ev;
	for (i = 0; i < st->ncpus; i++) {
		pfcpu *c = &st->cpus[i];

		if (c->capture != st->tl.capture)
			continue;
		while (c->nopen > 0) {
			c->nopen--;
			slice_end(st, U_CPU | (uint64_t)c->capture << 32 |
			    (uint32_t)c->cpu, ns);
		}
	}
}

static const timeline_ops pf_ops = {
	.begin = begin, .counters = counters, .drain_other = drain_other,
	.drain_probe = drain_probe, .end = end,
};

/* ------------------------------------------------------------------ */
/* The run                                                             */
/* ------------------------------------------------------------------ */


static void *
pf_create(const dtc_emitter_opts *o)
{
	pf_state *st = calloc(1, sizeof(*st));

	if (st == NULL)
		return NULL;
	st->out = o->out;
	st->err = o->err;
	st->o = *o;
	st->tl.ops = &pf_ops;
	st->pt = modeltape_new();
	st->ot = modeltape_new();
	/* (model_create frees the tapes when it fails) */
	if ((st->tl.model = model_create(o, st->pt, st->ot)) == NULL) {
		free(st);
		return NULL;
	}
	return st;
}

static int
pf_destroy(void *state)
{
	pf_state *st = state;
	size_t i;
	int rc;

	if (modeltape_nomem(st->pt) || modeltape_nomem(st->ot))
		st->nomem = 1;
	rc = model_destroy(st->tl.model);
	if (st->nomem) {
		fputs("dtconsume: out of memory: the trace is incomplete\n",
		    st->err);
		rc = -1;
	}
	if (fflush(st->out) != 0 || ferror(st->out))
		rc = -1;
	for (i = 0; i < st->nchunks; i++)
		free(st->chunks[i]);
	for (i = 0; i < st->npchunks; i++)
		free(st->pchunks[i]);
	free(st->chunks);
	free(st->pchunks);
	free(st->pchunklen);
	free(st->cpus);
	free(st->tab);
	free(st->pend);
	free(st->en);
	free(st->an);
	free(st->is);
	free(st->ptrs);
	free(st->pkbuf);
	dtc_buf_free(&st->tl.msg);
	dtc_buf_free(&st->keys);
	dtc_buf_free(&st->scratch);
	dtc_buf_free(&st->name);
	free(st);
	return rc;
}

const dtc_emitter dtc_fmt_perfetto = {
	.name = "perfetto",
	.description = "Perfetto trace (protobuf TrackEvents)",
	.create = pf_create,
	.destroy = pf_destroy,
	.handler = TIMELINE_HANDLER,
};
