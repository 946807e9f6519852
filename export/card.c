/*
** card.c: the dataset card (README.md, Hugging Face style with a YAML header) and
** manifest.json of a task export. Both depend only on the export's content and
** options, so the same store gives the same bytes.
*/
#include <string.h>

#include "rescue_version.h"
#include "tasks_int.h"

/* What each task's card section says beyond its one-line summary. */
static const struct {
  const char *instances;
  const char *input;
  const char *gold;
  const char *prediction;
} task_doc[RESCUE_TASK_COUNT] = {
    {"one per decision point: after a client row that the therapist follows (yes), or after a "
     "client row followed by another client row (no); balanced per sample with an even-spacing "
     "picker (a sample without both classes contributes nothing)",
     "`prior_context` (rows 1..k, ending with the decision row k), `timestamp`, `speaker`, "
     "`dialogue` of the decision row, `participants`; the `instance_id` "
     "(`<sample_id>__after_row<k>`) names the sample and the decision row",
     "`gold_should_speak` (yes/no); `gold_candidate_type`, `gold_boundary_type` and "
     "`gold_next_row_index` are metadata that give the class away and must not be shown",
     "`should_speak`: yes or no. Metrics: precision, recall and F1 of yes (the paper's), the "
     "same for no, accuracy, balanced accuracy"},
    {"every row whose `relation_pattern` is a label of the scenario's taxonomy (a sample "
     "without any `relation_pattern` key: therapist rows with a `relation_cycle_state`)",
     "`prior_context` (rows 1..r: the labelled row is the last one observed; in the fallback, "
     "rows before the therapist row), `target_primary_speaker`, `candidate_relation_labels`",
     "`gold_relation_pattern`; `gold_reason` and `gold_evidence_rows` (which may point after "
     "the row) are for reports only",
     "`relation_top3`: three taxonomy labels, best first (invalid ones dropped, padded in "
     "taxonomy order). Metrics: accuracy (= recall@1), recall@2, recall@3, MRR, macro "
     "precision/recall/F1 of the top-1 label over the whole taxonomy"},
    {"every therapist row whose first `support_strategy` item has a `strategy_type` and a "
     "target (the item's, else the row's)",
     "`prior_context` (rows before the therapist row; the turn itself is never shown), "
     "`candidate_target_labels` (participants, the group label and every therapist target of "
     "the sample)",
     "`gold_support_target` (one name, or `Couple`/`Family` for two or more people); "
     "`gold_target_tuple` (the names) and `gold_target_source`",
     "`target_top3`: three candidate labels, best first. Metrics: recall@1 (the paper's), "
     "recall@2, recall@3, MRR"},
    {"every therapist row whose first `support_strategy` item's `strategy_type` is a label of "
     "the scenario's taxonomy and that has a target",
     "`prior_context` (rows before the therapist row), `known_support_target`, "
     "`candidate_strategy_labels`",
     "`gold_support_strategy`",
     "`strategy_top3`: three taxonomy labels, best first. Metrics: recall@1 (the paper's), "
     "recall@2, recall@3, MRR"},
    {"up to N checkpoints per sample (`--checkpoints-per-sample`, evenly spaced) among client "
     "rows in the last ~70% of the sample whose speaker has an internal emotion with a "
     "description and a valid intensity, and whose dialogue has enough words",
     "the row itself (`speaker`, `target`, `dialogue`, non-verbal fields, `clip_path`) and "
     "`prior_context` (all rows before it); release layout",
     "`gold_internal_emotion` (text), `gold_intensity_score` (0-10)",
     "`predicted_internal_emotion`, `predicted_intensity_score`. Metrics: intensity match "
     "max(1, 5 - |pred - gold|) offline; the emotion score needs an LLM judge"},
    {"up to N checkpoints per sample among client rows whose speaker states at least one "
     "viewpoint toward someone",
     "the row itself, `participants` (this task's list includes the therapist) and "
     "`prior_context` (all rows before it); release layout",
     "`gold_viewpoints`: `{source, target, viewpoint, attitude}` items",
     "`predicted_viewpoints`. Metrics: LLM-judge scores only (`rescue score vp` cannot score "
     "offline)"}};

/* Python-style string literal (also a valid YAML double-quoted scalar). */
static void quoted(rescue_buf *b, const char *s) { rescue_jwrite_string(b, s, strlen(s)); }

/* Markdown table cell text: pipes escaped, newlines as spaces. */
static void cell(rescue_buf *b, const char *s) {
  for (; *s; s++) {
    if (*s == '|')
      rescue_buf_puts(b, "\\|");
    else if (*s == '\n' || *s == '\r')
      rescue_buf_putc(b, ' ');
    else
      rescue_buf_putc(b, *s);
  }
}

