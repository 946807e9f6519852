/*
** elan_int.h: what the EAF writer and reader share (private to corpus/elan_*.c).
**
** A file rescue writes carries, per turn, a bookkeeping annotation (tier
** rescue@<speaker>) whose value is a JSON record: the row's number and, for each member
** of the row object in order, its key and how it travels:
**   t  start_time/end_time: the turn's time slot; the exact number is kept as a third
**      element and used again while the slot still holds the same millisecond
**   p  primary_speaker: the turn tier's PARTICIPANT
**   d  dialogue_cleaned: the turn annotation's value
**   s  a string: the value of the key's association tier
**   j  any other value: the JSON text in the key's association tier
**   ls a list of strings: one subdivision annotation per element
**   lj a list: one subdivision annotation per element, each as JSON text
**   v  a value kept in the record itself (a repeated key, or a list field that is not
**      a list), as a third element
** Example: {"row": 2, "keys": [["start_time", "t", "7.76"], ["primary_speaker", "p"],
**          ["target", "ls"], ["relation_pattern", "j"]]}
*/
#ifndef RESCUE_ELAN_INT_H
#define RESCUE_ELAN_INT_H

#include "rescue_buf.h"
#include "rescue_json.h"
#include "rescue_scheme.h"
#include "strmap_int.h"

#pragma GCC visibility push(hidden)

#define EAF_LT_TURN "rescue:turn"
#define EAF_LT_ROW "rescue:row"
#define EAF_PROP_FORMAT "rescue:format"
#define EAF_PROP_SAMPLE_ID "rescue:sample_id"
#define EAF_PROP_SAMPLE "rescue:sample"
#define EAF_PROP_ANNOTATOR "rescue:annotator"

typedef enum eaf_code {
  EAF_TIME,
  EAF_SPEAKER,
  EAF_DIALOGUE,
  EAF_STR,
  EAF_JSON,
  EAF_LIST_STR,
  EAF_LIST_JSON,
  EAF_EMBED
} eaf_code;

/*
** A string -> int map (ids of slots, annotations, tiers, types; keys of rows): the
** library's string table with borrowed keys (they must outlive the map). {0} is empty.
*/
typedef rescue_strmap eaf_smap;
/* The value of k, or -1 (also for k NULL). */
static inline int eaf_smap_get(const eaf_smap *m, const char *k) {
  int64_t i = k ? rescue_strmap_find(m, k, strlen(k)) : -1;
  return i < 0 ? -1 : (int)rescue_strmap_value(m, (uint32_t)i);
}
/* Add k -> v: 0, or 1 when k is there already (unchanged), or -1 when out of memory. */
static inline int eaf_smap_put(eaf_smap *m, const char *k, int v) {
  int added;
  return rescue_strmap_put(m, k, strlen(k), v, &added) < 0 ? -1 : !added;
}
static inline void eaf_smap_free(eaf_smap *m) { rescue_strmap_clear(m); }

/* 1 when s can appear in an XML 1.0 document (no C0 controls but TAB, LF, CR). */
int eaf_xml_ok(const char *s, size_t len);
/* Append s escaped for element text (attr 0) or a double-quoted attribute (attr 1). */
void eaf_xml_put(rescue_buf *b, const char *s, size_t len, int attr);
/*
** How member m of row travels (speaker_ok: the row has a participant tier; dup: an
** earlier member has the same key).
*/
eaf_code eaf_member_code(const rescue_scheme *sc, const rescue_jnode *row, const rescue_jnode *m,
                         int speaker_ok, int dup);
const char *eaf_code_name(eaf_code c);
/* The milliseconds an export writes for a row's start and end. */
void eaf_row_ms(const rescue_jnode *row, long long *ms0, long long *ms1);

#pragma GCC visibility pop

#endif
