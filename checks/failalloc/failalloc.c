// SPDX-License-Identifier: GPL-2.0
/*
 * failalloc: an LD_PRELOAD shim that makes exactly one allocation fail.
 *
 *   failalloc_arm(n)     start counting allocation calls; the n-th one
 *                        (n >= 1) returns NULL with errno ENOMEM.
 *   failalloc_disarm()   stop counting; returns 1 if a failure was injected
 *                        since the last failalloc_arm(), 0 otherwise.
 *   failalloc_calls()    the number of allocation calls counted since the
 *                        last failalloc_arm() (the proof that the calls of
 *                        the program under test reach this shim).
 *
 * Counted: malloc, calloc, realloc, reallocarray, strdup, strndup,
 * posix_memalign, aligned_alloc, memalign, valloc, asprintf, vasprintf.
 * An allocation made inside another one (glibc's strdup calls malloc) is not
 * counted again. Only the thread that armed the shim counts: perf test runs
 * a test case in a process of its own, but a library thread must not eat
 * the failure.
 *
 * With FAILALLOC_STACK set in the environment, the shim prints to stderr
 * which call it fails and the stack (ASan's symbolized one where there is
 * one).
 *
 * FAILALLOC_IGNORE_MALLOC=size: malloc() calls of that size are neither
 * counted nor failed. perf built with AddressSanitizer has REFCNT_CHECKING,
 * where every map__get()/dso__get() mallocs an 8-byte indirection and
 * returns NULL, unchecked by its callers, if that fails: a debugging aid
 * that non-ASan builds don't have. FAILALLOC_IGNORE_MALLOC=8 keeps them
 * out of the sweep.
 *
 * FAILALLOC_SKIP=k makes failalloc_arm(n) fail call n + k instead: to
 * resume a sweep over n after a crash.
 *
 * Under AddressSanitizer the shim comes first (LD_PRELOAD) and chains to
 * ASan's interceptors with dlsym(RTLD_NEXT); run with
 * ASAN_OPTIONS=verify_asan_link_order=0.
 *
 * Build: tests/failalloc/build.sh (gcc -shared -fPIC ... -ldl).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
/* No __tls_get_addr(): it may run before the dynamic linker is ready for it. */
#define TLS_IE __attribute__((tls_model("initial-exec")))

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void *(*real_reallocarray)(void *, size_t, size_t);
static void (*real_free)(void *);
static char *(*real_strdup)(const char *);
static char *(*real_strndup)(const char *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static int (*real_vasprintf)(char **, const char *, va_list);

/*
 * dlsym() may allocate (its error buffer) before real_calloc is known: such
 * allocations come from this static pool and are never freed.
 */
static _Alignas(max_align_t) char boot_pool[16384];
static size_t boot_used;
static __thread TLS_IE int resolving;

static unsigned long armed_nth;		/* 0: not armed */
static size_t ignore_size;		/* FAILALLOC_IGNORE_MALLOC */
static unsigned long calls;
static int injected;
static __thread TLS_IE int armed_thread;	/* this thread armed the shim */
static __thread TLS_IE int depth;		/* inside one of the wrappers */

static void *boot_alloc(size_t size)
{
	size_t off = (boot_used + 15) & ~(size_t)15;

	if (off + size > sizeof(boot_pool))
		return NULL;
	boot_used = off + size;
	return memset(boot_pool + off, 0, size);
}

static int is_boot(const void *p)
{
	return (const char *)p >= boot_pool && (const char *)p < boot_pool + sizeof(boot_pool);
}

static void resolve(void)
{
	if (real_free || resolving)
		return;
	resolving = 1;
	real_malloc = dlsym(RTLD_NEXT, "malloc");
	real_calloc = dlsym(RTLD_NEXT, "calloc");
	real_realloc = dlsym(RTLD_NEXT, "realloc");
	real_reallocarray = dlsym(RTLD_NEXT, "reallocarray");
	real_strdup = dlsym(RTLD_NEXT, "strdup");
	real_strndup = dlsym(RTLD_NEXT, "strndup");
	real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
	real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
	real_memalign = dlsym(RTLD_NEXT, "memalign");
	real_valloc = dlsym(RTLD_NEXT, "valloc");
	real_vasprintf = dlsym(RTLD_NEXT, "vasprintf");
	real_free = dlsym(RTLD_NEXT, "free");
	resolving = 0;
}

static void print_stack(const char *func)
{
	void (*sanitizer_stack)(void) = dlsym(RTLD_DEFAULT, "__sanitizer_print_stack_trace");
	char buf[96];
	int len;

	len = snprintf(buf, sizeof(buf), "failalloc: %s() call %lu fails\n", func, armed_nth);
	if (write(STDERR_FILENO, buf, len) < 0)
		return;
	if (sanitizer_stack) {
		sanitizer_stack();
	} else {
		void *stack[64];

		backtrace_symbols_fd(stack, backtrace(stack, 64), STDERR_FILENO);
	}
}

/* Count one allocation call; true if this one must fail. */
static int fail_this(const char *func)
{
	if (depth || !armed_thread || !__atomic_load_n(&armed_nth, __ATOMIC_RELAXED))
		return 0;
	if (__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) != armed_nth)
		return 0;
	injected = 1;
	if (getenv("FAILALLOC_STACK")) {
		/* What this allocates is not counted. */
		depth++;
		print_stack(func);
		depth--;
	}
	errno = ENOMEM;
	return 1;
}

