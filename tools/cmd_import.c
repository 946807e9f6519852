/*
** cmd_import.c: `rescue import <db> <path>... [options]`.
*/
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* --annotator: the rules of 'rescue annotator add', so an import never makes a name it refuses. */
static int annotator_name(const cli_spec *spec, const cli_option *o, const char *arg) {
  const char *why = rescue_annotator_name_invalid(arg);
  if (why)
    return cli_spec_error(spec, "invalid annotator name: %s", why);
  *(const char **)o->value = arg;
  return 0;
}

static const char *const formats[] = {"auto", "jsonl", "json", "data-root",
                                      "srt",  "vtt",   "eaf",  NULL};
static int format_index, resegment, strict, json;
static const char *annotator, *sample, *tiers;
static const cli_option options[] = {
    {.type = CLI_OPT_CHOICE,
     .long_name = "format",
     .value = &format_index,
     .argh = "<f>",
     .help = "auto (default): a folder is a data-root, *.jsonl and *.ndjson\n"
             "are jsonl, *.json is json, *.srt is srt, *.vtt is vtt,\n"
             "*.eaf is eaf",
     .choices = formats,
     .bad = "unknown format '%s'"},
    CLI_CALLBACK(0, "annotator", &annotator, "<name>",
                 "whose versions these are: a registered annotator ('rescue\n"
                 "annotator add'; an unknown name is refused with the closest\n"
                 "registered names). Without it the file is the draft: where\n"
                 "every annotator's view starts, never a coder",
                 annotator_name),
    CLI_STRING(0, "sample", &sample, "<id>",
               "the sample_id of a single JSON file, a subtitle or an EAF file"),
    CLI_STRING(0, "tiers", &tiers, "<list>",
               "eaf: the tiers whose annotations are the rows (the tier id is\n"
               "then the speaker)"),
    CLI_FLAG(0, "resegment", &resegment,
             "a sample whose row count differs gets a new row set (the old\n"
             "rows and versions stay in its history) instead of a refusal;\n"
             "a person's new row set is refused on a discarded sample and\n"
             "reopens a reviewed one, as a split or merge in the page"),
    CLI_FLAG(0, "strict", &strict, "refuse keys that look like typos of the scheme's fields"),
    CLI_JSON(&json, "one JSON document: the counts, warnings and, per subtitle\n"
                    "cue, its draft rows and decisions"),
    CLI_END};
static const cli_spec spec = {
    .synopsis = "rescue import <db> <path>... [--format auto|jsonl|json|data-root|srt|vtt|eaf]\n"
                "                     [--annotator <name>] [--sample <id>] [--tiers <t1>,<t2>]\n"
                "                     [--resegment] [--strict] [--json]",
    .description =
        "Read samples into the corpus, all in one transaction: any bad input refuses the whole\n"
        "import and leaves the corpus exactly as it was.\n"
        "\n"
        "  jsonl      release JSONL, one sample object per line with a string sample_id\n"
        "  data-root  a folder of <group>/<sample>.json files; the sample_id is the path\n"
        "             without .json (manifest.json files are skipped)\n"
        "  json       one sample object; its sample_id key, or --sample\n"
        "  srt, vtt   subtitles of the sample --sample (created when new): its cues are stored\n"
        "             (timing ground truth), and when it has no rows yet, one draft row per cue\n"
        "             (times, speaker from a 'Name:' or '[Name]' prefix, text; the rest empty)\n"
        "  eaf        an ELAN file. One that 'rescue export --format eaf' wrote (edited in ELAN\n"
        "             or not) names its sample and comes back row for row, under the annotator\n"
        "             it records unless --annotator; any other EAF needs --sample: each\n"
        "             annotation of a top-level time-aligned tier with a PARTICIPANT (or of the\n"
        "             --tiers named) is a row, in time order, with the values of the tiers below\n"
        "             it as extra fields named by tier. A file with a DOCTYPE is refused.\n"
        "\n"
        "Subtitle drafts: a speaker spelled differently only by case or spacing ('ANNA') takes\n"
        "the first spelling (the sample's participants and Therapist first); a cue with several\n"
        "'- Name:' turns makes one row per turn, its time shared in proportion to each turn's\n"
        "text; a cue without a speaker continues the row before it; sound descriptions such\n"
        "as '(crying)' or '[laughs]' are taken out of dialogue_cleaned (they stay in the\n"
        "stored cue), and a cue of sounds only makes no row. Every such decision is listed\n"
        "(cue, line, rows) so the drafts can be checked.\n"
        "\n"
        "An unknown key is kept as it is (import is lossless), but one that looks like a typo\n"
        "of a field of the scheme ('relation_patern') is warned about, with the field it\n"
        "resembles; --strict refuses the import instead.\n"
        "\n"
        "A sample already in the corpus gets, under the annotator, a new version of each row\n"
        "whose content differs from that annotator's own latest version (every row, for an\n"
        "annotator who has none yet); importing the same file again changes nothing.\n"
        "",
    .options = options,
    .min_args = 2,
    .max_args = -1,
    .arg_name = "<db> <path>"};

