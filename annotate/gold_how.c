/*
** gold_how.c: how a gold version was decided, read from the provenance of its values
** (gold_provenance, written by adjudication and curation), and whose row set a gold row
** set was chosen from. The dataset card counts gold through these (export/provenance.c).
*/
#include <stdio.h>
#include <string.h>

#include "rescue_curate.h"
#include "store_int.h"

int rescue_gold_how_of(rescue_store *st, int64_t version_id, rescue_gold_how *how) {
  sqlite3_stmt *q = rescue_store_stmt(st, "gold_how_of");
  int rc;
  memset(how, 0, sizeof *how);
  if (!q)
    return rescue_store_err(st)->code;
  rescue_bind_int(q, ":version_id", version_id);
  if ((rc = sqlite3_step(q)) == SQLITE_ROW && sqlite3_column_int64(q, 0) > 0) {
    if (sqlite3_column_int64(q, 1) > 0) {
      how->by = RESCUE_GOLD_BY_LEAD;
      how->lead_id = sqlite3_column_int64(q, 2);
    } else if (sqlite3_column_int64(q, 3) > 0) {
      const unsigned char *p = sqlite3_column_text(q, 4);
      how->by = RESCUE_GOLD_BY_POLICY;
      snprintf(how->policy, sizeof how->policy, "%s", p ? (const char *)p : "");
      how->lead_id = sqlite3_column_int64(q, 5);
    } else {
      how->by = RESCUE_GOLD_AGREED;
    }
  }
  sqlite3_reset(q);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "reading a gold version's provenance");
  return 0;
}

int rescue_gold_segmenter(rescue_store *st, int64_t rowset_id, int64_t *segmenter) {
  sqlite3_stmt *q = rescue_store_stmt(st, "gold_segmenter");
  int rc, gold = 0;
  *segmenter = 0;
  if (!q)
    return rescue_store_err(st)->code;
  rescue_bind_int(q, ":rowset_id", rowset_id);
  if ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    gold = sqlite3_column_int(q, 0);
    *segmenter = sqlite3_column_int64(q, 1);
  }
  sqlite3_reset(q);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "reading a row set");
  return gold;
}
