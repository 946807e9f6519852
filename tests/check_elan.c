/*
** check_elan.c: ELAN interchange. Exports validate against MPI's EAF 3.0 schema (read
** from the fixtures), export -> import -> export changes nothing on the real samples nor
** on rows shaped to break it, an edit made in the file comes back as the annotator's
** version, the MPI demo files import, and hostile or broken XML is refused with the store
** unchanged. Without the fixtures the tests that need none run and the suite reports
** SKIPPED (77); with RESCUE_REQUIRE_FIXTURES=1 it fails instead.
*/
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlschemas.h>

#include "testutil.h"

/* A corpus holding the four real release samples; *dir gets its folder. */
static char *real_corpus(char **dir) {
  const char *fx = tu_fixtures();
  char *db = tu_new_corpus(), *err = NULL;
  char couple[1024], family[1024];
  snprintf(couple, sizeof couple, "%s/rescue-bench/couple-first3.jsonl", fx);
  snprintf(family, sizeof family, "%s/rescue-bench/family-first1.jsonl", fx);
  ck_assert_msg(tu_rescue(NULL, &err, "import", db, couple, family, NULL) == 0, "%s", err);
  free(err);
  *dir = strdup(db);
  *strrchr(*dir, '/') = 0;
  return db;
}

/* Paths of the .eaf files under dir (sorted), NULL-terminated; caller frees. */
static void find_eaf(const char *dir, char ***out, int *n) {
  DIR *d = opendir(dir);
  struct dirent *e;
  ck_assert_ptr_nonnull(d);
  while ((e = readdir(d)) != NULL) {
    char p[2048];
    struct stat sb;
    if (e->d_name[0] == '.')
      continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    if (stat(p, &sb) != 0)
      continue;
    if (S_ISDIR(sb.st_mode)) {
      find_eaf(p, out, n);
    } else if (strlen(e->d_name) > 4 && strcmp(e->d_name + strlen(e->d_name) - 4, ".eaf") == 0) {
      *out = realloc(*out, (size_t)(*n + 2) * sizeof **out);
      (*out)[(*n)++] = strdup(p);
      (*out)[*n] = NULL;
    }
  }
  closedir(d);
}

static void free_list(char **v, int n) {
  int i;
  for (i = 0; i < n; i++)
    free(v[i]);
  free(v);
}

static int validation_errors;
static void count_error(void *ctx, const char *msg, ...) { validation_errors++; }

/* 0 when the file validates against the EAF 3.0 schema of the fixtures. */
static int validate(const char *path) {
  char xsd[1024];
  xmlSchemaParserCtxtPtr pc;
  xmlSchemaPtr schema;
  xmlSchemaValidCtxtPtr vc;
  xmlDocPtr doc;
  int rc;
  snprintf(xsd, sizeof xsd, "%s/elan/EAFv3.0.xsd", tu_fixtures());
  pc = xmlSchemaNewParserCtxt(xsd);
  schema = xmlSchemaParse(pc);
  ck_assert_ptr_nonnull(schema);
  vc = xmlSchemaNewValidCtxt(schema);
  validation_errors = 0;
  xmlSchemaSetValidErrors(vc, count_error, count_error, NULL);
  doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
  ck_assert_ptr_nonnull(doc);
  rc = xmlSchemaValidateDoc(vc, doc);
  xmlFreeDoc(doc);
  xmlSchemaFreeValidCtxt(vc);
  xmlSchemaFree(schema);
  xmlSchemaFreeParserCtxt(pc);
  return rc;
}

START_TEST(test_export_validates_and_round_trips) {
  char *dir, *db = real_corpus(&dir), *out = NULL, *err = NULL;
  char before[1024], after[1024], eaf1[1024], eaf2[1024];
  char **files = NULL;
  int n = 0, i;
  setenv("SOURCE_DATE_EPOCH", "1764500000", 1);
  snprintf(before, sizeof before, "%s/before.jsonl", dir);
  snprintf(after, sizeof after, "%s/after.jsonl", dir);
  snprintf(eaf1, sizeof eaf1, "%s/eaf1", dir);
  snprintf(eaf2, sizeof eaf2, "%s/eaf2", dir);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--out", before, NULL), 0);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "eaf", "--out", eaf1, NULL), 0);
  ck_assert_msg(strstr(out, "wrote 4 ELAN files (181 rows)"), "%s", out);
  free(out);
  free(err);
  find_eaf(eaf1, &files, &n);
  ck_assert_int_eq(n, 4);
  for (i = 0; i < n; i++) {
    ck_assert_msg(validate(files[i]) == 0, "%s does not validate", files[i]);
    ck_assert_int_eq(validation_errors, 0);
    /* the family sample's overlapping rows of one speaker need an overflow tier */
    if (strstr(files[i], "family_therapy")) {
      char *t = tu_read(files[i], NULL);
      ck_assert_ptr_nonnull(strstr(t, "TIER_ID=\"turn@Joel#2\""));
      ck_assert_ptr_nonnull(strstr(t, "<CONTROLLED_VOCABULARY CV_ID=\"support_strategy\""));
      ck_assert_ptr_nonnull(strstr(t, "LINK_SET_NAME=\"viewpoints\""));
      free(t);
    }
    /* importing an unedited export adds nothing */
    ck_assert_msg(tu_rescue(&out, &err, "import", db, files[i], NULL) == 0, "%s", err);
    ck_assert_msg(strstr(out, "0 new, 0 changed, 1 unchanged; 0 row versions added"), "%s: %s",
                  files[i], out);
    free(out);
    free(err);
  }
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--out", after, NULL),
                   0);
  ck_assert_msg(tu_same_file(before, after), "sample JSON changed by the round trip");
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "eaf", "--out", eaf2, NULL), 0);
  for (i = 0; i < n; i++) {
    char other[2048];
    snprintf(other, sizeof other, "%s%s", eaf2, files[i] + strlen(eaf1));
    ck_assert_msg(tu_same_file(files[i], other), "%s differs after the round trip", other);
  }
  free_list(files, n);
  free(db);
  free(dir);
}
END_TEST

