/*
 * comity-hook: `comity hook ARGS` for the hosts that run a command per event (Codex, Cursor, Copilot CLI,
 * CompozyOS, Claude Code's command hooks), without starting Node when the per-user daemon runs.
 *
 * It knows nothing of hooks: it forwards its arguments, folder, environment and stdin to the daemon's socket as
 * the daemon's wire says (src/daemon/daemon-wire.ts, `NativeHookCall`), prints the `stdout` of its answer, and exits
 * 0. Everything else goes to the Node entry (`node bin/comity.cjs hook ARGS`, with the same stdin), which decides:
 * no daemon (it runs the event and starts one), a daemon of another build or a busy one (it runs the event), a
 * daemon that took the event and did not answer (it fails open and ends that daemon), anything this program cannot
 * do (Windows, a socket path too long, a relative config folder). So the answer is the same on every path, and this
 * file holds no rule of Comity's but where the socket is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __APPLE__
#include <mach-o/dyld.h>
#endif

extern char **environ;

/* The Node client's bounds (src/daemon/daemon-client.cts): stdin past 5 MiB fails open there; the daemon has
 * 3.5 s to answer, inside the hosts' 5 s. */
#define STDIN_LIMIT (5 * 1024 * 1024)
#define ANSWER_MS 3500
/* After this long without an answer, whether the daemon's process is stopped (DAEMON_STOPPED_CHECK_MS there). */
#define STOPPED_CHECK_MS 300
#define CONNECT_MS 200
#define SOCKET_PATH_MAX 100

typedef struct {
  char *data;
  size_t len, cap;
} buf;

static int buf_grow(buf *b, size_t more) {
  if (b->len + more <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < b->len + more) cap *= 2;
  char *d = realloc(b->data, cap);
  if (d == NULL) return -1;
  b->data = d;
  b->cap = cap;
  return 0;
}

static int buf_add(buf *b, const char *s, size_t n) {
  /* Nothing to add: memcpy's pointers may then be NULL (an empty buffer), which C does not allow even for 0 bytes. */
  if (n == 0) return 0;
  if (buf_grow(b, n) != 0) return -1;
  memcpy(b->data + b->len, s, n);
  b->len += n;
  return 0;
}

static int buf_str(buf *b, const char *s) { return buf_add(b, s, strlen(s)); }

/* A JSON string of bytes: quotes, backslashes and control characters escaped, other bytes as they are (the daemon
 * decodes the whole line as UTF-8, as Node decodes a hook's stdin and environment). */
static int buf_json(buf *b, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  if (buf_grow(b, n + 2) != 0) return -1;
  if (buf_add(b, "\"", 1) != 0) return -1;
  size_t from = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    if (buf_add(b, s + from, i - from) != 0) return -1;
    char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
    if (c == '"' || c == '\\') {
      esc[1] = (char)c;
      if (buf_add(b, esc, 2) != 0) return -1;
    } else if (buf_add(b, esc, 6) != 0) {
      return -1;
    }
    from = i + 1;
  }
  if (buf_add(b, s + from, n - from) != 0) return -1;
  return buf_add(b, "\"", 1);
}

/* The folder of the installed package: two levels above this program's real path (PACKAGE/bin/comity-hook). */
static int package_root(char *out, size_t size) {
  char exe[PATH_MAX];
#ifdef __APPLE__
  uint32_t n = sizeof exe;
  if (_NSGetExecutablePath(exe, &n) != 0) return -1;
#else
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return -1;
  exe[n] = '\0';
#endif
  char real[PATH_MAX];
  if (realpath(exe, real) == NULL) return -1;
  for (int up = 0; up < 2; up++) {
    char *slash = strrchr(real, '/');
    if (slash == NULL || slash == real) return -1;
    *slash = '\0';
  }
  if (strlen(real) + 1 > size) return -1;
  strcpy(out, real);
  return 0;
}

/* Whether `p` is absolute and already as Node's path.resolve and path.join would leave it: no empty, "." or ".."
 * segment (a trailing slash is allowed; the caller drops it). */
