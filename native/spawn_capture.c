/*
 * spawnCapture(file, args, env, timeoutMs?): runs a program (found on env's PATH) with stdin and stderr on /dev/null
 * and returns its stdout, or null where it could not be started, did not exit 0, or ran past `timeoutMs` (then it
 * and every process it started, in the process group it leads, are killed: a hung git must not hold the daemon's
 * only thread).
 *
 * Node's child_process forks: the time a fork takes grows with the memory of the process that forks, and the daemon,
 * which keeps Comity loaded, runs `git status` for a shell command's snapshots in a process several times the size
 * of a hook's. posix_spawn starts the program without copying the parent's page tables (glibc uses a vfork-like
 * clone), in a time that does not depend on that size. No working folder is set (that needs glibc 2.29): callers
 * pass one to the program (`git -C DIR`).
 *
 * POSIX only; elsewhere the function is not exported and callers spawn with Node.
 */
#ifndef _WIN32
#define _GNU_SOURCE
#include "spawn_capture.h"
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <time.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *string_of(napi_env env, napi_value v) {
  size_t len = 0;
  if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok) return NULL;
  char *s = malloc(len + 1);
  if (s == NULL) return NULL;
  if (napi_get_value_string_utf8(env, v, s, len + 1, &len) != napi_ok) {
    free(s);
    return NULL;
  }
  return s;
}

/* A NULL-terminated array of the strings of a JS array (`first` before them where not NULL); NULL on a bad value. */
static char **strings_of(napi_env env, napi_value arr, const char *first) {
  uint32_t n = 0;
  if (napi_get_array_length(env, arr, &n) != napi_ok) return NULL;
  char **out = calloc((size_t)n + 2, sizeof *out);
  if (out == NULL) return NULL;
  uint32_t k = 0;
  if (first != NULL) out[k++] = strdup(first);
  for (uint32_t i = 0; i < n; i++) {
    napi_value v;
    if (napi_get_element(env, arr, i, &v) != napi_ok || (out[k++] = string_of(env, v)) == NULL) {
      for (uint32_t j = 0; j < k; j++) free(out[j]);
      free(out);
      return NULL;
    }
  }
  return out;
}

static void free_strings(char **s) {
  if (s == NULL) return;
  for (char **p = s; *p != NULL; p++) free(*p);
  free(s);
}

/* `file` resolved on the PATH of `envp` (posix_spawnp would search the daemon's own PATH instead). */
static char *resolve(const char *file, char **envp) {
  if (strchr(file, '/') != NULL) return strdup(file);
  const char *path = "/usr/bin:/bin";
  for (char **e = envp; *e != NULL; e++)
    if (strncmp(*e, "PATH=", 5) == 0) path = *e + 5;
  size_t flen = strlen(file);
  for (const char *p = path;;) {
    const char *end = strchr(p, ':');
    size_t dlen = end == NULL ? strlen(p) : (size_t)(end - p);
    char *cand = malloc(dlen + flen + 2);
    if (cand == NULL) return NULL;
    memcpy(cand, dlen == 0 ? "." : p, dlen == 0 ? 1 : dlen);
    size_t off = dlen == 0 ? 1 : dlen;
    cand[off] = '/';
    memcpy(cand + off + 1, file, flen + 1);
    if (access(cand, X_OK) == 0) return cand;
    free(cand);
    if (end == NULL) return NULL;
    p = end + 1;
  }
}

static long long monotonic_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Where no timeout is given: a bound all the same. */
#define DEFAULT_TIMEOUT_MS 60000