/* Replace the first `from` in a file by `to`. */
static void edit_file(const char *path, const char *from, const char *to) {
  char *t = tu_read(path, NULL), *p, *nt;
  ck_assert_ptr_nonnull(t);
  p = strstr(t, from);
  ck_assert_msg(p != NULL, "'%s' not in %s", from, path);
  nt = malloc(strlen(t) + strlen(to) + 1);
  memcpy(nt, t, (size_t)(p - t));
  strcpy(nt + (p - t), to);
  strcat(nt, p + strlen(from));
  tu_write(path, nt);
  free(t);
  free(nt);
}

START_TEST(test_edit_comes_back_as_annotator_version) {
  char *dir, *db = real_corpus(&dir), *out = NULL, *err = NULL, *a, *b;
  char eaf[1024], file[2048], mine[1024], base[1024], back[1024];
  const char *id = "alan_and_evelyn/001_s01e01_ct25_segment04";
  snprintf(eaf, sizeof eaf, "%s/eaf", dir);
  snprintf(file, sizeof file, "%s/%s.eaf", eaf, id);
  snprintf(mine, sizeof mine, "%s/mine.jsonl", dir);
  snprintf(base, sizeof base, "%s/base.jsonl", dir);
  snprintf(back, sizeof back, "%s/back", dir);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "bob", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--samples", id,
                             "--out", base, NULL),
                   0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "export", db, "--format", "eaf", "--samples", id, "--out", eaf, NULL),
      0);
  /* what an annotator does in ELAN: correct a transcript, an intensity, a label */
  edit_file(file, "Like I just wanna be better.", "Like, I just want to be better.");
  edit_file(file, "\"intensity\": 8}", "\"intensity\": 6}");
  edit_file(file, ">disclosure</ANNOTATION_VALUE>", ">complaint</ANNOTATION_VALUE>");
  ck_assert_msg(tu_rescue(&out, &err, "import", db, file, "--annotator", "bob", NULL) == 0, "%s",
                err);
  ck_assert_msg(strstr(out, "0 new, 1 changed"), "%s", out);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--samples", id,
                             "--view", "annotator:bob", "--out", mine, NULL),
                   0);
  a = tu_read(base, NULL);
  b = tu_read(mine, NULL);
  edit_file(base, "Like I just wanna be better.", "Like, I just want to be better.");
  edit_file(base, "\"intensity\": 8}", "\"intensity\": 6}");
  edit_file(base, "\"utterance_type\": \"disclosure\"", "\"utterance_type\": \"complaint\"");
  ck_assert_msg(tu_same_file(base, mine), "bob's view is not the edited sample:\n%s", b);
  free(a);
  free(b);
  /* bob's own export records him: it comes back under bob and changes nothing */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "eaf", "--samples", id, "--view",
                             "annotator:bob", "--out", back, NULL),
                   0);
  snprintf(file, sizeof file, "%s/%s.eaf", back, id);
  a = tu_read(file, NULL);
  ck_assert_ptr_nonnull(strstr(a, "ANNOTATOR=\"bob\""));
  free(a);
  ck_assert_msg(tu_rescue(&out, &err, "import", db, file, NULL) == 0, "%s", err);
  ck_assert_msg(strstr(out, "0 row versions added"), "%s", out);
  free(out);
  free(err);
  /* a turn added in ELAN (no bookkeeping record): a new row, in time order, with the
     values put on its field tiers; the row count changes, so --resegment */
  edit_file(file, "</TIME_ORDER>",
            "<TIME_SLOT TIME_SLOT_ID=\"tsN1\" TIME_VALUE=\"500000\"/><TIME_SLOT "
            "TIME_SLOT_ID=\"tsN2\" TIME_VALUE=\"501250\"/></TIME_ORDER>");
  edit_file(file, "PARTICIPANT=\"Evelyn\" ANNOTATOR=\"bob\">",
            "PARTICIPANT=\"Evelyn\" ANNOTATOR=\"bob\"><ANNOTATION><ALIGNABLE_ANNOTATION "
            "ANNOTATION_ID=\"aN1\" "
            "TIME_SLOT_REF1=\"tsN1\" TIME_SLOT_REF2=\"tsN2\"><ANNOTATION_VALUE>added in ELAN"
            "</ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION>");
  edit_file(file,
            "TIER_ID=\"tone_of_voice@Evelyn\" LINGUISTIC_TYPE_REF=\"tone_of_voice\" "
            "PARTICIPANT=\"Evelyn\" ANNOTATOR=\"bob\" PARENT_REF=\"turn@Evelyn\">",
            "TIER_ID=\"tone_of_voice@Evelyn\" LINGUISTIC_TYPE_REF=\"tone_of_voice\" "
            "PARTICIPANT=\"Evelyn\" ANNOTATOR=\"bob\" PARENT_REF=\"turn@Evelyn\">"
            "<ANNOTATION><REF_ANNOTATION ANNOTATION_ID=\"aN2\" "
            "ANNOTATION_REF=\"aN1\"><ANNOTATION_VALUE>soft</ANNOTATION_VALUE>"
            "</REF_ANNOTATION></ANNOTATION>");
  ck_assert_int_eq(tu_rescue(NULL, &err, "import", db, file, NULL), 1);
  ck_assert_msg(strstr(err, "has 16 rows in the corpus but 17 here"), "%s", err);
  free(err);
  ck_assert_msg(tu_rescue(&out, &err, "import", db, file, "--resegment", NULL) == 0, "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--samples", id,
                             "--view", "annotator:bob", "--out", mine, "--force", NULL),
                   0);
  a = tu_read(mine, NULL);
  ck_assert_msg(strstr(a, ", {\"start_time\": 500.0, \"end_time\": 501.25, \"primary_speaker\": "
                          "\"Evelyn\", \"target\": [], \"dialogue_cleaned\": \"added in ELAN\", "
                          "\"utterance_type\": \"\", \"background_dialogue\": [], "
                          "\"tone_of_voice\": \"soft\", \"body_posture\": []"),
                "%s", a);
  free(a);
  free(db);
  free(dir);
}
END_TEST

