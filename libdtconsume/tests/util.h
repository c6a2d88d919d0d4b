/*
 * util.h - small helpers shared by the Check programs in tests/.
 * Header-only (every helper is static) so that each test program stays
 * one source file; include it after <check.h>.
 */
#ifndef DTC_TEST_UTIL_H
#define DTC_TEST_UTIL_H

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dtconsume.h"

/* Every field of a dtc_error that a test pins down, with a useful report. */
#define ck_assert_dtc_error(err, code_, item_, offset_) do {		\
	const dtc_error *e_ = (err);					\
	ck_assert_msg(e_->code == (code_) && e_->item == (item_) &&	\
	    e_->offset == (offset_),					\
	    "error (code %d, item %lld, offset %lld, \"%s\") is not "	\
	    "(code %d, item %lld, offset %lld)", e_->code, e_->item,	\
	    e_->offset, e_->text, (int)(code_), (long long)(item_),	\
	    (long long)(offset_));					\
} while (0)

/*
 * Hex to bytes: whitespace is ignored, so expected encodings can be laid
 * out one CBOR head per line.  Returns the byte count; aborts the test on
 * a malformed string or when out is too small.
 */
static inline size_t
util_unhex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;
	int hi = -1, v;

	for (; *hex != '\0'; hex++) {
		if (isspace((unsigned char)*hex))
			continue;
		if (*hex >= '0' && *hex <= '9')
			v = *hex - '0';
		else if (*hex >= 'a' && *hex <= 'f')
			v = *hex - 'a' + 10;
		else if (*hex >= 'A' && *hex <= 'F')
			v = *hex - 'A' + 10;
		else
			ck_abort_msg("bad hex digit '%c'", *hex);
		if (hi < 0) {
			hi = v;
			continue;
		}
		ck_assert_msg(n < cap, "hex string longer than %zu bytes", cap);
		out[n++] = (uint8_t)(hi << 4 | v);
		hi = -1;
	}
	ck_assert_msg(hi < 0, "odd number of hex digits");
	return n;
}

/*
 * A child process that writes buf into a pipe, chunk bytes per write()
 * (pausing delay_us between writes), then exits: the read end behaves
 * like a live capture on stdin.
 */
typedef struct util_feeder {
	int fd;      /* read end, for the code under test */
	pid_t pid;
} util_feeder;

static inline util_feeder
util_feed(const void *buf, size_t len, size_t chunk, unsigned delay_us)
{
	util_feeder f;
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	f.pid = fork();
	ck_assert_int_ge(f.pid, 0);
	if (f.pid == 0) {
		const uint8_t *b = buf;
		size_t off = 0, n;
		ssize_t k;

		close(p[0]);
		signal(SIGPIPE, SIG_DFL);
		while (off < len) {
			n = len - off < chunk ? len - off : chunk;
			k = write(p[1], b + off, n);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				_exit(1);
			off += (size_t)k;
			if (delay_us > 0)
				usleep(delay_us);
		}
		_exit(0);
	}
	close(p[1]);
	f.fd = p[0];
	return f;
}

/* Close the read end and reap the child (it may die of SIGPIPE). */
static inline void
util_feed_done(util_feeder *f)
{
	int st;

	close(f->fd);
	while (waitpid(f->pid, &st, 0) < 0 && errno == EINTR)
		;
}

/* Write buf to a new temporary file; path must hold 64 bytes. */
static inline void
util_tmpfile(const void *buf, size_t len, char *path)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(path, 64, "%.40s/dtctestXXXXXX", dir != NULL ? dir : "/tmp");
	fd = mkstemp(path);
	ck_assert_msg(fd >= 0, "mkstemp %s: %s", path, strerror(errno));
	ck_assert_msg(len == 0 || write(fd, buf, len) == (ssize_t)len,
	    "writing %s", path);
	close(fd);
}

/* Run one suite the standard way; the exit status for main(). */
static inline int
util_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif /* DTC_TEST_UTIL_H */