static long task_total(const tk_summary *s, int t) {
  long n = 0;
  int sp;
  for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++)
    n += s->files[t][sp].lines;
  return n;
}

static const char *size_category(long n) {
  if (n < 1000)
    return "n<1K";
  if (n < 10000)
    return "1K<n<10K";
  if (n < 100000)
    return "10K<n<100K";
  if (n < 1000000)
    return "100K<n<1M";
  return "1M<n<10M";
}

static void yaml_header(const tk_summary *s, rescue_buf *b) {
  long all = 0;
  int t, sp;
  for (t = 0; t < RESCUE_TASK_COUNT; t++)
    all += task_total(s, t);
  rescue_buf_puts(b, "---\npretty_name: ");
  {
    rescue_buf name = RESCUE_BUF_INIT;
    rescue_buf_printf(&name, "RESCUE-BENCH task datasets (%s)", s->corpus);
    quoted(b, name.s ? name.s : "RESCUE-BENCH task datasets");
    rescue_buf_clear(&name);
  }
  rescue_buf_printf(b,
                    "\nlanguage:\n- en\nlicense: other\nsize_categories:\n- %s\n"
                    "task_categories:\n- text-classification\n- text-generation\n"
                    "tags:\n- rescue-bench\n- therapy\n- multi-party-dialogue\n"
                    "- emotional-support\nconfigs:\n",
                    size_category(all));
  for (t = 0; t < RESCUE_TASK_COUNT; t++) {
    if (!(s->o->tasks & (1u << t)))
      continue;
    rescue_buf_printf(b, "- config_name: %s\n", rescue_task_name((rescue_task)t));
    if (!s->split_mode) {
      rescue_buf_printf(b, "  data_files: %s\n", s->files[t][0].rel);
      continue;
    }
    rescue_buf_puts(b, "  data_files:\n");
    for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++)
      if (s->files[t][sp].rel)
        rescue_buf_printf(b, "  - split: %s\n    path: %s\n", rescue_split_name(sp),
                          s->files[t][sp].rel);
  }
  rescue_buf_puts(b, "---\n\n");
}

static void label_table(rescue_buf *b, const rescue_labelset *ls) {
  int i;
  rescue_buf_puts(b, "| label | meaning |\n|---|---|\n");
  for (i = 0; i < ls->n; i++) {
    rescue_buf_printf(b, "| `%s` | ", ls->labels[i]);
    cell(b, ls->descriptions && ls->descriptions[i] ? ls->descriptions[i] : "");
    rescue_buf_puts(b, " |\n");
  }
}

static void label_sets(const tk_summary *s, rescue_buf *b) {
  static const struct {
    const char *set, *title;
  } sets[] = {{"relation_pattern", "Relation patterns (RPP)"},
              {"support_strategy", "Support strategies (SSP)"}};
  size_t k;
  int g;
  rescue_buf_puts(b, "## Label sets\n\nFrom the corpus's annotation scheme, in the paper's "
                     "table order (the order of the candidate lists). Labels are compared "
                     "exactly: no case folding, no aliases.\n\n");
  for (k = 0; k < sizeof sets / sizeof sets[0]; k++) {
    rescue_buf_printf(b, "### %s\n\n", sets[k].title);
    for (g = 0; g < s->sc->n_groups; g++) {
      const rescue_labelset *ls =
          rescue_scheme_labelset(s->sc, sets[k].set, s->sc->group_scenarios[g]);
      if (!ls)
        continue;
      rescue_buf_printf(b, "%s (%d labels):\n\n", s->sc->group_scenarios[g], ls->n);
      label_table(b, ls);
      rescue_buf_putc(b, '\n');
    }
  }
  rescue_buf_puts(b, "### Support targets (STP)\n\nA participant's name, or the group label "
                     "(`Couple`, `Family`) for the whole group or any two or more people.\n\n"
                     "### ITP\n\n`yes` (the therapist speaks next) or `no`.\n\n");
}