/*
** Rows shaped to break a naive mapping: one speaker's rows overlapping and out of time
** order, an end before its start, times with 4 decimals and in exponent form, speakers
** that are no participant or empty or absent, a control character (not allowed in XML)
** in a string and in a list item, null and numeric values where strings are usual, a
** repeated key, a list field that is not a list, unknown row and sample keys, names with
** spaces. All of it must come back byte for byte (and validate: test_exports_validate).
** tricky_corpus imports it into a new corpus (*dirp: its folder, which gets before.jsonl,
** the sample export) and exports it as EAF; file gets the .eaf path.
*/
static char *tricky_corpus(char **dirp, char file[2048]) {
  char *db = tu_new_corpus(), *dir = strdup(db), *out = NULL, *err = NULL;
  char in[1024], before[1024], eaf[1024];
  *strrchr(dir, '/') = 0;
  snprintf(in, sizeof in, "%s/tricky.jsonl", dir);
  snprintf(before, sizeof before, "%s/before.jsonl", dir);
  snprintf(eaf, sizeof eaf, "%s/eaf", dir);
  tu_write(
      in,
      "{\"sample_id\": \"x y/odd sample\", \"extra_sample_key\": {\"a\": [1, 2.50, \"\\ufffe\"]}, "
      "\"rows\": [{\"start_time\": 5.0, \"end_time\": 9.12345, \"primary_speaker\": "
      "\"Mary Ann\", \"target\": [\"Joe\", \"Joe\", \"Therapist\"], \"dialogue_cleaned\": "
      "\"tab\\there & <b> \\\"q\\\" \\r\\n end\", \"utterance_type\": null, "
      "\"internal_emotion\": [{\"person\": \"Mary Ann\", \"emotion_description\": \"x\", "
      "\"intensity\": 7.5}], \"viewpoints_attitudes\": [{\"source\": \"Mary Ann\", "
      "\"target\": \"Joe\", \"viewpoint\": \"v\", \"attitude\": \"a b\"}], \"zz_unknown\": "
      "1e3, \"row_index\": 1}, "
      "{\"start_time\": 1.0, \"end_time\": 6.0, \"primary_speaker\": \"Mary Ann\", "
      "\"target\": [\"ctrl\\u0001item\"], \"dialogue_cleaned\": \"bell\\u0007\", "
      "\"tone_of_voice\": 3, \"row_index\": 2, \"row_index\": 7}, "
      "{\"start_time\": 7.0, \"end_time\": 6.5, \"primary_speaker\": \"Couple\", "
      "\"target\": [], \"body_posture\": \"not a list\", \"dialogue_cleaned\": \"\", "
      "\"relation_pattern\": \"attack_attack\", \"relation_pattern_evidence_rows\": [1, 2, 2, "
      "99]}, "
      "{\"start_time\": 8, \"end_time\": 8.0, \"primary_speaker\": \"\", \"target\": [], "
      "\"dialogue_cleaned\": \"empty speaker\"}, "
      "{\"start_time\": 0.00001, \"end_time\": 1e1, \"target\": [], \"dialogue_cleaned\": "
      "\"no speaker key\", \"support_strategy\": []}, "
      "{\"start_time\": 2, \"end_time\": 3, \"primary_speaker\": \"Joe\", \"target\": "
      "[\"Mary Ann\"], \"dialogue_cleaned\": \"Joe's turn\"}, "
      "{\"start_time\": 20, \"end_time\": 21, \"primary_speaker\": \"Mary Ann#2\", "
      "\"target\": [\"\\ufffe odd\"], \"dialogue_cleaned\": \"nonchar \\uffff\", "
      "\"turn\": \"a key named turn\", \"rescue:row\": 1}]}\n");
  ck_assert_msg(tu_rescue(NULL, &err, "import", db, in, NULL) == 0, "%s", err);
  free(err);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--out", before, NULL), 0);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "eaf", "--out", eaf, NULL), 0);
  ck_assert_msg(strstr(err, "2 row times have more than 3 decimals"), "%s", err);
  free(out);
  free(err);
  snprintf(file, 2048, "%s/x y/odd sample.eaf", eaf);
  *dirp = dir;
  return db;
}

