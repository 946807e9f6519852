/*
** leak_words.c: the common English words the leak check never lists as names to review
** (privacy_int.h): a short list built into the program, matched in any case and with the
** common endings taken off ("Liked", "Suddenly", "Daughters").
*/
#include <stdlib.h>
#include <string.h>

#include "privacy_int.h"

/* Common words, sorted bytewise, lower case. Words that are also first names are left out. */
static const char *const common[] = {
    "a",          "about",       "above",      "across",       "act",
    "actually",   "add",         "after",      "again",        "against",
    "ago",        "agree",       "all",        "almost",       "alone",
    "along",      "already",     "also",       "although",     "always",
    "am",         "among",       "an",         "and",          "anger",
    "angry",      "another",     "answer",     "any",          "anybody",
    "anyone",     "anything",    "anyway",     "apart",        "appear",
    "argue",      "around",      "as",         "ask",          "at",
    "away",       "awful",       "back",       "bad",          "be",
    "because",    "become",      "bed",        "been",         "before",
    "begin",      "behind",      "believe",    "best",         "better",
    "between",    "big",         "bit",        "blame",        "body",
    "both",       "bother",      "boy",        "break",        "bring",
    "brother",    "but",         "buy",        "by",           "call",
    "calm",       "can",         "care",       "careful",      "case",
    "cause",      "change",      "child",      "children",     "choose",
    "chose",      "chosen",      "clean",      "clear",        "close",
    "come",       "comfortable", "concern",    "control",      "could",
    "couple",     "course",      "cry",        "cut",          "dad",
    "daughter",   "day",         "dead",       "deal",         "dear",
    "decide",     "deep",        "definitely", "did",          "die",
    "different",  "difficult",   "do",         "does",         "done",
    "door",       "down",        "during",     "each",         "early",
    "easy",       "eat",         "either",     "else",         "end",
    "enough",     "equal",       "equally",    "especially",   "even",
    "evening",    "ever",        "every",      "everybody",    "everyone",
    "everything", "exactly",     "except",     "expect",       "explain",
    "face",       "fact",        "fail",       "fair",         "fall",
    "family",     "far",         "father",     "fault",        "fear",
    "feel",       "feeling",     "fell",       "felt",         "few",
    "fight",      "figure",      "final",      "finally",      "find",
    "fine",       "first",       "follow",     "for",          "forget",
    "forgive",    "forward",     "free",       "friend",       "from",
    "front",      "full",        "fun",        "funny",        "future",
    "gave",       "get",         "girl",       "give",         "glad",
    "go",         "god",         "gone",       "good",         "got",
    "great",      "grow",        "guess",      "had",          "half",
    "hand",       "happen",      "happy",      "hard",         "has",
    "hate",       "have",        "he",         "head",         "hear",
    "heard",      "heart",       "help",       "her",          "here",
    "herself",    "high",        "him",        "himself",      "his",
    "hold",       "home",        "honest",     "honestly",     "hour",
    "house",      "how",         "however",    "hurt",         "husband",
    "i",          "idea",        "if",         "important",    "in",
    "inside",     "instead",     "interest",   "interesting",  "into",
    "involve",    "is",          "it",         "its",          "job",
    "just",       "keep",        "kid",        "kind",         "knew",
    "know",       "last",        "late",       "later",        "laugh",
    "learn",      "least",       "leave",      "left",         "less",
    "let",        "life",        "like",       "likely",       "listen",
    "little",     "live",        "long",       "look",         "lose",
    "lost",       "lot",         "love",       "low",          "made",
    "make",       "man",         "many",       "marriage",     "married",
    "matter",     "maybe",       "me",         "mean",         "meant",
    "meet",       "mind",        "mine",       "minute",       "miss",
    "mom",        "moment",      "money",      "more",         "morning",
    "most",       "mother",      "move",       "much",         "must",
    "my",         "myself",      "name",       "need",         "never",
    "new",        "next",        "nice",       "night",        "no",
    "nobody",     "none",        "normal",     "not",          "nothing",
    "notice",     "now",         "of",         "off",          "often",
    "oh",         "ok",          "okay",       "old",          "on",
    "once",       "one",         "only",       "open",         "or",
    "other",      "our",         "out",        "outside",      "over",
    "own",        "parent",      "part",       "partner",      "people",
    "perhaps",    "person",      "place",      "plan",         "play",
    "please",     "point",       "possible",   "pretty",       "probably",
    "problem",    "promise",     "pull",       "push",         "put",
    "question",   "quite",       "rather",     "read",         "ready",
    "real",       "really",      "reason",     "relationship", "remember",
    "respect",    "rest",        "right",      "room",         "sad",
    "safe",       "said",        "same",       "saw",          "say",
    "school",     "second",      "see",        "seem",         "seen",
    "self",       "send",        "sense",      "set",          "share",
    "she",        "should",      "show",       "side",         "simply",
    "since",      "sister",      "sit",        "so",           "some",
    "somebody",   "someone",     "something",  "sometimes",    "son",
    "soon",       "sorry",       "sort",       "sound",        "speak",
    "start",      "stay",        "still",      "stop",         "story",
    "strong",     "stuff",       "such",       "suddenly",     "support",
    "suppose",    "sure",        "take",       "talk",         "teach",
    "tell",       "than",        "thank",      "that",         "the",
    "their",      "them",        "then",       "there",        "these",
    "they",       "thing",       "think",      "this",         "those",
    "though",     "thought",     "through",    "time",         "tired",
    "to",         "today",       "together",   "told",         "tomorrow",
    "too",        "took",        "toward",     "true",         "trust",
    "try",        "turn",        "twice",      "under",        "understand",
    "until",      "up",          "upon",       "upset",        "us",
    "use",        "used",        "very",       "voice",        "wait",
    "walk",       "want",        "was",        "watch",        "way",
    "we",         "well",        "went",       "were",         "what",
    "whatever",   "when",        "where",      "whether",      "which",
    "while",      "who",         "whole",      "why",          "wife",
    "wish",       "with",        "within",     "without",      "woman",
    "wonder",     "word",        "work",       "world",        "worry",
    "would",      "wrong",       "yeah",       "year",         "yes",
    "yesterday",  "yet",         "you",        "young",        "your",
    "yourself",
};