/* What the notes of one import become: stderr warnings and decision lines, or JSON. */
typedef struct notes {
  int json;
  const char *annotator; /* --annotator, or NULL */
  rescue_buf decisions;  /* text: one line per subtitle decision */
  rescue_buf warn, cues; /* JSON arrays' contents */
  rescue_jw ww, wc;
  int n_warn, n_cues, open_cue;
} notes;

/*
** A warning note, a "typo" (a key that resembles one of the scheme's) or a "not_imported"
** (annotations of an ELAN tier left out): a warning line, or an entry of the JSON warnings.
*/
static void note_warning(notes *N, const rescue_import_note *n) {
  int typo = strcmp(n->kind, "typo") == 0;
  if (!N->json) {
    if (typo)
      cli_warn("%s:%ld:%ld: %s", n->file, n->line, n->col, n->message);
    else if (strcmp(n->was, "times") == 0)
      cli_warn("%s:%ld: tier '%s': the times of %ld annotation%s not imported: %s", n->file,
               n->line, n->key, n->count, n->count == 1 ? "" : "s", n->message);
    else
      cli_warn("%s:%ld: tier '%s': %ld annotation%s not imported: %s", n->file, n->line, n->key,
               n->count, n->count == 1 ? "" : "s", n->message);
    return;
  }
  rescue_jw_obj(&N->ww);
  rescue_jw_key(&N->ww, "kind");
  rescue_jw_str(&N->ww, n->kind);
  rescue_jw_key(&N->ww, "file");
  rescue_jw_str(&N->ww, n->file);
  rescue_jw_key(&N->ww, "line");
  rescue_jw_int(&N->ww, n->line);
  if (typo) {
    rescue_jw_key(&N->ww, "column");
    rescue_jw_int(&N->ww, n->col);
  }
  rescue_jw_key(&N->ww, "sample_id");
  rescue_jw_str(&N->ww, n->sample_id ? n->sample_id : "");
  rescue_jw_key(&N->ww, typo ? "key" : "tier");
  rescue_jw_str(&N->ww, n->key);
  if (typo) {
    rescue_jw_key(&N->ww, "resembles");
    rescue_jw_str(&N->ww, n->resembles);
  } else {
    rescue_jw_key(&N->ww, "annotations");
    rescue_jw_int(&N->ww, n->count);
    rescue_jw_key(&N->ww, "not_imported");
    rescue_jw_str(&N->ww, n->was);
  }
  rescue_jw_key(&N->ww, "message");
  rescue_jw_str(&N->ww, n->message);
  rescue_jw_end(&N->ww);
  N->n_warn++;
}

