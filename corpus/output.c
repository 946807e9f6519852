/*
** output.c: temporary sibling + rename, so outputs appear complete or not at all.
*/
#define _GNU_SOURCE /* syncfs */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <signal.h>

#include "rescue_alloc.h"
#include "rescue_output.h"
#include "rescue_store.h"
#include "testhooks_int.h"

/*
** A folder rescue wrote carries this file, so `--force` can tell its own earlier output
** (which it may replace) from a folder of the user's (which it never deletes).
*/
#define OUTPUT_MARK ".rescue-output"

/*
** The process's file mode creation mask, read without changing it (umask() would set it
** for every thread for a moment): from /proc/self/status, else 077 (the strictest).
** mkstemp and mkdtemp make 0600 and 0700 whatever the mask; outputs get the modes an
** ordinary open or mkdir would give them under it (the CLI's 077: owner only).
*/
static mode_t current_umask(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  unsigned m = 077;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "Umask: %o", &m) == 1)
      break;
  if (f)
    fclose(f);
  return (mode_t)(m & 0777);
}

struct rescue_output {
  char *final;
  char *tmp;
  int is_dir;
};

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(path);
}

int rescue_remove_tree(const char *path) {
  struct stat sb;
  if (lstat(path, &sb) != 0)
    return errno == ENOENT ? 0 : -1;
  if (!S_ISDIR(sb.st_mode))
    return unlink(path);
  return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int rescue_make_parents(const char *file_path) {
  char *p = rescue_strdup(file_path), *s;
  int rc = 0;
  if (!p) {
    errno = ENOMEM;
    return -1;
  }
  for (s = p + 1; *s; s++) {
    if (*s != '/')
      continue;
    *s = 0;
    if (mkdir(p, 0755) != 0 && errno != EEXIST) {
      rc = -1;
      break;
    }
    *s = '/';
  }
  rescue_free(p);
  return rc;
}

/*
** 1 when path exists and has content (a non-empty file, or a folder with entries).
** *is_dir: it is a folder; *exists: there is something at path at all.
*/
static int has_content(const char *path, int *is_dir, int *exists) {
  struct stat sb;
  DIR *d;
  struct dirent *e;
  int n = 0;
  *is_dir = 0;
  *exists = 0;
  if (stat(path, &sb) != 0)
    return 0;
  *exists = 1;
  if (!S_ISDIR(sb.st_mode))
    return sb.st_size > 0;
  *is_dir = 1;
  d = opendir(path);
  if (!d)
    return 1;
  while ((e = readdir(d)) != NULL)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      n++;
  closedir(d);
  return n > 0;
}

/* 1 when the file at path begins as a rescue corpus does (SQLite, our application id). */
static int is_corpus_file(const char *path) {
  unsigned char h[72];
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), ok = 0;
  if (fd < 0)
    return 0;
  if (read(fd, h, sizeof h) == (ssize_t)sizeof h)
    ok = memcmp(h, "SQLite format 3", 16) == 0 &&
         ((uint32_t)h[68] << 24 | (uint32_t)h[69] << 16 | (uint32_t)h[70] << 8 | h[71]) ==
             RESCUE_APPLICATION_ID;
  close(fd);
  return ok;
}

/*
** The first rescue corpus at or under path (not following symlinks), as a new string
** the caller frees, or NULL. Only files whose size can be an SQLite database are opened.
*/
static char *find_corpus(const char *path, int depth) {
  struct stat sb;
  DIR *d;
  struct dirent *e;
  char *found = NULL;
  if (lstat(path, &sb) != 0)
    return NULL;
  if (S_ISREG(sb.st_mode))
    return sb.st_size >= 512 && sb.st_size % 512 == 0 && is_corpus_file(path) ? rescue_strdup(path)
                                                                              : NULL;
  if (!S_ISDIR(sb.st_mode) || depth > 64 || !(d = opendir(path)))
    return NULL;
  while (!found && (e = readdir(d)) != NULL) {
    size_t n = strlen(path) + strlen(e->d_name) + 2;
    char *child;
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    if (!(child = rescue_malloc(n)))
      break;
    snprintf(child, n, "%s/%s", path, e->d_name);
    found = find_corpus(child, depth + 1);
    rescue_free(child);
  }
  closedir(d);
  return found;
}

/*
** 1 when the file at path is what a samples export writes (its first line a JSON object
** with a "sample_id" member) or empty: the only files --force may replace. A user's
** notes.txt given as --out by mistake is refused.
*/
static int looks_like_ours(const char *path) {
  char buf[65536], *nl;
  ssize_t n;
  size_t i = 0;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return 0;
  n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return n == 0;
  buf[n] = 0;
  while (i < (size_t)n && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
    i++;
  if (i == (size_t)n)
    return 1;
  if (buf[i] != '{')
    return 0;
  nl = memchr(buf + i, '\n', (size_t)n - i);
  if (nl)
    *nl = 0;
  return strstr(buf + i, "\"sample_id\"") != NULL;
}

/* 1 while process pid runs (or cannot be asked about); the owner of a temporary name. */
static int pid_alive(long pid) { return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM); }