static void files_table(const tk_summary *s, rescue_buf *b) {
  int t, sp;
  rescue_buf_puts(b, "## Files and instance counts\n\n| config | split | file | instances | "
                     "couple | family |\n|---|---|---|---:|---:|---:|\n");
  for (t = 0; t < RESCUE_TASK_COUNT; t++)
    for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++) {
      const tk_file *f = &s->files[t][sp];
      if (!f->rel)
        continue;
      rescue_buf_printf(b, "| %s | %s | `%s` | %ld", rescue_task_name((rescue_task)t),
                        s->split_mode ? rescue_split_name(sp) : "-", f->rel, f->lines);
      if (t == RESCUE_TASK_ITP)
        rescue_buf_printf(b, " (%ld yes, %ld no)", f->yes, f->lines - f->yes);
      rescue_buf_printf(b, " | %ld | %ld |\n", f->scenario[0], f->scenario[1]);
    }
  rescue_buf_puts(b, "\n`manifest.json` lists every file with its size, line count and "
                     "SHA-256.");
  if (s->split_mode)
    rescue_buf_puts(b, " `splits/<split>.txt` lists the sample ids of each split.");
  rescue_buf_puts(b, "\n\n");
}

static void tasks_section(const tk_summary *s, rescue_buf *b) {
  int t;
  rescue_buf_puts(b, "## Tasks\n\nEvery record carries `sample_id`, `couple` (the group "
                     "folder), `scenario` (couple or family, derived from the rows), "
                     "`source_sample_id` and `source_file`. Context rows are full row records "
                     "(`row_index`, `timestamp`, `primary_speaker`, `target`, "
                     "`dialogue_cleaned`, `background_dialogue`, `tone_of_voice`, "
                     "`body_posture`, `facial_expressions`, `self_directed_behavior`, "
                     "`interaction_behavior`, `clip_path`, `clip_duration_sec`); "
                     "`prior_context` holds all rows an instance may see, so keep its last k "
                     "for a context size k. Nothing outside the `gold_*` keys reveals the "
                     "answer.\n\n");
  for (t = 0; t < RESCUE_TASK_COUNT; t++) {
    if (!(s->o->tasks & (1u << t)))
      continue;
    static const char *const upper[RESCUE_TASK_COUNT] = {"ITP", "RPP", "STP", "SSP", "ER", "VP"};
    rescue_buf_printf(b,
                      "### %s (`%s`)\n\n%s\n\n- Instances: %s.\n- Input: %s.\n- Gold: %s.\n"
                      "- Prediction: %s.\n\n",
                      upper[t], rescue_task_name((rescue_task)t),
                      rescue_task_summary((rescue_task)t), task_doc[t].instances, task_doc[t].input,
                      task_doc[t].gold, task_doc[t].prediction);
  }
}

static void options_section(const tk_summary *s, rescue_buf *b) {
  const rescue_tasks_opts *o = s->o;
  int t, first = 1, i;
  rescue_buf_puts(b, "## How it was built\n\n| option | value |\n|---|---|\n| `--tasks` | ");
  for (t = 0; t < RESCUE_TASK_COUNT; t++)
    if (o->tasks & (1u << t)) {
      rescue_buf_printf(b, "%s%s", first ? "" : ",", rescue_task_name((rescue_task)t));
      first = 0;
    }
  rescue_buf_puts(b, " |\n| `--view` | ");
  cell(b, o->view_name ? o->view_name : "corpus");
  rescue_buf_puts(b, " |\n| `--clip-root` | ");
  if (o->clip_root) {
    rescue_buf_putc(b, '`');
    cell(b, o->clip_root);
    rescue_buf_putc(b, '`');
  } else {
    rescue_buf_puts(b, "none: the clips `rescue clip` recorded");
  }
  rescue_buf_printf(b,
                    " |\n| `--checkpoints-per-sample` | %d |\n| `--min-dialogue-words` | "
                    "%d |\n| `--itp-cap-per-class` | %d%s |\n| `--samples` | ",
                    o->checkpoints_per_sample, o->min_dialogue_words, o->itp_cap_per_class,
                    o->itp_cap_per_class ? "" : " (off)");
  if (!o->n_samples)
    rescue_buf_puts(b, "all");
  for (i = 0; i < o->n_samples; i++) {
    rescue_buf_puts(b, i ? ", " : "");
    cell(b, o->samples[i]);
  }
  rescue_buf_puts(b, " |\n| `--split` | ");
  cell(b, o->split ? o->split : s->split_mode ? "every split of the run" : "no split run");
  rescue_buf_printf(b, " |\n| `--blind` | %s |\n| `--require-clips` | %s |\n",
                    o->blind ? "yes" : "no", o->require_clips ? "yes" : "no");
  if (o->command_line) {
    rescue_buf_puts(b, "\nCommand: `");
    cell(b, o->command_line);
    rescue_buf_putc(b, '`');
  }
  if (s->res->missing_clips)
    rescue_buf_printf(b, "\n\n%ld ER/VP record%s ha%s no clip (`clip_path` is empty).",
                      s->res->missing_clips, s->res->missing_clips == 1 ? "" : "s",
                      s->res->missing_clips == 1 ? "s" : "ve");
  rescue_buf_printf(b, "\n\nTool: rescue %s. Corpus: ", RESCUE_VERSION_STRING);
  cell(b, s->corpus);
  rescue_buf_printf(b, ", %ld samples used (%ld couple, %ld family)", s->res->samples,
                    s->samples[0][0] + s->samples[1][0] + s->samples[2][0],
                    s->samples[0][1] + s->samples[1][1] + s->samples[2][1]);
  if (s->res->discarded)
    rescue_buf_printf(b, "; %ld discarded left out", s->res->discarded);
  if (s->res->incomplete)
    rescue_buf_printf(b, "; %ld left out without a version of every row in this view",
                      s->res->incomplete);
  if (s->res->unassigned)
    rescue_buf_printf(b, "; %ld left out because their group is not in the split run",
                      s->res->unassigned);
  rescue_buf_puts(b, ".\n\n");
}