static void on_note(void *arg, const rescue_import_note *n) {
  notes *N = arg;
  if (strcmp(n->kind, "not_imported") == 0 || strcmp(n->kind, "typo") == 0) {
    note_warning(N, n);
    return;
  }
  if (!N->json) {
    if (strcmp(n->kind, "cue") != 0)
      rescue_buf_printf(&N->decisions, "%s:%ld: %s: %s\n", n->file, n->line, n->kind, n->message);
    return;
  }
  if (strcmp(n->kind, "cue") == 0) {
    if (N->open_cue) {
      rescue_jw_end(&N->wc); /* decisions */
      rescue_jw_end(&N->wc); /* the cue */
    }
    rescue_jw_obj(&N->wc);
    rescue_jw_key(&N->wc, "file");
    rescue_jw_str(&N->wc, n->file);
    rescue_jw_key(&N->wc, "sample_id");
    rescue_jw_str(&N->wc, n->sample_id ? n->sample_id : "");
    rescue_jw_key(&N->wc, "cue");
    rescue_jw_int(&N->wc, n->cue);
    rescue_jw_key(&N->wc, "line");
    rescue_jw_int(&N->wc, n->line);
    rescue_jw_key(&N->wc, "rows");
    rescue_jw_arr(&N->wc);
    if (n->row_first) {
      int r;
      for (r = n->row_first; r <= n->row_last; r++)
        rescue_jw_int(&N->wc, r);
    }
    rescue_jw_end(&N->wc);
    rescue_jw_key(&N->wc, "decisions");
    rescue_jw_arr(&N->wc);
    N->open_cue = 1;
    N->n_cues++;
    return;
  }
  if (!N->open_cue)
    return;
  rescue_jw_obj(&N->wc);
  rescue_jw_key(&N->wc, "kind");
  rescue_jw_str(&N->wc, n->kind);
  if (n->row_first) {
    rescue_jw_key(&N->wc, "row");
    rescue_jw_int(&N->wc, n->row_first);
  }
  if (n->speaker) {
    rescue_jw_key(&N->wc, "speaker");
    rescue_jw_str(&N->wc, n->speaker);
  }
  if (n->was) {
    rescue_jw_key(&N->wc, strcmp(n->kind, "speaker_case") == 0 ? "was" : "sounds");
    rescue_jw_str(&N->wc, n->was);
  }
  rescue_jw_key(&N->wc, "message");
  rescue_jw_str(&N->wc, n->message);
  rescue_jw_end(&N->wc);
}

/* The JSON document of a finished import. */
static void import_json(notes *N, const rescue_import_result *res, rescue_buf *out) {
  rescue_jw w;
  if (N->open_cue) {
    rescue_jw_end(&N->wc);
    rescue_jw_end(&N->wc);
  }
  rescue_jw_init(&w, out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "files");
  rescue_jw_int(&w, res->files);
  rescue_jw_key(&w, "samples");
  rescue_jw_int(&w, res->samples);
  rescue_jw_key(&w, "rows");
  rescue_jw_int(&w, res->rows);
  rescue_jw_key(&w, "samples_new");
  rescue_jw_int(&w, res->put.samples_new);
  rescue_jw_key(&w, "samples_changed");
  rescue_jw_int(&w, res->put.samples_changed);
  rescue_jw_key(&w, "samples_unchanged");
  rescue_jw_int(&w, res->put.samples_unchanged);
  rescue_jw_key(&w, "row_versions");
  rescue_jw_int(&w, res->put.row_versions);
  rescue_jw_key(&w, "cues");
  rescue_jw_int(&w, res->cues);
  rescue_jw_key(&w, "annotator");
  if (res->owner[0])
    rescue_jw_str(&w, res->owner);
  else if (N->annotator)
    rescue_jw_str(&w, N->annotator);
  else
    rescue_jw_null(&w);
  rescue_jw_key(&w, "not_imported");
  rescue_jw_int(&w, res->not_imported);
  rescue_jw_key(&w, "times_not_imported");
  rescue_jw_int(&w, res->times_dropped);
  if (res->warning[0]) {
    /* the one unstructured warning (cues out of order) */
    rescue_jw_obj(&N->ww);
    rescue_jw_key(&N->ww, "kind");
    rescue_jw_str(&N->ww, "reordered");
    rescue_jw_key(&N->ww, "message");
    rescue_jw_str(&N->ww, res->warning);
    rescue_jw_end(&N->ww);
  }
  rescue_jw_end(&N->ww);
  rescue_jw_end(&N->wc);
  rescue_jw_key(&w, "warnings");
  rescue_jw_raw(&w, N->warn.s, N->warn.len);
  rescue_jw_key(&w, "subtitle_cues");
  rescue_jw_raw(&w, N->cues.s, N->cues.len);
  rescue_jw_end(&w);
  rescue_buf_putc(out, '\n');
}

