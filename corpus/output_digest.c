/*
** output_digest.c: the SHA-256 that identifies an output, file or folder, as the audit
** trail records it (rescue_output.h).
*/
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rescue_alloc.h"
#include "rescue_output.h"
#include "rescue_sha256.h"

/* The SHA-256 (hex) of a file's bytes; 0 or -1 with errno. */
static int file_digest(const char *path, char hex[65]) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  char buf[1 << 16];
  ssize_t r;
  rescue_sha256 h;
  if (fd < 0)
    return -1;
  rescue_sha256_init(&h);
  while ((r = read(fd, buf, sizeof buf)) > 0)
    rescue_sha256_update(&h, buf, (size_t)r);
  close(fd);
  if (r < 0)
    return -1;
  rescue_sha256_hex(&h, hex);
  return 0;
}

/* A growing list of file paths; the list owns its strings. */
typedef struct file_list {
  int n, cap;
  char **v;
} file_list;

/* Append a copy of s; 0 or -1 when out of memory. */
static int file_list_add(file_list *l, const char *s) {
  if (RESCUE_ALLOC_GROW(l->v, l->n + 1, l->cap))
    return -1;
  if (!(l->v[l->n] = rescue_strdup(s)))
    return -1;
  l->n++;
  return 0;
}

static void file_list_free(file_list *l) {
  int i;
  for (i = 0; i < l->n; i++)
    rescue_free(l->v[i]);
  rescue_free(l->v);
  memset(l, 0, sizeof *l);
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add the regular files under root/rel to out, as paths relative to root. */
static int list_files(const char *root, const char *rel, file_list *out) {
  char full[4096];
  DIR *d;
  struct dirent *de;
  snprintf(full, sizeof full, "%s%s%s", root, *rel ? "/" : "", rel);
  if (!(d = opendir(full)))
    return -1;
  while ((de = readdir(d)) != NULL) {
    char sub[4096];
    struct stat sb;
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
      continue;
    if ((size_t)snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", de->d_name) >=
            sizeof sub ||
        (size_t)snprintf(full, sizeof full, "%s/%s", root, sub) >= sizeof full)
      continue;
    if (lstat(full, &sb))
      continue;
    if (S_ISDIR(sb.st_mode))
      list_files(root, sub, out);
    else if (S_ISREG(sb.st_mode) && file_list_add(out, sub))
      break;
  }
  closedir(d);
  return 0;
}

int rescue_output_digest(const char *path, char hex[65], rescue_error *err) {
  struct stat sb;
  char manifest[4096];
  file_list files = {0, 0, NULL};
  rescue_sha256 h;
  int i;
  if (stat(path, &sb))
    return rescue_seterr(err, RESCUE_EIO, "%s: %s", path, strerror(errno));
  if (!S_ISDIR(sb.st_mode))
    return file_digest(path, hex) ? rescue_seterr(err, RESCUE_EIO, "%s: %s", path, strerror(errno))
                                  : 0;
  snprintf(manifest, sizeof manifest, "%s/manifest.json", path);
  if (file_digest(manifest, hex) == 0)
    return 0;
  list_files(path, "", &files);
  qsort(files.v, (size_t)files.n, sizeof *files.v, by_name);
  rescue_sha256_init(&h);
  for (i = 0; i < files.n; i++) {
    char one[65], full[4096];
    snprintf(full, sizeof full, "%s/%s", path, files.v[i]);
    if (file_digest(full, one))
      continue;
    rescue_sha256_update(&h, files.v[i], strlen(files.v[i]) + 1);
    rescue_sha256_update(&h, one, 64);
  }
  rescue_sha256_hex(&h, hex);
  file_list_free(&files);
  return 0;
}
