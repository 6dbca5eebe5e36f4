/*
 * statMany(paths): the stat of many paths in one call, as a Float64Array of six numbers a path: its kind (1 a
 * regular file, 0 anything else, -1 none: missing or not reachable), size, mtimeMs, ctimeMs, inode and device,
 * each computed as Node's fs.statSync computes it (the times as seconds * 1000 + nanoseconds / 1e6, in doubles, in
 * that order), so that the two can be compared. A warm `comity symbols` stats every argument: through fs.statSync,
 * 611 of them took 13 ms of a fresh process (each builds a Stats object and four Dates), here a millisecond or two.
 * Links are followed, as fs.statSync does. Not on Windows (no st_mtim there): the caller uses fs.statSync.
 *
 * On Linux with glibc, through statx (GLIBC_2.28, what libuv uses too), not stat, whose symbol is GLIBC_2.33: a
 * prebuilt addon must load on the oldest glibc Node 20 supports. Where the kernel or a sandbox refuses statx
 * (ENOSYS, EPERM), it returns null and the caller uses fs.statSync.
 */
#if defined(__linux__)
#define _GNU_SOURCE
#endif
#include <node_api.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "stat_many.h"
#if defined(__linux__) && defined(__GLIBC__)
#include <errno.h>
#include <fcntl.h>
#include <sys/sysmacros.h>
#define USE_STATX 1
#endif

#ifndef _WIN32
#ifdef __APPLE__
#define MTIME(s) ((s).st_mtimespec)
#define CTIME(s) ((s).st_ctimespec)
#else
#define MTIME(s) ((s).st_mtim)
#define CTIME(s) ((s).st_ctim)
#endif

napi_value comity_stat_many(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1) return NULL;
  uint32_t n = 0;
  if (napi_get_array_length(env, argv[0], &n) != napi_ok) {
    napi_throw_type_error(env, NULL, "statMany: an array of paths");
    return NULL;
  }
  void *data = NULL;
  napi_value buffer, result;
  if (napi_create_arraybuffer(env, (size_t)n * 6 * sizeof(double), &data, &buffer) != napi_ok) return NULL;
  double *out = data;
  char small[4096];
  char *path = small;
  size_t room = sizeof small;
  for (uint32_t i = 0; i < n; i++) {
    double *row = out + (size_t)i * 6;
    row[0] = -1;
    row[1] = row[2] = row[3] = row[4] = row[5] = 0;
    napi_value element;
    size_t length = 0;
    if (napi_get_element(env, argv[0], i, &element) != napi_ok || napi_get_value_string_utf8(env, element, NULL, 0, &length) != napi_ok) {
      /* not a string: no stat (napi_get_value_string_utf8 failed and left an exception pending only when asked for one) */
      bool pending = false;
      napi_is_exception_pending(env, &pending);
      if (pending) {
        napi_value ignored;
        napi_get_and_clear_last_exception(env, &ignored);
      }
      continue;
    }
    if (length + 1 > room) {
      char *grown = malloc(length + 1);
      if (grown == NULL) continue;
      if (path != small) free(path);
      path = grown;
      room = length + 1;
    }
    size_t copied = 0;
    napi_get_value_string_utf8(env, element, path, room, &copied);
    /* a NUL inside the string would name another path: none (fs.statSync rejects it too) */
    if (copied != length || memchr(path, 0, copied) != NULL) continue;
#ifdef USE_STATX
    struct statx s;
    if (statx(AT_FDCWD, path, 0, STATX_TYPE | STATX_SIZE | STATX_MTIME | STATX_CTIME | STATX_INO, &s) != 0) {
      if (errno == ENOSYS || errno == EPERM) {
        if (path != small) free(path);
        napi_get_null(env, &result);
        return result;
      }
      continue;
    }
    row[0] = S_ISREG(s.stx_mode) ? 1 : 0;
    row[1] = (double)s.stx_size;
    row[2] = (double)s.stx_mtime.tv_sec * 1000 + (double)s.stx_mtime.tv_nsec / 1000000;
    row[3] = (double)s.stx_ctime.tv_sec * 1000 + (double)s.stx_ctime.tv_nsec / 1000000;
    row[4] = (double)s.stx_ino;
    row[5] = (double)makedev(s.stx_dev_major, s.stx_dev_minor);
#else
    struct stat s;
    if (stat(path, &s) != 0) continue;
    row[0] = S_ISREG(s.st_mode) ? 1 : 0;
    row[1] = (double)s.st_size;
    row[2] = (double)MTIME(s).tv_sec * 1000 + (double)MTIME(s).tv_nsec / 1000000;
    row[3] = (double)CTIME(s).tv_sec * 1000 + (double)CTIME(s).tv_nsec / 1000000;
    row[4] = (double)s.st_ino;
    row[5] = (double)s.st_dev;
#endif
  }
  if (path != small) free(path);
  if (napi_create_typedarray(env, napi_float64_array, (size_t)n * 6, buffer, 0, &result) != napi_ok) return NULL;
  return result;
}
#endif
