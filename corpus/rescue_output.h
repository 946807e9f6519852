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

#include "rescue_error.h"

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

#endif
