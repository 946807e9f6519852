/*
** serve_watch.c: the corpus file behind the open store. SQLite keeps writing to the file it
** opened, so a corpus deleted (or replaced by `mv`) under a running server would take every
** later save with it while the server answered 200. The server remembers the file's device
** and inode at start and, before and after each write, checks that the path still names that
** file; once it does not, every write gets 503 and stderr says why once.
*/
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "serve_impl.h"

int srv_watch_start(rescue_server *s, rescue_error *err) {
  struct stat sb;
  if (stat(s->db, &sb) != 0)
    return rescue_seterr(err, RESCUE_EIO, "%s: %s", s->db, strerror(errno));
  s->db_dev = sb.st_dev;
  s->db_ino = sb.st_ino;
  return 0;
}

int srv_watch_ok(srv_req *r) {
  rescue_server *s = r->srv;
  struct stat sb;
  const char *what = NULL;
  if (!__atomic_load_n(&s->db_lost, __ATOMIC_ACQUIRE)) {
    if (stat(s->db, &sb) != 0)
      what = errno == ENOENT ? "was deleted" : "cannot be examined";
    else if (sb.st_dev != s->db_dev || sb.st_ino != s->db_ino)
      what = "was replaced by another file";
    if (!what)
      return 1;
    if (!__atomic_exchange_n(&s->db_lost, 1, __ATOMIC_ACQ_REL))
      fprintf(stderr,
              "rescue serve: the corpus %s %s while the server was running: writes are refused "
              "from now on (restart the server on the corpus you mean)\n",
              s->db, what);
  }
  srv_error(r, 503,
            "the corpus file %s was deleted or replaced while the server was running: saves are "
            "refused (this one is not saved to it); ask the lead to restart the server",
            s->db);
  return 0;
}