static napi_value spawn_capture(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4], out;
  napi_get_null(env, &out);
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc != 3 && argc != 4) return out;
  double timeout_ms = DEFAULT_TIMEOUT_MS;
  if (argc == 4) {
    napi_valuetype type;
    if (napi_typeof(env, argv[3], &type) != napi_ok) return out;
    if (type == napi_number && (napi_get_value_double(env, argv[3], &timeout_ms) != napi_ok || !(timeout_ms >= 1))) return out;
    if (type != napi_number && type != napi_undefined) return out;
    if (timeout_ms > 24.0 * 3600 * 1000) timeout_ms = 24.0 * 3600 * 1000;
  }
  long long deadline = monotonic_ms() + (long long)timeout_ms;
  char *file = string_of(env, argv[0]);
  char **args = file == NULL ? NULL : strings_of(env, argv[1], file);
  char **envp = args == NULL ? NULL : strings_of(env, argv[2], NULL);
  char *exe = envp == NULL ? NULL : resolve(file, envp);
  int fds[2] = {-1, -1};
  posix_spawn_file_actions_t actions;
  int have_actions = 0;
  pid_t pid = -1;
  char *buf = NULL;
  size_t len = 0, cap = 0;
  int ok = 0;
  /* Close-on-exec (pipe2 is not on every POSIX system): only the child's dup of the write end stays open in it. */
  if (exe == NULL || pipe(fds) != 0 || fcntl(fds[0], F_SETFD, FD_CLOEXEC) != 0 || fcntl(fds[1], F_SETFD, FD_CLOEXEC) != 0) goto done;
  if (posix_spawn_file_actions_init(&actions) != 0) goto done;
  have_actions = 1;
  if (posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) != 0 || posix_spawn_file_actions_adddup2(&actions, fds[1], 1) != 0 ||
      posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) != 0)
    goto done;
  /* Its own process group, so that a timeout kills what it started too (a hook git runs, an fsmonitor). */
  posix_spawnattr_t attr;
  if (posix_spawnattr_init(&attr) != 0) goto done;
  int spawned = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP) == 0 && posix_spawnattr_setpgroup(&attr, 0) == 0 && posix_spawn(&pid, exe, &actions, &attr, args, envp) == 0;
  posix_spawnattr_destroy(&attr);
  if (!spawned) {
    pid = -1;
    goto done;
  }
  close(fds[1]);
  fds[1] = -1;
  for (;;) {
    if (len == cap) {
      size_t ncap = cap ? cap * 2 : 65536;
      char *nb = realloc(buf, ncap);
      if (nb == NULL) goto done;
      buf = nb;
      cap = ncap;
    }
    long long left = deadline - monotonic_ms();
    if (left <= 0) goto done; /* past its time: killed below, with its group */
    struct pollfd p = {fds[0], POLLIN, 0};
    int ready = poll(&p, 1, left > 1000000 ? 1000000 : (int)left);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) goto done;
    if (ready == 0) continue;
    ssize_t r = read(fds[0], buf + len, cap - len);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    len += (size_t)r;
  }
  /* Its stdout closed: it has exited or is about to; a process that closed it and runs on is still bounded. */
  for (;;) {
    int status = 0;
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w < 0 && errno == EINTR) continue;
    if (w == pid) {
      pid = -1;
      ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      break;
    }
    if (w < 0 || monotonic_ms() >= deadline) break;
    struct timespec nap = {0, 1000000};
    nanosleep(&nap, NULL);
  }
done:
  if (pid > 0) {
    /* Past its time, or reading failed (no memory): it and its group are not left behind. */
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
  }
  if (fds[0] >= 0) close(fds[0]);
  if (fds[1] >= 0) close(fds[1]);
  if (have_actions) posix_spawn_file_actions_destroy(&actions);
  if (ok) {
    void *data = NULL;
    napi_value ab;
    if (napi_create_buffer_copy(env, len, len == 0 ? "" : buf, &data, &ab) == napi_ok) out = ab;
  }
  free(buf);
  free(exe);
  free_strings(envp);
  free_strings(args);
  free(file);
  return out;
}

void comity_register_spawn(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "spawnCapture", NAPI_AUTO_LENGTH, spawn_capture, NULL, &fn);
  napi_set_named_property(env, exports, "spawnCapture", fn);
}
#endif