int cmd_import(int argc, char **argv) {
  rescue_import_opts o = {.format = RESCUE_FMT_AUTO};
  rescue_import_result res;
  rescue_store *st = NULL;
  cli_progress *bar;
  notes N;
  rescue_buf out = RESCUE_BUF_INIT;
  int rc, first;

  memset(&N, 0, sizeof N);
  if ((rc = cli_parse(argc, argv, &spec, &first)) != CLI_PARSED)
    return rc;
  if (rescue_format_parse(formats[format_index], &o.format)) {
    cli_error("unknown format '%s'", formats[format_index]);
    return 1;
  }
  o.annotator = annotator;
  o.sample = sample;
  o.tiers = tiers;
  o.resegment = resegment;
  o.strict = strict;
  N.json = json;
  N.annotator = annotator;
  if ((rc = cli_open_store(argv[first], 0, &st)))
    return rc;
  bar = cli_progress_start("importing");
  o.progress = cli_progress_update;
  o.progress_arg = bar;
  o.note = on_note;
  o.note_arg = &N;
  rescue_jw_init(&N.ww, &N.warn);
  rescue_jw_arr(&N.ww);
  rescue_jw_init(&N.wc, &N.cues);
  rescue_jw_arr(&N.wc);
  rc = rescue_import(st, (const char *const *)argv + first + 1, argc - first - 1, &o, &res);
  cli_progress_done(&bar);
  if (rc) {
    rc = cli_fail_spec(rescue_store_err(st), argv[first], &spec);
    goto end;
  }
  if (N.json) {
    import_json(&N, &res, &out);
    rc = cli_print(&out);
    goto end;
  }
  if (res.warning[0])
    cli_warn("%s", res.warning);
  if (N.decisions.len)
    fwrite(N.decisions.s, 1, N.decisions.len, stdout);
  printf("imported %ld sample%s (%ld rows) from %ld file%s: %ld new, %ld changed, "
         "%ld unchanged; %ld row versions added",
         res.samples, res.samples == 1 ? "" : "s", res.rows, res.files, res.files == 1 ? "" : "s",
         res.put.samples_new, res.put.samples_changed, res.put.samples_unchanged,
         res.put.row_versions);
  if (o.annotator)
    printf(" as annotator '%s'", o.annotator);
  else if (res.owner[0])
    printf(" as annotator%s '%s' (named by the file)", strchr(res.owner, ',') ? "s" : "",
           res.owner);
  else
    printf(" as the draft (no --annotator: where every annotator's view starts, never a coder)");
  if (res.put.rowsets && res.put.rows_carried)
    printf("; %ld row%s kept %s span across a new row set", res.put.rows_carried,
           res.put.rows_carried == 1 ? "" : "s", res.put.rows_carried == 1 ? "its" : "their");
  if (res.cues)
    printf("; %ld subtitle cue%s", res.cues, res.cues == 1 ? "" : "s");
  if (res.not_imported || res.times_dropped)
    printf("; ELAN: %ld annotation%s not imported, %ld kept without their times (listed "
           "above)",
           res.not_imported, res.not_imported == 1 ? "" : "s", res.times_dropped);
  printf("\n");
  rc = cli_finish(0);
end:
  rescue_store_close(&st);
  rescue_buf_clear(&N.decisions);
  rescue_buf_clear(&N.warn);
  rescue_buf_clear(&N.cues);
  rescue_buf_clear(&out);
  return rc;
}
