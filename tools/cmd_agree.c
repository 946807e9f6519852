/*
** cmd_agree.c: `rescue agree`: agreement between coders, from a corpus (the coders' views
** of the same rows) or from a long-format TSV table.
*/
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* "<start>,<end>" with start < end, both finite numbers: 0, or -1. */
static int parse_continuum(const char *s, double *start, double *end) {
  char *p;
  const char *comma = strchr(s, ',');
  if (!comma || comma == s || !comma[1])
    return -1;
  *start = strtod(s, &p);
  if (p != comma)
    return -1;
  *end = strtod(comma + 1, &p);
  return *p || !isfinite(*start) || !isfinite(*end) || *end <= *start ? -1 : 0;
}

/* --json: the same as --format json (the later of the two wins). */
static int json_option(const cli_spec *spec, const cli_option *o, const char *arg) {
  (void)spec;
  (void)arg;
  *(int *)o->value = 1;
  return 0;
}

static const char *const bys[] = {"scenario", "sample", NULL};
static const char *const ci_units[] = {"sample", "unit", NULL};
static const char *const out_formats[] = {"text", "json", "csv", NULL};
static cli_list fields, coders, samples;
static int by_index = -1, ci_unit = -1, out_format;
static long ci, seed = 1;
static const char *input, *level_name, *continuum;
static double grid;
static const cli_option options[] = {
    CLI_APPEND(0, "field", &fields, "<name>", "a field to measure (repeatable)"),
    {.type = CLI_OPT_LIST,
     .long_name = "coders",
     .value = &coders,
     .argh = "<a>,<b>...",
     .help = "the annotators to compare, registered and not retired\n"
             "(default: every annotator and lead who saved a version;\n"
             "models are compared through their revisions unless named)",
     .bad = "--coders needs at least one annotator name"},
    CLI_SAMPLES_HELP(&samples, "only these samples (comma-separated; discarded samples are\n"
                               "left out unless named here)"),
    CLI_CHOICE(0, "by", &by_index, "<g>", "also alpha per scenario or per sample", bys),
    CLI_LONG(0, "ci", &ci, "<replicates>", "a 95% bootstrap interval from this many replicates", 1,
             1000000),
    {.type = CLI_OPT_CHOICE,
     .long_name = "ci-unit",
     .value = &ci_unit,
     .argh = "<u>",
     .help = "resample whole samples (default: rows inside one interview are\n"
             "not independent) or single units",
     .choices = ci_units,
     .needs = "ci"},
    CLI_LONG(0, "seed", &seed, "<n>", "bootstrap seed (default 1), recorded in the output", 0,
             LONG_MAX),
    CLI_STRING(0, "input", &input, "<file.tsv>", "table mode ('-' reads standard input)"),
    CLI_STRING(0, "level", &level_name, "<level>",
               "table mode: the measurement level (always explicit);\n"
               "unitizing: segmentation agreement (alpha-u)"),
    CLI_STRING(0, "continuum", &continuum, "<start>,<end>",
               "--level unitizing: the time line [start, end) the units lie on"),
    CLI_DOUBLE(0, "grid", &grid, "<step>",
               "--level unitizing: one step of the grid times are rounded to\n"
               "(default 1 when the continuum and every time are whole\n"
               "numbers, else 0.001)"),
    CLI_CHOICE(0, "format", &out_format, "<f>",
               "text (default): a summary table (field, level, coders, units,\n"
               "alpha and interval, percent agreement, status), warnings on\n"
               "thin data (an interval from fewer than 20 resampled groups,\n"
               "a field with fewer than 30 pairable units), then each field\n"
               "in detail; json: one JSON document; csv: one line per field\n"
               "(and per --by group) for spreadsheets",
               out_formats),
    {.type = CLI_OPT_CALLBACK,
     .long_name = "json",
     .value = &out_format,
     .help = "the same as --format json (annotate/AGREEMENT.md \"Output\")",
     .callback = json_option},
    CLI_END};
static const cli_spec spec = {
    .synopsis =
        "rescue agree <db> [--field <name>]... [--coders <a>,<b>...] [--samples <id>,...]\n"
        "                    [--by scenario|sample] [--ci <replicates>] [--ci-unit sample|unit]\n"
        "                    [--seed <n>] [--format text|json|csv] [--json]\n"
        "   or: rescue agree --input <file.tsv> --level "
        "nominal|ordinal|interval|ratio|masi|jaccard\n"
        "                    [--ci <replicates>] [--seed <n>] [--format text|json|csv] [--json]\n"
        "   or: rescue agree --input <file.tsv> --level unitizing --continuum <start>,<end>\n"
        "                    [--grid <step>] [--format text|json|csv] [--json]",
    .description =
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
        "Unitizing mode (--level unitizing) measures segmentation: Krippendorff's alpha-u of\n"
        "units on the time line of --continuum, per category and overall, with the observed\n"
        "and expected disagreements (D_o, D_e), the units per coder, and how many overlapping\n"
        "units of one coder and category were merged into one first (annotate/AGREEMENT.md).\n"
        "The table has a header line naming the columns coder, start, end and category (in\n"
        "any order; other columns are ignored), then one unit per line; gaps are implied.\n"
        "Times are rounded to the nearest step of the grid (--grid; by default 1 when the\n"
        "continuum and every time are whole numbers, else 0.001: milliseconds of seconds).\n"
        "",
    .options = options,
    .min_args = 0,
    .max_args = -1,
    .arg_name = "<db>"};

