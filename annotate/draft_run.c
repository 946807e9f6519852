/*
** draft_run.c: running the model command for `rescue draft`: /bin/sh -c with the prompt
** on standard input, extra environment, a deadline after which the command's process group
** is killed, and its output collected through pipes.
*/
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rescue_alloc.h"

#include "draft_int.h"

extern char **environ;

#define OUT_LIMIT (16u << 20) /* bytes of a command's standard output kept */

/* Seconds on the monotonic clock. */
double draft_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "k=v" in a new string (the caller frees it), or NULL when out of memory. */
char *draft_env_entry(const char *k, const char *v) {
  size_t n = strlen(k) + strlen(v) + 2;
  char *e = rescue_malloc(n);
  if (e)
    snprintf(e, n, "%s=%s", k, v);
  return e;
}

/*
** The environment of the command: this process's, with the "k=v" entries of extra added
** (replacing a variable of the same name). NULL when out of memory; free the array only.
*/
static char **child_env(char *const *extra, int n_extra) {
  size_t n_env = 0, i, k = 0;
  char **envp;
  while (environ[n_env])
    n_env++;
  if (!(envp = rescue_calloc(n_env + (size_t)n_extra + 1, sizeof *envp)))
    return NULL;
  for (i = 0; i < n_env; i++) {
    int j, shadowed = 0;
    for (j = 0; j < n_extra; j++) {
      size_t kl = (size_t)(strchr(extra[j], '=') - extra[j]);
      shadowed |= strncmp(environ[i], extra[j], kl + 1) == 0;
    }
    if (!shadowed)
      envp[k++] = environ[i];
  }
  for (i = 0; i < (size_t)n_extra; i++)
    envp[k++] = extra[i];
  return envp;
}

/*
** Feed `in` to the command's standard input (fds[0], non-blocking) and collect its
** standard output (fds[1]) and error (fds[2]) into x until all three are closed or the
** deadline passes; a descriptor is closed and set to -1 when done with.
*/
static void pump(int fds[3], const char *in, size_t inlen, double deadline, d_exec *x) {
  size_t written = 0, i;
  while (fds[1] >= 0 || fds[2] >= 0 || fds[0] >= 0) {
    struct pollfd pf[3];
    int np = 0, ms;
    double left = deadline - draft_now();
    if (left <= 0)
      break;
    ms = left > 1.0 ? 1000 : (int)(left * 1000) + 1;
    if (fds[0] >= 0)
      pf[np++] = (struct pollfd){fds[0], POLLOUT, 0};
    if (fds[1] >= 0)
      pf[np++] = (struct pollfd){fds[1], POLLIN, 0};
    if (fds[2] >= 0)
      pf[np++] = (struct pollfd){fds[2], POLLIN, 0};
    if (poll(pf, (nfds_t)np, ms) < 0 && errno != EINTR)
      break;
    for (i = 0; i < (size_t)np; i++) {
      if (!pf[i].revents)
        continue;
      if (pf[i].fd == fds[0]) {
        ssize_t w = write(fds[0], in + written, inlen - written);
        if (w > 0)
          written += (size_t)w;
        if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == inlen) {
          close(fds[0]); /* done, or the command stopped reading (EPIPE) */
          fds[0] = -1;
        }
      } else {
        char chunk[65536];
        int *fd = pf[i].fd == fds[1] ? &fds[1] : &fds[2];
        rescue_buf *b = fd == &fds[1] ? &x->out : &x->err;
        ssize_t r = read(*fd, chunk, sizeof chunk);
        if (r > 0) {
          if (b == &x->out && b->len + (size_t)r > OUT_LIMIT)
            r = (ssize_t)(OUT_LIMIT - b->len);
          if (b == &x->err && b->len > 64 * ERR_TAIL) { /* keep the tail only */
            memmove(b->s, b->s + b->len - ERR_TAIL, ERR_TAIL);
            b->len = ERR_TAIL;
          }
          rescue_buf_putn(b, chunk, (size_t)r);
        } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
          close(*fd);
          *fd = -1;
        }
      }
    }
  }
}

