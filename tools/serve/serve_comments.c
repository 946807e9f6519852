/*
** serve_comments.c: POST /api/samples/<id>/comments: a comment on a sample or one of its
** rows (rescue_comment_add).
*/
#include "rescue_workflow.h"
#include "serve_impl.h"

/* POST /api/samples/<id>/comments {"text": "...", "row": n (optional; none: the sample)} */
void api_comments(srv_req *r) {
  rescue_jdoc *doc = rescue_jdoc_new();
  const rescue_jnode *root, *text, *row;
  int64_t id = 0, pos = 0;
  int rc;
  if (!doc) {
    srv_error(r, 500, "out of memory");
    return;
  }
  if (!(root = srv_body_json(r, doc)))
    goto done;
  text = rescue_jget(root, "text");
  row = rescue_jget(root, "row");
  if (!text || text->type != RESCUE_JSTRING) {
    srv_error(r, 400, "'text' must be a string");
    goto done;
  }
  if (row && row->type != RESCUE_JNULL && !srv_int_member(r, root, "row", &pos))
    goto done;
  if (pos < 0 || pos > 1000000000) {
    srv_error(r, 400, "no row %lld", (long long)pos);
    goto done;
  }
  if (!srv_write_lock(r))
    goto done;
  rc = rescue_comment_add(r->st, r->sample_id, (int)pos, text->s, r->who.id, &id);
  srv_write_unlock(r);
  if (rc) {
    srv_fail(r, rc, rescue_store_errmsg(r->st));
    goto done;
  }
  rescue_buf_printf(&r->out, "{\"id\": %lld}", (long long)id);
  r->status = 200;
done:
  rescue_jdoc_free(&doc);
}