static const char *const policy_names[4] = {"lead", "majority", "latest", "unrecorded"};

/*
** The thin-data warning of one field of the agreement summary, the one `rescue agree`
** prints (annotate/agree_report.c): an interval from fewer than 20 resampled samples, or
** fewer than 30 pairable units. Nothing when the field has no "warnings".
*/
static void thin_data_line(rescue_buf *b, const rescue_jnode *f) {
  const rescue_jnode *w = rescue_jget(f, "warnings"), *x;
  int n = 0;
  if (!w || w->type != RESCUE_JARRAY || !w->child)
    return;
  rescue_buf_printf(b, "\nThin data: `%s`:", rescue_jget(f, "field")->s);
  for (x = w->child; x; x = x->next) {
    const rescue_jnode *kind = rescue_jget(x, "kind"), *g = rescue_jget(x, "groups"),
                       *u = rescue_jget(x, "units");
    if (!kind || kind->type != RESCUE_JSTRING)
      continue;
    if (strcmp(kind->s, "few_resampled_groups") == 0 && g && g->type == RESCUE_JNUMBER)
      rescue_buf_printf(b, "%s the interval rests on %s resampled samples (fewer than 20)",
                        n++ ? ";" : "", g->s);
    else if (strcmp(kind->s, "few_pairable_units") == 0 && u && u->type == RESCUE_JNUMBER)
      rescue_buf_printf(b, "%s %s pairable units (fewer than 30)", n++ ? ";" : "", u->s);
  }
  rescue_buf_puts(b, ": read the interval as a rough guide only.\n");
}

/* The name of annotator id among the summary's annotators ("?" when unknown). */
static const char *annotator_name(const tk_summary *s, int64_t id) {
  int i;
  for (i = 0; i < s->n_annotators; i++)
    if (s->annotators[i].id == id && s->annotators[i].name)
      return s->annotators[i].name;
  return "?";
}

/* The samples shown whole from one annotator's view (rows of row sets never mix). */
static void whole_views(const tk_summary *s, rescue_buf *b) {
  long i;
  if (!s->n_whole)
    return;
  rescue_buf_printf(b,
                    " %ld sample%s without a gold segmentation, whose annotators' row sets "
                    "differ, %s exported whole from the view of the annotator who saved last "
                    "(ties by name), so rows of different row sets never mix:",
                    s->n_whole, s->n_whole == 1 ? "" : "s", s->n_whole == 1 ? "is" : "are");
  for (i = 0; i < s->n_whole; i++) {
    rescue_buf_printf(b, "%s `", i ? "," : "");
    rescue_buf_puts(b, s->whole[i].sample_id);
    rescue_buf_printf(b, "` (%s)", annotator_name(s, s->whole[i].annotator_id));
  }
  rescue_buf_putc(b, '.');
}

/* Whose row sets the gold rows are in: each chosen one, and the one every coder shares. */
static void gold_segmentations(const tk_summary *s, rescue_buf *b) {
  int i, n = 0;
  rescue_buf_puts(b, " Gold segmentation (the row set gold rows are in):");
  for (i = 0; i < s->n_annotators; i++) {
    const tk_prov_annotator *a = &s->annotators[i];
    if (!a->segmented)
      continue;
    rescue_buf_printf(b, "%s chosen from ", n++ ? "," : "");
    if (a->name && strcmp(a->name, RESCUE_DRAFT_ANNOTATOR) == 0)
      rescue_buf_puts(b, "the draft's");
    else {
      cell(b, a->name ? a->name : "?");
      rescue_buf_puts(b, "'s");
    }
    rescue_buf_printf(b, " in %ld sample%s", a->segmented, a->segmented == 1 ? "" : "s");
  }
  if (s->seg_base)
    rescue_buf_printf(b, "%s the row set every coder shares in %ld sample%s", n ? "," : "",
                      s->seg_base, s->seg_base == 1 ? "" : "s");
  rescue_buf_putc(b, '.');
}

