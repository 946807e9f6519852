/*
** rescue_audit.h: the corpus's audit trail (public): who changed or exported what, when,
** with which command. Every operation that changes the store (import, adjudication, a
** draft, a pseudonym change, a status change, an assignment, a change to an annotator, a
** split run, a lint waiver or its removal) writes its record inside its
** own transaction, so the change and its record commit together or not at all, as git
** writes a reflog entry with the ref update; a dry run writes none. An export changes no
** annotation: its record is written once the output is in place (rescue_audit_add).
** `rescue log` shows the trail (rescue_audit_log).
*/
#ifndef RESCUE_AUDIT_H
#define RESCUE_AUDIT_H

#include "rescue_buf.h"
#include "rescue_store.h"

typedef struct rescue_audit_entry {
  const char *action;    /* "export", "import", "adjudicate", "draft", "pseudonyms", "status",
                            "assign", "annotator", "split", "waive", "unwaive", "curate" */
  const char *annotator; /* as given, or NULL */
  const char *command;   /* the command line; NULL: the handle's (rescue_store_set_audit) */
  const char *view;      /* or NULL */
  int pseudonymised;
  const char *output;        /* output path, or NULL */
  const char *output_sha256; /* of the output's manifest (or the output file), or NULL */
  const char *detail;        /* one line, or NULL */
} rescue_audit_entry;

/* Who is acting through a store handle, recorded with each of its audit records. */
typedef struct rescue_audit_context {
  const char *command; /* the command line (or what a server was asked); NULL: "" */
  const char *os_user; /* the account acting; NULL: the process's effective user */
} rescue_audit_context;

/*
** Set the audit context of a handle: every record the library writes through st from now
** on carries it. The strings are copied; ctx NULL clears it. 0 or RESCUE_ENOMEM.
*/
int rescue_store_set_audit(rescue_store *st, const rescue_audit_context *ctx);

/*
** Record an entry (with the OS user and the time) in a short transaction of its own: for
** events that change no annotation, such as an export once its output is in place. When
** e->output names a file or folder and e->output_sha256 is NULL, its digest
** (rescue_output_digest) is recorded. A store opened read-only cannot log: RESCUE_EINVAL
** with a message saying so.
*/
int rescue_audit_add(rescue_store *st, const rescue_audit_entry *e);

/*
** The corpus's history in time order, as a JSON array of {"time", "action", "os_user",
** "annotator", "command", "view", "pseudonymised", "output", "output_sha256", "detail"}:
** the audit entries and the sample status changes recorded before status changes had
** audit records of their own (action "status").
** text != 0 writes one line per event instead.
*/
int rescue_audit_log(rescue_store *st, int text, rescue_buf *out);

#endif
