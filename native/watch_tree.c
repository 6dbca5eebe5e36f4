/*
 * Whether anything changed under a folder since the daemon last asked: inotify on every folder of a tree, read
 * synchronously.
 *
 * The daemon answers a warm `comity analyze` from memory only when nothing under the folder (or its repos' git
 * folders) changed since the answer was made. That needs a barrier: every change finished before the question must
 * be seen. The kernel queues an inotify event inside the system call that made the change, so a non-blocking read of
 * the queue at the question's time sees them all; the watcher libraries deliver on a thread of their own after a
 * debounce (@parcel/watcher waits 50 ms of quiet where the last notification is recent) or add the watch of a new
 * folder asynchronously (Node's recursive fs.watch), so none can give that answer at once. Only "changed or not" is
 * kept, per root; what changed is git's to say.
 *
 * A folder created under a watched one is watched (and its subfolders, found by reading it after its own watch is
 * added) while the queue is read: a change in it after that read is seen, one before it was part of a change seen.
 * A full queue (IN_Q_OVERFLOW) reads as every root changed.
 *
 * Linux only; elsewhere the functions are not exported and the daemon runs `analyze` cold.
 */
#ifdef __linux__
#define _GNU_SOURCE
#include "watch_tree.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#define MASK                                                                                                         \
  (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DELETE_SELF | \
   IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW)

typedef struct {
  int fd;
  /* By watch descriptor: the folder's path. */
  char **paths;
  int cap;
  /* The roots asked for, by id, and whether each saw an event under it since the last read. A folder under two
   * roots (one inside the other) has one watch, and its events count for both. */
  char **rootPaths;
  unsigned char *changed;
  int nroots;
  int overflow;
  /* Folders watched now, and at most how many: the user's inotify watches are shared with their editor and build
   * tools, so the daemon takes a part of them only. */
  int count, budget;
  /* The watches a watchAdd call made, undone where it fails. */
  int *added;
  int nadded, capadded;
} Watch;

static int grow(Watch *w, int wd) {
  if (wd < w->cap) return 0;
  int cap = w->cap ? w->cap : 256;
  while (cap <= wd) cap *= 2;
  char **p = realloc(w->paths, sizeof *p * (size_t)cap);
  if (p == NULL) return -1;
  w->paths = p;
  for (int i = w->cap; i < cap; i++) w->paths[i] = NULL;
  w->cap = cap;
  return 0;
}

/* Watches `dir` and every folder under it (symbolic links not followed). Returns 0, or the errno that stopped it
 * (ENOSPC: the user's inotify watches are used up). */
