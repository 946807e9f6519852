/*
** store.c: opening, creating and migrating a corpus; the named-statement cache;
** transactions; annotators; views and the sample iterator.
*/
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "rescue_alloc.h"
#include "rescue_edit.h"
#include "rescue_output.h"
#include "rescue_store.h"
#include "rescue_version.h"
#include "store_int.h"

extern const unsigned char rescue_sql_store[];
extern const size_t rescue_sql_store_len;
extern const unsigned char rescue_sql_queries[];
extern const size_t rescue_sql_queries_len;

/* How long a writer waits for another writer before "corpus busy". */
#define BUSY_TIMEOUT_MS 10000

#define STMT_CACHE 64

typedef struct named_stmt {
  const char *name; /* points into the embedded queries text copy */
  const char *sql;
  sqlite3_stmt *stmt; /* prepared on first use */
} named_stmt;

struct rescue_store {
  sqlite3 *db;
  char *path;
  rescue_error err;
  rescue_scheme *scheme;
  char *queries; /* owned copy of queries.sql, cut into named pieces */
  named_stmt *stmts;
  int n_stmts;
  int in_txn;
  int depth;                   /* open transactions: 1 the outer one, more for nested savepoints */
  int broken;                  /* SQLite rolled the outer transaction back under a nested one */
  int reading;                 /* a read transaction is open (rescue_store_read_begin) */
  sqlite3_stmt *spare_samples; /* view_samples, prepared, kept by the last iterator freed */
  char *audit_command, *audit_os_user; /* rescue_store_set_audit; NULL: none set */
  int log_fd; /* the write-ahead log, open for rescue_store_sync once deferred (else -1) */
  const char *cache_name[STMT_CACHE]; /* name literal last looked up in this slot */
  int cache_idx[STMT_CACHE];
  sqlite3_stmt *txn[5]; /* txn_sql's statements, prepared on first use */
};

const char *rescue_store_errmsg(const rescue_store *st) { return st->err.msg; }

void rescue_store_busy_timeout(rescue_store *st, int ms) {
  sqlite3_busy_timeout(st->db, ms > 0 ? ms : BUSY_TIMEOUT_MS);
}
/* rescue_store_never_wait's busy handler: note the wait and do not wait. */
static int note_wait(void *flag, int tries) {
  (void)tries;
  *(int *)flag = 1;
  return 0;
}

void rescue_store_never_wait(rescue_store *st, int *would_wait) {
  sqlite3_busy_handler(st->db, note_wait, would_wait);
}
rescue_error *rescue_store_err(rescue_store *st) { return &st->err; }
const char *rescue_store_path(const rescue_store *st) { return st->path; }
const rescue_scheme *rescue_store_scheme(const rescue_store *st) { return st->scheme; }
sqlite3 *rescue_store_db(rescue_store *st) { return st->db; }

int rescue_store_set_audit(rescue_store *st, const rescue_audit_context *ctx) {
  char *cmd = ctx && ctx->command ? rescue_strdup(ctx->command) : NULL;
  char *user = ctx && ctx->os_user ? rescue_strdup(ctx->os_user) : NULL;
  if ((ctx && ctx->command && !cmd) || (ctx && ctx->os_user && !user)) {
    rescue_free(cmd);
    rescue_free(user);
    return rescue_seterr(&st->err, RESCUE_ENOMEM, NULL);
  }
  rescue_free(st->audit_command);
  rescue_free(st->audit_os_user);
  st->audit_command = cmd;
  st->audit_os_user = user;
  return 0;
}

const char *rescue_store_audit_command(const rescue_store *st, const char **os_user) {
  if (os_user)
    *os_user = st->audit_os_user;
  return st->audit_command;
}

/* The calendar part is formatted once per second: imports stamp every row version. */
void rescue_now_iso(char out[32]) {
  static _Thread_local time_t last_sec = -1;
  static _Thread_local char last[20];
  struct timeval tv;
  int ms;
  gettimeofday(&tv, NULL);
  if (tv.tv_sec != last_sec) {
    struct tm tm;
    gmtime_r(&tv.tv_sec, &tm);
    strftime(last, sizeof last, "%Y-%m-%dT%H:%M:%S", &tm);
    last_sec = tv.tv_sec;
  }
  ms = (int)(tv.tv_usec / 1000) % 1000;
  memcpy(out, last, 19);
  out[19] = '.';
  out[20] = (char)('0' + ms / 100);
  out[21] = (char)('0' + ms / 10 % 10);
  out[22] = (char)('0' + ms % 10);
  out[23] = 'Z';
  out[24] = 0;
}

/* rescue_store_sqlerr for an extended SQLite code `ec` already taken from the handle. */
static int rescue_store_sqlerr_code(rescue_store *st, int ec, const char *what) {
  if ((ec & 0xff) == SQLITE_BUSY || (ec & 0xff) == SQLITE_LOCKED)
    return rescue_seterr(&st->err, RESCUE_EBUSY,
                         "corpus busy: another writer held it for more than %d s; try again",
                         BUSY_TIMEOUT_MS / 1000);
  return rescue_seterr(&st->err, RESCUE_ESQL, "%s: %s", what, sqlite3_errstr(ec));
}

int rescue_store_sqlerr(rescue_store *st, const char *what) {
  int ec = sqlite3_extended_errcode(st->db);
  if ((ec & 0xff) == SQLITE_BUSY || (ec & 0xff) == SQLITE_LOCKED)
    return rescue_store_sqlerr_code(st, ec, what);
  return rescue_seterr(&st->err, RESCUE_ESQL, "%s: %s", what, sqlite3_errmsg(st->db));
}

/* ---- named statements ---- */

/* Cut the embedded queries text into (name, sql) pieces at "-- name: " lines. */
static int load_queries(rescue_store *st) {
  char *p, *line;
  int cap = 0;
  st->queries = rescue_strndup((const char *)rescue_sql_queries, rescue_sql_queries_len);
  if (!st->queries)
    return RESCUE_ENOMEM;
  p = st->queries;
  while ((line = strstr(p, "-- name: ")) != NULL) {
    char *name = line + 9, *eol = strchr(name, '\n');
    if (!eol)
      break;
    *eol = 0;
    if (line != st->queries)
      line[-1] = 0; /* ends the previous statement's SQL */
    if (RESCUE_ALLOC_GROW(st->stmts, st->n_stmts + 1, cap))
      return RESCUE_ENOMEM;
    st->stmts[st->n_stmts].name = name;
    st->stmts[st->n_stmts].sql = eol + 1;
    st->stmts[st->n_stmts].stmt = NULL;
    st->n_stmts++;
    p = eol + 1;
  }
  return 0;
}

/*
** Statement names are string literals, so the hot paths (one lookup per inserted row)
** first try the slot this exact pointer used last time before comparing names.
*/
sqlite3_stmt *rescue_store_stmt(rescue_store *st, const char *name) {
  int i;
  unsigned h = (unsigned)(((uintptr_t)name >> 3) & (STMT_CACHE - 1));
  named_stmt *ns = NULL;
  if (st->cache_name[h] == name) {
    ns = &st->stmts[st->cache_idx[h]];
  } else {
    for (i = 0; i < st->n_stmts; i++)
      if (strcmp(st->stmts[i].name, name) == 0)
        break;
    if (i == st->n_stmts) {
      rescue_seterr(&st->err, RESCUE_EINTERNAL, "no statement named '%s'", name);
      return NULL;
    }
    st->cache_name[h] = name;
    st->cache_idx[h] = i;
    ns = &st->stmts[i];
  }
  if (!ns->stmt) {
    if (sqlite3_prepare_v3(st->db, ns->sql, -1, SQLITE_PREPARE_PERSISTENT, &ns->stmt, NULL) !=
        SQLITE_OK) {
      rescue_seterr(&st->err, RESCUE_ESQL, "preparing '%s': %s", ns->name, sqlite3_errmsg(st->db));
      return NULL;
    }
  } else {
    sqlite3_reset(ns->stmt);
    sqlite3_clear_bindings(ns->stmt);
  }
  return ns->stmt;
}