static int plain_absolute(const char *p) {
  if (p == NULL || p[0] != '/') return 0;
  for (const char *seg = p + 1; *seg != '\0';) {
    const char *end = strchr(seg, '/');
    size_t len = end == NULL ? strlen(seg) : (size_t)(end - seg);
    if ((len == 0 && end != NULL && end[1] != '\0') || (len == 1 && seg[0] == '.') || (len == 2 && seg[0] == '.' && seg[1] == '.')) return 0;
    if (end == NULL) break;
    seg = end + 1;
  }
  return 1;
}

/* The daemon's socket, as `daemonSocketFor` finds it (src/daemon/daemon-client.cts), or -1 where only Node can tell
 * (a relative or unnormalised folder, a path too long for a socket). */
static int socket_path(char *out, size_t size) {
  const char *dir = getenv("COMITY_CONFIG_DIR");
  const char *xdg = getenv("XDG_CONFIG_HOME");
  const char *home = getenv("HOME");
  int n;
  if (dir != NULL && dir[0] != '\0') {
    if (!plain_absolute(dir)) return -1; /* path.resolve's work */
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/') len--;
    n = snprintf(out, size, "%.*s/daemon.sock", (int)len, dir);
  } else if (xdg != NULL && xdg[0] != '\0') {
    if (!plain_absolute(xdg)) return -1;
    size_t len = strlen(xdg);
    while (len > 1 && xdg[len - 1] == '/') len--;
    n = snprintf(out, size, "%.*s/comity/daemon.sock", (int)len, xdg);
  } else {
    if (!plain_absolute(home)) return -1;
    size_t len = strlen(home);
    while (len > 1 && home[len - 1] == '/') len--;
    n = snprintf(out, size, "%.*s/.config/comity/daemon.sock", len == 1 ? 0 : (int)len, home);
  }
  if (n < 0 || (size_t)n >= size || n > SOCKET_PATH_MAX) return -1;
  return 0;
}

static long long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The Node entry, with stdin as it came (`pending` bytes already read from it are fed back first, by a child of
 * this process, through a pipe). `why`, where set, tells the entry that the daemon took the event and did not
 * answer: it fails open and ends that daemon, as the Node client would. Never returns but where Node cannot start. */
static void run_node(const char *root, int argc, char **argv, const buf *pending, int all_read, const char *why) {
  char entry[PATH_MAX];
  if (snprintf(entry, sizeof entry, "%s/bin/comity.cjs", root) >= (int)sizeof entry) return;
  if (why != NULL) setenv("COMITY_DAEMON_FAILED", why, 1);
  if (pending != NULL && (pending->len > 0 || all_read)) {
    int fds[2];
    if (pipe(fds) != 0) return;
    pid_t writer = fork();
    if (writer < 0) return;
    if (writer == 0) {
      close(fds[0]);
      size_t off = 0;
      while (off < pending->len) {
        ssize_t w = write(fds[1], pending->data + off, pending->len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) _exit(0);
        off += (size_t)w;
      }
      if (!all_read) {
        char chunk[65536];
        for (;;) {
          ssize_t r = read(0, chunk, sizeof chunk);
          if (r < 0 && errno == EINTR) continue;
          if (r <= 0) break;
          for (ssize_t o = 0; o < r;) {
            ssize_t w = write(fds[1], chunk + o, (size_t)(r - o));
            if (w <= 0) _exit(0);
            o += w;
          }
        }
      }
      _exit(0);
    }
    close(fds[1]);
    if (dup2(fds[0], 0) < 0) return;
    close(fds[0]);
  }
  char **args = calloc((size_t)argc + 4, sizeof *args);
  if (args == NULL) return;
  args[0] = "node";
  args[1] = entry;
  args[2] = "hook";
  for (int i = 1; i < argc; i++) args[i + 2] = argv[i];
  execvp("node", args);
}

