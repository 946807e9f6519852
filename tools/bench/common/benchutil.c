/*
** benchutil.c: see benchutil.h.
*/
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchutil.h"

static unsigned long long rng = 0x2545F4914F6CDD1DULL;

void bench_seed(unsigned long long seed) { rng = seed ? seed : 1; }
unsigned bench_next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned)(rng >> 11);
}

static const char *words[] = {
    "I",    "just",        "feel",         "like",         "you",        "never",   "listen",
    "to",   "me",          "when",         "we",           "talk",       "about",   "money",
    "and",  "it",          "always",       "turns",        "into",       "a",       "fight",
    "that", "nobody",      "wins",         "maybe",        "should",     "try",     "again",
    "with", "more",        "care",         "because",      "this",       "matters", "so",
    "much", "caf\xc3\xa9", "na\xc3\xafve", "\xe2\x80\x94", "\"quoted\"", "it's",    "don't",
    "well,"};

void bench_sentence(rescue_jw *w, int n) {
  rescue_buf s = RESCUE_BUF_INIT;
  int i;
  for (i = 0; i < n; i++) {
    if (i)
      rescue_buf_putc(&s, ' ');
    rescue_buf_puts(&s, words[bench_next() % (sizeof words / sizeof words[0])]);
  }
  rescue_jw_strn(w, s.s, s.len);
  rescue_buf_clear(&s);
}