/*
** Parameter index by name. sqlite3_bind_parameter_index compares against every name of
** the statement; a small cache keyed by (statement, name literal) makes binding a
** row's dozen parameters cheap. A cached index is trusted only while the generation
** it was stored under is current: every finalize of a statement that was ever bound
** through rescue_bind_* (a store's close, an iterator's free) bumps the generation,
** because a statement prepared later may get the same address.
*/
#define PARAM_CACHE 1024
static _Thread_local struct {
  const sqlite3_stmt *stmt;
  const char *name;
  unsigned gen;
  int idx;
} param_cache[PARAM_CACHE];
/* Bumped whenever a bound statement is finalized (see above). */
static atomic_uint param_gen = 1;

static int param(sqlite3_stmt *s, const char *name) {
  unsigned h = (unsigned)((((uintptr_t)s >> 4) * 31u + ((uintptr_t)name >> 2)) & (PARAM_CACHE - 1));
  int i;
  unsigned gen = atomic_load(&param_gen);
  if (param_cache[h].stmt == s && param_cache[h].name == name && param_cache[h].gen == gen)
    return param_cache[h].idx;
  i = sqlite3_bind_parameter_index(s, name);
  if (i == 0) {
    fprintf(stderr, "rescue: internal: statement has no parameter %s: %s\n", name, sqlite3_sql(s));
    abort();
  }
  param_cache[h].stmt = s;
  param_cache[h].name = name;
  param_cache[h].idx = i;
  param_cache[h].gen = gen;
  return i;
}

void rescue_bind_int(sqlite3_stmt *s, const char *name, int64_t v) {
  sqlite3_bind_int64(s, param(s, name), v);
}
void rescue_bind_double(sqlite3_stmt *s, const char *name, double v) {
  sqlite3_bind_double(s, param(s, name), v);
}
void rescue_bind_text(sqlite3_stmt *s, const char *name, const char *v, int len) {
  if (v)
    sqlite3_bind_text(s, param(s, name), v, len, SQLITE_STATIC);
  else
    sqlite3_bind_null(s, param(s, name));
}
void rescue_bind_null(sqlite3_stmt *s, const char *name) { sqlite3_bind_null(s, param(s, name)); }

/* ---- transactions ---- */

/*
** The statements that open and close transactions, prepared once per handle: a server
** runs one or two of them per request, and sqlite3_exec would parse each again.
*/
enum { TXN_READ, TXN_WRITE, TXN_COMMIT, TXN_SAVEPOINT, TXN_RELEASE };
static const char *const txn_sql[] = {"BEGIN DEFERRED", "BEGIN IMMEDIATE", "COMMIT",
                                      "SAVEPOINT rescue_nested", "RELEASE rescue_nested"};

/* Run txn_sql[k]; SQLITE_OK or SQLite's error code (its message in sqlite3_errmsg). */
static int txn_exec(rescue_store *st, int k) {
  int rc;
  if (!st->txn[k] && (rc = sqlite3_prepare_v3(st->db, txn_sql[k], -1, SQLITE_PREPARE_PERSISTENT,
                                              &st->txn[k], NULL)) != SQLITE_OK)
    return rc;
  rc = sqlite3_step(st->txn[k]);
  sqlite3_reset(st->txn[k]);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/*
** A transaction nests as a savepoint inside an open one (rescue_store_group_begin): its
** commit releases the savepoint, its rollback undoes only what it wrote. When SQLite
** rolled the whole transaction back under a nested one (a full disk), the handle is
** marked broken and the outer commit fails, so no write of the group is reported stored.
*/
int rescue_store_read_begin(rescue_store *st) {
  if (st->reading || st->depth > 0)
    return 0;
  /* deferred: the snapshot is taken by the first read, which never waits on a writer in
     WAL mode */
  if (txn_exec(st, TXN_READ) != SQLITE_OK)
    return rescue_store_sqlerr(st, "starting a read");
  st->reading = 1;
  return 0;
}

void rescue_store_read_end(rescue_store *st) {
  if (!st->reading)
    return;
  st->reading = 0;
  if (!sqlite3_get_autocommit(st->db))
    txn_exec(st, TXN_COMMIT);
}

int rescue_store_begin(rescue_store *st) {
  rescue_store_read_end(st); /* a write starts from the latest store */
  if (st->depth > 0) {
    if (sqlite3_get_autocommit(st->db)) {
      st->broken = 1;
      return rescue_seterr(&st->err, RESCUE_EIO, "the open transaction was rolled back");
    }
    if (txn_exec(st, TXN_SAVEPOINT) != SQLITE_OK)
      return rescue_store_sqlerr(st, "starting a write");
    st->depth++;
    return 0;
  }
  if (txn_exec(st, TXN_WRITE) != SQLITE_OK)
    return rescue_store_sqlerr(st, "starting a write");
  st->in_txn = 1;
  st->depth = 1;
  st->broken = 0;
  return 0;
}

int rescue_store_commit(rescue_store *st) {
  if (st->depth > 1) {
    if (sqlite3_get_autocommit(st->db) || txn_exec(st, TXN_RELEASE) != SQLITE_OK) {
      int rc = rescue_store_sqlerr(st, "committing");
      st->broken = 1;
      st->depth--;
      return rc ? rc : RESCUE_EIO;
    }
    st->depth--;
    return 0;
  }
  if (st->broken) {
    rescue_store_rollback(st);
    return rescue_seterr(&st->err, RESCUE_EIO,
                         "a write of this transaction failed and SQLite rolled it back");
  }
  if (txn_exec(st, TXN_COMMIT) != SQLITE_OK) {
    int rc = rescue_store_sqlerr(st, "committing");
    rescue_store_rollback(st);
    return rc;
  }
  st->in_txn = 0;
  st->depth = 0;
  return 0;
}

void rescue_store_rollback(rescue_store *st) {
  if (st->depth > 1) {
    if (sqlite3_get_autocommit(st->db) ||
        sqlite3_exec(st->db, "ROLLBACK TO rescue_nested; RELEASE rescue_nested", NULL, NULL,
                     NULL) != SQLITE_OK)
      st->broken = 1;
    st->depth--;
    return;
  }
  if (sqlite3_get_autocommit(st->db) == 0)
    sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
  st->in_txn = 0;
  st->depth = 0;
}

int rescue_store_group_begin(rescue_store *st) { return rescue_store_begin(st); }

int rescue_store_group_commit(rescue_store *st) { return rescue_store_commit(st); }

static int exec_sql(rescue_store *st, const char *sql, const char *what);

/*
** A commit in WAL mode with synchronous = NORMAL writes its frames to the log and
** returns; fdatasync of the log then makes them durable, as synchronous = FULL would
** have inside the commit. The log is the same file for as long as any connection is
** open (SQLite removes it only when the last one closes, and changing the journal mode
** needs the corpus to itself), and frames a checkpoint moved into the database file
** were synced there by the checkpoint before the log could start over.
*/
int rescue_store_defer_sync(rescue_store *st) {
  rescue_buf wal = RESCUE_BUF_INIT;
  int fd;
  rescue_buf_printf(&wal, "%s-wal", st->path);
  if (!rescue_buf_ok(&wal))
    return rescue_seterr(&st->err, RESCUE_ENOMEM, NULL);
  fd = open(wal.s, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    rescue_seterr(&st->err, RESCUE_EIO, "%s: %s", wal.s, strerror(errno));
    rescue_buf_clear(&wal);
    return RESCUE_EIO;
  }
  rescue_buf_clear(&wal);
  if (exec_sql(st, "PRAGMA synchronous = NORMAL", "configuring")) {
    close(fd);
    return st->err.code;
  }
  st->log_fd = fd;
  return 0;
}

int rescue_store_sync(const rescue_store *st) {
  if (st->log_fd >= 0 && fdatasync(st->log_fd) != 0)
    return RESCUE_EIO;
  return 0;
}

void rescue_store_group_rollback(rescue_store *st) {
  st->depth = st->depth > 0 ? 1 : 0;
  rescue_store_rollback(st);
}

/* Run a PRAGMA that returns the journal mode; 1 when the result equals want. */
static int journal_mode(rescue_store *st, const char *sql, const char *want) {
  sqlite3_stmt *s = NULL;
  int ok = 0;
  if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
    ok = strcmp((const char *)sqlite3_column_text(s, 0), want) == 0;
  sqlite3_finalize(s);
  return ok;
}

void rescue_store_bulk_begin(rescue_store *st, int *bulk) {
  *bulk = 0;
  /* Leaving WAL needs every other connection gone: ask once, without waiting. */
  sqlite3_busy_timeout(st->db, 0);
  *bulk = journal_mode(st, "PRAGMA journal_mode = DELETE", "delete");
  sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
  if (!*bulk)
    return;
  /*
  ** Drop our page cache. Pages this connection read in WAL mode before another process
  ** committed (in WAL mode) survive the switch: the checkpoint the switch makes leaves the
  ** file change counter, by which a rollback-journal connection trusts its cache, as it
  ** was, so the next write would be built on the stale pages and overwrite that commit.
  */
  sqlite3_db_release_memory(st->db);
}

/*
** Put the corpus in WAL mode (from the rollback journal a bulk import, or one that was
** killed, leaves). The switch needs the file to ourselves; while another process's bulk
** import holds it, SQLite refuses the switch at once (deadlock avoidance) instead of
** calling the busy handler, so retry until the busy timeout has passed.
*/
static int ensure_wal(rescue_store *st) {
  struct timespec t0, now;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(st->db, "PRAGMA journal_mode = WAL", -1, &s, NULL), ec;
    if (rc == SQLITE_OK)
      rc = sqlite3_step(s);
    ec = rc == SQLITE_ROW ? SQLITE_OK : sqlite3_extended_errcode(st->db);
    sqlite3_finalize(s);
    if (rc == SQLITE_ROW)
      return 0;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (((ec & 0xff) != SQLITE_BUSY && (ec & 0xff) != SQLITE_LOCKED) ||
        (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 >= BUSY_TIMEOUT_MS)
      return rescue_store_sqlerr_code(st, ec, "enabling WAL");
    usleep(20000);
  }
}

void rescue_store_bulk_end(rescue_store *st, int bulk) {
  if (!bulk)
    return;
  ensure_wal(st); /* on failure the next writer's open switches */
}

/* ---- migrations ---- */

static int exec_sql(rescue_store *st, const char *sql, const char *what) {
  char *msg = NULL;
  if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
    int ec = sqlite3_errcode(st->db), rc;
    /* another writer held the corpus past the busy timeout: say so, never "locked" */
    if (ec == SQLITE_BUSY || ec == SQLITE_LOCKED)
      rc = rescue_store_sqlerr(st, what);
    else
      rc = rescue_seterr(&st->err, RESCUE_ESQL, "%s: %s", what, msg ? msg : "failed");
    sqlite3_free(msg);
    return rc;
  }
  return 0;
}