START_TEST(test_tricky_rows_round_trip) {
  char *dir, file[2048], *db = tricky_corpus(&dir, file), *out = NULL, *err = NULL;
  char before[1024], after[1024];
  snprintf(before, sizeof before, "%s/before.jsonl", dir);
  snprintf(after, sizeof after, "%s/after.jsonl", dir);
  {
    char *t = tu_read(file, NULL);
    ck_assert_ptr_nonnull(strstr(t, "TIER_ID=\"turn@Mary Ann#2\""));
    ck_assert_ptr_nonnull(strstr(t, "TIER_ID=\"turn@Couple\""));
    ck_assert_ptr_nonnull(strstr(t, "TIER_ID=\"turn@\""));
    ck_assert_ptr_nonnull(strstr(t, "TIER_ID=\"turn\""));
    ck_assert_ptr_nonnull(strstr(t, "TIER_ID=\"turn@Mary Ann#2+\""));
    free(t);
  }
  ck_assert_msg(tu_rescue(&out, &err, "import", db, file, NULL) == 0, "%s", err);
  ck_assert_msg(strstr(out, "0 row versions added"), "%s", out);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--out", after, NULL),
                   0);
  ck_assert_msg(tu_same_file(before, after), "the round trip changed the sample");
  /* a time moved in ELAN comes back as the new time */
  edit_file(file, "TIME_VALUE=\"2000\"", "TIME_VALUE=\"2250\"");
  ck_assert_msg(tu_rescue(&out, &err, "import", db, file, NULL) == 0, "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--out", after, "--force", NULL),
      0);
  edit_file(before, "\"start_time\": 2, \"end_time\": 3, \"primary_speaker\": \"Joe\"",
            "\"start_time\": 2.25, \"end_time\": 3, \"primary_speaker\": \"Joe\"");
  ck_assert_msg(tu_same_file(before, after), "%s", tu_read(after, NULL));
  free(db);
  free(dir);
}
END_TEST

/*
** A sample linked to a span of a video, exported as EAF: a new corpus (*dirp: its folder);
** file gets the .eaf path.
*/
static char *media_corpus(char **dirp, char file[2048]) {
  char *db = tu_new_corpus(), *dir = strdup(db), *err = NULL;
  char in[1024], video[1024], out[1024];
  rescue_synth_opts so;
  rescue_error e;
  *strrchr(dir, '/') = 0;
  snprintf(in, sizeof in, "%s/s.jsonl", dir);
  snprintf(video, sizeof video, "%s/media dir/src.mp4", dir);
  snprintf(out, sizeof out, "%s/out", dir);
  tu_write(in, "{\"sample_id\": \"c/s1\", \"rows\": [{\"start_time\": 0.0, \"end_time\": 1.5, "
               "\"primary_speaker\": \"Ann\", \"target\": [], \"dialogue_cleaned\": \"hi\"}]}\n");
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, in, NULL), 0);
  rescue_synth_defaults(&so);
  so.duration = 3;
  memset(&e, 0, sizeof e);
  mkdir(tu_path(dir, "media dir"), 0755);
  ck_assert_msg(rescue_synth_media(video, &so, &e) == 0, "%s", e.msg);
  ck_assert_msg(tu_rescue(NULL, &err, "media", "add", db, video, "--sample", "c/s1", "--start",
                          "0.5", "--end", "2.5", NULL) == 0,
                "%s", err);
  free(err);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "eaf", "--out", out, NULL), 0);
  snprintf(file, 2048, "%s/c/s1.eaf", out);
  *dirp = dir;
  return db;
}

/* The media descriptor points at the span of the video. */
START_TEST(test_media_descriptor) {
  char *dir, file[2048], *db = media_corpus(&dir, file), *t, *abs;
  char want[4096];
  t = tu_read(file, NULL);
  abs = realpath(dir, NULL);
  snprintf(want, sizeof want,
           "<MEDIA_DESCRIPTOR MEDIA_URL=\"file://%s/media%%20dir/src.mp4\" MIME_TYPE=\"video/mp4\" "
           "RELATIVE_MEDIA_URL=\"../../media%%20dir/src.mp4\" TIME_ORIGIN=\"500\"/>",
           abs);
  ck_assert_msg(strstr(t, want), "want %s in\n%.900s", want, t);
  free(abs);
  free(t);
  free(db);
  free(dir);
}
END_TEST

/* The tricky rows' and the media-linked sample's files validate (the schema: fixtures). */
START_TEST(test_exports_validate) {
  char *dir, file[2048], *db = tricky_corpus(&dir, file);
  ck_assert_msg(validate(file) == 0, "%s does not validate", file);
  free(db);
  free(dir);
  db = media_corpus(&dir, file);
  ck_assert_msg(validate(file) == 0, "%s does not validate", file);
  free(db);
  free(dir);
}
END_TEST

