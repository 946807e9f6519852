/*
** serve_curate.c: curation for leads (rescue_curate.h): GET /api/curate (the queue), GET
** /api/curate/<id> (the sample's state), PUT /api/curate/<id>/segmentation (the gold row
** set) and PUT /api/curate/<id>/rows/<n> (one decision). This file reads requests and
** writes answers; the rules, lint included, are the library's.
*/
#include <stdio.h>
#include <string.h>

#include "rescue_curate.h"
#include "serve_impl.h"

/* GET /api/curate[?open=1]: the samples, with counts of their undecided values. */
void api_curate_queue(srv_req *r) {
  const char *open = srv_arg(r, "open");
  int rc = rescue_curate_queue_json(r->st, open && strcmp(open, "1") == 0, &r->out);
  if (rc) {
    srv_fail(r, rc, rescue_store_errmsg(r->st));
    return;
  }
  r->status = 200;
}

/* The sample's state (only_row > 0: that row) as the response with status. */
static void put_state(srv_req *r, int status, int only_row, const char *error,
                      const rescue_curate_outcome *o) {
  rescue_curate_state s;
  rescue_buf state = RESCUE_BUF_INIT;
  rescue_jw w;
  int rc = rescue_curate_load(r->st, r->sample_id, &s);
  if (rc) {
    srv_fail(r, rc, rescue_store_errmsg(r->st));
    rescue_curate_state_clear(&s);
    return;
  }
  rescue_curate_state_json(&s, only_row, &state);
  rescue_curate_state_clear(&s);
  if (!rescue_buf_ok(&state)) {
    srv_error(r, 500, "out of memory");
    rescue_buf_clear(&state);
    return;
  }
  rescue_buf_reset(&r->out);
  if (!error && !o) {
    rescue_buf_putn(&r->out, state.s, state.len);
  } else {
    rescue_jw_init(&w, &r->out);
    rescue_jw_obj(&w);
    if (error) {
      rescue_jw_key(&w, "error");
      rescue_jw_str(&w, error);
    }
    if (o && !error) {
      rescue_jw_key(&w, "version");
      rescue_jw_int(&w, o->version);
      rescue_jw_key(&w, "gold_version");
      if (o->gold_version)
        rescue_jw_int(&w, o->gold_version);
      else
        rescue_jw_null(&w);
    }
    rescue_jw_key(&w, "state");
    rescue_jw_raw(&w, state.s, state.len);
    rescue_jw_end(&w);
  }
  rescue_buf_clear(&state);
  r->status = status;
}

/* GET /api/curate/<id> */
void api_curate_sample(srv_req *r) { put_state(r, 200, 0, NULL, NULL); }

/* PUT /api/curate/<id>/segmentation {"from": "<coder>" | "draft"} */
void api_curate_segmentation(srv_req *r) {
  rescue_jdoc *doc = rescue_jdoc_new();
  const rescue_jnode *root, *from;
  int rc;
  if (!doc) {
    srv_error(r, 500, "out of memory");
    return;
  }
  if (!(root = srv_body_json(r, doc)))
    goto done;
  from = rescue_jget(root, "from");
  if (!from || from->type != RESCUE_JSTRING) {
    srv_error(r, 400, "'from' must be a coder's name or \"draft\"");
    goto done;
  }
  if (!srv_write_lock(r))
    goto done;
  rc = rescue_curate_segmentation(r->st, r->who.name, r->sample_id, from->s);
  srv_write_unlock(r);
  if (rc)
    srv_fail(r, rc, rescue_store_errmsg(r->st));
  else
    put_state(r, 200, 0, NULL, NULL);
done:
  rescue_jdoc_free(&doc);
}

/* 400 with the findings that refused a decision, and the row's state. */
static void lint_refusal(srv_req *r, const rescue_curate_outcome *o) {
  rescue_jw w;
  rescue_buf_reset(&r->out);
  rescue_jw_init(&w, &r->out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "error");
  rescue_jw_str(&w, rescue_store_errmsg(r->st));
  rescue_jw_key(&w, "findings");
  srv_put_findings(&w, &o->lint, r->position);
  rescue_jw_end(&w);
  r->status = 400;
}

/*
** Read the decision of a body {"base_version": V, "field": F, "take": "<coder>" | "value":
** <any> | "undo": true} into *d (pointing into the parse; the value's text into val).
** 1, or 0 after setting a 400.
*/
static int read_decision(srv_req *r, const rescue_jnode *root, rescue_curate_decision *d,
                         rescue_buf *val) {
  const rescue_jnode *f = rescue_jget(root, "field"), *take = rescue_jget(root, "take");
  const rescue_jnode *value = rescue_jget(root, "value"), *undo = rescue_jget(root, "undo");
  memset(d, 0, sizeof *d);
  if (!srv_int_member(r, root, "base_version", &d->base_version))
    return 0;
  if (!f || f->type != RESCUE_JSTRING || !f->len) {
    srv_error(r, 400, "'field' must be a field name or a JSON pointer into the row");
    return 0;
  }
  if (!!take + !!value + !!undo != 1) {
    srv_error(r, 400, "give one of 'take' (a coder), 'value' or 'undo': true");
    return 0;
  }
  if ((take && take->type != RESCUE_JSTRING) || (undo && undo->type != RESCUE_JTRUE)) {
    srv_error(r, 400, take ? "'take' must be a coder's name" : "'undo' must be true");
    return 0;
  }
  d->sample_id = r->sample_id;
  d->row = r->position;
  d->field = f->s;
  d->op = take ? RESCUE_CURATE_TAKE : value ? RESCUE_CURATE_VALUE : RESCUE_CURATE_UNDO;
  d->take = take ? take->s : NULL;
  if (value) {
    rescue_jwrite(val, value);
    if (!rescue_buf_ok(val)) {
      srv_error(r, 500, "out of memory");
      return 0;
    }
    d->value = val->s;
    d->value_len = val->len;
  }
  return 1;
}

/*
** PUT /api/curate/<id>/rows/<n>: 200 {"version", "gold_version", "state"} (the row's new
** state); 400 with the lint findings or what is unknown; 409 {"error", "state"} with the
** newer state when base_version is not the row's current version.
*/
void api_curate_decide(srv_req *r) {
  rescue_jdoc *doc = rescue_jdoc_new();
  rescue_buf val = RESCUE_BUF_INIT;
  const rescue_jnode *root;
  rescue_curate_decision d;
  rescue_curate_outcome o;
  int rc;
  memset(&o, 0, sizeof o);
  if (!doc) {
    srv_error(r, 500, "out of memory");
    return;
  }
  if (!(root = srv_body_json(r, doc)) || !read_decision(r, root, &d, &val))
    goto done;
  if (!srv_write_lock(r))
    goto done;
  rc = rescue_curate_decide(r->st, r->who.name, &d, &o);
  srv_write_unlock(r);
  if (rc == RESCUE_EBADINPUT && o.lint.errors)
    lint_refusal(r, &o);
  else if (rc == RESCUE_ECONFLICT) {
    char msg[600]; /* loading the state may set the handle's message */
    snprintf(msg, sizeof msg, "%s", rescue_store_errmsg(r->st));
    put_state(r, 409, r->position, msg, NULL);
  } else if (rc)
    srv_fail(r, rc, rescue_store_errmsg(r->st));
  else
    put_state(r, 200, r->position, NULL, &o);
done:
  rescue_curate_outcome_clear(&o);
  rescue_buf_clear(&val);
  rescue_jdoc_free(&doc);
}