static int user_version(rescue_store *st, int *v) {
  sqlite3_stmt *s = NULL;
  int rc = 0;
  if (sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &s, NULL) != SQLITE_OK ||
      sqlite3_step(s) != SQLITE_ROW)
    rc = rescue_store_sqlerr(st, "reading the schema version");
  else
    *v = sqlite3_column_int(s, 0);
  sqlite3_finalize(s);
  return rc;
}

/* Highest migration number in store.sql. */
static int latest_migration(void) {
  const char *p = (const char *)rescue_sql_store;
  int n = 0;
  while ((p = strstr(p, "-- @migration ")) != NULL) {
    int v = atoi(p + 14);
    if (v > n)
      n = v;
    p += 14;
  }
  return n;
}

/*
** Run every migration above the store's user_version, each in its own transaction
** that also sets user_version, so a crash leaves a consistent version.
*/
static int migrate(rescue_store *st) {
  const char *text = (const char *)rescue_sql_store, *p = text;
  int have = 0, rc;
  if ((rc = user_version(st, &have)))
    return rc;
  if (have > latest_migration())
    return rescue_seterr(&st->err, RESCUE_EVERSION,
                         "%s: corpus schema version %d is newer than this rescue knows (%d); "
                         "upgrade rescue",
                         st->path, have, latest_migration());
  while ((p = strstr(p, "-- @migration ")) != NULL) {
    int n = atoi(p + 14);
    const char *body = strchr(p, '\n'), *next;
    char *sql, pragma[64];
    if (!body)
      break;
    next = strstr(body, "-- @migration ");
    if (n > have) {
      size_t len = next ? (size_t)(next - body) : strlen(body);
      sql = rescue_strndup(body, len);
      if (!sql)
        return rescue_seterr(&st->err, RESCUE_ENOMEM, NULL);
      rc = rescue_store_begin(st);
      if (!rc)
        rc = exec_sql(st, sql, "migrating the corpus schema");
      rescue_free(sql);
      snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", n);
      if (!rc)
        rc = exec_sql(st, pragma, "setting the schema version");
      if (!rc)
        rc = rescue_store_commit(st);
      else
        rescue_store_rollback(st);
      if (rc)
        return rc;
    }
    p = next ? next : body + strlen(body);
  }
  return 0;
}

/* ---- open / create ---- */

/*
** WAL (unless read-only), foreign keys, and synchronous FULL when durable (else NORMAL).
** Durable handles (a server's) keep temporary data in memory: each save of a group commit
** nests as a savepoint, whose journal then grows in small pieces instead of taking a fresh
** spill buffer every time.
*/
static int configure(rescue_store *st, int readonly, int durable) {
  if (!readonly && ensure_wal(st))
    return st->err.code;
  if (exec_sql(
          st,
          durable
              ? "PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL; PRAGMA temp_store = MEMORY"
              : "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL",
          "configuring"))
    return st->err.code;
  return 0;
}

static int load_scheme(rescue_store *st) {
  sqlite3_stmt *s = rescue_store_stmt(st, "meta_get");
  int rc;
  if (!s)
    return st->err.code;
  rescue_bind_text(s, ":key", "scheme", -1);
  rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) {
    const char *xml = (const char *)sqlite3_column_text(s, 0);
    int n = sqlite3_column_bytes(s, 0);
    rc = rescue_scheme_load(xml, (size_t)n, &st->scheme, &st->err);
    if (rc)
      rescue_err_prefix(&st->err, "%s: stored scheme", st->path);
  } else if (rc == SQLITE_DONE) {
    size_t n;
    const char *xml = rescue_scheme_default_xml(&n);
    rc = rescue_scheme_load(xml, n, &st->scheme, &st->err);
  } else {
    rc = rescue_store_sqlerr(st, "reading the scheme");
  }
  sqlite3_reset(s);
  return rc;
}

static void store_free(rescue_store *st) {
  int i;
  if (!st)
    return;
  atomic_fetch_add(&param_gen, 1);
  sqlite3_finalize(st->spare_samples);
  for (i = 0; i < (int)(sizeof st->txn / sizeof st->txn[0]); i++)
    sqlite3_finalize(st->txn[i]);
  for (i = 0; i < st->n_stmts; i++)
    sqlite3_finalize(st->stmts[i].stmt);
  rescue_free(st->stmts);
  rescue_free(st->queries);
  if (st->db)
    sqlite3_close_v2(st->db);
  if (st->log_fd >= 0)
    close(st->log_fd);
  rescue_scheme_free(&st->scheme);
  rescue_free(st->path);
  rescue_free(st->audit_command);
  rescue_free(st->audit_os_user);
  rescue_free(st);
}

void rescue_store_close(rescue_store **st) {
  if (!st || !*st)
    return;
  if ((*st)->in_txn)
    rescue_store_group_rollback(*st);
  store_free(*st);
  *st = NULL;
}

static rescue_store *store_alloc(const char *path) {
  rescue_store *st = rescue_calloc(1, sizeof *st);
  if (!st)
    return NULL;
  st->log_fd = -1;
  st->path = rescue_strdup(path);
  if (!st->path || load_queries(st)) {
    store_free(st);
    return NULL;
  }
  return st;
}

