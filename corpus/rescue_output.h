/*
** rescue_output.h: all-or-nothing output files and folders (public).
** An export writes into a temporary sibling of its destination and renames it into
** place only once complete, so a failed or killed run leaves the destination as it
** was. An existing destination that is not empty is refused unless `force`, and then
** replaced only at commit.
**
**   rescue_output *o;
**   if (rescue_output_begin("out/dir", 1, force, &o, err)) ...;
**   write files under rescue_output_path(o) ...;
**   rc = ok ? rescue_output_commit(&o, err) : (rescue_output_abort(&o), rc);
*/
#ifndef RESCUE_OUTPUT_H
#define RESCUE_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "rescue_error.h"
#include "rescue_store.h"

typedef struct rescue_output rescue_output;

/*
** Prepare to produce `path` (a folder when is_dir, else a file). Fails with
** RESCUE_EEXISTS when path exists and is not empty (an empty file or folder counts as
** absent) and force is 0. For a folder, the temporary folder is created.
*/
int rescue_output_begin(const char *path, int is_dir, int force, rescue_output **out,
                        rescue_error *err);
/* The temporary path to write to (a file path or a folder). */
const char *rescue_output_path(const rescue_output *o);
/* Move the finished output into place; *o is freed and NULLed either way. */
int rescue_output_commit(rescue_output **o, rescue_error *err);
/* Remove the temporary output; accepts NULL. */
void rescue_output_abort(rescue_output **o);

/* Remove a file or a folder tree (not following symlinks). 0 or -1 (errno set). */
int rescue_remove_tree(const char *path);
/* mkdir -p for the parent folders of a file path. 0 or -1 (errno set). */
int rescue_make_parents(const char *file_path);

/*
** SHA-256 (hex) identifying an output: a file's bytes; for a folder, its manifest.json
** when it has one, else the sorted list of its files with their own digests.
*/
int rescue_output_digest(const char *path, char hex[65], rescue_error *err);

/*
** Write one whole file inside a staged output (rescue_output_begin's temporary folder):
** its parent folders are made, the bytes written and flushed; the output's commit makes
** them durable and puts them in place all at once, so no temporary name is needed here.
** 0, or RESCUE_EIO with the file and the reason on err.
*/
int rescue_output_put_file(const char *path, const void *data, size_t len, rescue_error *err);

/*
** One file replaced all or nothing, for files written outside a rescue_output (a clip, a
** manifest): the new content goes to a temporary name in the same folder, reaches the disk,
** and is renamed over the path; a failed or killed writer leaves the old file as it was.
**
**   char *tmp = rescue_file_tmpname(path);
**   write tmp ...;
**   rc = ok ? rescue_file_commit(tmp, path, err) : (remove(tmp), rc);
**   rescue_free(tmp);
**
** rescue_file_tmpname: "<folder>/.<name>.<pid>.part", hidden, in path's own folder (so the
** rename is one step) and with this process's id (so two writers never share one). A new
** string (rescue_free it), or NULL when out of memory.
*/
char *rescue_file_tmpname(const char *path);
/*
** Put the written temporary file tmp in place as path: fsync it, rename it over path, fsync
** the folder. On failure tmp is removed, path is untouched, and RESCUE_EIO comes back with
** the reason on err. 0 on success.
*/
int rescue_file_commit(const char *tmp, const char *path, rescue_error *err);
/*
** Replace path with the len bytes of data through rescue_file_tmpname and
** rescue_file_commit. 0, RESCUE_ENOMEM, or RESCUE_EIO (the old file and no temporary left).
*/
int rescue_file_write_atomic(const char *path, const void *data, size_t len, rescue_error *err);

/*
** The export loop every exporter runs: the samples of a view (or of a list of ids) in order,
** discarded ones (unless asked for) and ones without a version of every row counted and
** left out, progress reported along the way and once at the end, and each sample kept
** handed to the exporter's own step.
**
**   rescue_export_loop l = {.view = &o->view, .samples = o->samples, ...,
**                           .each = write_one, .arg = &ctx};
**   rescue_export_tally t;
**   if ((rc = rescue_export_each(st, &l, &t))) goto fail;
**   if (t.taken == 0) -> "nothing to export" in the exporter's own words
*/
typedef struct rescue_export_loop {
  const rescue_view *view;    /* which version of each sample */
  const char *const *samples; /* only these sample ids (n_samples of them), or all */
  int n_samples;
  int include_discarded;   /* else discarded samples are counted and left out */
  unsigned progress_every; /* report after every this many samples (0: 64) */
  void (*progress)(void *arg, uint64_t done, uint64_t total); /* or NULL */
  void *progress_arg;
  /*
  ** Called once (when not NULL) after the samples asked for are found and before the first
  ** is read: the place to open the output, so that an unknown sample id is reported before
  ** an existing output is looked at. 0, or an error code that stops the loop.
  */
  int (*begin)(void *arg);
  /*
  ** The exporter's step for one kept sample: 0 to go on, RESCUE_EXPORT_SKIP when it left
  ** the sample out for a reason of its own (counted in tally.skipped), or an error code
  ** (negative), which stops the loop and is returned.
  */
  int (*each)(void *arg, const rescue_sample *s);
  void *arg;
} rescue_export_loop;

#define RESCUE_EXPORT_SKIP 1

typedef struct rescue_export_tally {
  long seen;       /* samples read */
  long discarded;  /* left out: discarded (include_discarded unset) */
  long incomplete; /* left out: no version of every row in the view */
  long skipped;    /* left out by the step (RESCUE_EXPORT_SKIP) */
  long taken;      /* handed to the step and kept */
} rescue_export_tally;

/*
** Run the export loop l over the store's samples, counting into *tally (zeroed first). 0 when
** every sample was read (even when none was kept), else the error of the store or of the
** step (the store's message on the store's handle, the step's where it put it).
*/
int rescue_export_each(rescue_store *st, const rescue_export_loop *l, rescue_export_tally *tally);

#endif
