/*
** audit.c: the corpus's audit trail (rescue_audit.h): records written inside an
** operation's transaction or in a short one of their own, and `rescue log`.
*/
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rescue_audit.h"
#include "rescue_json.h"
#include "rescue_output.h"
#include "store_int.h"

int rescue_audit_write(rescue_store *st, const rescue_audit_entry *e) {
  return rescue_audit_write_at(st, e, NULL);
}

int rescue_audit_write_at(rescue_store *st, const rescue_audit_entry *e, const char *at) {
  sqlite3_stmt *q;
  struct passwd *pw;
  const char *ctx_user = NULL, *ctx_cmd = rescue_store_audit_command(st, &ctx_user);
  char now[32], uid[32];
  int rc;
  if (!(q = rescue_store_stmt(st, "audit_insert")))
    return rescue_store_err(st)->code;
  pw = ctx_user ? NULL : getpwuid(geteuid());
  snprintf(uid, sizeof uid, "uid %ld", (long)geteuid());
  rescue_now_iso(now);
  rescue_bind_text(q, ":now", at ? at : now, -1);
  rescue_bind_text(q, ":action", e->action, -1);
  rescue_bind_text(q, ":os_user", ctx_user ? ctx_user : pw && pw->pw_name ? pw->pw_name : uid, -1);
  rescue_bind_text(q, ":annotator", e->annotator, -1);
  rescue_bind_text(q, ":command", e->command ? e->command : ctx_cmd ? ctx_cmd : "", -1);
  rescue_bind_text(q, ":view", e->view, -1);
  rescue_bind_int(q, ":pseudonymised", e->pseudonymised);
  rescue_bind_text(q, ":output", e->output, -1);
  rescue_bind_text(q, ":output_sha256", e->output_sha256, -1);
  rescue_bind_text(q, ":detail", e->detail, -1);
  rc = sqlite3_step(q) == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "recording the audit entry");
  sqlite3_reset(q);
  return rc;
}

int rescue_audit_add(rescue_store *st, const rescue_audit_entry *e) {
  rescue_audit_entry with = *e;
  rescue_error ignored = RESCUE_ERROR_INIT;
  char hex[65];
  int rc;
  if (e->output && !e->output_sha256 && strcmp(e->output, "-") != 0 &&
      rescue_output_digest(e->output, hex, &ignored) == 0)
    with.output_sha256 = hex;
  if (sqlite3_db_readonly(rescue_store_db(st), "main") == 1)
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                         "the corpus is opened read-only: nothing can be logged");
  if ((rc = rescue_store_begin(st)))
    return rc;
  if ((rc = rescue_audit_write(st, &with))) {
    rescue_store_rollback(st);
    return rc;
  }
  return rescue_store_commit(st);
}

int rescue_audit_log(rescue_store *st, int text, rescue_buf *out) {
  sqlite3_stmt *q = rescue_store_stmt(st, "audit_log");
  rescue_jw w;
  static const char *const col[] = {"time", "action",        "os_user", "annotator",     "command",
                                    "view", "pseudonymised", "output",  "output_sha256", "detail"};
  if (!q)
    return rescue_store_err(st)->code;
  if (!text) {
    rescue_jw_init(&w, out);
    rescue_jw_arr(&w);
  }
  while (sqlite3_step(q) == SQLITE_ROW) {
    int i;
    if (text) {
      const char *user = (const char *)sqlite3_column_text(q, 2);
      const char *ann = (const char *)sqlite3_column_text(q, 3);
      rescue_buf_printf(out, "%s  %-10s  %s%s%s%s", sqlite3_column_text(q, 0),
                        sqlite3_column_text(q, 1), user ? user : "-", ann ? " (" : "",
                        ann ? ann : "", ann ? ")" : "");
      if (sqlite3_column_type(q, 5) != SQLITE_NULL)
        rescue_buf_printf(out, "  view %s", sqlite3_column_text(q, 5));
      if (sqlite3_column_int(q, 6))
        rescue_buf_puts(out, "  pseudonymised");
      if (sqlite3_column_type(q, 9) != SQLITE_NULL)
        rescue_buf_printf(out, "  %s", sqlite3_column_text(q, 9));
      if (sqlite3_column_type(q, 7) != SQLITE_NULL)
        rescue_buf_printf(out, "  -> %s", sqlite3_column_text(q, 7));
      if (sqlite3_column_type(q, 8) != SQLITE_NULL)
        rescue_buf_printf(out, " (sha256 %.12s)", sqlite3_column_text(q, 8));
      if (sqlite3_column_type(q, 4) != SQLITE_NULL && sqlite3_column_bytes(q, 4))
        rescue_buf_printf(out, "\n      %s", sqlite3_column_text(q, 4));
      rescue_buf_putc(out, '\n');
      continue;
    }
    rescue_jw_obj(&w);
    for (i = 0; i < 10; i++) {
      rescue_jw_key(&w, col[i]);
      if (i == 6)
        rescue_jw_bool(&w, sqlite3_column_int(q, i));
      else if (sqlite3_column_type(q, i) == SQLITE_NULL)
        rescue_jw_null(&w);
      else
        rescue_jw_str(&w, (const char *)sqlite3_column_text(q, i));
    }
    rescue_jw_end(&w);
  }
  sqlite3_reset(q);
  if (!text)
    rescue_jw_end(&w);
  return rescue_buf_ok(out) ? 0 : rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
}