/* Read the application id: SQLITE_ROW with *id set, else the extended SQLite error. */
static int read_application_id(sqlite3 *db, int *id) {
  sqlite3_stmt *s = NULL;
  int rc = sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &s, NULL);
  if (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW)
    *id = sqlite3_column_int(s, 0);
  else if ((rc = sqlite3_extended_errcode(db)) == SQLITE_OK)
    rc = SQLITE_ERROR;
  sqlite3_finalize(s);
  return rc;
}

/*
** A writer killed mid-transaction under a rollback journal (a bulk import) leaves a hot
** journal that only a connection allowed to write can roll back. Do that once through a
** connection of our own, and put the corpus back in WAL mode. 0, or the SQLite code.
*/
static int recover_hot_journal(const char *path) {
  sqlite3 *db = NULL;
  int id = 0, rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
    sqlite3_extended_result_codes(db, 1);
    if (sqlite3_db_readonly(db, "main") == 1)
      rc = SQLITE_READONLY;
    else if ((rc = read_application_id(db, &id)) == SQLITE_ROW) { /* the read rolls back */
      rc = SQLITE_OK;
      /* best effort: a bulk import had left WAL; a writer's next open sets it anyway */
      sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
    }
  }
  sqlite3_close_v2(db);
  return rc;
}

static int check_application_id(rescue_store *st) {
  int id = -1, rc = read_application_id(st->db, &id);
  if (rc == SQLITE_READONLY_ROLLBACK) {
    int r = recover_hot_journal(st->path);
    if (r != SQLITE_OK && (r & 0xff) != SQLITE_BUSY)
      return rescue_seterr(&st->err, RESCUE_EIO,
                           "'%s' holds a write that an interrupted command left unfinished; "
                           "it is rolled back by the next command that may write to the "
                           "corpus (%s)",
                           st->path, sqlite3_errstr(r));
    if (r == SQLITE_OK)
      rc = read_application_id(st->db, &id);
    else
      rc = r;
  }
  if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)
    return rescue_store_sqlerr(st, "opening the corpus");
  if (rc == SQLITE_ROW && id == RESCUE_APPLICATION_ID)
    return 0;
  if (rc == SQLITE_ROW || (rc & 0xff) == SQLITE_NOTADB)
    return rescue_seterr(&st->err, RESCUE_ENOTCORPUS, "'%s' is not a rescue corpus", st->path);
  return rescue_seterr(&st->err, RESCUE_EIO, "cannot read '%s': %s", st->path,
                       sqlite3_errmsg(st->db));
}

/*
** 1 when the file at path is in WAL mode (its header's read and write versions are 2): a
** live corpus, which must never be opened immutable (its latest commits may be in -wal).
*/
static int is_wal_file(const char *path) {
  unsigned char h[20];
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(h, 1, sizeof h, f) : 0;
  if (f)
    fclose(f);
  return n == sizeof h && h[18] == 2 && h[19] == 2;
}

/*
** "file:<path>?immutable=1" for a snapshot, with the characters a URI path cannot hold
** as they are (%, ?, #) escaped; a relative path stays relative. A new string, or NULL.
*/
static char *snapshot_uri(const char *path) {
  rescue_buf b = RESCUE_BUF_INIT;
  const char *p;
  rescue_buf_puts(&b, "file:");
  for (p = path; *p; p++) {
    if (*p == '%' || *p == '?' || *p == '#')
      rescue_buf_printf(&b, "%%%02X", (unsigned char)*p);
    else
      rescue_buf_putc(&b, *p);
  }
  rescue_buf_puts(&b, "?immutable=1");
  return rescue_buf_ok(&b) ? rescue_buf_detach(&b) : (rescue_buf_clear(&b), NULL);
}

int rescue_store_open(rescue_store **out, const char *path, int flags, rescue_error *err) {
  rescue_store *st;
  struct stat sb;
  int snapshot = (flags & RESCUE_OPEN_SNAPSHOT) != 0, rc;
  int readonly = snapshot || (flags & RESCUE_OPEN_READONLY) != 0;
  char *uri = NULL;

  *out = NULL;
  if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
    return rescue_seterr(err, RESCUE_ENOTCORPUS, "'%s' is not a rescue corpus", path);
  st = store_alloc(path);
  if (!st)
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  /* a snapshot: immutable, so no lock, -wal or -shm is needed (rescue_store_backup says why) */
  if (snapshot && !is_wal_file(path) && !(uri = snapshot_uri(path))) {
    rc = rescue_seterr(&st->err, RESCUE_ENOMEM, NULL);
    goto fail;
  }
  rc = sqlite3_open_v2(uri ? uri : path, &st->db,
                       (readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) |
                           SQLITE_OPEN_NOMUTEX | (uri ? SQLITE_OPEN_URI : 0),
                       NULL);
  rescue_free(uri);
  if (rc != SQLITE_OK) {
    rc = rescue_seterr(&st->err, RESCUE_ENOTCORPUS, "cannot open '%s': %s", path,
                       st->db ? sqlite3_errmsg(st->db) : "out of memory");
    goto fail;
  }
  /* wait for a writer from the first statement on (a bulk import holds the file) */
  sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
  sqlite3_extended_result_codes(st->db, 1);
  if ((rc = check_application_id(st)))
    goto fail;
  /* SQLite quietly opens an unwritable file read-only: refuse before any work is done */
  if (!readonly && sqlite3_db_readonly(st->db, "main") == 1) {
    rc = rescue_seterr(&st->err, RESCUE_EIO,
                       "cannot write to '%s': the file is read-only (commands that only read "
                       "it, such as export and stats, still work)",
                       path);
    goto fail;
  }
  if ((rc = configure(st, readonly, (flags & RESCUE_OPEN_DURABLE) != 0)))
    goto fail;
  if (!readonly && (rc = migrate(st)))
    goto fail;
  if ((rc = load_scheme(st)))
    goto fail;
  *out = st;
  return 0;
fail:
  if (err)
    *err = st->err;
  store_free(st);
  return rc;
}

int rescue_store_create(const char *path, const char *scheme_xml, size_t scheme_len,
                        rescue_error *err) {
  rescue_store *st = NULL;
  rescue_scheme *check = NULL;
  sqlite3_stmt *s;
  char now[32], pragma[64];
  int fd, rc;

  if (!scheme_xml)
    scheme_xml = rescue_scheme_default_xml(&scheme_len);
  if ((rc = rescue_scheme_load(scheme_xml, scheme_len, &check, err)))
    return rc;
  rescue_scheme_free(&check);

  /* O_EXCL: never touch an existing file, even one created a moment ago. */
  fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) {
    if (errno == EEXIST)
      return rescue_seterr(err, RESCUE_EEXISTS, "'%s' already exists", path);
    return rescue_seterr(err, RESCUE_EIO, "cannot create '%s': %s", path, strerror(errno));
  }
  close(fd);

  st = store_alloc(path);
  if (!st) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto fail;
  }
  if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
      SQLITE_OK) {
    rc = rescue_seterr(&st->err, RESCUE_EIO, "cannot open '%s': %s", path,
                       st->db ? sqlite3_errmsg(st->db) : "out of memory");
    goto fail;
  }
  sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
  sqlite3_extended_result_codes(st->db, 1);
  /*
  ** 8 KiB pages: rows are about 1 KiB of JSON, so 4 KiB pages left a sixth of each page
  ** empty; bulk imports were 10% faster and stores 13% smaller with 8 KiB.
  */
  snprintf(pragma, sizeof pragma, "PRAGMA page_size = 8192; PRAGMA application_id = %d",
           RESCUE_APPLICATION_ID);
  if ((rc = exec_sql(st, pragma, "marking the corpus")) || (rc = configure(st, 0, 0)) ||
      (rc = migrate(st)))
    goto fail;
  rescue_now_iso(now);
  if ((rc = rescue_store_begin(st)))
    goto fail;
  {
    const char *keys[] = {"scheme", "created_at", "created_by"};
    const char *vals[] = {scheme_xml, now, "rescue " RESCUE_VERSION_STRING};
    int lens[] = {(int)scheme_len, -1, -1};
    int i;
    for (i = 0; i < 3; i++) {
      s = rescue_store_stmt(st, "meta_put");
      if (!s) {
        rc = st->err.code;
        break;
      }
      rescue_bind_text(s, ":key", keys[i], -1);
      rescue_bind_text(s, ":value", vals[i], lens[i]);
      if (sqlite3_step(s) != SQLITE_DONE) {
        rc = rescue_store_sqlerr(st, "writing corpus settings");
        break;
      }
    }
  }
  if (rc) {
    rescue_store_rollback(st);
    goto fail;
  }
  if ((rc = rescue_store_commit(st)))
    goto fail;
  store_free(st);
  return 0;
