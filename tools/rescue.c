/*
** rescue.c: the `rescue` command line: one table of subcommands, git style.
*/
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* Every subcommand, in the order `rescue --help` lists them. */
static const cli_command commands[] = {
    {"init", cmd_init, "create an empty corpus"},
    {"import", cmd_import, "read samples (JSONL, JSON, data-root) or subtitles (SRT, WebVTT)"},
    {"export", cmd_export, "write samples or datasets out of a corpus"},
    {"backup", cmd_backup, "copy a live corpus consistently (also the snapshot for shards)"},
    {"stats", cmd_stats, "corpus statistics (the paper's Table 3)"},
    {"media add", cmd_media_add, "probe source videos and link samples to spans of them"},
    {"media list", cmd_media_list, "what is linked, and what is missing or changed on disk"},
    {"clip", cmd_clip, "cut one clip per row (copy, exact or audio) with a manifest"},
    {"annotator add", cmd_annotator_add, "add an annotator (prints a sign-in token)"},
    {"annotator list", cmd_annotator_list, "annotators, their work and assignments"},
    {"annotator retire", cmd_annotator_retire,
     "take an annotator's versions out of views and agreement"},
    {"annotator unretire", cmd_annotator_unretire, "bring a retired annotator back"},
    {"annotator token", cmd_annotator_token, "issue a new sign-in token (--rotate)"},
    {"assign", cmd_assign, "deal samples out to annotators (with a double-reviewed share)"},
    {"status", cmd_status, "set or show a sample's review status (history kept)"},
    {"comment", cmd_comment, "comment on a sample or a row"},
    {"comments", cmd_comments, "list comments"},
    {"lint", cmd_lint, "check the corpus against the annotation guideline (R01-R21)"},
    {"agree", cmd_agree, "agreement between annotators (corpus) or coders (TSV table)"},
    {"adjudicate", cmd_adjudicate, "settle disagreements into gold versions"},
    {"serve", cmd_serve, "the review web server: annotators review rows in a browser"},
    {"split", cmd_split, "assign groups to train/validation/test splits"},
    {"draft", cmd_draft, "pre-annotate rows with any model command, checked by lint"},
    {"score", cmd_score, "score model predictions against an exported task file"},
    {"pseudonyms", cmd_pseudonyms, "the pseudonym map for sharing a corpus without names"},
    {"leakcheck", cmd_leakcheck, "look for real names in an export"},
    {"log", cmd_log, "who imported, exported, adjudicated and changed what, in time order"},
    {"demo", cmd_demo, "build a small demo corpus and run every capability on it"},
};

static const char usage_main[] =
    "usage: rescue <command> [<args>]\n"
    "       rescue --help | --version\n"
    "\n"
    "Build, review, measure and export annotated corpora of couple- and family-therapy\n"
    "conversations in the RESCUE-BENCH format.\n"
    "\n"
    "commands:\n";

static void print_usage(FILE *f) {
  size_t i;
  fputs(usage_main, f);
  for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "   %-18s %s\n", commands[i].name, commands[i].summary);
  fputs("\n'rescue <command> -h' describes one command.\n", f);
}

/*
** `rescue <group> -h` for a group of two-word commands ("media", "annotator"): its
** subcommands, from commands[from] on, on stdout. Returns the exit status (0).
*/
static int print_group_usage(const char *group, size_t from) {
  size_t i, n = strlen(group);
  printf("usage: rescue %s <subcommand> [<args>]\n\nsubcommands:\n", group);
  for (i = from; i < sizeof commands / sizeof commands[0]; i++)
    if (strncmp(commands[i].name, group, n) == 0 && commands[i].name[n] == ' ')
      printf("   %-18s %s\n", commands[i].name, commands[i].summary);
  printf("\n'rescue %s <subcommand> -h' describes one subcommand.\n", group);
  return cli_finish(0);
}

int main(int argc, char **argv) {
  size_t i;
  /*
  ** Bulk work allocates and frees large buffers (SQLite's page cache, parse arenas) in a
  ** loop; glibc's default would return them to the kernel and fault them back in every
  ** time (measured: a third of an import's time). Keep them.
  */
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 128 << 20);
  /* the corpus, its journal, clips and exports hold interview data: readable by the
     owner only */
  umask(077);
  if (argc < 2) {
    print_usage(stderr);
    return 2;
  }
  if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
      strcmp(argv[1], "help") == 0) {
    print_usage(stdout);
    return cli_finish(0);
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("rescue %s\n", RESCUE_VERSION_STRING);
    return cli_finish(0);
  }
  cli_cmdline = cli_command_line(argc - 1, argv + 1);
  /* two-word commands ("media add") match first */
  for (i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    const char *name = commands[i].name, *sp = strchr(name, ' ');
    if (sp) {
      size_t n = (size_t)(sp - name);
      if (argc >= 3 && strncmp(argv[1], name, n) == 0 && argv[1][n] == 0 &&
          strcmp(argv[2], sp + 1) == 0) {
        cli_name = name;
        return commands[i].run(argc - 2, argv + 2);
      }
    } else if (strcmp(argv[1], name) == 0) {
      cli_name = name;
      return commands[i].run(argc - 1, argv + 1);
    }
  }
  for (i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    const char *name = commands[i].name, *sp = strchr(name, ' ');
    if (sp && strncmp(argv[1], name, (size_t)(sp - name)) == 0 && argv[1][sp - name] == 0) {
      if (argc == 3 && (strcmp(argv[2], "-h") == 0 || strcmp(argv[2], "--help") == 0))
        return print_group_usage(argv[1], i);
      fprintf(stderr, "rescue: %s: expected a subcommand:", argv[1]);
      for (; i < sizeof commands / sizeof commands[0]; i++)
        if (strncmp(commands[i].name, argv[1], strlen(argv[1])) == 0 &&
            commands[i].name[strlen(argv[1])] == ' ')
          fprintf(stderr, " '%s'", commands[i].name);
      fputc('\n', stderr);
      return 2;
    }
  }
  fprintf(stderr, "rescue: '%s' is not a rescue command; see 'rescue --help'\n", argv[1]);
  return 2;
}