/*
** Clean up after killed runs that wrote `final`: temporaries "<final>.tmp-<pid>-XXXXXX"
** and old outputs moved aside, "<final>.old-<pid>-XXXXXX", whose process is gone. A
** temporary folder must carry the mark (rescue made it). An old output moved aside by a
** run killed before the new one went in is put back when nothing took its place;
** otherwise removed. Runs still alive are left alone.
*/
static void clean_leftovers(const char *final) {
  const char *slash = strrchr(final, '/'), *base = slash ? slash + 1 : final;
  size_t bl = strlen(base), dl = slash ? (size_t)(slash - final) : 0;
  char dir[4096], p[4096];
  DIR *d;
  struct dirent *e;
  if (dl >= sizeof dir || !bl)
    return;
  if (slash)
    snprintf(dir, sizeof dir, "%.*s", (int)(dl ? dl : 1), final);
  else
    snprintf(dir, sizeof dir, ".");
  if (!(d = opendir(dir)))
    return;
  while ((e = readdir(d)) != NULL) {
    const char *rest = e->d_name + bl;
    char *end;
    long pid;
    int is_tmp;
    struct stat sb;
    if (strncmp(e->d_name, base, bl) != 0)
      continue;
    if (strncmp(rest, ".tmp-", 5) == 0)
      is_tmp = 1;
    else if (strncmp(rest, ".old-", 5) == 0)
      is_tmp = 0;
    else
      continue;
    pid = strtol(rest + 5, &end, 10);
    if (end == rest + 5 || *end != '-' || strlen(end + 1) != 6 || pid_alive(pid))
      continue;
    if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= sizeof p || lstat(p, &sb) != 0)
      continue;
    if (S_ISDIR(sb.st_mode)) {
      char mark[4200];
      snprintf(mark, sizeof mark, "%s/%s", p, OUTPUT_MARK);
      if (access(mark, F_OK) != 0)
        continue; /* not a folder rescue made */
      if (!is_tmp && access(final, F_OK) != 0 && errno == ENOENT && rename(p, final) == 0)
        continue; /* the old output goes back where it was */
    } else if (!S_ISREG(sb.st_mode)) {
      continue;
    }
    rescue_remove_tree(p);
  }
  closedir(d);
}

