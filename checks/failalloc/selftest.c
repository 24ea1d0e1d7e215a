// SPDX-License-Identifier: GPL-2.0
/* Checks failalloc.so: run with LD_PRELOAD=failalloc.so. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*arm_fn)(unsigned long);
typedef int (*disarm_fn)(void);
typedef unsigned long (*calls_fn)(void);

int main(void)
{
	arm_fn arm = (arm_fn)dlsym(RTLD_DEFAULT, "failalloc_arm");
	disarm_fn disarm = (disarm_fn)dlsym(RTLD_DEFAULT, "failalloc_disarm");
	calls_fn calls = (calls_fn)dlsym(RTLD_DEFAULT, "failalloc_calls");
	void *volatile p[6];
	char *s = NULL;
	int fails = 0, err;

	if (!arm || !disarm || !calls) {
		fprintf(stderr, "failalloc-selftest: failalloc.so is not preloaded\n");
		return 2;
	}
	/* Six counted calls, the fourth (strdup) fails. */
	arm(4);
	p[0] = malloc(10);
	p[1] = calloc(2, 10);
	p[2] = realloc(NULL, 10);
	p[3] = strdup("x");
	err = errno;
	p[4] = strndup("xyz", 2);
	fails += asprintf(&s, "%d", 42) != 2;
	if (!disarm() || calls() != 6 || p[3] || err != ENOMEM)
		fails++;
	if (!p[0] || !p[1] || !p[2] || !p[4])
		fails++;
	for (int i = 0; i < 5; i++)
		free(p[i]);
	free(s);
	/* Disarmed: nothing counted, nothing fails. */
	p[5] = malloc(10);
	if (!p[5] || calls() != 6 || disarm())
		fails++;
	free(p[5]);
	/* N past the last call: no failure injected. */
	arm(100);
	p[5] = malloc(1);
	if (disarm() || calls() != 1 || !p[5])
		fails++;
	free(p[5]);
	printf("failalloc-selftest: %s\n", fails ? "FAIL" : "ok");
	return !!fails;
}