/* How the gold rows were decided (agreed, each policy, each lead); whose row sets they are in. */
static void gold_rows_how(const tk_summary *s, rescue_buf *b) {
  int i, first = 1;
  rescue_buf_puts(b, " Gold rows by how they were decided: ");
  if (s->gold_agreed) {
    rescue_buf_printf(b, "agreed by all coders %ld", s->gold_agreed);
    first = 0;
  }
  for (i = 0; i < 4; i++)
    if (s->how_policy[i]) {
      rescue_buf_printf(b, "%spolicy %s %ld", first ? "" : ", ", policy_names[i], s->how_policy[i]);
      first = 0;
    }
  for (i = 0; i < s->n_annotators; i++)
    if (s->annotators[i].decided) {
      rescue_buf_printf(b, "%sdecided by lead ", first ? "" : ", ");
      cell(b, s->annotators[i].name ? s->annotators[i].name : "?");
      rescue_buf_printf(b, " %ld", s->annotators[i].decided);
      first = 0;
    }
  rescue_buf_putc(b, '.');
  gold_segmentations(s, b);
}

/* Where the rows come from: gold or latest, policies, annotators, agreement. */
static void provenance_section(const tk_summary *s, rescue_buf *b) {
  const rescue_tasks_result *r = s->res;
  long rows = r->rows_gold + r->rows_latest;
  int i;
  rescue_buf_printf(b,
                    "## Annotation provenance\n\nView `%s`. Of the %ld rows of the samples "
                    "used, %ld (%.1f%%) are adjudicated gold and %ld (%.1f%%) are the latest "
                    "version by one annotator (%s).",
                    s->o->view_name ? s->o->view_name : "corpus", rows, r->rows_gold,
                    rows ? 100.0 * (double)r->rows_gold / (double)rows : 0.0, r->rows_latest,
                    rows ? 100.0 * (double)r->rows_latest / (double)rows : 0.0,
                    r->rows_gold ? "not adjudicated" : "nothing is adjudicated");
  if (r->rows_gold)
    gold_rows_how(s, b);
  whole_views(s, b);
  rescue_buf_puts(b, "\n\n| annotator | role | rows annotated | rows shown | gold rows decided |\n"
                     "|---|---|---:|---:|---:|\n");
  for (i = 0; i < s->n_annotators; i++) {
    const tk_prov_annotator *a = &s->annotators[i];
    int draft = a->name && strcmp(a->name, RESCUE_DRAFT_ANNOTATOR) == 0;
    rescue_buf_puts(b, "| ");
    cell(b, draft ? "the draft (the imported file)" : a->name ? a->name : "?");
    rescue_buf_printf(b, " | %s | %ld | %ld | %ld |\n",
                      draft     ? "draft"
                      : a->role ? a->role
                                : "?",
                      a->annotated, a->rows, a->decided);
  }
  rescue_buf_puts(b, "\nRows annotated: rows of the samples used, in any row set (a coder "
                     "who split or merged rows has one of their own), with a version of their "
                     "own (an import, a draft or an edit). Rows shown: rows whose exported "
                     "version they wrote (gold versions are written by the adjudication). Gold "
                     "rows decided: gold rows shown whose last decision was this lead's.\n");
  rescue_buf_puts(b, "\nAgreement between the coders over the samples used "
                     "(Krippendorff's alpha, bootstrap interval over samples; reliability by "
                     "Krippendorff's guidelines: 0.800 or more reliable, 0.667 up to 0.800 "
                     "tentative, below 0.667 unreliable):\n\n");
  if (s->agreement_note[0] || !s->agreement.len) {
    cell(b, s->agreement_note[0] ? s->agreement_note : "not computed");
    rescue_buf_puts(b, "\n\n");
    return;
  }
  {
    rescue_jdoc *doc = rescue_jdoc_new();
    const rescue_jnode *a = doc ? rescue_jparse(doc, s->agreement.s, s->agreement.len, NULL) : NULL,
                       *f;
    rescue_buf_puts(b, "| field | level | status | reliability | units | alpha | interval |\n"
                       "|---|---|---|---|---:|---:|---|\n");
    for (f = a ? a->child : NULL; f; f = f->next) {
      const rescue_jnode *al = rescue_jget(f, "alpha"), *lo = rescue_jget(f, "ci_low"),
                         *hi = rescue_jget(f, "ci_high"), *lv = rescue_jget(f, "ci_level");
      const rescue_jnode *rel = rescue_jget(f, "reliability");
      rescue_buf_printf(
          b, "| %s | %s | %s | %s | %s | ", rescue_jget(f, "field")->s, rescue_jget(f, "level")->s,
          rescue_jget(f, "status")->s, rel && rel->type == RESCUE_JSTRING ? rel->s : "-",
          rescue_jget(f, "units")->type == RESCUE_JNUMBER ? rescue_jget(f, "units")->s : "-");
      if (al && al->type == RESCUE_JNUMBER)
        rescue_buf_printf(b, "%.3f", al->num);
      else
        rescue_buf_puts(b, "-");
      if (lo && lo->type == RESCUE_JNUMBER && hi && hi->type == RESCUE_JNUMBER)
        rescue_buf_printf(b, " | %.0f%%: %.3f to %.3f |\n",
                          lv && lv->type == RESCUE_JNUMBER ? 100 * lv->num : 95.0, lo->num,
                          hi->num);
      else
        rescue_buf_puts(b, " | - |\n");
    }
    for (f = a ? a->child : NULL; f; f = f->next)
      thin_data_line(b, f);
    rescue_jdoc_free(&doc);
  }
  rescue_buf_putc(b, '\n');
}