int rescue_output_begin(const char *path, int is_dir, int force, rescue_output **out,
                        rescue_error *err) {
  rescue_output *o;
  int existing_dir, exists, full;
  size_t n;
  *out = NULL;
  {
    /* (the trailing '/' of "out/" is not part of the name its leftovers carry) */
    char *trimmed = rescue_strdup(path);
    size_t tl = trimmed ? strlen(trimmed) : 0;
    while (tl > 1 && trimmed[tl - 1] == '/')
      trimmed[--tl] = 0;
    if (trimmed)
      clean_leftovers(trimmed);
    rescue_free(trimmed);
  }
  full = has_content(path, &existing_dir, &exists);
  if (full && !force)
    return rescue_seterr(err, RESCUE_ENOTEMPTY, "'%s' already exists and is not empty", path);
  if (existing_dir && !is_dir)
    return rescue_seterr(err, RESCUE_EEXISTS, "'%s' is a folder; give a file name", path);
  if (exists && !existing_dir && is_dir)
    return rescue_seterr(err, RESCUE_EEXISTS, "'%s' is a file; give a folder name", path);
  /* force replaces outputs, never a corpus (say, an output path naming the corpus or its
     folder) */
  if (full && force) {
    char *corpus = find_corpus(path, 0);
    if (corpus) {
      int rc = strcmp(corpus, path) == 0
                   ? rescue_seterr(err, RESCUE_ENOTOURS, "'%s' is a rescue corpus", path)
                   : rescue_seterr(err, RESCUE_ENOTOURS, "'%s' holds a rescue corpus ('%s')", path,
                                   corpus);
      rescue_free(corpus);
      return rc;
    }
  }
  if (full && force && !existing_dir && !looks_like_ours(path))
    return rescue_seterr(err, RESCUE_ENOTOURS,
                         "'%s' was not written by rescue (it is not a samples export)", path);
  if (full && force && existing_dir) {
    size_t ml = strlen(path) + sizeof OUTPUT_MARK + 2;
    char *mark = rescue_malloc(ml);
    int ours;
    if (!mark)
      return rescue_seterr(err, RESCUE_ENOMEM, NULL);
    snprintf(mark, ml, "%s/%s", path, OUTPUT_MARK);
    ours = access(mark, F_OK) == 0;
    rescue_free(mark);
    if (!ours)
      return rescue_seterr(err, RESCUE_ENOTOURS,
                           "'%s' was not written by rescue (it has no %s file)", path, OUTPUT_MARK);
  }
  o = rescue_calloc(1, sizeof *o);
  if (!o)
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  o->is_dir = is_dir;
  o->final = rescue_strdup(path);
  n = strlen(path);
  while (n > 1 && path[n - 1] == '/')
    n--;
  o->tmp = rescue_malloc(n + 48);
  if (!o->final || !o->tmp) {
    rescue_output_abort(&o);
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  }
  o->final[n] = 0;
  /* the pid tells a later run whether this temporary's writer is still at work */
  snprintf(o->tmp, n + 48, "%.*s.tmp-%ld-XXXXXX", (int)n, path, (long)getpid());
  if (rescue_make_parents(o->final) != 0) {
    int e = errno;
    rescue_output_abort(&o);
    return rescue_seterr(err, e == ENOMEM ? RESCUE_ENOMEM : RESCUE_EIO,
                         "cannot create the folder of '%s': %s", path, strerror(e));
  }
  if (is_dir) {
    char mark[4096];
    FILE *f;
    if (!mkdtemp(o->tmp)) {
      int e = errno;
      rescue_free(o->tmp);
      o->tmp = NULL;
      rescue_output_abort(&o);
      return rescue_seterr(err, RESCUE_EIO, "cannot create a folder beside '%s': %s", path,
                           strerror(e));
    }
    snprintf(mark, sizeof mark, "%s/%s", o->tmp, OUTPUT_MARK);
    f = fopen(mark, "w");
    if (!f ||
        fputs("written by rescue; 'rescue export --force' may replace this folder\n", f) < 0 ||
        fclose(f) != 0) {
      int e = errno;
      if (f)
        fclose(f);
      rescue_output_abort(&o);
      return rescue_seterr(err, RESCUE_EIO, "cannot write in a folder beside '%s': %s", path,
                           strerror(e));
    }
  } else {
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
      int e = errno;
      rescue_free(o->tmp);
      o->tmp = NULL;
      rescue_output_abort(&o);
      return rescue_seterr(err, RESCUE_EIO, "cannot create a file beside '%s': %s", path,
                           strerror(e));
    }
    fchmod(fd, 0666 & ~current_umask());
    close(fd);
  }
  *out = o;
  rescue_crash_point("export-started");
  return 0;
}

const char *rescue_output_path(const rescue_output *o) { return o->tmp; }

/*
** Make the finished output durable before it takes the final name: a power cut must
** not leave empty files under it. A folder's files are flushed with one syncfs().
*/
static int sync_output(const char *tmp, int is_dir) {
  int fd = open(tmp, O_RDONLY | (is_dir ? O_DIRECTORY : 0) | O_CLOEXEC), rc;
  if (fd < 0)
    return -1;
  rc = is_dir ? syncfs(fd) : fsync(fd);
  close(fd);
  return rc;
}

/* fsync the folder that holds path, so a rename in it is durable. */
static void sync_parent(const char *path) {
  char p[4096], *slash;
  int fd;
  if (strlen(path) >= sizeof p)
    return;
  strcpy(p, path);
  slash = strrchr(p, '/');
  if (slash == p)
    slash[1] = 0;
  else if (slash)
    *slash = 0;
  fd = open(slash ? p : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    fsync(fd);
    close(fd);
  }
}

