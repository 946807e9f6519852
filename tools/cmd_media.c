/*
** cmd_media.c: `rescue media add` (link samples to spans of source videos) and
** `rescue media list` (what is linked, and what is missing or changed on disk).
*/
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *sample, *start_s, *end_s, *map_file, *root;
static const cli_option add_options[] = {
    CLI_STRING(0, "sample", &sample, "<id>", "the sample this video (or span of it) is"),
    CLI_STRING(0, "start", &start_s, "<s>", "where the sample starts in the video"),
    CLI_STRING(0, "end", &end_s, "<s>", "where it ends (both or neither)"),
    CLI_STRING(0, "map", &map_file, "<file.tsv>",
               "many links, one per line: sample_id<TAB>video<TAB>start<TAB>end\n"
               "(start and end empty: the whole file; relative video paths are\n"
               "relative to the map's folder; a first line 'sample_id...' is a\n"
               "header; '#' starts a comment line)"),
    CLI_STRING(0, "media-root", &root, "<dir>",
               "videos under it are stored relative to it (default: the corpus\n"
               "file's folder), so the folder can move; others are absolute"),
    CLI_END};
static const cli_spec add_spec = {
    .synopsis = "rescue media add <db> <video> [--sample <id> [--start <s> --end <s>]]\n"
                "                        [--media-root <dir>]\n"
                "   or: rescue media add <db> --map <file.tsv> [--media-root <dir>]",
    .description =
        "Probe source videos (container, duration, streams, a fingerprint) and link samples to\n"
        "them: a sample is the whole file, or the span --start..--end of it (seconds, or\n"
        "h:mm:ss.fff). A sample not in the corpus yet is created empty. Linking a sample again\n"
        "replaces its reference; the earlier ones stay in its history. Everything is one\n"
        "transaction: any bad line or file leaves the corpus as it was.\n"
        "\n"
        "The fingerprint is the SHA-256 of the file's size, first MiB and last MiB: cheap on\n"
        "long episodes, and it changes when a file is replaced, cut short or re-encoded.\n"
        "",
    .options = add_options,
    .min_args = 1,
    .max_args = -1,
    .arg_name = "<db>"};

static const cli_option list_options[] = {CLI_END};
static const cli_spec list_spec = {
    .synopsis = "rescue media list <db>",
    .description =
        "List every linked sample with its source and span, then the recorded sources no sample\n"
        "uses, checking each file on disk: ok, missing, or changed since it was linked (size or\n"
        "fingerprint). Exit status 0 either way; the last line counts the problems.\n",
    .options = list_options,
    .min_args = 1,
    .max_args = 1,
    .arg_name = "<db>"};

int cmd_media_add(int argc, char **argv) {
  rescue_media_link one;
  rescue_media_map map = {0};
  rescue_media_add_result res;
  rescue_store *st = NULL;
  int rc, first;

  memset(&one, 0, sizeof one);
  if ((rc = cli_parse(argc, argv, &add_spec, &first)) != CLI_PARSED)
    return rc;
  one.sample_id = sample;
  if (map_file) {
    if (argc - first > 1)
      return cli_spec_error(&add_spec, "give either <video> or --map, not both");
    if (one.sample_id || start_s || end_s)
      return cli_spec_error(&add_spec, "--sample, --start and --end go with <video>, not --map");
  } else {
    if (argc - first != 2)
      return cli_spec_error(
          &add_spec, argc - first < 2 ? "missing <video> (or --map)" : "unexpected argument '%s'",
          argv[first + 2]);
    if ((start_s || end_s) && !one.sample_id)
      return cli_spec_error(&add_spec, "--start and --end need --sample");
    if (!start_s != !end_s)
      return cli_spec_error(&add_spec, "give both --start and --end, or neither");
    if (start_s && rescue_media_parse_time(start_s, &one.start))
      return cli_spec_error(&add_spec, "--start expects seconds or h:mm:ss.fff, not '%s'", start_s);
    if (end_s && rescue_media_parse_time(end_s, &one.end))
      return cli_spec_error(&add_spec, "--end expects seconds or h:mm:ss.fff, not '%s'", end_s);
    if (start_s && !(one.end > one.start && one.start >= 0))
      return cli_spec_error(&add_spec, "--end must be after --start (both >= 0)");
    one.has_span = start_s != NULL;
    one.video = argv[first + 1];
  }
  if ((rc = cli_open_store(argv[first], 0, &st)))
    return rc;
  rescue_media_quiet();
  if (map_file) {
    if (rescue_media_map_read(map_file, &map, rescue_store_err(st))) {
      rc = cli_fail(rescue_store_err(st));
      goto end;
    }
    rc = rescue_media_add(st, map.links, map.n, root, &res);
  } else {
    rc = rescue_media_add(st, &one, 1, root, &res);
  }
  if (rc) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  printf("%ld source%s probed (%ld new, %ld already known); %ld sample%s linked",
         res.sources_new + res.sources_known, res.sources_new + res.sources_known == 1 ? "" : "s",
         res.sources_new, res.sources_known, res.segments, res.segments == 1 ? "" : "s");
  if (res.unchanged)
    printf(", %ld unchanged", res.unchanged);
  if (res.samples_new)
    printf(" (%ld new, empty sample%s)", res.samples_new, res.samples_new == 1 ? "" : "s");
  printf("\n");
  rc = cli_finish(0);
end:
  rescue_media_map_clear(&map);
  rescue_store_close(&st);
  return rc;
}

/* Print one entry of the listing. */
static int print_entry(void *arg, const rescue_media_entry *e) {
  char span[64];
  (void)arg;
  if (e->has_span)
    snprintf(span, sizeof span, "%.3f-%.3f", e->start, e->end);
  else
    snprintf(span, sizeof span, "whole (%.3f s)", e->duration);
  printf("%-8s %-40s %-22s %s", e->state, e->sample_id ? e->sample_id : "(no sample)",
         e->sample_id ? span : "", e->path);
  if (*e->detail)
    printf("  [%s]", e->detail);
  if (e->relinks > 0)
    printf("  (relinked %d time%s)", e->relinks, e->relinks == 1 ? "" : "s");
  printf("\n");
  return 0;
}

int cmd_media_list(int argc, char **argv) {
  rescue_store *st = NULL;
  long bad = 0;
  int rc, first;
  if ((rc = cli_parse(argc, argv, &list_spec, &first)) != CLI_PARSED)
    return rc;
  if ((rc = cli_open_store(argv[first], RESCUE_OPEN_READONLY, &st)))
    return rc;
  printf("%-8s %-40s %-22s %s\n", "state", "sample", "span (s)", "source");
  if (rescue_media_list(st, print_entry, NULL, &bad)) {
    rc = cli_fail(rescue_store_err(st));
    rescue_store_close(&st);
    return rc;
  }
  printf("%ld problem%s (missing or changed)\n", bad, bad == 1 ? "" : "s");
  rescue_store_close(&st);
  return cli_finish(0);
}
