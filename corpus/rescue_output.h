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
** SHA-256 (hex) identifying an output: a file's bytes; for a folder, its manifest.json
** when it has one, else the sorted list of its files with their own digests.
*/
int rescue_output_digest(const char *path, char hex[65], rescue_error *err);

#endif