/* The text tier of the MPI sample in time order, read independently with libxml2. */
static int text_tier(const char *path, char ***texts) {
  xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
  xmlNodePtr root = xmlDocGetRootElement(doc), n, a, x, v;
  int n_texts = 0;
  *texts = NULL;
  for (n = root->children; n; n = n->next) {
    xmlChar *id;
    if (n->type != XML_ELEMENT_NODE || strcmp((const char *)n->name, "TIER") != 0)
      continue;
    id = xmlGetProp(n, (const xmlChar *)"TIER_ID");
    if (strcmp((const char *)id, "text") == 0)
      for (a = n->children; a; a = a->next)
        for (x = a->children; x; x = x->next)
          if (x->type == XML_ELEMENT_NODE)
            for (v = x->children; v; v = v->next)
              if (v->type == XML_ELEMENT_NODE) {
                xmlChar *c = xmlNodeGetContent(v);
                *texts = realloc(*texts, (size_t)(n_texts + 1) * sizeof **texts);
                (*texts)[n_texts++] = strdup((const char *)c);
                xmlFree(c);
              }
    xmlFree(id);
  }
  xmlFreeDoc(doc);
  return n_texts;
}

START_TEST(test_mpi_samples_import) {
  const char *fx = tu_fixtures();
  const char *versions[] = {"2.7", "2.8", "3.0"};
  char *db = tu_new_corpus(), *dir = strdup(db), *out = NULL, *err = NULL, **texts = NULL;
  char path[1024], sample[64], json[1024];
  json_t *root, *rows;
  int i, n_texts;
  *strrchr(dir, '/') = 0;
  for (i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/elan/sample_%s.eaf", fx, versions[i]);
    snprintf(sample, sizeof sample, "mpi/sample_%s", versions[i]);
    /* no PARTICIPANT: refused with the way out */
    ck_assert_int_eq(tu_rescue(NULL, &err, "import", db, path, "--sample", sample, NULL), 1);
    ck_assert_msg(strstr(err, "--tiers"), "%s", err);
    free(err);
    ck_assert_msg(tu_rescue(&out, &err, "import", db, path, "--sample", sample, "--tiers",
                            "text,gestures", NULL) == 0,
                  "%s", err);
    free(out);
    free(err);
  }
  /* a foreign file needs --sample */
  ck_assert_int_eq(tu_rescue(NULL, &err, "import", db, path, "--tiers", "text", NULL), 1);
  ck_assert_msg(strstr(err, "--sample"), "%s", err);
  free(err);
  snprintf(path, sizeof path, "%s/elan/sample_3.0.eaf", fx);
  ck_assert_msg(tu_rescue(&out, &err, "import", db, path, "--sample", "mpi/text", "--tiers", "text",
                          NULL) == 0,
                "%s", err);
  ck_assert_msg(strstr(out, "(399 rows)"), "%s", out);
  free(out);
  free(err);
  snprintf(json, sizeof json, "%s/text.jsonl", dir);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--samples",
                             "mpi/text", "--out", json, NULL),
                   0);
  root = json_load_file(json, 0, NULL);
  ck_assert_ptr_nonnull(root);
  rows = json_object_get(root, "rows");
  ck_assert_int_eq((int)json_array_size(rows), 399);
  n_texts = text_tier(path, &texts);
  ck_assert_int_eq(n_texts, 399);
  for (i = 0; i < 399; i++) {
    json_t *r = json_array_get(rows, (size_t)i);
    ck_assert_str_eq(json_string_value(json_object_get(r, "dialogue_cleaned")), texts[i]);
    ck_assert_str_eq(json_string_value(json_object_get(r, "primary_speaker")), "text");
    free(texts[i]);
  }
  /* values of the dependent tiers ride on their rows */
  {
    json_t *r0 = json_array_get(rows, 0);
    ck_assert_str_eq(json_string_value(json_object_get(r0, "dialogue_cleaned")),
                     "The quick brown fox 001");
    ck_assert(json_real_value(json_object_get(r0, "start_time")) == 2.0);
    ck_assert_int_eq((int)json_array_size(json_object_get(r0, "words-symsub")), 5);
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(r0, "words-pos"), 1)), "adj");
  }
  free(texts);
  json_decref(root);
  free(db);
  free(dir);
}
END_TEST

/* Import `file` and expect exit 1, `want` in the message, and the store file unchanged. */
static void refused(const char *db, const char *file, const char *want) {
  char copy[1024], *err = NULL;
  char *t = tu_read(db, NULL);
  size_t len = 0;
  free(t);
  snprintf(copy, sizeof copy, "%s.copy", db);
  t = tu_read(db, &len);
  tu_write_n(copy, t, len);
  free(t);
  ck_assert_int_eq(
      tu_rescue(NULL, &err, "import", db, file, "--sample", "x/hostile", "--tiers", "text", NULL),
      1);
  ck_assert_msg(strstr(err, want), "want '%s' in: %s", want, err);
  ck_assert_msg(strstr(err, file), "no file name in: %s", err);
  ck_assert_msg(!strstr(err, "TOPSECRET"), "leaked: %s", err);
  ck_assert_msg(tu_same_file(db, copy), "store changed by %s", file);
  free(err);
}

