// SPDX-License-Identifier: GPL-2.0
/*
 * Preloaded into perf test "Object code reading": each pipe() of the
 * test's workload first calls clock_gettime(), which runs in the vDSO, so
 * that the test gets samples there and reads the vDSO's code.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>
#include <unistd.h>

int pipe(int fd[2])
{
	static int (*real_pipe)(int *);
	struct timespec ts;

	for (int i = 0; i < 2000; i++)
		clock_gettime(CLOCK_MONOTONIC, &ts);
	if (!real_pipe)
		real_pipe = (int (*)(int *))dlsym(RTLD_NEXT, "pipe");
	return real_pipe(fd);
}