fail:
  if (err && st)
    *err = st->err;
  store_free(st);
  unlink(path);
  {
    char side[4096];
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
  }
  return rc;
}

/* ---- annotators ---- */

/* Names come from the command line and end up in JSON outputs and on terminals. */
const char *rescue_name_unsafe(const char *name) {
  const char *p;
  if (!*name)
    return "is empty";
  if (!rescue_utf8_valid(name, strlen(name)))
    return "is not valid UTF-8";
  for (p = name; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f)
      return "contains a control character";
  return NULL;
}

/*
** The annotator-name rule (rescue_store.h): stricter than rescue_name_unsafe because
** annotator names are also listed comma-separated (--annotators, assignment runs) and
** two names are taken by the pseudo-annotators.
*/
const char *rescue_annotator_name_invalid(const char *name) {
  const unsigned char *p = (const unsigned char *)name;
  size_t n = strlen(name);
  if (!n)
    return "it is empty";
  if (!rescue_utf8_valid(name, n))
    return "it is not valid UTF-8";
  if (n > 64)
    return "it is longer than 64 bytes";
  if (p[0] == ' ' || p[n - 1] == ' ')
    return "it starts or ends with a space";
  for (; *p; p++) {
    if (*p < 0x20 || *p == 0x7f)
      return "it contains a control character";
    if (*p == ',')
      return "it contains a comma (lists of names are comma-separated)";
  }
  if (strcmp(name, RESCUE_ADJUDICATION_ANNOTATOR) == 0)
    return "the name is reserved for adjudicated gold";
  if (strcmp(name, RESCUE_DRAFT_ANNOTATOR) == 0)
    return "the name is reserved for drafts (the annotator of an import that names none)";
  return NULL;
}

int rescue_annotator_id(rescue_store *st, const char *name, const char *role, int create,
                        int64_t *id) {
  sqlite3_stmt *s = rescue_store_stmt(st, "annotator_find");
  const char *why;
  char now[32];
  int rc;
  if (!s)
    return st->err.code;
  rescue_bind_text(s, ":name", name, -1);
  rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) {
    *id = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    return 0;
  }
  sqlite3_reset(s);
  if (rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "looking up an annotator");
  if (!create)
    return rescue_seterr(&st->err, RESCUE_ENOTFOUND, "no annotator named '%s'", name);
  if ((why = rescue_name_unsafe(name)) != NULL)
    return rescue_seterr(&st->err, RESCUE_EINVAL, "the annotator name %s", why);
  s = rescue_store_stmt(st, "annotator_insert");
  if (!s)
    return st->err.code;
  rescue_now_iso(now);
  rescue_bind_text(s, ":name", name, -1);
  rescue_bind_text(s, ":role", role ? role : "annotator", -1);
  rescue_bind_text(s, ":now", now, -1);
  if (sqlite3_step(s) != SQLITE_DONE)
    return rescue_store_sqlerr(st, "adding an annotator");
  *id = sqlite3_last_insert_rowid(st->db);
  return 0;
}

/* Edit distance between a and b, ASCII letters compared without case. */
static int distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b), i, j;
  int *row, d;
  if (la > 64 || lb > 64)
    return 1000;
  row = rescue_malloc((lb + 1) * sizeof *row);
  if (!row)
    return 1000;
  for (j = 0; j <= lb; j++)
    row[j] = (int)j;
  for (i = 1; i <= la; i++) {
    int diag = row[0];
    row[0] = (int)i;
    for (j = 1; j <= lb; j++) {
      char ca = a[i - 1], cb = b[j - 1];
      int up = row[j], best;
      if (ca >= 'A' && ca <= 'Z')
        ca = (char)(ca - 'A' + 'a');
      if (cb >= 'A' && cb <= 'Z')
        cb = (char)(cb - 'A' + 'a');
      best = diag + (ca != cb);
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      if (up + 1 < best)
        best = up + 1;
      diag = up;
      row[j] = best;
    }
  }
  d = row[lb];
  rescue_free(row);
  return d;
}

/*
** The "no annotator" message: up to three registered names nearest to `name` by edit
** distance (all of them when there are three or fewer); RESCUE_ENOANNOTATOR with the name.
*/
static int unknown_annotator(rescue_store *st, const char *name) {
  sqlite3_stmt *s = rescue_store_stmt(st, "annotator_names");
  char best[3][72];
  int dist[3] = {1 << 30, 1 << 30, 1 << 30}, n = 0, rc, i, k;
  rescue_buf msg = RESCUE_BUF_INIT;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_text(s, ":draft", RESCUE_DRAFT_ANNOTATOR, -1);
  rescue_bind_text(s, ":adjudication", RESCUE_ADJUDICATION_ANNOTATOR, -1);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const char *cand = (const char *)sqlite3_column_text(s, 0);
    int d = distance(name, cand);
    n++;
    for (i = 0; i < 3 && dist[i] <= d; i++)
      ;
    if (i == 3)
      continue;
    for (k = 2; k > i; k--) {
      dist[k] = dist[k - 1];
      memcpy(best[k], best[k - 1], sizeof best[k]);
    }
    dist[i] = d;
    snprintf(best[i], sizeof best[i], "%s", cand);
  }
  sqlite3_reset(s);
  if (rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "reading annotators");
  rescue_buf_printf(&msg, "no registered annotator named '%s'", name);
  if (n) {
    rescue_buf_puts(&msg, n > 3 ? " (closest: " : " (registered: ");
    for (i = 0; i < 3 && i < n; i++)
      rescue_buf_printf(&msg, "%s%s", i ? ", " : "", best[i]);
    rescue_buf_putc(&msg, ')');
  } else {
    rescue_buf_puts(&msg, " (none is registered yet)");
  }
  rc = rescue_seterr_arg(rescue_store_err(st), RESCUE_ENOANNOTATOR, name, "%s",
                         rescue_buf_ok(&msg) && msg.s ? msg.s : "no such annotator");
  rescue_buf_clear(&msg);
  return rc;
}

int rescue_annotator_lookup(rescue_store *st, const char *name, int64_t *id, const char **role,
                            int *retired) {
  sqlite3_stmt *s = rescue_store_stmt(st, "annotator_registered");
  int rc;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_text(s, ":name", name, -1);
  rescue_bind_text(s, ":draft", RESCUE_DRAFT_ANNOTATOR, -1);
  rescue_bind_text(s, ":adjudication", RESCUE_ADJUDICATION_ANNOTATOR, -1);
  rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) {
    const char *r = (const char *)sqlite3_column_text(s, 1);
    *id = sqlite3_column_int64(s, 0);
    if (role)
      *role = strcmp(r, "lead") == 0 ? "lead" : strcmp(r, "model") == 0 ? "model" : "annotator";
    if (retired)
      *retired = sqlite3_column_int(s, 2);
  }
  sqlite3_reset(s);
  if (rc == SQLITE_ROW)
    return 0;
  if (rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "looking up an annotator");
  return unknown_annotator(st, name);
}

int rescue_view_parse(rescue_store *st, const char *spec, rescue_view *out) {
  memset(out, 0, sizeof *out); /* base and rowset_id too: callers set only what they need */
  if (!spec || strcmp(spec, "corpus") == 0) {
    out->kind = RESCUE_VIEW_CORPUS;
    return 0;
  }
  if (strcmp(spec, "gold") == 0) {
    out->kind = RESCUE_VIEW_GOLD;
    return 0;
  }
  if (strcmp(spec, "latest") == 0) {
    out->kind = RESCUE_VIEW_LATEST;
    return 0;
  }
  if (strncmp(spec, "annotator:", 10) == 0 && spec[10]) {
    out->kind = RESCUE_VIEW_ANNOTATOR;
    return rescue_annotator_id(st, spec + 10, NULL, 0, &out->annotator_id);
  }
  return rescue_seterr(&st->err, RESCUE_EINVAL,
                       "unknown view '%s' (expected gold, latest or annotator:<name>)", spec);
}