EXPORT int failalloc_arm(unsigned long nth)
{
	const char *skip = getenv("FAILALLOC_SKIP");
	const char *ignore = getenv("FAILALLOC_IGNORE_MALLOC");

	resolve();
	if (nth && skip)
		nth += strtoul(skip, NULL, 0);
	ignore_size = ignore ? strtoul(ignore, NULL, 0) : 0;
	calls = 0;
	injected = 0;
	armed_thread = 1;
	__atomic_store_n(&armed_nth, nth, __ATOMIC_RELAXED);
	return 0;
}

EXPORT int failalloc_disarm(void)
{
	int ret;

	__atomic_store_n(&armed_nth, 0, __ATOMIC_RELAXED);
	armed_thread = 0;
	ret = injected;
	injected = 0;
	return ret;
}

EXPORT unsigned long failalloc_calls(void)
{
	return calls;
}

EXPORT void *malloc(size_t size)
{
	void *p;

	resolve();
	if (!real_malloc)
		return boot_alloc(size);
	if ((!ignore_size || size != ignore_size) && fail_this(__func__))
		return NULL;
	depth++;
	p = real_malloc(size);
	depth--;
	return p;
}

EXPORT void *calloc(size_t nmemb, size_t size)
{
	void *p;

	resolve();
	if (!real_calloc)
		return size && nmemb > SIZE_MAX / size ? NULL : boot_alloc(nmemb * size);
	if (fail_this(__func__))
		return NULL;
	depth++;
	p = real_calloc(nmemb, size);
	depth--;
	return p;
}

EXPORT void free(void *ptr)
{
	if (!ptr || is_boot(ptr))
		return;
	resolve();
	real_free(ptr);
}

EXPORT void *realloc(void *ptr, size_t size)
{
	void *p;

	resolve();
	if (is_boot(ptr)) {
		/* Rare enough: move it out of the pool, the old bytes stay. */
		p = malloc(size);
		if (p)
			memcpy(p, ptr, size < sizeof(boot_pool) - ((char *)ptr - boot_pool) ?
				       size : sizeof(boot_pool) - ((char *)ptr - boot_pool));
		return p;
	}
	if (fail_this(__func__))
		return NULL;
	depth++;
	p = real_realloc(ptr, size);
	depth--;
	return p;
}

/*
 * The wrappers below all do the same: fail when fail_this() says so,
 * returning FAILED, or call the real function, counted as one call with
 * whatever it allocates inside.
 */
#define WRAP(type, name, failed, params, args)	\
EXPORT type name params				\
{						\
	type ret;				\
						\
	resolve();				\
	if (fail_this(#name))			\
		return failed;			\
	depth++;				\
	ret = real_##name args;			\
	depth--;				\
	return ret;				\
}

WRAP(void *, reallocarray, NULL, (void *ptr, size_t nmemb, size_t size), (ptr, nmemb, size))
WRAP(char *, strdup, NULL, (const char *s), (s))
WRAP(char *, strndup, NULL, (const char *s, size_t n), (s, n))
WRAP(int, posix_memalign, ENOMEM, (void **memptr, size_t alignment, size_t size),
     (memptr, alignment, size))
WRAP(void *, aligned_alloc, NULL, (size_t alignment, size_t size), (alignment, size))
WRAP(void *, memalign, NULL, (size_t alignment, size_t size), (alignment, size))
WRAP(void *, valloc, NULL, (size_t size), (size))
WRAP(int, vasprintf, -1, (char **strp, const char *fmt, va_list ap), (strp, fmt, ap))

EXPORT int asprintf(char **strp, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(strp, fmt, ap);
	va_end(ap);
	return ret;
}
