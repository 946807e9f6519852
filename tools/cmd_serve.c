/*
** cmd_serve.c: `rescue serve <db> [--listen 127.0.0.1:8080] [--assets <dir>]`, the review
** web server, until Ctrl-C (or SIGTERM) stops it.
*/
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "serve.h"

static const char *listen_at = SERVE_DEFAULT_LISTEN, *assets;
static const cli_option options[] = {
    CLI_STRING(0, "listen", &listen_at, "<host>:<port>",
               "address to listen on (default 127.0.0.1:8080; port 0 picks a\n"
               "free one). Anything but a loopback address exposes the\n"
               "corpus to the network: a warning is printed"),
    CLI_STRING(0, "assets", &assets, "<dir>",
               "folder of clips (the output of `rescue clip`) served under\n"
               "/clips/: <sample_id>/segment.mp4 and <sample_id>/clips/NNN.mp4\n"
               "are played with each row"),
    CLI_END};
static const cli_spec spec = {
    .synopsis = "rescue serve <db> [--listen <host>:<port>] [--assets <dir>]",
    .description =
        "Serve the review system: annotators sign in with the token `rescue annotator add`\n"
        "printed, open the samples assigned to them, watch each row's clip, edit, segment and\n"
        "save rows (every save is a new version; a save based on a version someone else has\n"
        "replaced is refused and shows both), set a sample's status; leads see progress and\n"
        "agreement on the dashboard. Ctrl-C stops it once requests in flight have finished.\n",
    .options = options,
    .min_args = 1,
    .max_args = 1,
    .arg_name = "<db>"};

int cmd_serve(int argc, char **argv) {
  rescue_serve_opts o = {0};
  rescue_server *srv = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  sigset_t set;
  int rc, first, sig = 0, loopback = 0;

  if ((rc = cli_parse(argc, argv, &spec, &first)) != CLI_PARSED)
    return rc;
  o.listen = listen_at;
  o.assets = assets;
  o.db = argv[first];
  if (rescue_serve_parse_listen(o.listen, &loopback, &err))
    return cli_spec_error(&spec, "--listen: %s", err.msg);
  /* the server's threads inherit this mask, so only sigwait below sees Ctrl-C */
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  signal(SIGPIPE, SIG_IGN);
  rescue_media_quiet();
  if (rescue_serve_start(&o, &srv, &err))
    return cli_fail_path(&err, o.db);
  if (!loopback)
    cli_warn("listening on %s, which other machines can reach: the corpus holds sensitive "
             "interview data; serve it only on a network you trust (and prefer a loopback "
             "address behind an SSH tunnel)",
             o.listen);
  {
    const char *colon = strrchr(o.listen, ':');
    size_t hl = colon ? (size_t)(colon - o.listen) : 0;
    printf("serving %s on http://%.*s:%d/ (Ctrl-C stops)\n", o.db, (int)hl, o.listen,
           rescue_serve_port(srv));
    fflush(stdout);
  }
  sigwait(&set, &sig);
  rescue_serve_stop(&srv);
  printf("stopped\n");
  return cli_finish(0);
}