static int by_word(const void *key, const void *item) {
  return strcmp((const char *)key, *(const char *const *)item);
}

/* Is the lower-case word w (n bytes) in the list? */
static int listed(const char *w, size_t n) {
  char k[32];
  if (n == 0 || n >= sizeof k)
    return 0;
  memcpy(k, w, n);
  k[n] = 0;
  return bsearch(k, common, sizeof common / sizeof common[0], sizeof common[0], by_word) != NULL;
}

int pv_common_word(const char *s, size_t len) {
  static const char *const endings[] = {"ing", "ed", "es", "ly", "s", "d", "er", "est"};
  char w[32];
  size_t i, k;
  if (len == 0 || len >= sizeof w)
    return 0;
  for (i = 0; i < len; i++)
    w[i] = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] + 32) : s[i];
  w[len] = 0;
  if (listed(w, len))
    return 1;
  for (k = 0; k < sizeof endings / sizeof endings[0]; k++) {
    size_t e = strlen(endings[k]);
    if (len > e + 2 && memcmp(w + len - e, endings[k], e) == 0) {
      char stem[34];
      size_t n = len - e;
      memcpy(stem, w, n);
      if (listed(stem, n))
        return 1;
      stem[n] = 'e'; /* "involving" -> "involve", "liked" -> "like" */
      if (listed(stem, n + 1))
        return 1;
      if (n > 2 && stem[n - 1] == stem[n - 2] && listed(stem, n - 1)) /* "stopped" */
        return 1;
      if (stem[n - 1] == 'i') { /* "worried" -> "worry" */
        stem[n - 1] = 'y';
        if (listed(stem, n))
          return 1;
      }
    }
  }
  return 0;
}
