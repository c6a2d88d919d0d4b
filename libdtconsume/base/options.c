/*
 * options.c - the consumer options, named and parsed as dtrace -x does.
 *
 * Options come from three places, in this order of strength: the command
 * line (pinned: a capture cannot change them), the capture's options items,
 * and setopt() records met while consuming.  setopt() failures must read
 * exactly as libdtrace's ("Invalid option name", "Invalid value for
 * specified option", "Operation illegal when tracing is active"), so the
 * option table keeps libdtrace's three classes: compile-time, run-time
 * (refused while tracing is active) and dynamic run-time.
 *
 * A fourth class holds this library's own options, which dtrace does not
 * have: maxmsgsize, the cap on one rendered message (printf_render.c says why).
 * Only the caller sets them (dtc_reader_set_option: pinned): a capture's options
 * item or setopt() record that names one gets "Invalid option name", as
 * from dtrace, because a capture must not lift a bound that protects
 * against it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base.h"

enum kind { CT, RT, DRT, OWN };
enum parse { P_RUNTIME, P_SIZE, P_RATE, P_STRSIZE, P_POLICY, P_RESIZE,
	P_ENCODING, P_FLAG, P_ANY, P_BYTES };

static const struct option {
	const char *name;
	enum kind kind;
	enum parse parse;
	int id;          /* enum dtcp_opt, or -1 when we only validate it */
} options[] = {
	/* compile-time: meaningless offline, but valid names */
	{ "aggpercpu", CT, P_FLAG, -1 }, { "amin", CT, P_ANY, -1 },
	{ "argref", CT, P_FLAG, -1 }, { "core", CT, P_ANY, -1 },
	{ "cpp", CT, P_FLAG, -1 }, { "cpphdrs", CT, P_FLAG, -1 },
	{ "cpppath", CT, P_ANY, -1 }, { "ctypes", CT, P_ANY, -1 },
	{ "defaultargs", CT, P_FLAG, -1 }, { "dtypes", CT, P_ANY, -1 },
	{ "debug", CT, P_FLAG, -1 }, { "define", CT, P_ANY, -1 },
	{ "droptags", CT, P_FLAG, DTCP_OPT_DROPTAGS },
	{ "empty", CT, P_FLAG, -1 },
	{ "encoding", CT, P_ENCODING, DTCP_OPT_ENCODING },
	{ "errtags", CT, P_FLAG, -1 }, { "evaltime", CT, P_ANY, -1 },
	{ "incdir", CT, P_ANY, -1 }, { "iregs", CT, P_ANY, -1 },
	{ "kdefs", CT, P_FLAG, -1 }, { "knodefs", CT, P_FLAG, -1 },
	{ "late", CT, P_ANY, -1 }, { "lazyload", CT, P_ANY, -1 },
	{ "ldpath", CT, P_ANY, -1 }, { "libdir", CT, P_ANY, -1 },
	{ "linkmode", CT, P_ANY, -1 }, { "linktype", CT, P_ANY, -1 },
	{ "nolibs", CT, P_FLAG, -1 }, { "pgmax", CT, P_ANY, -1 },
	{ "pspec", CT, P_FLAG, -1 }, { "setenv", CT, P_ANY, -1 },
	{ "stdc", CT, P_ANY, -1 }, { "strip", CT, P_FLAG, -1 },
	{ "syslibdir", CT, P_ANY, -1 }, { "tree", CT, P_ANY, -1 },
	{ "tregs", CT, P_ANY, -1 }, { "udefs", CT, P_FLAG, -1 },
	{ "undef", CT, P_ANY, -1 }, { "unodefs", CT, P_FLAG, -1 },
	{ "unsetenv", CT, P_ANY, -1 }, { "verbose", CT, P_FLAG, -1 },
	{ "version", CT, P_ANY, -1 }, { "zdefs", CT, P_FLAG, -1 },
	/* run-time: fixed once tracing is active */
	{ "aggsize", RT, P_SIZE, -1 }, { "bufsize", RT, P_SIZE, -1 },
	{ "bufpolicy", RT, P_POLICY, DTCP_OPT_BUFPOLICY },
	{ "bufresize", RT, P_RESIZE, -1 }, { "cleanrate", RT, P_RATE, -1 },
	{ "cpu", RT, P_RUNTIME, -1 },
	{ "destructive", RT, P_RUNTIME, DTCP_OPT_DESTRUCTIVE },
	{ "dynvarsize", RT, P_SIZE, -1 }, { "grabanon", RT, P_RUNTIME, -1 },
	{ "jstackframes", RT, P_RUNTIME, DTCP_OPT_JSTACKFRAMES },
	{ "jstackstrsize", RT, P_SIZE, DTCP_OPT_JSTACKSTRSIZE },
	{ "nspec", RT, P_RUNTIME, -1 }, { "specsize", RT, P_SIZE, -1 },
	{ "stackframes", RT, P_RUNTIME, DTCP_OPT_STACKFRAMES },
	{ "statusrate", RT, P_RATE, -1 },
	{ "strsize", RT, P_STRSIZE, DTCP_OPT_STRSIZE },
	{ "ustackframes", RT, P_RUNTIME, DTCP_OPT_USTACKFRAMES },
	{ "temporal", RT, P_RUNTIME, DTCP_OPT_TEMPORAL },
	/* dynamic run-time: setopt() may change them while tracing */
	{ "agghist", DRT, P_RUNTIME, DTCP_OPT_AGGHIST },
	{ "aggpack", DRT, P_RUNTIME, DTCP_OPT_AGGPACK },
	{ "aggrate", DRT, P_RATE, -1 },
	{ "aggsortkey", DRT, P_RUNTIME, DTCP_OPT_AGGSORTKEY },
	{ "aggsortkeypos", DRT, P_RUNTIME, DTCP_OPT_AGGSORTKEYPOS },
	{ "aggsortpos", DRT, P_RUNTIME, DTCP_OPT_AGGSORTPOS },
	{ "aggsortrev", DRT, P_RUNTIME, DTCP_OPT_AGGSORTREV },
	{ "aggzoom", DRT, P_RUNTIME, DTCP_OPT_AGGZOOM },
	{ "flowindent", DRT, P_RUNTIME, DTCP_OPT_FLOWINDENT },
	{ "quiet", DRT, P_RUNTIME, DTCP_OPT_QUIET },
	{ "rawbytes", DRT, P_RUNTIME, DTCP_OPT_RAWBYTES },
	{ "stackindent", DRT, P_RUNTIME, DTCP_OPT_STACKINDENT },
	{ "switchrate", DRT, P_RATE, -1 },
	/* DTrace v2 (dtrace-utils) only: no meaning for the printing */
	{ "bpflog", CT, P_ANY, -1 }, { "bpflogsize", CT, P_ANY, -1 },
	{ "cppargs", CT, P_ANY, -1 }, { "ctfpath", CT, P_ANY, -1 },
	{ "debugassert", CT, P_ANY, -1 }, { "disasm", CT, P_ANY, -1 },
	{ "dofstashpath", CT, P_ANY, -1 }, { "linknommap", CT, P_ANY, -1 },
	{ "modpath", CT, P_ANY, -1 }, { "procfspath", CT, P_ANY, -1 },
	{ "sysslice", CT, P_ANY, -1 }, { "useruid", CT, P_ANY, -1 },
	{ "lockmem", RT, P_ANY, -1 }, { "maxframes", RT, P_ANY, -1 },
	{ "noresolve", RT, P_ANY, -1 }, { "pcapsize", RT, P_ANY, -1 },
	{ "preallocate", RT, P_ANY, -1 },
	/* dynamic: print()'s bytes (ctf.c applies dtrace-utils' rules) */
	{ "printsize", DRT, P_SIZE, DTCP_OPT_PRINTSIZE },
	{ "quietresize", RT, P_ANY, -1 }, { "scratchsize", RT, P_ANY, -1 },
	/* this library's own (dtconsume -x): not dtrace options */
	{ "maxmsgsize", OWN, P_BYTES, DTCP_OPT_MAXMSGSIZE },
};
#define NOPTIONS (sizeof(options) / sizeof(options[0]))