static int add_tree(Watch *w, const char *dir) {
  int wd = inotify_add_watch(w->fd, dir, MASK);
  if (wd < 0) return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? 0 : errno;
  if (grow(w, wd) != 0) return ENOMEM;
  if (w->paths[wd] == NULL) {
    if (w->count >= w->budget) {
      inotify_rm_watch(w->fd, wd);
      return ENOSPC;
    }
    w->count++;
    if (w->nadded == w->capadded) {
      int cap = w->capadded ? w->capadded * 2 : 256;
      int *a = realloc(w->added, sizeof *a * (size_t)cap);
      if (a != NULL) {
        w->added = a;
        w->capadded = cap;
      }
    }
    if (w->nadded < w->capadded) w->added[w->nadded++] = wd;
  }
  if (w->paths[wd] == NULL || strcmp(w->paths[wd], dir) != 0) {
    free(w->paths[wd]);
    w->paths[wd] = strdup(dir);
    if (w->paths[wd] == NULL) return ENOMEM;
  }
  DIR *d = opendir(dir);
  if (d == NULL) return 0;
  struct dirent *e;
  int err = 0;
  size_t len = strlen(dir);
  while (err == 0 && (e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    int isdir = e->d_type == DT_DIR;
    char child[PATH_MAX];
    if (len + 1 + strlen(e->d_name) + 1 > sizeof child) continue;
    memcpy(child, dir, len);
    child[len] = '/';
    strcpy(child + len + 1, e->d_name);
    /* A file system that does not say (DT_UNKNOWN): the watch itself tells, as IN_ONLYDIR refuses anything but a
     * folder (no stat call: lstat needs a glibc newer than the one the prebuild must load on). */
    if (isdir || e->d_type == DT_UNKNOWN) err = add_tree(w, child);
  }
  closedir(d);
  return err;
}

/* Every root `dir` is in (or is) saw a change. */
static void mark(Watch *w, const char *dir) {
  for (int r = 0; r < w->nroots; r++) {
    size_t n = strlen(w->rootPaths[r]);
    if (strncmp(dir, w->rootPaths[r], n) == 0 && (dir[n] == '\0' || dir[n] == '/')) w->changed[r] = 1;
  }
}

/* Reads every queued event; folders created under watched ones are watched. */
static void drain(Watch *w) {
  char buf[65536] __attribute__((aligned(__alignof__(struct inotify_event))));
  for (;;) {
    ssize_t n = read(w->fd, buf, sizeof buf);
    if (n <= 0) return; /* EAGAIN: the queue is empty */
    for (char *p = buf; p < buf + n;) {
      struct inotify_event *ev = (struct inotify_event *)p;
      p += sizeof *ev + ev->len;
      if (ev->mask & IN_Q_OVERFLOW) {
        w->overflow = 1;
        continue;
      }
      if (ev->wd < 0 || ev->wd >= w->cap || w->paths[ev->wd] == NULL) continue;
      if (ev->mask & IN_IGNORED) {
        /* The folder is gone (or moved out of reach): its watch with it. That it changed was an event of its own. */
        free(w->paths[ev->wd]);
        w->paths[ev->wd] = NULL;
        w->count--;
        continue;
      }
      mark(w, w->paths[ev->wd]);
      if ((ev->mask & IN_ISDIR) && (ev->mask & (IN_CREATE | IN_MOVED_TO)) && ev->len > 0) {
        char child[PATH_MAX];
        w->nadded = 0;
        if ((size_t)snprintf(child, sizeof child, "%s/%s", w->paths[ev->wd], ev->name) >= sizeof child || add_tree(w, child) != 0) w->overflow = 1;
        else mark(w, child); /* a folder moved in from another root's tree counts for the roots it is now under */
      }
    }
  }
}

static void finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  Watch *w = data;
  if (w->fd >= 0) close(w->fd);
  for (int i = 0; i < w->cap; i++) free(w->paths[i]);
  free(w->paths);
  for (int r = 0; r < w->nroots; r++) free(w->rootPaths[r]);
  free(w->rootPaths);
  free(w->changed);
  free(w->added);
  free(w);
}

/* The tag of a watch handle (random, this file's own): an external without it (a grammar's language, another
 * addon's handle) is never taken for a watch. */
static const napi_type_tag WATCH_TYPE_TAG = {0x6f2d9a41c3b85e07ULL, 0xb41e7c2a95d3f068ULL};

static Watch *watch_of(napi_env env, napi_value v) {
  napi_valuetype type;
  if (napi_typeof(env, v, &type) != napi_ok || type != napi_external) return NULL;
  bool tagged = false;
  if (napi_check_object_type_tag(env, v, &WATCH_TYPE_TAG, &tagged) != napi_ok || !tagged) return NULL;
  void *data = NULL;
  if (napi_get_value_external(env, v, &data) != napi_ok) return NULL;
  return data;
}

/* The handle a call's one argument is, or NULL. */
static Watch *handle_arg(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  return argc == 1 ? watch_of(env, argv[0]) : NULL;
}

/* watchOpen(maxFolders): a handle, or null where inotify cannot be had. */
static napi_value watch_open(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], out;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int32_t budget = 0;
  if (argc < 1 || napi_get_value_int32(env, argv[0], &budget) != napi_ok || budget <= 0) return (napi_get_null(env, &out), out);
  Watch *w = calloc(1, sizeof *w);
  if (w == NULL) return (napi_get_null(env, &out), out);
  w->budget = budget;
  w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (w->fd < 0) {
    free(w);
    return (napi_get_null(env, &out), out);
  }
  if (napi_create_external(env, w, finalize, NULL, &out) != napi_ok) {
    close(w->fd);
    free(w);
    napi_get_null(env, &out);
    return out;
  }
  /* Untagged, it would not be taken back by watch_of: the external (and its finalizer, which frees w) is dropped. */
  if (napi_type_tag_object(env, out, &WATCH_TYPE_TAG) != napi_ok) napi_get_null(env, &out);
  return out;
}