static void splits_section(const tk_summary *s, rescue_buf *b) {
  int sp;
  if (!s->split_mode)
    return;
  rescue_buf_printf(b,
                    "## Splits\n\nSplit run %lld: ratios %s (train, validation, test), seed "
                    "%lld, %s. Whole groups (a couple, a family) go to one split, so no "
                    "group's sessions appear in two splits.\n\n| split | samples | couple | "
                    "family |\n|---|---:|---:|---:|\n",
                    (long long)s->run.id, s->run.ratios, (long long)s->run.seed,
                    s->run.stratify ? "stratified by scenario" : "not stratified");
  for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++)
    if (s->active[sp])
      rescue_buf_printf(b, "| %s | %ld | %ld | %ld |\n", rescue_split_name(sp),
                        s->samples[sp][0] + s->samples[sp][1], s->samples[sp][0],
                        s->samples[sp][1]);
  rescue_buf_putc(b, '\n');
}

void rescue_tk_card(const tk_summary *s, rescue_buf *b) {
  yaml_header(s, b);
  rescue_buf_puts(b, "# RESCUE-BENCH task datasets\n\n");
  rescue_buf_puts(b, "The task datasets of RESCUE-BENCH (relation-aware multi-party emotional "
                     "support in couple and family therapy, arXiv 2609.09657), built from the "
                     "corpus `");
  cell(b, s->corpus);
  rescue_buf_printf(b,
                    "` by rescue %s, exactly by the rules of the benchmark's task "
                    "specification. One JSON object per line (Python `json.dumps` style, "
                    "UTF-8), samples in sample_id order, then row order.\n\n",
                    RESCUE_VERSION_STRING);
  if (s->notice[0])
    rescue_buf_printf(b, "## Privacy\n\n%s\n\n", s->notice);
  files_table(s, b);
  tasks_section(s, b);
  label_sets(s, b);
  splits_section(s, b);
  provenance_section(s, b);
  options_section(s, b);
  rescue_buf_puts(b, "## Scoring\n\n```\nrescue score <task> --gold <file>.jsonl --pred "
                     "predictions.jsonl [--protocol rescue|release] [--json]\n```\n\n"
                     "Predictions are JSONL objects with `instance_id` and the task's "
                     "prediction field. Under the default `rescue` protocol missing predictions "
                     "count as wrong (ITP: `no`); `release` reproduces the benchmark scripts' "
                     "arithmetic. The gold label is never filled in.");
  if (s->o->blind)
    rescue_buf_puts(b, " This is a blind export: the task files hold no `gold_*` keys; score "
                       "against the `*.answers.jsonl` files, which were written to a folder of "
                       "their own (`--answers`) and are not to be published with these.");
  rescue_buf_puts(b, "\n\n"
                     "## Source and licence\n\nThe conversations are real therapy sessions; "
                     "use them under the terms of the corpus they came from, for research on "
                     "supportive dialogue only.\n");
}

/* One file entry of the manifest. */
static void manifest_file(rescue_jw *w, const tk_file *f) {
  rescue_jw_obj(w);
  rescue_jw_key(w, "path");
  rescue_jw_str(w, f->rel);
  rescue_jw_key(w, "lines");
  rescue_jw_int(w, f->lines);
  rescue_jw_key(w, "bytes");
  rescue_jw_int(w, (long long)f->bytes);
  rescue_jw_key(w, "sha256");
  rescue_jw_str(w, f->sha256);
  rescue_jw_end(w);
}