/* ---- the sample iterator ---- */

struct rescue_sample_iter {
  rescue_store *st;
  rescue_view view;
  int64_t *refs; /* restricted set (sorted by sample order), or NULL */
  int n_refs, next_ref;
  sqlite3_stmt *samples; /* our own statement: a nested view_rows runs while it steps */
  rescue_buf text;       /* strings of the current sample */
  rescue_row *rows;
  int cap_rows;
  rescue_sample cur;
  int done;
};

/* Find a sample: 0, RESCUE_ENOTFOUND (no message set), or an SQL error. */
static int sample_lookup(rescue_store *st, const char *sample_id, int64_t *ref, int *n_rows) {
  sqlite3_stmt *s = rescue_store_stmt(st, "sample_find");
  int rc;
  if (!s)
    return st->err.code;
  rescue_bind_text(s, ":sample_id", sample_id, -1);
  rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) {
    if (ref)
      *ref = sqlite3_column_int64(s, 0);
    if (n_rows)
      *n_rows = sqlite3_column_int(s, 2);
  }
  sqlite3_reset(s);
  if (rc == SQLITE_ROW)
    return 0;
  if (rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "looking up a sample");
  return RESCUE_ENOTFOUND;
}

int rescue_sample_ref(rescue_store *st, const char *sample_id, int64_t *ref) {
  int rc = sample_lookup(st, sample_id, ref, NULL);
  if (rc == RESCUE_ENOTFOUND)
    return rescue_seterr(&st->err, RESCUE_ENOTFOUND, "no sample '%s' in the corpus", sample_id);
  return rc;
}

int rescue_sample_rowcount(rescue_store *st, const char *sample_id, int *n_rows) {
  return sample_lookup(st, sample_id, NULL, n_rows);
}

int rescue_store_sample_count(rescue_store *st, long *n) {
  sqlite3_stmt *s = rescue_store_stmt(st, "sample_count");
  if (!s)
    return st->err.code;
  if (sqlite3_step(s) != SQLITE_ROW)
    return rescue_store_sqlerr(st, "counting samples");
  *n = (long)sqlite3_column_int64(s, 0);
  sqlite3_reset(s);
  return 0;
}

static const char *find_named_sql(rescue_store *st, const char *name) {
  int i;
  for (i = 0; i < st->n_stmts; i++)
    if (strcmp(st->stmts[i].name, name) == 0)
      return st->stmts[i].sql;
  return NULL;
}

int rescue_sample_iter_new(rescue_store *st, const rescue_view *view, const char *const *only,
                           int n_only, rescue_sample_iter **out) {
  rescue_sample_iter *it = rescue_calloc(1, sizeof *it);
  int i, rc = 0;
  *out = NULL;
  if (!it)
    return rescue_seterr(&st->err, RESCUE_ENOMEM, NULL);
  it->st = st;
  it->view = *view;
  if (n_only > 0) {
    it->refs = rescue_calloc((size_t)n_only, sizeof *it->refs);
    if (!it->refs) {
      rc = rescue_seterr(&st->err, RESCUE_ENOMEM, NULL);
      goto fail;
    }
    for (i = 0; i < n_only; i++) {
      int j, dup = 0;
      int64_t ref;
      if ((rc = rescue_sample_ref(st, only[i], &ref)))
        goto fail;
      for (j = 0; j < it->n_refs; j++)
        dup |= it->refs[j] == ref;
      if (!dup)
        it->refs[it->n_refs++] = ref;
    }
  }
  /* view_samples is long to prepare: an iterator takes the one the last left, if any */
  if (st->spare_samples) {
    it->samples = st->spare_samples;
    st->spare_samples = NULL;
  } else if (sqlite3_prepare_v2(st->db, find_named_sql(st, "view_samples"), -1, &it->samples,
                                NULL) != SQLITE_OK) {
    rc = rescue_store_sqlerr(st, "reading samples");
    goto fail;
  }
  rescue_bind_int(it->samples, ":view", view->kind);
  rescue_bind_int(it->samples, ":annotator_id", view->annotator_id);
  rescue_bind_text(it->samples, ":draft", RESCUE_DRAFT_ANNOTATOR, -1);
  /* one sample (the review server's case): let SQLite find it instead of scanning all */
  if (it->n_refs == 1)
    rescue_bind_int(it->samples, ":sample_ref", it->refs[0]);
  else
    rescue_bind_null(it->samples, ":sample_ref");
  *out = it;
  return 0;
fail:
  rescue_sample_iter_free(&it);
  return rc;
}

/* Offsets into it->text, turned into pointers once the sample is complete. */
typedef struct row_offsets {
  size_t kind, content, speaker, entities, utt, cycle, pattern, lost;
} row_offsets;

static size_t put_col(rescue_buf *b, sqlite3_stmt *s, int col) {
  size_t off = b->len;
  if (sqlite3_column_type(s, col) == SQLITE_NULL)
    return (size_t)-1;
  rescue_buf_putn(b, sqlite3_column_text(s, col), (size_t)sqlite3_column_bytes(s, col));
  rescue_buf_putc(b, 0);
  return off;
}

static const char *at(rescue_buf *b, size_t off) { return off == (size_t)-1 ? NULL : b->s + off; }

/* The members of a row that are its segmentation, not its labels. */
static int seg_member(const char *key) {
  return strcmp(key, "start_time") == 0 || strcmp(key, "end_time") == 0 ||
         strcmp(key, "primary_speaker") == 0 || strcmp(key, "dialogue_cleaned") == 0;
}

/*
** Append `row` with its numeric row_index written as `position` and each segmentation
** member (seg_member) that `seg` also has written as seg's; the other members as they are.
*/
static void write_segmented(rescue_buf *b, const rescue_jnode *row, const rescue_jnode *seg,
                            int position) {
  const rescue_jnode *c, *d;
  rescue_buf_putc(b, '{');
  for (c = row->child; c; c = c->next) {
    if (c != row->child)
      rescue_buf_putn(b, ", ", 2);
    rescue_jwrite_string(b, c->key, c->keylen);
    rescue_buf_putn(b, ": ", 2);
    if (strcmp(c->key, "row_index") == 0 && c->type == RESCUE_JNUMBER)
      rescue_buf_printf(b, "%d", position);
    else if (seg_member(c->key) && (d = rescue_jget(seg, c->key)))
      rescue_jwrite(b, d);
    else
      rescue_jwrite(b, c);
  }
  rescue_buf_putc(b, '}');
}

/*
** The content of column col for a row at `position` of a row set: verbatim, or, for a
** version written for another position (made, column col + 10: the position its row was
** made at, which a split or merge in another row set moves, or a version carried over a
** resegmentation from another row), with its row_index rewritten to that position. A
** carried version whose row has a draft version of its own (column seg, or -1: that
** version's content) keeps its labels and takes that version's segmentation: a half of a
** split row has the half's times and text, not the parent's.
** Appended NUL-terminated to b like put_col; *len gets the content's length.
*/
static size_t put_content(rescue_buf *b, sqlite3_stmt *s, int col, int seg, int position,
                          size_t *len) {
  int made = sqlite3_column_int(s, col + 10);
  const char *text = (const char *)sqlite3_column_text(s, col);
  const char *stext = seg < 0 ? NULL : (const char *)sqlite3_column_text(s, seg);
  size_t off = b->len, n = (size_t)sqlite3_column_bytes(s, col);
  rescue_jdoc *doc, *sdoc = NULL;
  const rescue_jnode *row, *srow = NULL;
  rescue_jerror je;
  *len = n;
  if (!text || (!stext && (sqlite3_column_type(s, col + 10) == SQLITE_NULL || made == position)))
    return put_col(b, s, col);
  if (!(doc = rescue_jdoc_new()) || (stext && !(sdoc = rescue_jdoc_new()))) {
    rescue_jdoc_free(&doc);
    b->oom = 1;
    return (size_t)-1;
  }
  row = rescue_jparse(doc, text, n, &je);
  if (stext) /* a document holds one tree at a time: its own for the segmentation */
    srow = rescue_jparse(sdoc, stext, (size_t)sqlite3_column_bytes(s, seg), &je);
  if (row && row->type == RESCUE_JOBJECT && srow && srow->type == RESCUE_JOBJECT)
    write_segmented(b, row, srow, position);
  else if (row && row->type == RESCUE_JOBJECT && rescue_jget(row, "row_index"))
    rescue_row_write_like(b, row, row, position);
  else
    rescue_buf_putn(b, text, n);
  rescue_jdoc_free(&doc);
  rescue_jdoc_free(&sdoc);
  *len = b->len - off;
  rescue_buf_putc(b, 0);
  return off;
}