void
dtcp_options_init(dtcp_options *o)
{
	int i;

	for (i = 0; i < DTCP_OPT_COUNT; i++)
		o->v[i] = DTC_OPT_UNSET;
	memset(o->pinned, 0, sizeof(o->pinned));
	o->encoding[0] = '\0';
}

static const struct option *
find(const char *name)
{
	size_t i;

	/* emitters look options up per record: reject on the first letter */
	for (i = 0; i < NOPTIONS; i++)
		if (options[i].name[0] == name[0] &&
		    strcmp(options[i].name, name) == 0)
			return &options[i];
	return NULL;
}

/*
 * The options that change what this library decodes or prints.  The
 * others are accepted as dtrace accepts them, so that a command line or
 * a capture made for dtrace works, and shape only the tracing: strsize,
 * for one, sized the string records when the program was compiled, and
 * libdtrace prints a string up to its record's size whatever strsize
 * says when it prints (dt_consume.c, dt_printf.c: illumos and
 * dtrace-utils alike).  cpu selects firings (dtc_reader_set_option).
 */
int
dtc_option_effective(const char *name)
{
	static const char *const effective[] = { "quiet", "flowindent",
	    "temporal", "stackindent", "rawbytes", "aggsortkey", "aggsortrev",
	    "aggsortpos", "aggsortkeypos", "aggpack", "agghist", "aggzoom",
	    "droptags", "encoding", "printsize", "cpu", "maxmsgsize" };
	size_t i;

	if (name == NULL || find(name) == NULL)
		return -1;
	for (i = 0; i < sizeof(effective) / sizeof(effective[0]); i++)
		if (strcmp(name, effective[i]) == 0)
			return 1;
	return 0;
}

