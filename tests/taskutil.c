/*
** taskutil.c: see taskutil.h.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "taskutil.h"

static int row_no;

void tt_sample_open(rescue_buf *b, const char *id, const char *head) {
  rescue_buf_puts(b, "{\"sample_id\": ");
  rescue_jwrite_string(b, id, strlen(id));
  if (head && *head) {
    rescue_buf_puts(b, ", ");
    rescue_buf_puts(b, head);
  }
  rescue_buf_puts(b, ", \"rows\": [");
  row_no = 0;
}

void tt_row(rescue_buf *b, const char *speaker, const char *targets, const char *dialogue,
            const char *extra) {
  double st = 2.0 * row_no;
  if (row_no++)
    rescue_buf_puts(b, ", ");
  rescue_buf_printf(b,
                    "{\"start_time\": %.1f, \"end_time\": %.1f, \"primary_speaker\": %s, "
                    "\"target\": %s, \"dialogue_cleaned\": ",
                    st, st + 1.5, speaker, targets);
  rescue_jwrite_string(b, dialogue, strlen(dialogue));
  if (extra && *extra) {
    rescue_buf_puts(b, ", ");
    rescue_buf_puts(b, extra);
  }
  rescue_buf_putc(b, '}');
}

void tt_sample_close(rescue_buf *b) { rescue_buf_puts(b, "]}\n"); }

char *tt_corpus(const char *jsonl) {
  char *db = tu_new_corpus();
  char in[4096];
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_import_opts io = {0};
  rescue_import_result ir;
  const char *paths[1];
  snprintf(in, sizeof in, "%s.in.jsonl", db);
  tu_write(in, jsonl);
  io.format = RESCUE_FMT_JSONL;
  ck_assert_msg(rescue_store_open(&st, db, 0, &err) == 0, "open: %s", err.msg);
  paths[0] = in;
  ck_assert_msg(rescue_import(st, paths, 1, &io, &ir) == 0, "import: %s", rescue_store_errmsg(st));
  rescue_store_close(&st);
  return db;
}

char *tt_export(const char *db, const rescue_tasks_opts *opts, rescue_tasks_result *res) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_tasks_opts o;
  rescue_tasks_result dummy;
  char *dir = tu_tmpdir(), *out = malloc(strlen(dir) + 8);
  sprintf(out, "%s/out", dir);
  free(dir);
  if (opts)
    o = *opts;
  else
    rescue_tasks_opts_init(&o);
  ck_assert_msg(rescue_store_open(&st, db, RESCUE_OPEN_READONLY, &err) == 0, "open: %s", err.msg);
  ck_assert_msg(rescue_export_tasks(st, out, &o, res ? res : &dummy) == 0, "export: %s",
                rescue_store_errmsg(st));
  rescue_store_close(&st);
  return out;
}

json_t *tt_jsonl(const char *path) {
  json_t *arr = json_array();
  size_t len;
  char *text = tu_read(path, &len), *p, *nl;
  long line = 0;
  ck_assert_msg(text != NULL, "cannot read %s", path);
  for (p = text; *p; p = nl + 1) {
    json_error_t je;
    json_t *v;
    nl = strchr(p, '\n');
    ck_assert_msg(nl != NULL, "%s: last line has no newline", path);
    line++;
    v = json_loadb(p, (size_t)(nl - p), 0, &je);
    ck_assert_msg(v != NULL, "%s:%ld: %s", path, line, je.text);
    json_array_append_new(arr, v);
  }
  free(text);
  return arr;
}

json_t *tt_find(json_t *records, const char *key, const char *value) {
  size_t i;
  json_t *r;
  json_array_foreach(records, i, r) {
    json_t *v = json_object_get(r, key);
    if (v && json_is_string(v) && strcmp(json_string_value(v), value) == 0)
      return r;
  }
  return NULL;
}

const char *tt_str(json_t *o, const char *key) {
  json_t *v = json_object_get(o, key);
  ck_assert_msg(v && json_is_string(v), "no string member '%s'", key);
  return json_string_value(v);
}

long long tt_int(json_t *o, const char *key) {
  json_t *v = json_object_get(o, key);
  ck_assert_msg(v && json_is_integer(v), "no integer member '%s'", key);
  return (long long)json_integer_value(v);
}

/* The lines of a file that contain needle, concatenated (caller frees). */
char *tt_lines_with(const char *path, const char *needle) {
  size_t len;
  char *text = tu_read(path, &len), *p, *nl, *out = calloc(len + 1, 1);
  size_t n = 0;
  ck_assert_ptr_nonnull(text);
  for (p = text; *p; p = nl + 1) {
    nl = strchr(p, '\n');
    ck_assert_ptr_nonnull(nl);
    *nl = 0;
    if (strstr(p, needle)) {
      memcpy(out + n, p, (size_t)(nl - p));
      n += (size_t)(nl - p);
      out[n++] = '\n';
    }
  }
  free(text);
  return out;
}