/*
** Which row set the current sample shows when it is not the one view_samples picked
** (rescue_view): a row set given by the caller, or (corpus, gold and latest views) the
** gold row set, or the whole view of the annotator who saved last. Sets it->cur.rowset_id
** and n_rows, *who (that annotator, else left 0) and note (the row set's note). Returns 0
** or an error code kept on the handle.
*/
static int pick_rowset(rescue_sample_iter *it, int64_t *who, char *note, size_t cap) {
  rescue_store *st = it->st;
  sqlite3_stmt *q;
  int rc;
  if (it->view.rowset_id) {
    if (!(q = rescue_store_stmt(st, "rowset_info")))
      return st->err.code;
    rescue_bind_int(q, ":rowset_id", it->view.rowset_id);
    if ((rc = sqlite3_step(q)) == SQLITE_ROW) {
      it->cur.rowset_id = it->view.rowset_id;
      it->cur.n_rows = sqlite3_column_int(q, 0);
      snprintf(note, cap, "%s",
               sqlite3_column_text(q, 1) ? (const char *)sqlite3_column_text(q, 1) : "");
    }
    sqlite3_reset(q);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "reading row sets");
  }
  if (it->view.base || it->view.kind == RESCUE_VIEW_ANNOTATOR)
    return 0;
  if (!(q = rescue_store_stmt(st, "view_rowset_pick")))
    return st->err.code;
  rescue_bind_int(q, ":sample_ref", it->cur.ref);
  rescue_bind_int(q, ":view", it->view.kind);
  rescue_bind_text(q, ":adjudication", RESCUE_ADJUDICATION_ANNOTATOR, -1);
  rescue_bind_text(q, ":draft", RESCUE_DRAFT_ANNOTATOR, -1);
  if ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    /* columns 0-2: the gold row set; 3-6: the annotator whose whole view is shown */
    int col = sqlite3_column_type(q, 0) != SQLITE_NULL   ? 0
              : sqlite3_column_type(q, 3) != SQLITE_NULL ? 4
                                                         : -1;
    if (col == 4)
      *who = sqlite3_column_int64(q, 3);
    if (col >= 0) {
      it->cur.rowset_id = sqlite3_column_int64(q, col);
      it->cur.n_rows = sqlite3_column_int(q, col + 1);
      snprintf(note, cap, "%s",
               sqlite3_column_text(q, col + 2) ? (const char *)sqlite3_column_text(q, col + 2)
                                               : "");
    }
  }
  sqlite3_reset(q);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "reading row sets");
}

/*
** References follow rows: each shown row's references (corpus/row_ref.c) as positions of
** the row set shown. A content whose numbers change is appended rewritten to it->text and
** offs[i].content moved to it; offs[i].lost gets what no longer resolves.
*/
static int refs_in_rowset(rescue_sample_iter *it, row_offsets *offs, int n) {
  rescue_buf copy = RESCUE_BUF_INIT, out = RESCUE_BUF_INIT, lost = RESCUE_BUF_INIT;
  int i, rc = 0;
  for (i = 0; i < n && !rc; i++) {
    rescue_row *row = &it->rows[i];
    const char *c = at(&it->text, offs[i].content);
    offs[i].lost = (size_t)-1;
    if (!c || !rescue_refs_maybe(rescue_store_scheme(it->st), c))
      continue;
    rescue_buf_reset(&copy); /* it->text may move while it grows */
    rescue_buf_putn(&copy, c, row->content_len);
    rescue_buf_reset(&out);
    rescue_buf_reset(&lost);
    if (!rescue_buf_ok(&copy)) {
      rc = rescue_seterr(&it->st->err, RESCUE_ENOMEM, NULL);
      break;
    }
    if ((rc = rescue_store_refs_in(it->st, it->cur.rowset_id, row->version_id, copy.s, copy.len,
                                   &out, &lost)))
      break;
    if (out.len) {
      offs[i].content = it->text.len;
      rescue_buf_putn(&it->text, out.s, out.len);
      rescue_buf_putc(&it->text, 0);
      row->content_len = out.len;
    }
    if (lost.len) {
      offs[i].lost = it->text.len;
      rescue_buf_putn(&it->text, lost.s, lost.len);
      rescue_buf_putc(&it->text, 0);
    }
  }
  rescue_buf_clear(&copy);
  rescue_buf_clear(&out);
  rescue_buf_clear(&lost);
  return rc;
}

