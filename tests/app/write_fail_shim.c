/* LD_PRELOAD shim for tests: write calls on a file whose path ends in $SHIM_SUFFIX fail with
 * ENOSPC after $SHIM_AFTER of them succeeded, as on a disk that fills up mid-run. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fails_now(int fd) {
    static long calls = 0;
    char link[64], path[4096];
    const char* suffix = getenv("SHIM_SUFFIX");
    const char* after = getenv("SHIM_AFTER");
    if (fd <= 2 || !suffix) return 0;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0) return 0;
    path[n] = 0;
    const size_t ls = strlen(suffix);
    if ((size_t)n < ls || strcmp(path + n - ls, suffix) != 0) return 0;
    return ++calls > (after ? atol(after) : 20);
}

#define SHIM(name, ...)                                                                            \
    static ssize_t (*real)(int, __VA_ARGS__);                                                      \
    if (!real) real = (ssize_t(*)(int, __VA_ARGS__))dlsym(RTLD_NEXT, name);                        \
    if (fails_now(fd)) {                                                                           \
        errno = ENOSPC;                                                                            \
        return -1;                                                                                 \
    }

ssize_t write(int fd, const void* b, size_t n) {
    SHIM("write", const void*, size_t)
    return real(fd, b, n);
}
ssize_t pwrite(int fd, const void* b, size_t n, off_t o) {
    SHIM("pwrite", const void*, size_t, off_t)
    return real(fd, b, n, o);
}
ssize_t pwrite64(int fd, const void* b, size_t n, off_t o) {
    SHIM("pwrite64", const void*, size_t, off_t)
    return real(fd, b, n, o);
}
