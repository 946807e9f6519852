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

/* What writing one sample needs (the export loop's step, write_sample). */
typedef struct samples_ctx {
  const rescue_scheme *sc;
  rescue_error *err;
  const char *out;  /* the destination, for messages */
  const char *root; /* data-root: the temporary folder; else NULL */
  FILE *f;          /* JSONL: the stream or the temporary file */
  rescue_buf line, path;
  rescue_export_result *res;
  const rescue_export_opts *o;
  int data_root;
  rescue_output *dest; /* the output being written (not for a stream) */
} samples_ctx;

/* Open the output: the stream, the temporary file, or the temporary data-root folder. */
static int open_output(void *arg) {
  samples_ctx *c = arg;
  int rc;
  if (c->o->stream) {
    c->f = c->o->stream;
    return 0;
  }
  if ((rc = rescue_output_begin(c->out, c->data_root, c->o->force, &c->dest, c->err)))
    return rc;
  if (c->data_root) {
    c->root = rescue_output_path(c->dest);
    return 0;
  }
  if (!(c->f = fopen(rescue_output_path(c->dest), "wb")))
    return rescue_seterr(c->err, RESCUE_EIO, "cannot write '%s': %s", rescue_output_path(c->dest),
                         strerror(errno));
  setvbuf(c->f, NULL, _IOFBF, 1 << 20);
  return 0;
}

/* Write sample s as a JSONL line or a data-root file. 0 or an error code. */
static int write_sample(void *arg, const rescue_sample *s) {
  samples_ctx *c = arg;
  int rc;
  rescue_buf_reset(&c->line);
  rescue_sample_write_json(c->sc, s, &c->line);
  rescue_buf_putc(&c->line, '\n');
  if (!rescue_buf_ok(&c->line))
    return rescue_seterr(c->err, RESCUE_ENOMEM, NULL);
  if (c->root) {
    const char *why = dataroot_unreadable(s->sample_id);
    if (why)
      return rescue_seterr_arg(c->err, RESCUE_EBADINPUT, "format",
                               "sample '%s' cannot go into a data-root: %s", s->sample_id, why);
    rescue_buf_reset(&c->path);
    rescue_buf_printf(&c->path, "%s/%s.json", c->root, s->sample_id);
    if (!rescue_buf_ok(&c->path))
      return rescue_seterr(c->err, RESCUE_ENOMEM, NULL);
    if ((rc = rescue_output_put_file(c->path.s, c->line.s, c->line.len, c->err)))
      return rc;
  } else if (fwrite(c->line.s, 1, c->line.len, c->f) != c->line.len) {
    return rescue_seterr(c->err, RESCUE_EIO, "writing '%s': %s", c->out, strerror(errno));
  }
  c->res->samples++;
  c->res->rows += s->n;
  return 0;
}

int rescue_export_samples(rescue_store *st, const char *out, int data_root,
                          const rescue_export_opts *o, rescue_export_result *res) {
  rescue_error *err = rescue_store_err(st);
  rescue_export_result dummy;
  samples_ctx c = {.sc = rescue_store_scheme(st),
                   .err = err,
                   .out = out,
                   .line = RESCUE_BUF_INIT,
                   .path = RESCUE_BUF_INIT,
                   .o = o,
                   .data_root = data_root};
  rescue_export_loop loop = {.view = &o->view,
                             .samples = o->samples,
                             .n_samples = o->n_samples,
                             .include_discarded = o->include_discarded,
                             .progress_every = 64,
                             .progress = o->progress,
                             .progress_arg = o->progress_arg,
                             .begin = open_output,
                             .each = write_sample,
                             .arg = &c};
  rescue_export_tally tally;
  int rc;

  if (!res)
    res = &dummy;
  memset(res, 0, sizeof *res);
  c.res = res;
  if (o->stream && data_root)
    return rescue_seterr(err, RESCUE_EINVAL, "a data-root is a folder: it cannot go to a stream");
  rc = rescue_export_each(st, &loop, &tally);
  res->discarded = tally.discarded;
  res->incomplete = tally.incomplete;
  if (rc)
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
  if (c.f && o->stream) {
    if (fflush(c.f) != 0) {
      rc = rescue_seterr(err, RESCUE_EIO, "writing the output: %s", strerror(errno));
      goto fail;
    }
    c.f = NULL;
  } else if (c.f) {
    if (fflush(c.f) != 0 || fsync(fileno(c.f)) != 0) {
      rc = rescue_seterr(err, RESCUE_EIO, "writing '%s': %s", out, strerror(errno));
      goto fail;
    }
    fclose(c.f);
    c.f = NULL;
  }
  rc = c.dest ? rescue_output_commit(&c.dest, err) : 0;
  goto end;
fail:
  if (c.f && !o->stream)
    fclose(c.f);
  rescue_output_abort(&c.dest);
end:
  rescue_buf_clear(&c.line);
  rescue_buf_clear(&c.path);
  return rc;
}