int
dtcp_options_lookup(const char *name)
{
	const struct option *op = find(name);

	return op != NULL ? op->id : -1;
}

/* dt_opt_runtime: yes/no words, "" unsets, else a non-negative number
 * (so it serves both flags and counts such as stackindent=4) */
static int
parse_runtime(const char *arg, int64_t *v)
{
	static const char *const pos[] = { "yes", "enable", "enabled", "true",
	    "on", "set" };
	static const char *const neg[] = { "no", "disable", "disabled",
	    "false", "off", "unset" };
	unsigned long long u;
	char *end;
	size_t i;

	if (arg == NULL) {
		*v = 0;
		return 0;
	}
	if (arg[0] == '\0') {
		*v = DTC_OPT_UNSET;
		return 0;
	}
	for (i = 0; i < sizeof(pos) / sizeof(pos[0]); i++) {
		if (strcasecmp(pos[i], arg) == 0) {
			*v = 1;
			return 0;
		}
		if (strcasecmp(neg[i], arg) == 0) {
			*v = DTC_OPT_UNSET;
			return 0;
		}
	}
	errno = 0;
	u = strtoull(arg, &end, 0);
	if (*end != '\0' || errno != 0 || (int64_t)u < 0)
		return -1;
	*v = (int64_t)u;
	return 0;
}

static int
parse_size(const char *arg, int64_t *v)
{
	size_t len = strlen(arg);
	uint64_t mul = 1;
	unsigned long long u;
	char *end;

	if (len == 0)
		return -1;
	switch (arg[len - 1]) {
	case 't': case 'T': mul *= 1024; /* FALLTHROUGH */
	case 'g': case 'G': mul *= 1024; /* FALLTHROUGH */
	case 'm': case 'M': mul *= 1024; /* FALLTHROUGH */
	case 'k': case 'K': mul *= 1024; /* FALLTHROUGH */
	default: break;
	}
	errno = 0;
	u = strtoull(arg, &end, 0);
	/* a product past int64 is refused, not wrapped ("16777216t" would
	 * read as 0, which for maxmsgsize means no cap at all) */
	if ((mul > 1 && end != &arg[len - 1]) || (mul == 1 && *end != '\0') ||
	    errno != 0 || u > (uint64_t)INT64_MAX / mul)
		return -1;
	*v = (int64_t)(u * mul);
	return 0;
}