/*
** --input with --level unitizing: Krippendorff's alpha-u of the table's units on
** --continuum, printed in format (0 text, 1 json, 2 csv). Returns the exit status.
*/
static int agree_unitizing(int format) {
  rescue_unitize_tsv_opts o = {0};
  rescue_unitize *u = NULL;
  rescue_unitize_result r = {0};
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_buf out = RESCUE_BUF_INIT;
  rescue_jw w;
  int rc;
  if (!continuum)
    return cli_spec_error(&spec, "--level unitizing needs --continuum <start>,<end>");
  if (fields.n || coders.n || samples.n || by_index >= 0 || ci || ci_unit >= 0 ||
      cli_given(&spec, "seed"))
    return cli_spec_error(&spec, "--field, --coders, --samples, --by, --ci, --ci-unit and "
                                 "--seed do not apply to --level unitizing");
  if (parse_continuum(continuum, &o.start, &o.end))
    return cli_spec_error(
        &spec, "--continuum expects <start>,<end> with start before end, not '%s'", continuum);
  if (cli_given(&spec, "grid") && !(grid > 0))
    return cli_spec_error(&spec, "--grid expects a step > 0, not '%g'", grid);
  o.grid = grid;
  if ((rc = rescue_unitize_read_tsv(input, &o, &u, &err)))
    return cli_fail_spec(&err, NULL, &spec);
  if (rescue_unitize_compute(u, &r)) {
    rescue_seterr(&err, RESCUE_ENOMEM, NULL);
    rc = cli_fail(&err);
    goto end;
  }
  if (format == 1) {
    rescue_jw_init(&w, &out);
    rescue_unitize_result_json(u, &r, input, &w);
    rescue_buf_putc(&out, '\n');
  } else if (format == 2) {
    rescue_unitize_result_csv(u, &r, &out);
  } else {
    rescue_unitize_result_text(u, &r, strcmp(input, "-") ? input : "standard input", &out);
  }
  rc = cli_print(&out);
end:
  rescue_buf_clear(&out);
  rescue_unitize_result_clear(&r);
  rescue_unitize_free(&u);
  return rc;
}

int cmd_agree(int argc, char **argv) {
  int rc = 2, first, json;
  rescue_agree_corpus_opts o = {0};
  rescue_agree_report *rep = NULL;
  rescue_store *st = NULL;
  rescue_buf out = RESCUE_BUF_INIT;

  if ((rc = cli_parse(argc, argv, &spec, &first)) != CLI_PARSED)
    goto end;
  rc = 2;
  json = out_format;
  o.stats.by = by_index == 0   ? RESCUE_BY_STRATUM
               : by_index == 1 ? RESCUE_BY_CLUSTER
                               : RESCUE_BY_NONE;
  o.stats.ci_replicates = (int)ci;
  o.stats.seed = (uint64_t)seed;
  o.stats.ci_unit = ci_unit == 1;
  if ((continuum || cli_given(&spec, "grid")) &&
      !(input && level_name && strcmp(level_name, "unitizing") == 0)) {
    cli_spec_error(&spec, "--%s applies to --input with --level unitizing",
                   continuum ? "continuum" : "grid");
    goto end;
  }
  if (input) {
    rescue_agree_level level;
    rescue_error err = RESCUE_ERROR_INIT;
    if (argc - first != 0) {
      cli_spec_error(&spec, "give either <db> or --input, not both");
      goto end;
    }
    if (!level_name) {
      cli_spec_error(&spec, "table mode needs --level (the measurement level is never a "
                            "default)");
      goto end;
    }
    if (strcmp(level_name, "unitizing") == 0) {
      rc = agree_unitizing(json);
      goto end;
    }
    if (rescue_agree_level_parse(level_name, &level) || level == RESCUE_LEVEL_TEXT) {
      cli_spec_error(&spec,
                     "unknown level '%s' (expected nominal, ordinal, interval, ratio, "
                     "masi, jaccard or unitizing)",
                     level_name);
      goto end;
    }
    if (fields.n || coders.n || samples.n || o.stats.by != RESCUE_BY_NONE) {
      cli_spec_error(&spec, "--field, --coders, --samples and --by apply to a corpus, not to "
                            "--input");
      goto end;
    }
    if (ci_unit == 0) {
      cli_spec_error(&spec, "a table has no samples: its bootstrap resamples units");
      goto end;
    }
    o.stats.ci_unit = 1;
    if (rescue_agree_table(input, level, &o.stats, &rep, &err)) {
      rc = cli_fail(&err);
      goto end;
    }
  } else {
    if (level_name) {
      cli_spec_error(&spec, "--level applies to --input; a corpus takes its levels from its "
                            "scheme");
      goto end;
    }
    if (argc - first != 1) {
      cli_spec_error(&spec, argc - first ? "too many arguments" : "missing <db> or --input");
      goto end;
    }
    if ((rc = cli_open_store(argv[first], RESCUE_OPEN_READONLY, &st)))
      goto end;
    o.fields = (const char *const *)fields.v;
    o.n_fields = fields.n;
    o.coders = (const char *const *)coders.v;
    o.n_coders = coders.n;
    o.samples = (const char *const *)samples.v;
    o.n_samples = samples.n;
    if ((rc = rescue_agree_corpus(st, &o, &rep))) {
      rc = cli_fail_spec(rescue_store_err(st), argv[first], &spec);
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
  cli_list_clear(&fields);
  cli_list_clear(&coders);
  cli_list_clear(&samples);
  return rc;
}