/*
** Wait for the command to exit within the deadline, else kill its process group; set
** x->status (exit code, 128+signal, -1 timed out). Anything the command left running in
** its group is killed too.
*/
static void reap(pid_t pid, double deadline, d_exec *x) {
  int status = 0, reaped = 0;
  /* the output is closed (or time is up): wait for the exit within the deadline */
  while (!reaped) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      reaped = 1;
      break;
    }
    if (w < 0 && errno != EINTR)
      break;
    if (draft_now() >= deadline)
      break;
    usleep(2000);
  }
  if (!reaped) {
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    x->status = -1;
  } else if (WIFEXITED(status)) {
    x->status = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    x->status = 128 + WTERMSIG(status);
  }
  if (reaped)
    kill(-pid, SIGKILL); /* anything the command left running in its group */
}

/*
** Run `cmd` with /bin/sh -c, `in` on its standard input and `env` added to the
** environment; collect its output until it exits or `timeout` seconds pass (then its
** whole process group is killed). The child only calls async-signal-safe functions
** between fork and exec, as a threaded parent requires.
*/
void draft_run_command(const char *cmd, char *const *extra, int n_extra, const char *in,
                       size_t inlen, double timeout, d_exec *x) {
  int pin[2] = {-1, -1}, pout[2] = {-1, -1}, perr[2] = {-1, -1}, fds[3];
  char **envp = NULL;
  size_t i;
  pid_t pid;
  double deadline = draft_now() + timeout;
  x->status = -2;
  if (!(envp = child_env(extra, n_extra)))
    goto end;
  if (pipe2(pin, O_CLOEXEC) || pipe2(pout, O_CLOEXEC) || pipe2(perr, O_CLOEXEC)) {
    rescue_buf_printf(&x->err, "cannot make a pipe: %s", strerror(errno));
    goto end;
  }
  pid = fork();
  if (pid < 0) {
    rescue_buf_printf(&x->err, "cannot start the command: %s", strerror(errno));
    goto end;
  }
  if (pid == 0) {
    char *argv[] = {"sh", "-c", (char *)cmd, NULL};
    setpgid(0, 0);
    dup2(pin[0], 0);
    dup2(pout[1], 1);
    dup2(perr[1], 2);
    execve("/bin/sh", argv, envp);
    _exit(127);
  }
  setpgid(pid, pid);
  close(pin[0]);
  close(pout[1]);
  close(perr[1]);
  pin[0] = pout[1] = perr[1] = -1;
  fcntl(pin[1], F_SETFL, O_NONBLOCK);
  if (inlen == 0) {
    close(pin[1]);
    pin[1] = -1;
  }
  fds[0] = pin[1];
  fds[1] = pout[0];
  fds[2] = perr[0];
  pump(fds, in, inlen, deadline, x);
  pin[1] = fds[0];
  pout[0] = fds[1];
  perr[0] = fds[2];
  reap(pid, deadline, x);
end:
  for (i = 0; i < 2; i++) {
    if (pin[i] >= 0)
      close(pin[i]);
    if (pout[i] >= 0)
      close(pout[i]);
    if (perr[i] >= 0)
      close(perr[i]);
  }
  rescue_free(envp);
}

/* The last line(s) of a command's standard error, for a message. */
void draft_err_tail(const rescue_buf *b, char *out, size_t cap) {
  size_t start = b->len > ERR_TAIL ? b->len - ERR_TAIL : 0, end = b->len, i, k = 0;
  while (end > start && (b->s[end - 1] == '\n' || b->s[end - 1] == ' '))
    end--;
  for (i = start; i < end && k + 5 < cap; i++) {
    unsigned char ch = (unsigned char)b->s[i];
    if (ch == '\n') {
      out[k++] = ' ';
      out[k++] = '|';
      out[k++] = ' ';
    } else if (ch < 0x20 || ch == 0x7f) {
      k += (size_t)snprintf(out + k, cap - k, "\\x%02x", ch);
    } else {
      out[k++] = (char)ch;
    }
  }
  out[k < cap ? k : cap - 1] = 0;
}