START_TEST(test_hostile) {
  char *db = tu_new_corpus(), *dir = strdup(db);
  char p[1024], secret[1024];
  size_t i;
  FILE *f;
  *strrchr(dir, '/') = 0;
  snprintf(secret, sizeof secret, "%s/secret.txt", dir);
  tu_write(secret, "TOPSECRET\n");
  /* XXE reading a local file */
  snprintf(p, sizeof p, "%s/xxe.eaf", dir);
  f = fopen(p, "w");
  fprintf(f,
          "<?xml version=\"1.0\"?>\n<!DOCTYPE ANNOTATION_DOCUMENT [<!ENTITY x SYSTEM "
          "\"file://%s\">]>\n<ANNOTATION_DOCUMENT><HEADER/><TIME_ORDER/><TIER TIER_ID=\"text\" "
          "LINGUISTIC_TYPE_REF=\"t\"><ANNOTATION><ALIGNABLE_ANNOTATION ANNOTATION_ID=\"a1\">"
          "<ANNOTATION_VALUE>&x;</ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION></TIER>"
          "</ANNOTATION_DOCUMENT>\n",
          secret);
  fclose(f);
  refused(db, p, "xxe.eaf:2: refused: the document has a DOCTYPE");
  /* billion laughs */
  snprintf(p, sizeof p, "%s/laughs.eaf", dir);
  f = fopen(p, "w");
  fprintf(f, "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n<!ENTITY lol \"lol\">\n");
  for (i = 1; i < 10; i++) {
    int k;
    fprintf(f, "<!ENTITY lol%zu \"", i);
    for (k = 0; k < 10; k++)
      fprintf(f, i == 1 ? "&lol;" : "&lol%zu;", i - 1);
    fprintf(f, "\">\n");
  }
  fprintf(f, "]>\n<ANNOTATION_DOCUMENT>&lol9;</ANNOTATION_DOCUMENT>\n");
  fclose(f);
  refused(db, p, "refused: the document has a DOCTYPE");
  /* a harmless-looking DOCTYPE is refused too */
  snprintf(p, sizeof p, "%s/doctype.eaf", dir);
  tu_write(p, "<?xml version=\"1.0\"?>\n<!DOCTYPE ANNOTATION_DOCUMENT SYSTEM "
              "\"http://example.org/eaf.dtd\">\n<ANNOTATION_DOCUMENT/>\n");
  refused(db, p, "refused: the document has a DOCTYPE");
  /* deep nesting */
  snprintf(p, sizeof p, "%s/deep.eaf", dir);
  f = fopen(p, "w");
  fprintf(f, "<?xml version=\"1.0\"?>\n<ANNOTATION_DOCUMENT>");
  for (i = 0; i < 100000; i++)
    fputs("<a>", f);
  for (i = 0; i < 100000; i++)
    fputs("</a>", f);
  fputs("</ANNOTATION_DOCUMENT>\n", f);
  fclose(f);
  refused(db, p, "malformed XML: Excessive depth");
  /* an undeclared entity */
  snprintf(p, sizeof p, "%s/entity.eaf", dir);
  tu_write(p, "<?xml version=\"1.0\"?>\n<ANNOTATION_DOCUMENT>&foo;</ANNOTATION_DOCUMENT>\n");
  refused(db, p, "entity.eaf:2:");
  /* a wrong root */
  snprintf(p, sizeof p, "%s/root.eaf", dir);
  tu_write(p, "<?xml version=\"1.0\"?>\n<html><body/></html>\n");
  refused(db, p, "root.eaf:2: the root element is <html>");
  /* over the size limit: refused before reading */
  snprintf(p, sizeof p, "%s/huge.eaf", dir);
  f = fopen(p, "w");
  ck_assert_int_eq(ftruncate(fileno(f), (off_t)RESCUE_EAF_MAX_BYTES + 1), 0);
  fclose(f);
  refused(db, p, "refused:");
  free(db);
  free(dir);
}
END_TEST

/* MPI's sample broken: truncated, dangling references, backwards, an unknown CVE_REF. */
START_TEST(test_broken_real_file) {
  char *db = tu_new_corpus(), *dir = strdup(db), *s3, *t;
  char p[1024];
  const char *fx = tu_fixtures();
  size_t len;
  *strrchr(dir, '/') = 0;
  /* truncated real file, dangling references, an annotation ending before it starts */
  snprintf(p, sizeof p, "%s/elan/sample_3.0.eaf", fx);
  s3 = tu_read(p, &len);
  ck_assert_ptr_nonnull(s3);
  snprintf(p, sizeof p, "%s/truncated.eaf", dir);
  tu_write_n(p, s3, len / 2);
  refused(db, p, "malformed XML");
  t = strdup(s3);
  memcpy(strstr(t, "TIME_SLOT_REF2=\"ts19\""), "TIME_SLOT_REF2=\"tX19\"", 21);
  snprintf(p, sizeof p, "%s/dangling.eaf", dir);
  tu_write(p, t);
  refused(db, p, "annotation 'a1': TIME_SLOT_REF2 'tX19' names no time slot");
  strcpy(t, s3);
  {
    char *r = strstr(t, "ANNOTATION_REF=\"");
    ck_assert_ptr_nonnull(r);
    r[16] = 'Q';
  }
  snprintf(p, sizeof p, "%s/danglingref.eaf", dir);
  tu_write(p, t);
  refused(db, p, "names no annotation");
  strcpy(t, s3);
  {
    /* ts2 (start of a1) far after ts19 (its end) */
    char *r = strstr(t, "TIME_SLOT_ID=\"ts2\" TIME_VALUE=\"");
    ck_assert_ptr_nonnull(r);
    r[31] = '9';
  }
  snprintf(p, sizeof p, "%s/backwards.eaf", dir);
  tu_write(p, t);
  refused(db, p, "before it starts");
  strcpy(t, s3);
  {
    /* a CVE_REF that is no entry of its tier's vocabulary (no schema can see this) */
    char *r = strstr(t, "CVE_REF=\"cveid1\"");
    ck_assert_ptr_nonnull(r);
    memcpy(r, "CVE_REF=\"cveidX\"", 16);
  }
  snprintf(p, sizeof p, "%s/cve.eaf", dir);
  tu_write(p, t);
  refused(db, p, "CVE_REF 'cveidX' is no entry of controlled vocabulary 'Gesture'");
  free(t);
  free(s3);
  free(db);
  free(dir);
}
END_TEST

