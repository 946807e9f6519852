/*
** cmd_serve.c: `rescue serve <db> [--listen 127.0.0.1:8080] [--assets <dir>]`, the review
** web server, until Ctrl-C (or SIGTERM) stops it.
*/
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: rescue serve <db> [--listen <host>:<port>] [--assets <dir>]\n"
    "\n"
    "Serve the review system: annotators sign in with the token `rescue annotator add`\n"
    "printed, open the samples assigned to them, watch each row's clip, edit, segment and\n"
    "save rows (every save is a new version; a save based on a version someone else has\n"
    "replaced is refused and shows both), set a sample's status; leads see progress and\n"
    "agreement on the dashboard. Ctrl-C stops it once requests in flight have finished.\n"
    "\n"
    "options:\n"
    "  --listen <host>:<port>  address to listen on (default 127.0.0.1:8080; port 0 picks a\n"
    "                          free one). Anything but a loopback address exposes the\n"
    "                          corpus to the network: a warning is printed\n"
    "  --assets <dir>          folder of clips (the output of `rescue clip`) served under\n"
    "                          /clips/: <sample_id>/segment.mp4 and <sample_id>/clips/NNN.mp4\n"
    "                          are played with each row\n"
    "  -h, --help              show this help\n";

int cmd_serve(int argc, char **argv) {
  static const struct option opts[] = {{"listen", required_argument, NULL, 'l'},
                                       {"assets", required_argument, NULL, 'a'},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
  rescue_serve_opts o;
  rescue_server *srv = NULL;
  rescue_error err = {0, "", ""};
  sigset_t set;
  int c, sig = 0, loopback = 0;

  memset(&o, 0, sizeof o);
  o.listen = "127.0.0.1:8080";
  while ((c = cli_getopt(argc, argv, "h", opts, usage)) != -1) {
    switch (c) {
    case 'h': return cli_help(usage);
    case 'l': o.listen = optarg; break;
    case 'a': o.assets = optarg; break;
    default: return 2;
    }
  }
  if (argc - optind != 1)
    return cli_usage_error(usage, argc - optind ? "too many arguments" : "missing <db>");
  o.db = argv[optind];
  if (rescue_serve_parse_listen(o.listen, &loopback, &err))
    return cli_usage_error(usage, "--listen: %s", err.msg);
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