/* One line in hook.log beside the socket, as the Node entry writes it, where Node itself cannot be started. */
static void log_fail_open(const char *sock, int argc, char **argv, const char *reason) {
  char file[PATH_MAX];
  const char *slash = strrchr(sock, '/');
  if (slash == NULL) return;
  snprintf(file, sizeof file, "%.*s/hook.log", (int)(slash - sock), sock);
  const char *tool = "?", *event = "?";
  for (int i = 1; i + 1 < argc; i++) {
    if (strcmp(argv[i], "--tool") == 0) tool = argv[i + 1];
    if (strcmp(argv[i], "--event") == 0) event = argv[i + 1];
  }
  struct timeval tv;
  gettimeofday(&tv, NULL);
  struct tm tm;
  gmtime_r(&tv.tv_sec, &tm);
  char stamp[32];
  strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
  int fd = open(file, O_WRONLY | O_CREAT | O_APPEND, 0600);
  if (fd < 0) return;
  dprintf(fd, "%s.%03dZ\tfail-open\t%.100s\t%.100s\t%s\n", stamp, (int)(tv.tv_usec / 1000), tool, event, reason);
  close(fd);
}

/* A process's state letter, parent and controlling terminal from /proc/PID/stat ("pid (comm) state ppid pgrp
 * session tty_nr ...": the command name may hold spaces and parentheses, so the fields are read after its last ")").
 * 0 where read. */
static int proc_stat(long pid, char *state, long *ppid, long *tty) {
  char file[64], stat[1024];
  snprintf(file, sizeof file, "/proc/%ld/stat", pid);
  int fd = open(file, O_RDONLY);
  if (fd < 0) return -1;
  ssize_t n = read(fd, stat, sizeof stat - 1);
  close(fd);
  if (n <= 0) return -1;
  stat[n] = 0;
  const char *p = strrchr(stat, ')');
  long pgrp = 0, session = 0;
  if (p == NULL || sscanf(p + 1, " %c %ld %ld %ld %ld", state, ppid, &pgrp, &session, tty) != 5) return -1;
  return 0;
}

/* Whether the daemon that wrote its pid beside `sock` is stopped (state T or t: SIGSTOP, a debugger), so that no
 * wait would bring its answer. 0 where it is not, or where that cannot be told. */
static int daemon_stopped(const char *sock) {
  char file[PATH_MAX], text[64];
  if (snprintf(file, sizeof file, "%s.pid", sock) >= (int)sizeof file) return 0;
  int fd = open(file, O_RDONLY);
  if (fd < 0) return 0;
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return 0;
  text[n] = 0;
  long pid = strtol(text, NULL, 10), ppid = 0, tty = 0;
  char state = 0;
  if (pid <= 1 || proc_stat(pid, &state, &ppid, &tty) != 0) return 0;
  return state == 'T' || state == 't';
}

/* The terminal of the hook's host (pts/N), found up the process tree as src/hook/host-terminal.cts finds it: hosts
 * start their hooks without one, but run in one. Written to `out`; 0 where found. */
static int host_terminal(char *out, size_t size) {
  long pid = (long)getppid();
  for (int depth = 0; depth < 8 && pid > 1; depth++) {
    long ppid = 0, tty = 0;
    char state = 0;
    if (proc_stat(pid, &state, &ppid, &tty) != 0) return -1;
    if (tty != 0) {
      unsigned major = ((unsigned long)tty >> 8) & 0xfff, minor = ((unsigned long)tty & 0xff) | (((unsigned long)tty >> 12) & 0xfff00);
      if (major >= 136 && major <= 143) snprintf(out, size, "pts/%u", (major - 136) * 256 + minor);
      else snprintf(out, size, "tty %u:%u", major, minor);
      return 0;
    }
    pid = ppid;
  }
  return -1;
}

static volatile sig_atomic_t timed_out = 0;
static void on_alarm(int sig) {
  (void)sig;
  timed_out = 1;
}

/* Reads until `fd` closes, `stop` is seen (-1 for none), `limit` bytes are held or `deadline` passes. Returns 1 at
 * the end of the stream or `stop`, 0 at the limit, -1 on an error or at the deadline. */
