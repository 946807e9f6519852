/*
** demo_media.c: the demo's media step: a synthetic episode (test pattern + tone) made
** with libav, both demo sessions linked to spans of it, and their row clips cut.
*/
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The episode holds the couple session at 2-52 s and the family one at 54-110 s. */
#define EPISODE_SECONDS 110.0

int demo_media(const char *dir, rescue_store *st) {
  char video[4096], assets[4096];
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_synth_opts so;
  rescue_media_link links[2];
  rescue_media_add_result ar;
  rescue_clip_opts co = {0};
  rescue_clip_result cr;

  snprintf(video, sizeof video, "%s/media/episode01.mp4", dir);
  snprintf(assets, sizeof assets, "%s/review_assets", dir);
  rescue_media_quiet();
  rescue_synth_defaults(&so);
  so.duration = EPISODE_SECONDS;
  so.width = 320;
  so.height = 180;
  if (rescue_make_parents(video) != 0 || rescue_synth_media(video, &so, &err)) {
    cli_error("cannot make the demo video: %s", err.msg[0] ? err.msg : "cannot create its folder");
    return 1;
  }
  memset(links, 0, sizeof links);
  links[0].sample_id = "maya_and_daniel/001_s01e01_segment01";
  links[0].video = video;
  links[0].has_span = 1;
  links[0].start = 2.0;
  links[0].end = 52.0;
  links[1] = links[0];
  links[1].sample_id = "family_therapy/demo01/merged";
  links[1].start = 54.0;
  links[1].end = EPISODE_SECONDS;
  if (rescue_media_add(st, links, 2, NULL, &ar))
    return cli_fail(rescue_store_err(st));
  co.out = assets;
  co.path_base = dir;
  co.mode = RESCUE_CLIP_COPY;
  co.jobs = 2;
  if (rescue_clip(st, &co, &cr))
    return cli_fail(rescue_store_err(st));
  printf("5. media                   %s (%.0f s synthetic episode: test pattern + tone)\n", video,
         EPISODE_SECONDS);
  printf("                           both sessions linked to spans of it (rescue media list)\n");
  printf("                           %ld row clips and %ld segment.mp4 files in %s/\n",
         cr.clips_written - 2, 2L, assets);
  printf("                           (manifest.json per sample; largest duration error %.3f s)\n\n",
         cr.max_error);
  return 0;
}