static int
parse_rate(const char *arg, int64_t *v)
{
	static const struct { const char *name; int64_t mul; } sfx[] = {
		{ "ns", 1 }, { "nsec", 1 }, { "us", 1000 }, { "usec", 1000 },
		{ "ms", 1000000 }, { "msec", 1000000 },
		{ "s", 1000000000LL }, { "sec", 1000000000LL },
		{ "m", 60000000000LL }, { "min", 60000000000LL },
		{ "h", 3600000000000LL }, { "hour", 3600000000000LL },
		{ "d", 86400000000000LL }, { "day", 86400000000000LL },
		{ "hz", 0 },
	};
	int64_t mul = 1, val;
	char *end;
	size_t i;

	errno = 0;
	val = (int64_t)strtoull(arg, &end, 0);
	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++)
		if (strcasecmp(sfx[i].name, end) == 0) {
			mul = sfx[i].mul;
			break;
		}
	if ((i == sizeof(sfx) / sizeof(sfx[0]) && *end != '\0') || val < 0)
		return -1;
	if (mul == 0)
		val = val != 0 ? 1000000000LL / val : 0;
	else
		val *= mul;
	*v = val;
	return 0;
}

int
dtcp_options_set_active(dtcp_options *o, const char *name, const char *value,
    int pin, int active, char *why, size_t whylen)
{
	const struct option *op = find(name);
	int64_t v = 0;
	int bad = 0;

	if (op == NULL || (op->kind == OWN && !pin)) {
		snprintf(why, whylen, "Invalid option name");
		return DTC_FAILED;
	}
	if (op->kind == RT && active) {
		snprintf(why, whylen, "Operation illegal when tracing is active");
		return DTC_FAILED;
	}
	switch (op->parse) {
	case P_RUNTIME:
		bad = parse_runtime(value, &v);
		break;
	case P_SIZE:
	case P_STRSIZE:
		if (value != NULL)
			bad = parse_size(value, &v);
		if (!bad && op->parse == P_STRSIZE && v > (int64_t)UINT32_MAX)
			bad = 1;
		break;
	case P_RATE:
		if (value != NULL)
			bad = parse_rate(value, &v);
		break;
	case P_POLICY:
		if (value == NULL)
			bad = 1;
		else if (strcmp(value, "ring") == 0)
			v = 0;
		else if (strcmp(value, "fill") == 0)
			v = 1;
		else if (strcmp(value, "switch") == 0)
			v = 2;
		else if (value[0] >= '0' && value[0] <= '2' && value[1] == '\0')
			v = value[0] - '0';   /* dtrace_getopt's numeric form */
		else
			bad = 1;
		break;
	case P_RESIZE:
		bad = value == NULL ||
		    (strcmp(value, "auto") != 0 && strcmp(value, "manual") != 0);
		break;
	case P_ENCODING:
		if (value == NULL || (strcmp(value, "ascii") != 0 &&
		    strcmp(value, "utf8") != 0))
			bad = 1;
		else if (!o->pinned[DTCP_OPT_ENCODING] || pin)
			snprintf(o->encoding, sizeof(o->encoding), "%s", value);
		v = 1;
		break;
	case P_FLAG:
		bad = value != NULL;
		v = 1;
		break;
	case P_ANY:
		break;
	case P_BYTES:
		/* a size, as dtrace writes sizes ("4m"), 0 included (no cap);
		 * no value means nothing here */
		bad = value == NULL || parse_size(value, &v) != 0;
		break;
	}
	if (bad) {
		snprintf(why, whylen, "Invalid value for specified option");
		return DTC_FAILED;
	}
	if (op->id >= 0 && (pin || !o->pinned[op->id])) {
		o->v[op->id] = v;
		if (pin)
			o->pinned[op->id] = 1;
	}
	return DTC_OK;
}

int
dtcp_options_set(dtcp_options *o, const char *name, const char *value,
    int pin, char *why, size_t whylen)
{
	return dtcp_options_set_active(o, name, value, pin, 0, why, whylen);
}
