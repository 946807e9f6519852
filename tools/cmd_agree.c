/*
** cmd_agree.c: `rescue agree`: agreement between coders, from a corpus (the coders' views
** of the same rows) or from a long-format TSV table.
*/
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: rescue agree <db> [--field <name>]... [--coders <a>,<b>...] [--samples <id>,...]\n"
    "                    [--by scenario|sample] [--ci <replicates>] [--ci-unit sample|unit]\n"
    "                    [--seed <n>] [--format text|json|csv] [--json]\n"
    "   or: rescue agree --input <file.tsv> --level nominal|ordinal|interval|ratio|masi|jaccard\n"
    "                    [--ci <replicates>] [--seed <n>] [--format text|json|csv] [--json]\n"
    "\n"
    "Krippendorff's alpha (missing values allowed: units with fewer than two values drop\n"
    "out), Cohen's kappa per coder pair (weighted too at ordinal and interval levels),\n"
    "Fleiss' kappa and Gwet's AC1 on the units every coder coded, percent agreement,\n"
    "one-vs-rest alpha per label, the coincidence matrix, and a status that says when a\n"
    "number cannot be had (no_data, no_variation, invalid_level). A status is a result:\n"
    "the command still exits 0.\n"
    "\n"
    "Corpus mode compares each coder's view of the same rows (their own latest version of\n"
    "a row, carried over a resegmentation where the span stayed, else the draft; never\n"
    "anyone else's) in the samples they worked on. A split or merged row a coder never\n"
    "saved is missing for them. The draft (an import without --annotator) is never a coder,\n"
    "nor is a retired annotator. Fields (all when no\n"
    "--field is given): primary_speaker, utterance_type (client rows), relation_pattern,\n"
    "relation_cycle_state, support_strategy, target (MASI; Jaccard too; a binary alpha per\n"
    "entity), support_target, emotion_presence and emotion_intensity (per row and person),\n"
    "viewpoint_presence (per row, source and target), start_time, end_time, and as free\n"
    "text (share identical, token F1) tone_of_voice, emotion_description, viewpoint.\n"
    "Every model annotator is also compared with each human coder who revised its draft:\n"
    "the share of units changed per field.\n"
    "\n"
    "Table mode reads unit<TAB>coder<TAB>value lines (an optional header line\n"
    "'unit<TAB>coder<TAB>value'; an empty value is missing; masi and jaccard take a JSON\n"
    "array of strings).\n"
    "\n"
    "options:\n"
    "  --field <name>        a field to measure (repeatable)\n"
    "  --coders <a>,<b>...   the annotators to compare, registered and not retired\n"
    "                        (default: every annotator and lead who saved a version;\n"
    "                        models are compared through their revisions unless named)\n"
    "  --samples <ids>       only these samples (comma-separated; discarded samples are\n"
    "                        left out unless named here)\n"
    "  --by <g>              also alpha per scenario or per sample\n"
    "  --ci <replicates>     a 95% bootstrap interval from this many replicates\n"
    "  --ci-unit <u>         resample whole samples (default: rows inside one interview are\n"
    "                        not independent) or single units\n"
    "  --seed <n>            bootstrap seed (default 1), recorded in the output\n"
    "  --input <file.tsv>    table mode ('-' reads standard input)\n"
    "  --level <level>       table mode: the measurement level (always explicit)\n"
    "  --format <f>          text (default): a summary table (field, level, coders, units,\n"
    "                        alpha and interval, percent agreement, status), warnings on\n"
    "                        thin data (an interval from fewer than 20 resampled groups,\n"
    "                        a field with fewer than 30 pairable units), then each field\n"
    "                        in detail; json: one JSON document; csv: one line per field\n"
    "                        (and per --by group) for spreadsheets\n"
    "  --json                the same as --format json (annotate/AGREEMENT.md \"Output\")\n"
    "  -h, --help            show this help\n";

/* Append to a growing list of --field names. */
static int add_field(const char ***fields, int *n, const char *f) {
  const char **nf = rescue_realloc(*fields, (size_t)(*n + 1) * sizeof *nf);
  if (!nf)
    return -1;
  nf[(*n)++] = f;
  *fields = nf;
  return 0;
}