static int read_all(int fd, buf *b, size_t limit, int stop, long long deadline) {
  for (;;) {
    if (stop >= 0 && b->len > 0 && memchr(b->data, stop, b->len) != NULL) return 1;
    if (b->len >= limit) return 0;
    if (deadline > 0) {
      long long left = deadline - now_ms();
      if (left <= 0) return -1;
      struct pollfd p = {fd, POLLIN, 0};
      int r = poll(&p, 1, (int)left);
      if (r < 0 && errno == EINTR && !timed_out) continue;
      if (r <= 0) return -1;
    }
    if (buf_grow(b, 65536) != 0) return -1;
    size_t room = b->cap - b->len;
    if (room > limit + 1 - b->len) room = limit + 1 - b->len;
    ssize_t r = read(fd, b->data + b->len, room);
    if (r < 0 && errno == EINTR) {
      if (timed_out) return -1;
      continue;
    }
    if (r < 0) return -1;
    if (r == 0) return 1;
    b->len += (size_t)r;
  }
}

/* Decodes the JSON string at `*at` (just past its opening quote) into `out` as UTF-8; `*at` ends past its closing
 * quote. Returns -1 on anything that is not a well-formed string. */
static int json_string(const char **at, const char *end, buf *out) {
  const char *p = *at;
  while (p < end) {
    const char *run = p;
    while (p < end && *p != '"' && *p != '\\') p++;
    if (out != NULL && buf_add(out, run, (size_t)(p - run)) != 0) return -1;
    if (p >= end) return -1;
    if (*p == '"') {
      *at = p + 1;
      return 0;
    }
    if (++p >= end) return -1;
    char c = *p++;
    unsigned cp;
    switch (c) {
      case '"': cp = '"'; break;
      case '\\': cp = '\\'; break;
      case '/': cp = '/'; break;
      case 'b': cp = '\b'; break;
      case 'f': cp = '\f'; break;
      case 'n': cp = '\n'; break;
      case 'r': cp = '\r'; break;
      case 't': cp = '\t'; break;
      case 'u': {
        if (end - p < 4) return -1;
        char hex[5] = {p[0], p[1], p[2], p[3], 0};
        char *stop;
        cp = (unsigned)strtoul(hex, &stop, 16);
        if (stop != hex + 4) return -1;
        p += 4;
        if (cp >= 0xd800 && cp < 0xdc00 && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
          char lo[5] = {p[2], p[3], p[4], p[5], 0};
          unsigned low = (unsigned)strtoul(lo, &stop, 16);
          if (stop == lo + 4 && low >= 0xdc00 && low < 0xe000) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
            p += 6;
          }
        }
        if (cp >= 0xd800 && cp < 0xe000) cp = 0xfffd; /* a lone surrogate, as Node would write it */
        break;
      }
      default: return -1;
    }
    if (out == NULL) continue;
    char u[4];
    size_t n;
    if (cp < 0x80) {
      u[0] = (char)cp;
      n = 1;
    } else if (cp < 0x800) {
      u[0] = (char)(0xc0 | (cp >> 6));
      u[1] = (char)(0x80 | (cp & 0x3f));
      n = 2;
    } else if (cp < 0x10000) {
      u[0] = (char)(0xe0 | (cp >> 12));
      u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
      u[2] = (char)(0x80 | (cp & 0x3f));
      n = 3;
    } else {
      u[0] = (char)(0xf0 | (cp >> 18));
      u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
      u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
      u[3] = (char)(0x80 | (cp & 0x3f));
      n = 4;
    }
    if (buf_add(out, u, n) != 0) return -1;
  }
  return -1;
}

/* The answer line, a flat object of strings (`{"kind":"hook","stdout":"..."}`): its kind into `kind`, its stdout
 * into `out`. Returns -1 where it is not such an object. */