/* Files in path order (bytewise): gather pointers, insertion sort (a handful). */
static int sorted_files(const tk_summary *s, const tk_file **v) {
  int n = 0, t, sp, i, j;
  for (t = 0; t < RESCUE_TASK_COUNT; t++)
    for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++) {
      if (s->files[t][sp].rel)
        v[n++] = &s->files[t][sp];
    }
  for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++)
    if (s->splits[sp].rel)
      v[n++] = &s->splits[sp];
  if (s->readme.rel)
    v[n++] = &s->readme;
  for (i = 1; i < n; i++)
    for (j = i; j > 0 && strcmp(v[j - 1]->rel, v[j]->rel) > 0; j--) {
      const tk_file *x = v[j];
      v[j] = v[j - 1];
      v[j - 1] = x;
    }
  return n;
}

/* The "options" member of the manifest: the export options as given. */
static void manifest_options(rescue_jw *w, const rescue_tasks_opts *o) {
  int i, t;
  rescue_jw_key(w, "options");
  rescue_jw_obj(w);
  rescue_jw_key(w, "tasks");
  rescue_jw_arr(w);
  for (t = 0; t < RESCUE_TASK_COUNT; t++)
    if (o->tasks & (1u << t))
      rescue_jw_str(w, rescue_task_name((rescue_task)t));
  rescue_jw_end(w);
  rescue_jw_key(w, "view");
  rescue_jw_str(w, o->view_name ? o->view_name : "corpus");
  rescue_jw_key(w, "clip_root");
  if (o->clip_root)
    rescue_jw_str(w, o->clip_root);
  else
    rescue_jw_null(w);
  rescue_jw_key(w, "checkpoints_per_sample");
  rescue_jw_int(w, o->checkpoints_per_sample);
  rescue_jw_key(w, "min_dialogue_words");
  rescue_jw_int(w, o->min_dialogue_words);
  rescue_jw_key(w, "itp_cap_per_class");
  rescue_jw_int(w, o->itp_cap_per_class);
  rescue_jw_key(w, "samples");
  if (!o->n_samples) {
    rescue_jw_null(w);
  } else {
    rescue_jw_arr(w);
    for (i = 0; i < o->n_samples; i++)
      rescue_jw_str(w, o->samples[i]);
    rescue_jw_end(w);
  }
  rescue_jw_key(w, "split");
  if (o->split)
    rescue_jw_str(w, o->split);
  else
    rescue_jw_null(w);
  rescue_jw_end(w);
}

/* The "split_run" member: the split run the export followed, or null. */
static void manifest_split_run(rescue_jw *w, const tk_summary *s) {
  rescue_jw_key(w, "split_run");
  if (!s->split_mode) {
    rescue_jw_null(w);
  } else {
    rescue_jw_obj(w);
    rescue_jw_key(w, "id");
    rescue_jw_int(w, s->run.id);
    rescue_jw_key(w, "seed");
    rescue_jw_int(w, s->run.seed);
    rescue_jw_key(w, "ratios");
    rescue_jw_str(w, s->run.ratios);
    rescue_jw_key(w, "stratify");
    rescue_jw_bool(w, s->run.stratify);
    rescue_jw_end(w);
  }
}