int rescue_output_commit(rescue_output **op, rescue_error *err) {
  rescue_output *o = *op;
  struct stat sb;
  int rc = 0;
  if (o->is_dir)
    chmod(o->tmp, 0777 & ~current_umask());
  if (sync_output(o->tmp, o->is_dir) != 0) {
    rc = rescue_seterr(err, RESCUE_EIO, "writing '%s' to disk: %s", o->final, strerror(errno));
    rescue_output_abort(op);
    return rc;
  }
  rescue_crash_point("export-complete");
  if (lstat(o->final, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    /*
    ** rename() cannot replace a non-empty folder. Swap the two in one step where the
    ** file system can (the temporary name then holds the old output, removed after);
    ** else move the old one aside first, under a name the next run recognises and puts
    ** back should this one be killed between the two renames.
    */
    if (renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->final, RENAME_EXCHANGE) == 0) {
      rescue_crash_point("export-replaced");
      rescue_remove_tree(o->tmp);
    } else {
      size_t n = strlen(o->final) + 48;
      char *old = rescue_malloc(n);
      if (!old) {
        rescue_output_abort(op);
        return rescue_seterr(err, RESCUE_ENOMEM, NULL);
      }
      snprintf(old, n, "%s.old-%ld-XXXXXX", o->final, (long)getpid());
      if (!mkdtemp(old) || rename(o->final, old) != 0) {
        rc =
            rescue_seterr(err, RESCUE_EIO, "cannot move '%s' aside: %s", o->final, strerror(errno));
        rmdir(old);
      } else if (rename(o->tmp, o->final) != 0) {
        rc = rescue_seterr(err, RESCUE_EIO, "cannot rename into '%s': %s", o->final,
                           strerror(errno));
        rename(old, o->final); /* put the old output back */
      } else {
        rescue_crash_point("export-replaced");
        rescue_remove_tree(old);
      }
      rescue_free(old);
    }
  } else if (rename(o->tmp, o->final) != 0) {
    rc = rescue_seterr(err, RESCUE_EIO, "cannot rename into '%s': %s", o->final, strerror(errno));
  }
  if (rc) {
    rescue_output_abort(op);
    return rc;
  }
  sync_parent(o->final);
  rescue_free(o->final);
  rescue_free(o->tmp);
  rescue_free(o);
  *op = NULL;
  return 0;
}

void rescue_output_abort(rescue_output **op) {
  rescue_output *o;
  if (!op || !*op)
    return;
  o = *op;
  if (o->tmp)
    rescue_remove_tree(o->tmp);
  rescue_free(o->final);
  rescue_free(o->tmp);
  rescue_free(o);
  *op = NULL;
}

/* ---- one file, all or nothing ---- */

int rescue_output_put_file(const char *path, const void *data, size_t len, rescue_error *err) {
  FILE *f;
  if (rescue_make_parents(path) != 0)
    return rescue_seterr(err, RESCUE_EIO, "cannot create the folder of '%s': %s", path,
                         strerror(errno));
  f = fopen(path, "wb");
  if (!f)
    return rescue_seterr(err, RESCUE_EIO, "cannot write '%s': %s", path, strerror(errno));
  if ((len && fwrite(data, 1, len, f) != len) || fflush(f) != 0) {
    int e = errno;
    fclose(f);
    return rescue_seterr(err, RESCUE_EIO, "writing '%s': %s", path, strerror(e));
  }
  if (fclose(f) != 0)
    return rescue_seterr(err, RESCUE_EIO, "writing '%s': %s", path, strerror(errno));
  return 0;
}

char *rescue_file_tmpname(const char *path) {
  const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
  size_t dir = (size_t)(name - path), n = strlen(path) + 32;
  char *t = rescue_malloc(n);
  /* "." + name + "." + pid (at most 10 digits) + ".part" must fit in 255 bytes, the limit
     of one name on Linux file systems: a longer name is cut (the temporary is still ours:
     hidden, with our pid, ending in .part) */
  int keep = (int)strlen(name) > 200 ? 200 : (int)strlen(name);
  if (t)
    snprintf(t, n, "%.*s.%.*s.%ld.part", (int)dir, path, keep, name, (long)getpid());
  return t;
}

int rescue_file_commit(const char *tmp, const char *path, rescue_error *err) {
  if (sync_output(tmp, 0) != 0) {
    int e = errno;
    remove(tmp);
    rescue_seterr(err, RESCUE_EIO, "cannot flush '%s': %s", tmp, strerror(e));
    errno = e;
    return RESCUE_EIO;
  }
  if (rename(tmp, path) != 0) {
    int e = errno;
    remove(tmp);
    rescue_seterr(err, RESCUE_EIO, "cannot rename '%s' to '%s': %s", tmp, path, strerror(e));
    errno = e;
    return RESCUE_EIO;
  }
  sync_parent(path);
  return 0;
}

int rescue_file_write_atomic(const char *path, const void *data, size_t len, rescue_error *err) {
  char *tmp = rescue_file_tmpname(path);
  FILE *f;
  int rc = 0;
  if (!tmp)
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  if (!(f = fopen(tmp, "wb"))) {
    rc = rescue_seterr(err, RESCUE_EIO, "cannot write '%s': %s", tmp, strerror(errno));
  } else {
    int bad = len && fwrite(data, 1, len, f) != len, e = errno;
    if (fclose(f) != 0 && !bad)
      bad = 1, e = errno;
    if (bad) {
      rc = rescue_seterr(err, RESCUE_EIO, "cannot write '%s': %s", tmp, strerror(e));
      remove(tmp);
      errno = e;
    } else {
      rc = rescue_file_commit(tmp, path, err);
    }
  }
  rescue_free(tmp);
  return rc;
}
