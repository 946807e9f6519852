/*
** cmd_serve.c: `rescue serve <db> [--listen 127.0.0.1:8080] [--assets <dir>]`, the review
** web server, until Ctrl-C (or SIGTERM) stops it.
*/
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "serve.h"

static const char *listen_at = SERVE_DEFAULT_LISTEN, *assets, *tls_cert, *tls_key, *public_host;
static int insecure_listen;
static const cli_option options[] = {
    CLI_STRING(0, "listen", &listen_at, "<host>:<port>",
               "address to listen on (default 127.0.0.1:8080; port 0 picks a\n"
               "free one). Anything but a loopback address needs --tls-cert\n"
               "and --tls-key (or --insecure-listen)"),
    CLI_STRING(0, "tls-cert", &tls_cert, "<pem>", "serve HTTPS with this certificate (chain)"),
    CLI_STRING(0, "tls-key", &tls_key, "<pem>", "the certificate's private key"),
    CLI_STRING(0, "public-host", &public_host, "<name,...>",
               "host names the browser uses to reach the server (the Host\n"
               "header is checked: on loopback any loopback name is\n"
               "accepted, elsewhere only these, and beyond loopback it is\n"
               "required)"),
    CLI_FLAG(0, "insecure-listen", &insecure_listen,
             "listen beyond loopback without TLS: sign-in tokens and\n"
             "session cookies travel in clear"),
    CLI_STRING(0, "assets", &assets, "<dir>",
               "folder of clips (the output of `rescue clip`) served under\n"
               "/clips/: <sample_id>/segment.mp4 and <sample_id>/clips/NNN.mp4\n"
               "are played with each row"),
    CLI_END};
static const cli_spec spec = {
    .synopsis = "rescue serve <db> [--listen <host>:<port>] [--assets <dir>] [--tls-cert <pem> "
                "--tls-key <pem>] [--public-host <name,...>] [--insecure-listen]",
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

/*
** The options into *o: 0, 1 for a non-loopback address without TLS or --insecure-listen
** (refused with one line), or the usage error's exit status (a bad --listen, a
** non-loopback address without --public-host, half of the TLS pair).
*/
static int serve_opts(rescue_serve_opts *o, const char *db, int *loopback) {
  rescue_error err = RESCUE_ERROR_INIT;
  o->db = db;
  o->listen = listen_at;
  o->assets = assets;
  o->tls_cert = tls_cert;
  o->tls_key = tls_key;
  o->public_hosts = public_host;
  o->insecure_listen = insecure_listen;
  if (rescue_serve_parse_listen(o->listen, loopback, &err))
    return cli_spec_error(&spec, "--listen: %s", err.msg);
  if (!*loopback && !(tls_cert && tls_key) && !insecure_listen) {
    /* a refusal, not a mistake in the command line: one line, exit 1 */
    cli_error("--listen %s: other machines can reach it, and without TLS sign-in tokens and "
              "session cookies would travel in clear; give --tls-cert and --tls-key (or "
              "--insecure-listen on a network you trust)",
              o->listen);
    return 1;
  }
  if (!!tls_cert != !!tls_key)
    return cli_spec_error(&spec, "--tls-cert and --tls-key go together");
  /* beyond loopback the Host header must be one of these names: without any, every
     request would get 421 */
  if (!*loopback && (!public_host || !*public_host))
    return cli_spec_error(&spec,
                          "--listen %s: give --public-host with the name(s) browsers use to "
                          "reach the server (the Host header is checked; any other gets 421)",
                          o->listen);
  return 0;
}

int cmd_serve(int argc, char **argv) {
  rescue_serve_opts o = {0};
  rescue_server *srv = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  sigset_t set;
  int rc, first, sig = 0, loopback = 0;

  if ((rc = cli_parse(argc, argv, &spec, &first)) != CLI_PARSED)
    return rc;
  if ((rc = serve_opts(&o, argv[first], &loopback)))
    return rc;
  /* the server's threads inherit this mask, so only sigwait below sees Ctrl-C */
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  signal(SIGPIPE, SIG_IGN);
  rescue_media_quiet();
  if (rescue_serve_start(&o, &srv, &err))
    return cli_fail_path(&err, o.db);
  if (!loopback && !tls_cert)
    cli_warn("listening on %s without TLS (--insecure-listen): sign-in tokens and session "
             "cookies travel in clear to anyone on the network, and the corpus holds "
             "sensitive interview data",
             o.listen);
  {
    const char *colon = strrchr(o.listen, ':');
    size_t hl = colon ? (size_t)(colon - o.listen) : 0;
    printf("serving %s on %s://%.*s:%d/ (Ctrl-C stops)\n", o.db, tls_cert ? "https" : "http",
           (int)hl, o.listen, rescue_serve_port(srv));
    fflush(stdout);
  }
  sigwait(&set, &sig);
  rescue_serve_stop(&srv);
  printf("stopped\n");
  return cli_finish(0);
}