int rescue_sample_iter_next(rescue_sample_iter *it, const rescue_sample **out) {
  rescue_store *st = it->st;
  sqlite3_stmt *s = it->samples, *r;
  row_offsets *offs = NULL;
  size_t o_id, o_group, o_status, o_reason, o_head, o_tail;
  int64_t who = 0;
  char note[32];
  int rc, n = 0, cap = 0, seg;

  *out = NULL;
  if (it->done)
    return 0;
  for (;;) {
    rc = sqlite3_step(s);
    if (rc == SQLITE_DONE) {
      it->done = 1;
      return 0;
    }
    if (rc != SQLITE_ROW)
      return rescue_store_sqlerr(st, "reading samples");
    if (it->refs) {
      int64_t ref = sqlite3_column_int64(s, 0);
      int j, want = 0;
      for (j = 0; j < it->n_refs; j++)
        want |= it->refs[j] == ref;
      if (!want)
        continue;
    }
    break;
  }
  rescue_buf_reset(&it->text);
  memset(&it->cur, 0, sizeof it->cur);
  it->cur.ref = sqlite3_column_int64(s, 0);
  o_id = put_col(&it->text, s, 1);
  o_group = put_col(&it->text, s, 2);
  o_status = put_col(&it->text, s, 3);
  o_reason = put_col(&it->text, s, 4);
  it->cur.rowset_id = sqlite3_column_int64(s, 5);
  it->cur.n_rows = sqlite3_column_int(s, 6);
  it->cur.sample_version_id = sqlite3_column_int64(s, 7);
  o_head = put_col(&it->text, s, 8);
  o_tail = put_col(&it->text, s, 9);
  it->cur.has_rows = sqlite3_column_int(s, 10);
  it->cur.given_keys = sqlite3_column_int(s, 11);

  {
    const unsigned char *c12 = sqlite3_column_text(s, 12);
    snprintf(note, sizeof note, "%s", c12 ? (const char *)c12 : "");
  }
  if ((rc = pick_rowset(it, &who, note, sizeof note)))
    return rc;
  if (it->view.kind == RESCUE_VIEW_ANNOTATOR || who) {
    /* only a row set made by --resegment (or chosen as gold) has rows to follow back */
    int reseg = strcmp(note, "resegment") == 0 || strcmp(note, "split") == 0 ||
                strcmp(note, "merge") == 0 || strcmp(note, "gold") == 0;
    r = rescue_store_stmt(st, reseg ? "view_rows_annotator" : "view_rows_annotator_flat");
    if (!r)
      return st->err.code;
    rescue_bind_int(r, ":annotator_id", who ? who : it->view.annotator_id);
    rescue_bind_text(r, ":draft", RESCUE_DRAFT_ANNOTATOR, -1);
  } else {
    r = rescue_store_stmt(st, "view_rows");
    if (!r)
      return st->err.code;
    rescue_bind_int(r, ":view", it->view.kind);
  }
  rescue_bind_int(r, ":rowset_id", it->cur.rowset_id);
  while ((rc = sqlite3_step(r)) == SQLITE_ROW) {
    rescue_row *row;
    if (RESCUE_ALLOC_GROW(it->rows, n + 1, it->cap_rows) || RESCUE_ALLOC_GROW(offs, n + 1, cap)) {
      rescue_free(offs);
      sqlite3_reset(r);
      return rescue_seterr(&st->err, RESCUE_ENOMEM, NULL);
    }
    row = &it->rows[n];
    row->row_id = sqlite3_column_int64(r, 0);
    row->position = sqlite3_column_int(r, 1);
    row->version_id = sqlite3_column_int64(r, 2);
    row->annotator_id = sqlite3_column_int64(r, 3);
    /* columns 16-19 (view_rows_annotator): a carried version's segmentation, else NULL */
    seg = sqlite3_column_count(r) > 19 && sqlite3_column_type(r, 16) != SQLITE_NULL ? 16 : -1;
    offs[n].kind = put_col(&it->text, r, 4);
    offs[n].content = put_content(&it->text, r, 5, seg, row->position, &row->content_len);
    row->start_time = sqlite3_column_double(r, seg < 0 ? 6 : 17);
    row->end_time = sqlite3_column_double(r, seg < 0 ? 7 : 18);
    offs[n].speaker = put_col(&it->text, r, seg < 0 ? 8 : 19);
    offs[n].entities = put_col(&it->text, r, 9);
    offs[n].utt = put_col(&it->text, r, 10);
    offs[n].cycle = put_col(&it->text, r, 11);
    offs[n].pattern = put_col(&it->text, r, 12);
    row->origin = sqlite3_column_int(r, 13);
    row->seg_changed = sqlite3_column_int(r, 14);
    n++;
  }
  sqlite3_reset(r);
  if (rc != SQLITE_DONE) {
    rescue_free(offs);
    return rescue_store_sqlerr(st, "reading rows");
  }
  if ((rc = refs_in_rowset(it, offs, n))) {
    rescue_free(offs);
    return rc;
  }
  if (!rescue_buf_ok(&it->text)) {
    rescue_free(offs);
    return rescue_seterr(&st->err, RESCUE_ENOMEM, NULL);
  }
  for (int i = 0; i < n; i++) {
    rescue_row *row = &it->rows[i];
    row->kind = at(&it->text, offs[i].kind);
    row->content = at(&it->text, offs[i].content);
    row->speaker = at(&it->text, offs[i].speaker);
    row->entities = at(&it->text, offs[i].entities);
    row->utterance_type = at(&it->text, offs[i].utt);
    row->relation_cycle_state = at(&it->text, offs[i].cycle);
    row->relation_pattern = at(&it->text, offs[i].pattern);
    row->lost_refs = at(&it->text, offs[i].lost);
    if (!row->speaker)
      row->speaker = "";
    if (!row->entities)
      row->entities = "";
  }
  rescue_free(offs);
  it->cur.sample_id = at(&it->text, o_id);
  it->cur.group = at(&it->text, o_group);
  it->cur.status = at(&it->text, o_status);
  it->cur.status_reason = at(&it->text, o_reason);
  it->cur.head = at(&it->text, o_head);
  it->cur.tail = at(&it->text, o_tail);
  if (!it->cur.head)
    it->cur.head = "{";
  if (!it->cur.tail)
    it->cur.tail = "}";
  it->cur.n = n;
  it->cur.rows = it->rows;
  it->cur.view_of = it->view.kind == RESCUE_VIEW_ANNOTATOR ? 0 : who;
  it->cur.complete = n == it->cur.n_rows;
  *out = &it->cur;
  return 1;
}

void rescue_sample_iter_free(rescue_sample_iter **itp) {
  rescue_sample_iter *it;
  if (!itp || !*itp)
    return;
  it = *itp;
  if (it->samples && !it->st->spare_samples) { /* kept for the next iterator */
    sqlite3_reset(it->samples);
    sqlite3_clear_bindings(it->samples);
    it->st->spare_samples = it->samples;
  } else if (it->samples) {
    sqlite3_finalize(it->samples);
    /* a statement prepared later may reuse this one's address: drop cached parameter
       indexes */
    atomic_fetch_add(&param_gen, 1);
  }
  rescue_free(it->refs);
  rescue_free(it->rows);
  rescue_buf_clear(&it->text);
  rescue_free(it);
  *itp = NULL;
}

/*
** Copy every page of st to the open connection dst in one step (one read transaction on
** st: a consistent copy while others commit).
** 0, or the SQLite code with the message in msg.
*/
static int backup_pages(rescue_store *st, sqlite3 *dst, int64_t *pages, char *msg, size_t cap) {
  sqlite3_backup *bk = sqlite3_backup_init(dst, "main", st->db, "main");
  int rc;
  if (!bk) {
    snprintf(msg, cap, "%s", sqlite3_errmsg(dst));
    return sqlite3_errcode(dst);
  }
  /* -1: all pages at once; a writer's commit meanwhile cannot make it start over */
  while ((rc = sqlite3_backup_step(bk, -1)) == SQLITE_BUSY || rc == SQLITE_LOCKED)
    sqlite3_sleep(20);
  if (pages)
    *pages = sqlite3_backup_pagecount(bk);
  sqlite3_backup_finish(bk);
  if (rc != SQLITE_DONE)
    snprintf(msg, cap, "%s", sqlite3_errstr(rc));
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/*
** The copy at path, in rollback-journal mode: the pages came with the live corpus's WAL
** mark, which only a connection that opened the file in WAL mode can take off.
*/
static int leave_wal(const char *path, char *msg, size_t cap) {
  sqlite3 *db = NULL;
  int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_exec(db, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    snprintf(msg, cap, "%s", db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  if (sqlite3_close(db) != SQLITE_OK && rc == SQLITE_OK) {
    snprintf(msg, cap, "%s", sqlite3_errmsg(db));
    rc = SQLITE_IOERR;
  }
  return rc;
}

int rescue_store_backup(rescue_store *st, const char *dest, int64_t *pages, rescue_error *err) {
  sqlite3 *dst = NULL;
  char *tmp = NULL, msg[512] = "";
  struct stat sb;
  int rc = 0, fd;
  if (stat(dest, &sb) == 0 || errno != ENOENT)
    return rescue_seterr(err, RESCUE_EEXISTS, "'%s' already exists (a backup is a new file)", dest);
  if (!(tmp = rescue_file_tmpname(dest)))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  remove(tmp);
  fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    rc = rescue_seterr(err, RESCUE_EIO, "cannot create '%s': %s", dest, strerror(errno));
    goto end;
  }
  close(fd);
  if (sqlite3_open_v2(tmp, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
    rc = rescue_seterr(err, RESCUE_EIO, "cannot open '%s': %s", tmp,
                       dst ? sqlite3_errmsg(dst) : "out of memory");
    goto fail;
  }
  if (backup_pages(st, dst, pages, msg, sizeof msg) != SQLITE_OK) {
    rc = rescue_seterr(err, RESCUE_EIO, "cannot copy '%s' to '%s': %s", st->path, dest, msg);
    goto fail;
  }
  if (sqlite3_close(dst) != SQLITE_OK) {
    rc = rescue_seterr(err, RESCUE_EIO, "cannot write '%s': %s", dest, sqlite3_errmsg(dst));
    dst = NULL;
    goto fail;
  }
  dst = NULL;
  if (leave_wal(tmp, msg, sizeof msg) != SQLITE_OK) {
    rc = rescue_seterr(err, RESCUE_EIO, "cannot write '%s': %s", dest, msg);
    goto fail;
  }
  /* never over a file that appeared meanwhile: link, then drop the temporary name */
  if (link(tmp, dest) != 0) {
    rc = errno == EEXIST
             ? rescue_seterr(err, RESCUE_EEXISTS, "'%s' already exists", dest)
             : rescue_seterr(err, RESCUE_EIO, "cannot write '%s': %s", dest, strerror(errno));
    goto fail;
  }
fail:
  if (dst)
    sqlite3_close_v2(dst);
  remove(tmp);
end:
  rescue_free(tmp);
  return rc;
}