void bench_person_items(rescue_jw *w, const char *person, int n) {
  int i;
  rescue_jw_arr(w);
  for (i = 0; i < n; i++) {
    rescue_jw_obj(w);
    rescue_jw_key(w, "person");
    rescue_jw_str(w, person);
    rescue_jw_key(w, "description");
    bench_sentence(w, 6);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
}

static const char *couple_rel[] = {"pursue_withdraw",        "attack_attack",
                                   "withdraw_withdraw",      "repair_softening",
                                   "constructive_alignment", "mixed_transition"};
static const char *family_rel[] = {"escalation_conflict",         "pursue_withdraw",
                                   "mutual_disengagement",        "cross_generational_coalition",
                                   "boundary_hierarchy_strain",   "repair_softening",
                                   "cooperative_family_alliance", "mixed_transition"};
static const char *couple_ss[] = {"counterbalance", "safeguard", "goal_align", "track",  "reframe",
                                  "evoke",          "enact",     "join",       "detach", "repair"};
static const char *family_ss[] = {"safeguard", "join",     "track",   "counterbalance",
                                  "enact",     "boundary", "reframe", "repair"};
#define N(v) (sizeof v / sizeof v[0])

void bench_gen_sample(rescue_buf *b, long k, int release) {
  bench_gen_sample_rows(b, k, release, 0);
}

void bench_gen_sample_rows(rescue_buf *b, long k, int release, int rows) {
  static const char *couple[] = {"Alex", "Sam"}, *family[] = {"Ana", "Ben", "Cleo"};
  int fam = k % 11 == 10, i,
      n = rows > 0 ? rows
          : fam    ? 60 + (int)(bench_next() % 51)
                   : 10 + (int)(bench_next() % 45);
  const char **people = fam ? family : couple;
  int np = fam ? 3 : 2;
  double t = 0;
  char id[128];
  rescue_jw w;
  if (fam && !release)
    snprintf(id, sizeof id, "family_therapy/%05ld/merged", k);
  else /* in sample_id order: k-th generated = k-th exported */
    snprintf(id, sizeof id, "group_%06ld/%03ld_s01e%02ld_segment%02ld", k / 7, k % 7, k % 13,
             k % 17);
  rescue_jw_init(&w, b);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "sample_id");
  rescue_jw_str(&w, id);
  if (release) {
    char src[200];
    rescue_jw_key(&w, "scenario");
    rescue_jw_str(&w, fam ? "family" : "couple");
    rescue_jw_key(&w, "participants");
    rescue_jw_arr(&w);
    for (i = 0; i < np; i++)
      rescue_jw_str(&w, people[i]);
    rescue_jw_end(&w);
    rescue_jw_key(&w, "source_file");
    snprintf(src, sizeof src, "data/therapy_merged_all/%s.json", id);
    rescue_jw_str(&w, src);
  }
  rescue_jw_key(&w, "rows");
  rescue_jw_arr(&w);
  for (i = 0; i < n; i++) {
    int ther = bench_next() % 20 < 9;
    const char *sp = ther ? "Therapist" : people[bench_next() % np];
    const char *other = people[bench_next() % np];
    double len = 1.0 + (bench_next() % 1500) / 100.0;
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "start_time");
    rescue_jw_double(&w, t);
    rescue_jw_key(&w, "end_time");
    rescue_jw_double(&w, t + len);
    t += len;
    rescue_jw_key(&w, "primary_speaker");
    rescue_jw_str(&w, sp);
    rescue_jw_key(&w, "target");
    rescue_jw_arr(&w);
    rescue_jw_str(&w, ther ? other : "Therapist");
    rescue_jw_end(&w);
    rescue_jw_key(&w, "dialogue_cleaned");
    bench_sentence(&w, 12 + (int)(bench_next() % 20));
    rescue_jw_key(&w, "utterance_type");
    rescue_jw_str(&w, ther ? "" : "disclosure");
    rescue_jw_key(&w, "background_dialogue");
    rescue_jw_arr(&w);
    rescue_jw_end(&w);
    rescue_jw_key(&w, "tone_of_voice");
    bench_sentence(&w, 3);
    rescue_jw_key(&w, "body_posture");
    bench_person_items(&w, sp, 1);
    rescue_jw_key(&w, "facial_expressions");
    bench_person_items(&w, sp, 1);
    rescue_jw_key(&w, "self_directed_behavior");
    bench_person_items(&w, sp, (int)(bench_next() % 2));
    rescue_jw_key(&w, "interaction_behavior");
    rescue_jw_arr(&w);
    rescue_jw_end(&w);
    rescue_jw_key(&w, "internal_emotion");
    rescue_jw_arr(&w);
    if (!ther) {
      rescue_jw_obj(&w);
      rescue_jw_key(&w, "person");
      rescue_jw_str(&w, sp);
      rescue_jw_key(&w, "emotion_description");
      bench_sentence(&w, 8);
      rescue_jw_key(&w, "intensity");
      rescue_jw_int(&w, (long long)(bench_next() % 11));
      rescue_jw_end(&w);
    }
    rescue_jw_end(&w);
    rescue_jw_key(&w, "viewpoints_attitudes");
    rescue_jw_arr(&w);
    if (!ther && bench_next() % 2) {
      rescue_jw_obj(&w);
      rescue_jw_key(&w, "source");
      rescue_jw_str(&w, sp);
      rescue_jw_key(&w, "target");
      rescue_jw_str(&w, strcmp(other, sp) ? other : "Therapist");
      rescue_jw_key(&w, "viewpoint");
      bench_sentence(&w, 9);
      rescue_jw_key(&w, "attitude");
      bench_sentence(&w, 2);
      rescue_jw_end(&w);
    }
    rescue_jw_end(&w);
    rescue_jw_key(&w, "support_strategy");
    rescue_jw_arr(&w);
    if (ther) {
      rescue_jw_obj(&w);
      rescue_jw_key(&w, "provider");
      rescue_jw_str(&w, "Therapist");
      rescue_jw_key(&w, "target");
      rescue_jw_arr(&w);
      rescue_jw_str(&w, bench_next() % 3 ? other : fam ? "Family" : "Couple");
      rescue_jw_end(&w);
      rescue_jw_key(&w, "strategy_type");
      rescue_jw_str(&w, fam ? family_ss[bench_next() % N(family_ss)]
                            : couple_ss[bench_next() % N(couple_ss)]);
      rescue_jw_key(&w, "strategy_content");
      bench_sentence(&w, 10);
      rescue_jw_end(&w);
    }
    rescue_jw_end(&w);
    rescue_jw_key(&w, "row_index");
    rescue_jw_int(&w, i + 1);
    rescue_jw_key(&w, "relation_pattern");
    if (bench_next() % 3 == 0)
      rescue_jw_str(&w, fam ? family_rel[bench_next() % N(family_rel)]
                            : couple_rel[bench_next() % N(couple_rel)]);
    else
      rescue_jw_null(&w);
    rescue_jw_key(&w, "relation_pattern_reason");
    bench_sentence(&w, 8);
    rescue_jw_key(&w, "relation_pattern_evidence_rows");
    rescue_jw_arr(&w);
    rescue_jw_int(&w, i + 1);
    rescue_jw_end(&w);
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
  rescue_jw_end(&w);
  rescue_buf_putc(b, '\n');
}

double bench_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

double bench_last_cpu;

int bench_run(char *const argv[], double *secs, double *rss_mb) {
  struct rusage ru;
  int status;
  double t0 = bench_now();
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0)
      dup2(devnull, 1);
    execvp(argv[0], argv);
    _exit(127);
  }
  if (pid < 0 || wait4(pid, &status, 0, &ru) < 0)
    return -1;
  *secs = bench_now() - t0;
  *rss_mb = (double)ru.ru_maxrss / 1024.0;
  bench_last_cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                   (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}