/* The "annotators" member of the provenance: rows annotated and shown per annotator. */
static void manifest_annotators(rescue_jw *w, const tk_summary *s) {
  int i;
  rescue_jw_key(w, "annotators");
  rescue_jw_arr(w);
  for (i = 0; i < s->n_annotators; i++) {
    rescue_jw_obj(w);
    rescue_jw_key(w, "name");
    rescue_jw_str(w, s->annotators[i].name ? s->annotators[i].name : "");
    rescue_jw_key(w, "role"); /* the draft's is "draft", as in the card */
    rescue_jw_str(w, s->annotators[i].name &&
                             strcmp(s->annotators[i].name, RESCUE_DRAFT_ANNOTATOR) == 0
                         ? "draft"
                     : s->annotators[i].role ? s->annotators[i].role
                                             : "");
    rescue_jw_key(w, "rows_annotated");
    rescue_jw_int(w, s->annotators[i].annotated);
    rescue_jw_key(w, "rows_shown");
    rescue_jw_int(w, s->annotators[i].rows);
    rescue_jw_key(w, "gold_rows_decided");
    rescue_jw_int(w, s->annotators[i].decided);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
}

/*
** The "provenance" member: tool, command line, view, gold policies, annotators,
** agreement and missing clips.
*/
static void manifest_provenance(rescue_jw *w, const tk_summary *s) {
  const rescue_tasks_opts *o = s->o;
  int i;
  rescue_jw_key(w, "provenance");
  rescue_jw_obj(w);
  rescue_jw_key(w, "tool_version");
  rescue_jw_str(w, RESCUE_VERSION_STRING);
  rescue_jw_key(w, "command_line");
  if (o->command_line)
    rescue_jw_str(w, o->command_line);
  else
    rescue_jw_null(w);
  rescue_jw_key(w, "view");
  rescue_jw_str(w, o->view_name ? o->view_name : "corpus");
  rescue_jw_key(w, "rows_gold");
  rescue_jw_int(w, s->res->rows_gold);
  rescue_jw_key(w, "rows_latest");
  rescue_jw_int(w, s->res->rows_latest);
  rescue_jw_key(w, "gold_policies");
  rescue_jw_obj(w);
  for (i = 0; i < 4; i++)
    if (s->policies[i]) {
      rescue_jw_key(w, policy_names[i]);
      rescue_jw_int(w, s->policies[i]);
    }
  rescue_jw_end(w);
  rescue_jw_key(w, "gold_agreed");
  rescue_jw_int(w, s->gold_agreed);
  manifest_annotators(w, s);
  rescue_jw_key(w, "agreement");
  if (s->agreement.len)
    rescue_jw_raw(w, s->agreement.s, s->agreement.len);
  else
    rescue_jw_null(w);
  rescue_jw_key(w, "agreement_note");
  if (s->agreement_note[0])
    rescue_jw_str(w, s->agreement_note);
  else
    rescue_jw_null(w);
  if (s->n_whole) {
    long k;
    rescue_jw_key(w, "whole_views");
    rescue_jw_arr(w);
    for (k = 0; k < s->n_whole; k++) {
      rescue_jw_obj(w);
      rescue_jw_key(w, "sample_id");
      rescue_jw_str(w, s->whole[k].sample_id);
      rescue_jw_key(w, "annotator");
      rescue_jw_str(w, annotator_name(s, s->whole[k].annotator_id));
      rescue_jw_end(w);
    }
    rescue_jw_end(w);
  }
  rescue_jw_key(w, "missing_clips");
  rescue_jw_int(w, s->res->missing_clips);
  rescue_jw_key(w, "blind");
  rescue_jw_bool(w, o->blind);
  rescue_jw_end(w);
}

void rescue_tk_manifest(const tk_summary *s, rescue_buf *b) {
  const rescue_tasks_opts *o = s->o;
  const tk_file *files[2 * RESCUE_TASK_COUNT * RESCUE_SPLIT_COUNT + RESCUE_SPLIT_COUNT + 1];
  rescue_jw w;
  int n, i, t;
  rescue_jw_init(&w, b);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "format");
  rescue_jw_str(&w, "rescue-tasks");
  rescue_jw_key(&w, "format_version");
  rescue_jw_int(&w, 1);
  rescue_jw_key(&w, "tool");
  rescue_jw_str(&w, "rescue");
  rescue_jw_key(&w, "tool_version");
  rescue_jw_str(&w, RESCUE_VERSION_STRING);
  rescue_jw_key(&w, "corpus");
  rescue_jw_str(&w, s->corpus);
  manifest_options(&w, o);
  manifest_split_run(&w, s);
  rescue_jw_key(&w, "samples");
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "used");
  rescue_jw_int(&w, s->res->samples);
  rescue_jw_key(&w, "discarded");
  rescue_jw_int(&w, s->res->discarded);
  rescue_jw_key(&w, "incomplete");
  rescue_jw_int(&w, s->res->incomplete);
  rescue_jw_key(&w, "unassigned");
  rescue_jw_int(&w, s->res->unassigned);
  rescue_jw_end(&w);
  manifest_provenance(&w, s);
  rescue_jw_key(&w, "instances");
  rescue_jw_obj(&w);
  for (t = 0; t < RESCUE_TASK_COUNT; t++)
    if (o->tasks & (1u << t)) {
      rescue_jw_key(&w, rescue_task_name((rescue_task)t));
      rescue_jw_int(&w, s->res->instances[t]);
    }
  rescue_jw_end(&w);
  rescue_jw_key(&w, "files");
  rescue_jw_arr(&w);
  n = sorted_files(s, files);
  for (i = 0; i < n; i++)
    manifest_file(&w, files[i]);
  rescue_jw_end(&w);
  rescue_jw_end(&w);
}
