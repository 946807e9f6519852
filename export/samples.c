/*
** samples.c: `rescue export --format samples|data-root`: the corpus back in release
** form, byte for byte what was imported when nothing changed (corpus/FORMAT.md §2).
*/
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rescue_alloc.h"
#include "rescue_export.h"
#include "rescue_output.h"

/* Write len bytes to a new file at path (parents created), flushed to disk. */
static int write_file(const char *path, const char *data, size_t len, rescue_error *err) {
  FILE *f;
  if (rescue_make_parents(path) != 0)
    return rescue_seterr(err, RESCUE_EIO, "cannot create the folder of '%s': %s", path,
                         strerror(errno));
  f = fopen(path, "wb");
  if (!f)
    return rescue_seterr(err, RESCUE_EIO, "cannot write '%s': %s", path, strerror(errno));
  if (fwrite(data, 1, len, f) != len || fflush(f) != 0) {
    int e = errno;
    fclose(f);
    return rescue_seterr(err, RESCUE_EIO, "writing '%s': %s", path, strerror(e));
  }
  if (fclose(f) != 0)
    return rescue_seterr(err, RESCUE_EIO, "writing '%s': %s", path, strerror(errno));
  return 0;
}

/*
** Why a data-root import would not read the file of this sample_id back (it skips names
** that start with '.' and files named manifest.json), or NULL when it would.
*/
static const char *dataroot_unreadable(const char *id) {
  const char *c = id, *slash;
  for (;;) {
    if (*c == '.')
      return "a data-root import skips names that start with '.'";
    slash = strchr(c, '/');
    if (!slash)
      break;
    c = slash + 1;
  }
  if (strcmp(c, "manifest") == 0)
    return "a data-root import skips manifest.json files";
  return NULL;
}

int rescue_export_samples(rescue_store *st, const char *out, int data_root,
                          const rescue_export_opts *o, rescue_export_result *res) {
  rescue_error *err = rescue_store_err(st);
  const rescue_scheme *sc = rescue_store_scheme(st);
  rescue_export_result dummy;
  rescue_sample_iter *it = NULL;
  rescue_output *dest = NULL;
  rescue_buf line = RESCUE_BUF_INIT, path = RESCUE_BUF_INIT;
  const rescue_sample *s;
  FILE *f = NULL;
  long total = 0, done = 0;
  int rc;

  if (!res)
    res = &dummy;
  memset(res, 0, sizeof *res);
  if ((rc = rescue_sample_iter_new(st, &o->view, o->samples, o->n_samples, &it)))
    return rc;
  if ((rc = rescue_store_sample_count(st, &total)))
    goto fail;
  if (o->n_samples)
    total = o->n_samples;
  if (o->stream && data_root) {
    rc = rescue_seterr(err, RESCUE_EINVAL, "a data-root is a folder: it cannot go to a stream");
    goto fail;
  }
  if (o->stream) {
    f = o->stream;
  } else if ((rc = rescue_output_begin(out, data_root, o->force, &dest, err))) {
    goto fail;
  } else if (!data_root) {
    f = fopen(rescue_output_path(dest), "wb");
    if (!f) {
      rc = rescue_seterr(err, RESCUE_EIO, "cannot write '%s': %s", rescue_output_path(dest),
                         strerror(errno));
      goto fail;
    }
    setvbuf(f, NULL, _IOFBF, 1 << 20);
  }
  while ((rc = rescue_sample_iter_next(it, &s)) == 1) {
    done++;
    if (o->progress && (done & 63) == 0)
      o->progress(o->progress_arg, (uint64_t)done, (uint64_t)total);
    if (!o->include_discarded && strcmp(s->status, "discarded") == 0) {
      res->discarded++;
      continue;
    }
    if (!s->complete) {
      res->incomplete++;
      continue;
    }
    rescue_buf_reset(&line);
    rescue_sample_write_json(sc, s, &line);
    rescue_buf_putc(&line, '\n');
    if (!rescue_buf_ok(&line)) {
      rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
      goto fail;
    }
    if (data_root) {
      const char *why = dataroot_unreadable(s->sample_id);
      if (why) {
        rc = rescue_seterr_arg(err, RESCUE_EBADINPUT, "format",
                               "sample '%s' cannot go into a data-root: %s", s->sample_id, why);
        goto fail;
      }
      rescue_buf_reset(&path);
      rescue_buf_printf(&path, "%s/%s.json", rescue_output_path(dest), s->sample_id);
      if (!rescue_buf_ok(&path)) {
        rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
        goto fail;
      }
      if ((rc = write_file(path.s, line.s, line.len, err)))
        goto fail;
    } else if (fwrite(line.s, 1, line.len, f) != line.len) {
      rc = rescue_seterr(err, RESCUE_EIO, "writing '%s': %s", out, strerror(errno));
      goto fail;
    }
    res->samples++;
    res->rows += s->n;
  }
  if (rc < 0)
    goto fail;
  if (res->samples == 0) {
    int nogold = o->view.kind == RESCUE_VIEW_GOLD && res->incomplete;
    rc = rescue_seterr(err, nogold ? RESCUE_ENOGOLD : RESCUE_ENOTFOUND,
                       "nothing to export: no sample %s can be used in this view (%ld without "
                       "a version of every row, %ld discarded)%s",
                       o->n_samples ? "of those asked for" : "in the corpus", res->incomplete,
                       res->discarded, nogold ? "; the gold view needs gold on every row" : "");
    goto fail;
  }
  if (f && o->stream) {
    if (fflush(f) != 0) {
      rc = rescue_seterr(err, RESCUE_EIO, "writing the output: %s", strerror(errno));
      goto fail;
    }
    f = NULL;
  } else if (f) {
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
      rc = rescue_seterr(err, RESCUE_EIO, "writing '%s': %s", out, strerror(errno));
      goto fail;
    }
    fclose(f);
    f = NULL;
  }
  if (o->progress)
    o->progress(o->progress_arg, (uint64_t)total, (uint64_t)total);
  rc = dest ? rescue_output_commit(&dest, err) : 0;
  goto end;
fail:
  if (f && !o->stream)
    fclose(f);
  rescue_output_abort(&dest);
end:
  rescue_sample_iter_free(&it);
  rescue_buf_clear(&line);
  rescue_buf_clear(&path);
  return rc;
}
