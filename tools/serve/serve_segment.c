/*
** serve_segment.c: POST /api/samples/<id>/segmentation: split a row, merge two, or give
** a row new times, through rescue_sample_resegment. This file reads the request and
** writes the answer; the rules are the library's.
*/
#include <string.h>

#include "rescue_edit.h"
#include "serve_impl.h"

/*
** Read the body into *op:
**   {"op": "split", "row": n, "at": t, "base_version": V}
**   {"op": "merge", "row": n, "base_version": V, "next_version": V2}
**   {"op": "times", "row": n, "start": s, "end": e, "base_version": V}
** 1, or 0 after setting a 400.
*/
static int read_op(srv_req *r, const rescue_jnode *root, rescue_resegment *op) {
  const rescue_jnode *opn = rescue_jget(root, "op");
  int64_t row;
  memset(op, 0, sizeof *op);
  if (!opn || opn->type != RESCUE_JSTRING ||
      (strcmp(opn->s, "split") && strcmp(opn->s, "merge") && strcmp(opn->s, "times"))) {
    srv_error(r, 400, "'op' must be \"split\", \"merge\" or \"times\"");
    return 0;
  }
  op->op = strcmp(opn->s, "split") == 0   ? RESCUE_RESEG_SPLIT
           : strcmp(opn->s, "merge") == 0 ? RESCUE_RESEG_MERGE
                                          : RESCUE_RESEG_TIMES;
  if (!srv_int_member(r, root, "row", &row) ||
      !srv_int_member(r, root, "base_version", &op->base_version))
    return 0;
  if (row < 1 || row > 1000000000) {
    srv_error(r, 400, "no row %lld", (long long)row);
    return 0;
  }
  op->row = (int)row;
  switch (op->op) {
  case RESCUE_RESEG_SPLIT: return srv_num_member(r, root, "at", &op->at);
  case RESCUE_RESEG_MERGE: return srv_int_member(r, root, "next_version", &op->next_version);
  case RESCUE_RESEG_TIMES:
    return srv_num_member(r, root, "start", &op->start) && srv_num_member(r, root, "end", &op->end);
  }
  return 0;
}

/*
** Split and merge record a new row set (the sample is re-segmented; a reviewed sample is
** reopened, a discarded one refuses with 409): 200 {"rows": n, ...}; times saves a new
** version of the row: 200 {"version": V, ...}, or 409 with the current row when it was
** saved since. Both answers add the sample's status and whether the edit reopened it
** (srv_put_reopened), as a save's does.
*/
void api_segmentation(srv_req *r) {
  rescue_jdoc *doc = rescue_jdoc_new();
  const rescue_jnode *root;
  rescue_resegment op;
  rescue_jw w;
  int64_t version = 0, gen;
  char was[16] = "", now[16] = "";
  int rc, n_rows = 0;
  if (!doc) {
    srv_error(r, 500, "out of memory");
    return;
  }
  if (!(root = srv_body_json(r, doc)) || !read_op(r, root, &op))
    goto done;
  if (!srv_write_lock(r))
    goto done;
  /* the status before and after, for "reopened" (an unknown sample is the library's 404) */
  if (rescue_sample_generation(r->st, r->sample_id, &gen, was))
    was[0] = 0;
  rc = rescue_sample_resegment(r->st, r->sample_id, r->who.id, &op, &n_rows, &version);
  if (!rc && rescue_sample_generation(r->st, r->sample_id, &gen, now))
    now[0] = 0;
  srv_write_unlock(r);
  if (rc == RESCUE_ECONFLICT && op.op == RESCUE_RESEG_TIMES && version)
    srv_conflict(r, op.row, version);
  else if (rc)
    srv_fail(r, rc, rescue_store_errmsg(r->st));
  else {
    rescue_jw_init(&w, &r->out);
    rescue_jw_obj(&w);
    rescue_jw_key(&w, op.op == RESCUE_RESEG_TIMES ? "version" : "rows");
    rescue_jw_int(&w, op.op == RESCUE_RESEG_TIMES ? version : n_rows);
    srv_put_reopened(&w, was, now);
    rescue_jw_end(&w);
    r->status = 200;
  }
done:
  rescue_jdoc_free(&doc);
}