static int parse_answer(const char *p, const char *end, char *kind, size_t kind_size, buf *out) {
  kind[0] = '\0';
  while (p < end && *p == ' ') p++;
  if (p >= end || *p++ != '{') return -1;
  for (;;) {
    while (p < end && *p == ' ') p++;
    if (p < end && *p == '}') return 0;
    if (p >= end || *p++ != '"') return -1;
    buf key = {0};
    if (json_string(&p, end, &key) != 0 || buf_add(&key, "", 1) != 0) return -1;
    if (p >= end || *p++ != ':' || p >= end || *p++ != '"') return -1;
    if (strcmp(key.data, "stdout") == 0) {
      if (json_string(&p, end, out) != 0) return -1;
    } else if (strcmp(key.data, "kind") == 0) {
      buf k = {0};
      if (json_string(&p, end, &k) != 0 || buf_add(&k, "", 1) != 0) return -1;
      snprintf(kind, kind_size, "%s", k.data);
      free(k.data);
    } else if (json_string(&p, end, NULL) != 0) {
      return -1;
    }
    free(key.data);
    if (p < end && *p == ',') p++;
  }
}

int main(int argc, char **argv) {
  signal(SIGPIPE, SIG_IGN);
  if (argc == 2 && strcmp(argv[1], "--probe") == 0) {
    /* The install script's check that this build runs here. */
    fputs("comity-hook\n", stdout);
    return 0;
  }
  char root[PATH_MAX];
  if (package_root(root, sizeof root) != 0) {
    /* It cannot find its package: the `comity` on PATH. */
    char **args = calloc((size_t)argc + 2, sizeof *args);
    if (args == NULL) return 0;
    args[0] = "comity";
    args[1] = "hook";
    for (int i = 1; i < argc; i++) args[i + 1] = argv[i];
    execvp("comity", args);
    return 0;
  }
  char sock[PATH_MAX] = "";
  const char *off = getenv("COMITY_DAEMON");
  int fd = -1;
  if ((off == NULL || strcmp(off, "off") != 0) && socket_path(sock, sizeof sock) == 0 && !isatty(0)) {
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    memcpy(addr.sun_path, sock, strlen(sock) + 1); /* at most SOCKET_PATH_MAX bytes */
    struct timeval tv = {0, CONNECT_MS * 1000};
    if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
      close(fd);
      fd = -1;
    }
  }
  if (fd < 0) {
    run_node(root, argc, argv, NULL, 0, NULL); /* no daemon: Node runs the event and starts one */
    log_fail_open(sock, argc, argv, "node could not be started");
    return 0;
  }

  /* A host that never closes stdin, or a daemon slower than the hosts allow: fail open inside their 5 s. */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sigaction(SIGALRM, &sa, NULL);
  alarm(4);

  buf in = {0};
  int got = read_all(0, &in, STDIN_LIMIT, -1, 0);
  if (timed_out) {
    log_fail_open(sock, argc, argv, "the hook ran past 4000 ms reading its stdin and was ended");
    free(in.data);
    return 0;
  }
  if (got != 1) {
    /* Past the bound (or unreadable): Node reads the rest and says so in hook.log. */
    close(fd);
    alarm(0);
    run_node(root, argc, argv, &in, got < 0, NULL);
    log_fail_open(sock, argc, argv, "stdin could not be read");
    free(in.data);
    return 0;
  }

  /* The host's terminal, for the label other agents see (the Node entry sets it the same way where it runs). */
  char tty[64];
  if (getenv("COMITY_HOST_TTY") == NULL && host_terminal(tty, sizeof tty) == 0) setenv("COMITY_HOST_TTY", tty, 0);

  buf req = {0};
  char cwd[PATH_MAX];
  int ok = getcwd(cwd, sizeof cwd) != NULL;
  ok = ok && buf_str(&req, "{\"kind\":\"hook\",\"root\":") == 0 && buf_json(&req, root, strlen(root)) == 0 && buf_str(&req, ",\"args\":[") == 0;
  for (int i = 1; ok && i < argc; i++) ok = (i == 1 || buf_str(&req, ",") == 0) && buf_json(&req, argv[i], strlen(argv[i])) == 0;
  ok = ok && buf_str(&req, "],\"cwd\":") == 0 && buf_json(&req, cwd, strlen(cwd)) == 0 && buf_str(&req, ",\"env\":{") == 0;
  int first = 1;
  for (char **e = environ; ok && *e != NULL; e++) {
    const char *eq = strchr(*e, '=');
    if (eq == NULL || eq == *e) continue;
    ok = (first || buf_str(&req, ",") == 0) && buf_json(&req, *e, (size_t)(eq - *e)) == 0 && buf_str(&req, ":") == 0 && buf_json(&req, eq + 1, strlen(eq + 1)) == 0;
    first = 0;
  }
  ok = ok && buf_str(&req, "},\"stdin\":") == 0 && buf_json(&req, in.data == NULL ? "" : in.data, in.len) == 0 && buf_str(&req, "}\n") == 0;
  if (!ok) {
    close(fd);
    alarm(0);
    run_node(root, argc, argv, &in, 1, NULL);
    free(req.data);
    free(in.data);
    return 0;
  }

  long long deadline = now_ms() + ANSWER_MS;
  /* Sending is part of the daemon's time to answer, as for the Node client: a daemon whose thread is busy for a
   * moment (adding a large tree to its watch) may take a large event's bytes late, and is not stuck for that. */
  struct timeval send_tv = {ANSWER_MS / 1000, (ANSWER_MS % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_tv, sizeof send_tv);
  const char *failed = NULL;
  for (size_t off_ = 0; off_ < req.len && failed == NULL;) {
    ssize_t w = write(fd, req.data + off_, req.len - off_);
    if (w < 0 && errno == EINTR && !timed_out) continue;
    if (w <= 0) failed = "it did not take the call";
    else off_ += (size_t)w;
  }
  buf ans = {0};
  if (failed == NULL) {
    long long check = now_ms() + STOPPED_CHECK_MS;
    int r = read_all(fd, &ans, 64 * 1024 * 1024, '\n', check < deadline ? check : deadline);
    if (r < 0 && !timed_out && now_ms() < deadline) {
      if (daemon_stopped(sock)) {
        /* It would never answer: the Node entry ends it and runs the event, with time left to do so. */
        close(fd);
        alarm(0);
        setenv("COMITY_DAEMON_STOPPED", "1", 1);
        run_node(root, argc, argv, &in, 1, NULL);
        log_fail_open(sock, argc, argv, "node could not be started");
        free(ans.data);
        free(req.data);
        free(in.data);
        return 0;
      }
      r = read_all(fd, &ans, 64 * 1024 * 1024, '\n', deadline);
    }
    const char *nl = ans.len > 0 ? memchr(ans.data, '\n', ans.len) : NULL;
    if (r < 0) failed = timed_out || now_ms() >= deadline ? "no answer within 3500 ms" : "the connection failed";
    else if (nl == NULL) failed = "closed without an answer";
    else {
      char kind[32];
      buf out = {0};
      if (parse_answer(ans.data, nl, kind, sizeof kind, &out) != 0) failed = "an answer that is not JSON";
      else if (strcmp(kind, "hook") == 0) {
        alarm(0);
        for (size_t o = 0; o < out.len;) {
          ssize_t w = write(1, out.data + o, out.len - o);
          if (w < 0 && errno == EINTR) continue;
          if (w <= 0) break; /* a reader gone is not an error: the hook exits 0 */
          o += (size_t)w;
        }
        /* Freed, though the process ends here: so that LeakSanitizer, in the sanitizer build, has nothing to say. */
        free(out.data);
        free(ans.data);
        free(req.data);
        free(in.data);
        close(fd);
        return 0;
      }
      /* stale, busy, refused: Node runs the event (and starts the new build's daemon) */
      free(out.data);
    }
  }
  free(ans.data);
  free(req.data);
  close(fd);
  alarm(0);
  run_node(root, argc, argv, &in, 1, failed);
  log_fail_open(sock, argc, argv, "node could not be started");
  free(in.data);
  return 0;
}