/* watchAdd(handle, folder): the new root's id (0, 1, ...), or a string saying why the tree cannot be watched. */
static napi_value watch_add(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], out;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  Watch *w = argc == 2 ? watch_of(env, argv[0]) : NULL;
  char dir[PATH_MAX];
  size_t len = 0;
  if (w == NULL || napi_get_value_string_utf8(env, argv[1], dir, sizeof dir, &len) != napi_ok || len == 0 || len >= sizeof dir - 1) {
    napi_create_string_utf8(env, "bad arguments", NAPI_AUTO_LENGTH, &out);
    return out;
  }
  while (len > 1 && dir[len - 1] == '/') dir[--len] = '\0';
  unsigned char *changed = realloc(w->changed, (size_t)w->nroots + 1);
  if (changed != NULL) w->changed = changed;
  char **roots = changed == NULL ? NULL : realloc(w->rootPaths, sizeof *roots * ((size_t)w->nroots + 1));
  if (roots != NULL) w->rootPaths = roots;
  char *copy = roots == NULL ? NULL : strdup(dir);
  if (copy == NULL) {
    napi_create_string_utf8(env, strerror(ENOMEM), NAPI_AUTO_LENGTH, &out);
    return out;
  }
  /* Events already queued belong to before this root: read them first, so that they do not count for it. */
  drain(w);
  int root = w->nroots++;
  w->rootPaths[root] = copy;
  w->changed[root] = 0;
  w->nadded = 0;
  int err = add_tree(w, dir);
  if (err != 0) {
    /* Nothing of it stays: its watches go back to the user. */
    for (int i = 0; i < w->nadded; i++) {
      int wd = w->added[i];
      inotify_rm_watch(w->fd, wd);
      free(w->paths[wd]);
      w->paths[wd] = NULL;
      w->count--;
    }
    free(w->rootPaths[--w->nroots]);
    napi_create_string_utf8(env, err == ENOSPC ? "more folders than the daemon may watch" : strerror(err), NAPI_AUTO_LENGTH, &out);
    return out;
  }
  napi_create_int32(env, root, &out);
  return out;
}

/* watchChanged(handle): the ids of the roots that saw a change since the last call, ascending; null after an
 * overflow (every root must be taken as changed, and the handle dropped). */
static napi_value watch_changed(napi_env env, napi_callback_info info) {
  napi_value out;
  Watch *w = handle_arg(env, info);
  if (w == NULL) return (napi_get_null(env, &out), out);
  drain(w);
  if (w->overflow) return (napi_get_null(env, &out), out);
  napi_create_array(env, &out);
  uint32_t k = 0;
  for (int r = 0; r < w->nroots; r++) {
    if (!w->changed[r]) continue;
    w->changed[r] = 0;
    napi_value id;
    napi_create_int32(env, r, &id);
    napi_set_element(env, out, k++, id);
  }
  return out;
}

/* watchClose(handle): its watches go back to the user now, not when the handle is collected. */
static napi_value watch_close(napi_env env, napi_callback_info info) {
  napi_value out;
  Watch *w = handle_arg(env, info);
  if (w != NULL && w->fd >= 0) {
    close(w->fd);
    w->fd = -1;
    w->overflow = 1;
  }
  napi_get_undefined(env, &out);
  return out;
}

void comity_register_watch(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "watchClose", NAPI_AUTO_LENGTH, watch_close, NULL, &fn);
  napi_set_named_property(env, exports, "watchClose", fn);
  napi_create_function(env, "watchOpen", NAPI_AUTO_LENGTH, watch_open, NULL, &fn);
  napi_set_named_property(env, exports, "watchOpen", fn);
  napi_create_function(env, "watchAdd", NAPI_AUTO_LENGTH, watch_add, NULL, &fn);
  napi_set_named_property(env, exports, "watchAdd", fn);
  napi_create_function(env, "watchChanged", NAPI_AUTO_LENGTH, watch_changed, NULL, &fn);
  napi_set_named_property(env, exports, "watchChanged", fn);
}
#endif