int cmd_agree(int argc, char **argv) {
  static const struct option opts[] = {{"field", required_argument, NULL, 'f'},
                                       {"coders", required_argument, NULL, 'c'},
                                       {"samples", required_argument, NULL, 's'},
                                       {"by", required_argument, NULL, 'b'},
                                       {"ci", required_argument, NULL, 'i'},
                                       {"ci-unit", required_argument, NULL, 'u'},
                                       {"seed", required_argument, NULL, 'S'},
                                       {"input", required_argument, NULL, 'I'},
                                       {"level", required_argument, NULL, 'l'},
                                       {"json", no_argument, NULL, 'j'},
                                       {"format", required_argument, NULL, 'F'},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
  const char **fields = NULL, *input = NULL, *level_name = NULL, *ci_unit = NULL;
  char **coders = NULL, **samples = NULL;
  int c, rc = 2, n_fields = 0, n_coders = 0, n_samples = 0, json = 0;
  long ci = 0, seed = 1;
  rescue_agree_corpus_opts o;
  rescue_agree_report *rep = NULL;
  rescue_store *st = NULL;
  rescue_buf out = RESCUE_BUF_INIT;

  memset(&o, 0, sizeof o);
  while ((c = cli_getopt(argc, argv, "h", opts, usage)) != -1) {
    switch (c) {
    case 'h': rc = cli_help(usage); goto end;
    case 'f':
      if (add_field(&fields, &n_fields, optarg)) {
        cli_error("out of memory");
        rc = 1;
        goto end;
      }
      break;
    case 'c':
      cli_free_list(coders);
      coders = cli_split_list(optarg, &n_coders);
      if (!coders || !n_coders) {
        cli_usage_error(usage, "--coders needs at least one annotator name");
        goto end;
      }
      break;
    case 's':
      cli_free_list(samples);
      samples = cli_split_list(optarg, &n_samples);
      if (!samples || !n_samples) {
        cli_usage_error(usage, "--samples needs at least one sample id");
        goto end;
      }
      break;
    case 'b':
      if (strcmp(optarg, "scenario") == 0)
        o.stats.by = RESCUE_BY_STRATUM;
      else if (strcmp(optarg, "sample") == 0)
        o.stats.by = RESCUE_BY_CLUSTER;
      else {
        cli_usage_error(usage, "--by expects scenario or sample, not '%s'", optarg);
        goto end;
      }
      break;
    case 'i':
      if (cli_parse_long("--ci", optarg, &ci, usage))
        goto end;
      if (ci < 1 || ci > 1000000) {
        cli_usage_error(usage, "--ci expects a number of replicates from 1 to 1000000");
        goto end;
      }
      break;
    case 'u':
      if (strcmp(optarg, "sample") != 0 && strcmp(optarg, "unit") != 0) {
        cli_usage_error(usage, "--ci-unit expects sample or unit, not '%s'", optarg);
        goto end;
      }
      ci_unit = optarg;
      break;
    case 'S':
      if (cli_parse_long("--seed", optarg, &seed, usage))
        goto end;
      if (seed < 0) {
        cli_usage_error(usage, "--seed expects a whole number >= 0");
        goto end;
      }
      break;
    case 'I': input = optarg; break;
    case 'l': level_name = optarg; break;
    case 'j': json = 1; break;
    case 'F':
      if (strcmp(optarg, "text") == 0)
        json = 0;
      else if (strcmp(optarg, "json") == 0)
        json = 1;
      else if (strcmp(optarg, "csv") == 0)
        json = 2;
      else {
        cli_usage_error(usage, "--format expects text, json or csv, not '%s'", optarg);
        goto end;
      }
      break;
    default: goto end;
    }
  }
  if (ci_unit && !ci) {
    cli_usage_error(usage, "--ci-unit needs --ci");
    goto end;
  }
  o.stats.ci_replicates = (int)ci;
  o.stats.seed = (uint64_t)seed;
  o.stats.ci_unit = ci_unit && strcmp(ci_unit, "unit") == 0;
  if (input) {
    rescue_agree_level level;
    rescue_error err = {0, "", ""};
    if (argc - optind != 0) {
      cli_usage_error(usage, "give either <db> or --input, not both");
      goto end;
    }
    if (!level_name) {
      cli_usage_error(usage, "table mode needs --level (the measurement level is never a "
                             "default)");
      goto end;
    }
    if (rescue_agree_level_parse(level_name, &level) || level == RESCUE_LEVEL_TEXT) {
      cli_usage_error(usage, "unknown level '%s' (expected nominal, ordinal, interval, ratio, "
                             "masi or jaccard)",
                      level_name);
      goto end;
    }
    if (n_fields || coders || samples || o.stats.by != RESCUE_BY_NONE) {
      cli_usage_error(usage, "--field, --coders, --samples and --by apply to a corpus, not to "
                             "--input");
      goto end;
    }
    if (ci_unit && strcmp(ci_unit, "sample") == 0) {
      cli_usage_error(usage, "a table has no samples: its bootstrap resamples units");
      goto end;
    }
    o.stats.ci_unit = 1;
    if (rescue_agree_table(input, level, &o.stats, &rep, &err)) {
      rc = cli_fail(&err);
      goto end;
    }
  } else {
    if (level_name) {
      cli_usage_error(usage, "--level applies to --input; a corpus takes its levels from its "
                             "scheme");
      goto end;
    }
    if (argc - optind != 1) {
      cli_usage_error(usage, argc - optind ? "too many arguments" : "missing <db> or --input");
      goto end;
    }
    if ((rc = cli_open_store(argv[optind], RESCUE_OPEN_READONLY, &st)))
      goto end;
    o.fields = fields;
    o.n_fields = n_fields;
    o.coders = (const char *const *)coders;
    o.n_coders = n_coders;
    o.samples = (const char *const *)samples;
    o.n_samples = n_samples;
    if ((rc = rescue_agree_corpus(st, &o, &rep))) {
      rc = cli_fail_usage(rescue_store_err(st), argv[optind], usage);
      goto end;
    }
  }
  if (json == 1) {
    rescue_agree_report_json(rep, &out);
    rescue_buf_putc(&out, '\n');
  } else if (json == 2) {
    rescue_agree_report_csv(rep, &out);
  } else {
    rescue_agree_report_text(rep, &out);
  }
  rc = cli_print(&out);
end:
  rescue_buf_clear(&out);
  rescue_agree_report_free(&rep);
  rescue_store_close(&st);
  rescue_free(fields);
  cli_free_list(coders);
  cli_free_list(samples);
  return rc;
}
