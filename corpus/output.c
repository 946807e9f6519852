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

#include "rescue_alloc.h"
#include "rescue_output.h"
#include "rescue_store.h"

/*
** A folder rescue wrote carries this file, so `--force` can tell its own earlier output
** (which it may replace) from a folder of the user's (which it never deletes).
*/
#define OUTPUT_MARK ".rescue-output"

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

int rescue_output_begin(const char *path, int is_dir, int force, rescue_output **out,
                        rescue_error *err) {
  rescue_output *o;
  int existing_dir, exists, full;
  size_t n;
  *out = NULL;
  full = has_content(path, &existing_dir, &exists);
  if (full && !force)
    return rescue_seterr(err, RESCUE_EEXISTS,
                         "'%s' already exists and is not empty (use --force to replace it)", path);
  if (existing_dir && !is_dir)
    return rescue_seterr(err, RESCUE_EEXISTS, "'%s' is a folder; give a file name", path);
  if (exists && !existing_dir && is_dir)
    return rescue_seterr(err, RESCUE_EEXISTS, "'%s' is a file; give a folder name", path);
  /* --force replaces outputs, never a corpus (say, --out naming the corpus or its folder) */
  if (full && force) {
    char *corpus = find_corpus(path, 0);
    if (corpus) {
      int rc = strcmp(corpus, path) == 0
                   ? rescue_seterr(err, RESCUE_EEXISTS,
                                   "'%s' is a rescue corpus; --force never replaces one", path)
                   : rescue_seterr(err, RESCUE_EEXISTS,
                                   "'%s' holds a rescue corpus ('%s'); --force never replaces "
                                   "one",
                                   path, corpus);
      rescue_free(corpus);
      return rc;
    }
  }
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
      return rescue_seterr(err, RESCUE_EEXISTS,
                           "'%s' was not written by rescue (it has no %s file); --force only "
                           "replaces rescue's own output folders: remove it yourself or "
                           "choose another --out",
                           path, OUTPUT_MARK);
  }
  o = rescue_calloc(1, sizeof *o);
  if (!o)
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  o->is_dir = is_dir;
  o->final = rescue_strdup(path);
  n = strlen(path);
  while (n > 1 && path[n - 1] == '/')
    n--;
  o->tmp = rescue_malloc(n + 32);
  if (!o->final || !o->tmp) {
    rescue_output_abort(&o);
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  }
  o->final[n] = 0;
  snprintf(o->tmp, n + 32, "%.*s.tmp-XXXXXX", (int)n, path);
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
    if (!f || fputs("written by rescue; 'rescue export --force' may replace this folder\n", f) < 0 ||
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
    fchmod(fd, 0644);
    close(fd);
  }
  *out = o;
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
    chmod(o->tmp, 0755);
  if (sync_output(o->tmp, o->is_dir) != 0) {
    rc = rescue_seterr(err, RESCUE_EIO, "writing '%s' to disk: %s", o->final, strerror(errno));
    rescue_output_abort(op);
    return rc;
  }
  if (lstat(o->final, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    /* rename() cannot replace a non-empty folder: move the old one aside first */
    size_t n = strlen(o->final) + 32;
    char *old = rescue_malloc(n);
    if (!old) {
      rescue_output_abort(op);
      return rescue_seterr(err, RESCUE_ENOMEM, NULL);
    }
    snprintf(old, n, "%s.old-XXXXXX", o->final);
    if (!mkdtemp(old) || rename(o->final, old) != 0) {
      rc = rescue_seterr(err, RESCUE_EIO, "cannot move '%s' aside: %s", o->final,
                         strerror(errno));
      rmdir(old);
    } else if (rename(o->tmp, o->final) != 0) {
      rc = rescue_seterr(err, RESCUE_EIO, "cannot rename into '%s': %s", o->final,
                         strerror(errno));
      rename(old, o->final); /* put the old output back */
    } else {
      rescue_remove_tree(old);
    }
    rescue_free(old);
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