/* The parser refuses in memory too, and never prints. */
START_TEST(test_parse_api) {
  rescue_error e;
  rescue_eaf_sample s;
  rescue_eaf_read_opts o = {.sample = "x/y"};
  const char *doc = "<?xml version=\"1.0\"?>\n<ANNOTATION_DOCUMENT>\n<TIER TIER_ID=\"t\" "
                    "LINGUISTIC_TYPE_REF=\"missing\"/>\n</ANNOTATION_DOCUMENT>\n";
  memset(&e, 0, sizeof e);
  memset(&s, 0, sizeof s);
  ck_assert_int_eq(rescue_eaf_parse("m.eaf", doc, strlen(doc), &o, &s, &e), RESCUE_EBADINPUT);
  ck_assert_str_eq(e.msg, "m.eaf:3: tier 't': LINGUISTIC_TYPE_REF 'missing' names no linguistic "
                          "type");
  ck_assert_ptr_null(s.json);
  {
    const char *links =
        "<?xml version=\"1.0\"?>\n<ANNOTATION_DOCUMENT><HEADER/><TIME_ORDER>"
        "<TIME_SLOT TIME_SLOT_ID=\"ts1\" TIME_VALUE=\"0\"/><TIME_SLOT TIME_SLOT_ID=\"ts2\"/>"
        "<TIME_SLOT TIME_SLOT_ID=\"ts3\" TIME_VALUE=\"3000\"/></TIME_ORDER>\n"
        "<TIER TIER_ID=\"A\" PARTICIPANT=\"Ann\" LINGUISTIC_TYPE_REF=\"t\"><ANNOTATION>"
        "<ALIGNABLE_ANNOTATION ANNOTATION_ID=\"a1\" TIME_SLOT_REF1=\"ts1\" "
        "TIME_SLOT_REF2=\"ts2\"><ANNOTATION_VALUE>one</ANNOTATION_VALUE>"
        "</ALIGNABLE_ANNOTATION></ANNOTATION><ANNOTATION><ALIGNABLE_ANNOTATION "
        "ANNOTATION_ID=\"a2\" TIME_SLOT_REF1=\"ts2\" TIME_SLOT_REF2=\"ts3\">"
        "<ANNOTATION_VALUE>two</ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION></TIER>\n"
        "<LINGUISTIC_TYPE LINGUISTIC_TYPE_ID=\"t\" TIME_ALIGNABLE=\"true\"/>\n"
        "<REF_LINK_SET LINK_SET_ID=\"rls1\">\n<CROSS_REF_LINK REF_LINK_ID=\"rl1\" REF1=\"a1\" "
        "REF2=\"a%s\"/></REF_LINK_SET></ANNOTATION_DOCUMENT>\n";
    char buf[2048];
    snprintf(buf, sizeof buf, links, "9");
    ck_assert_int_eq(rescue_eaf_parse("l.eaf", buf, strlen(buf), &o, &s, &e), RESCUE_EBADINPUT);
    ck_assert_str_eq(e.msg, "l.eaf:6: reference link 'rl1' points at 'a9', which is neither an "
                            "annotation nor a link");
    /* the same with a good link: two rows, the shared unaligned slot interpolated */
    snprintf(buf, sizeof buf, links, "2");
    ck_assert_int_eq(rescue_eaf_parse("l.eaf", buf, strlen(buf), &o, &s, &e), 0);
    ck_assert_int_eq(s.rows, 2);
    ck_assert_int_eq(s.interpolated, 2);
    ck_assert_ptr_nonnull(strstr(s.json, "\"start_time\": 1.5, \"end_time\": 3.0, "
                                         "\"primary_speaker\": \"Ann\""));
    ck_assert_ptr_nonnull(strstr(s.json, "\"elan_time_interpolated\": true"));
    rescue_eaf_sample_clear(&s);
    /* frame time units become milliseconds */
    snprintf(buf, sizeof buf, links, "2");
    {
      char *h = strstr(buf, "<HEADER/>");
      char *t3 = strstr(buf, "TIME_VALUE=\"3000\"");
      char fixed[2048];
      ck_assert_ptr_nonnull(h);
      ck_assert_ptr_nonnull(t3);
      memcpy(t3, "TIME_VALUE=\"75\"  ", 17);
      snprintf(fixed, sizeof fixed, "%.*s<HEADER TIME_UNITS=\"PAL-frames\"/>%s", (int)(h - buf),
               buf, h + 9);
      ck_assert_int_eq(rescue_eaf_parse("pal.eaf", fixed, strlen(fixed), &o, &s, &e), 0);
      ck_assert_msg(strstr(s.json, "\"start_time\": 1.5, \"end_time\": 3.0"), "%s", s.json);
      rescue_eaf_sample_clear(&s);
    }
  }
  {
    /* loops of references and of tiers are refused; a long chain costs its length */
    rescue_buf b = RESCUE_BUF_INIT;
    const char *head = "<?xml version=\"1.0\"?>\n<ANNOTATION_DOCUMENT><HEADER/><TIME_ORDER>"
                       "<TIME_SLOT TIME_SLOT_ID=\"ts1\" TIME_VALUE=\"0\"/><TIME_SLOT "
                       "TIME_SLOT_ID=\"ts2\" TIME_VALUE=\"10\"/></TIME_ORDER>\n"
                       "<TIER TIER_ID=\"A\" PARTICIPANT=\"Ann\" LINGUISTIC_TYPE_REF=\"t\">"
                       "<ANNOTATION><ALIGNABLE_ANNOTATION ANNOTATION_ID=\"a0\" "
                       "TIME_SLOT_REF1=\"ts1\" TIME_SLOT_REF2=\"ts2\"><ANNOTATION_VALUE>x"
                       "</ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION></TIER>\n";
    const char *types = "<LINGUISTIC_TYPE LINGUISTIC_TYPE_ID=\"t\" TIME_ALIGNABLE=\"true\"/>"
                        "<LINGUISTIC_TYPE LINGUISTIC_TYPE_ID=\"r\" TIME_ALIGNABLE=\"false\" "
                        "CONSTRAINTS=\"Symbolic_Association\"/></ANNOTATION_DOCUMENT>\n";
    int k;
    rescue_buf_puts(&b, head);
    rescue_buf_puts(&b, "<TIER TIER_ID=\"B\" LINGUISTIC_TYPE_REF=\"r\" PARENT_REF=\"A\">");
    for (k = 1; k <= 200000; k++)
      rescue_buf_printf(&b,
                        "<ANNOTATION><REF_ANNOTATION ANNOTATION_ID=\"a%d\" "
                        "ANNOTATION_REF=\"a%d\"><ANNOTATION_VALUE>v</ANNOTATION_VALUE>"
                        "</REF_ANNOTATION></ANNOTATION>",
                        k, k - 1);
    rescue_buf_puts(&b, "</TIER>\n");
    rescue_buf_puts(&b, types);
    ck_assert_int_eq(rescue_eaf_parse("chain.eaf", b.s, b.len, &o, &s, &e), 0);
    ck_assert_int_eq(s.rows, 1);
    rescue_eaf_sample_clear(&s);
    rescue_buf_reset(&b);
    rescue_buf_puts(&b, head);
    rescue_buf_puts(&b, "<TIER TIER_ID=\"B\" LINGUISTIC_TYPE_REF=\"r\" PARENT_REF=\"A\">"
                        "<ANNOTATION><REF_ANNOTATION ANNOTATION_ID=\"a1\" ANNOTATION_REF=\"a2\">"
                        "</REF_ANNOTATION></ANNOTATION>\n<ANNOTATION><REF_ANNOTATION "
                        "ANNOTATION_ID=\"a2\" ANNOTATION_REF=\"a1\"></REF_ANNOTATION>"
                        "</ANNOTATION></TIER>\n");
    rescue_buf_puts(&b, types);
    ck_assert_int_eq(rescue_eaf_parse("loop.eaf", b.s, b.len, &o, &s, &e), RESCUE_EBADINPUT);
    ck_assert_str_eq(e.msg, "loop.eaf:4: annotation 'a1': ANNOTATION_REF loops");
    rescue_buf_reset(&b);
    rescue_buf_puts(&b, head);
    rescue_buf_puts(&b, "<TIER TIER_ID=\"B\" LINGUISTIC_TYPE_REF=\"r\" PARENT_REF=\"C\"/>\n"
                        "<TIER TIER_ID=\"C\" LINGUISTIC_TYPE_REF=\"r\" PARENT_REF=\"B\"/>\n");
    rescue_buf_puts(&b, types);
    ck_assert_int_eq(rescue_eaf_parse("tiers.eaf", b.s, b.len, &o, &s, &e), RESCUE_EBADINPUT);
    ck_assert_str_eq(e.msg, "tiers.eaf:4: tier 'B': PARENT_REF loops");
    rescue_buf_clear(&b);
  }
}
END_TEST

/*
** The fixture-free tests always run; those that need the fixtures (the real samples, MPI's
** files, the EAF schema) only when they are there: without them the suite reports SKIPPED
** once the others pass (RESCUE_REQUIRE_FIXTURES=1 makes their absence a failure).
*/
int main(void) {
  const TTest *fixture_tests[] = {test_export_validates_and_round_trips,
                                  test_edit_comes_back_as_annotator_version, test_exports_validate,
                                  test_mpi_samples_import, test_broken_real_file};
  int n_fixture_tests = (int)(sizeof fixture_tests / sizeof fixture_tests[0]), i;
  Suite *s = suite_create("elan");
  TCase *tc = tcase_create("elan");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_tricky_rows_round_trip);
  tcase_add_test(tc, test_media_descriptor);
  tcase_add_test(tc, test_hostile);
  tcase_add_test(tc, test_parse_api);
  if (tu_fixtures_if_present()) {
    for (i = 0; i < n_fixture_tests; i++)
      tcase_add_test(tc, fixture_tests[i]);
    n_fixture_tests = 0;
  }
  suite_add_tcase(s, tc);
  return tu_run_suite_skipping(s, n_fixture_tests);
}
