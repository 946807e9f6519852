-- queries.sql: every SQL statement the library runs, by name.
-- (No RETURNING clauses: SQLite runs each through a temporary B-tree, which made every
-- inserted row cost a page allocation; callers use sqlite3_last_insert_rowid.)
-- Each starts with a line "-- name: <name>"; code asks for it with
-- rescue_store_stmt(st, "<name>") and binds parameters by :name. Statements are
-- prepared once per connection and cached.
--
-- The views of DESIGN.md ("Which version of a row each command sees") are spelled out
-- in view_rows and view_samples, with :view = 0 corpus (gold, else latest by anyone),
-- 1 gold only, 2 latest by anyone, 3 one annotator's (their latest, else the row's first).

-- name: meta_get
SELECT value FROM meta WHERE key = :key;

-- name: meta_put
INSERT INTO meta(key, value) VALUES (:key, :value)
  ON CONFLICT(key) DO UPDATE SET value = excluded.value;

-- name: annotator_find
SELECT id, role FROM annotator WHERE name = :name;

-- name: annotator_insert
INSERT INTO annotator(name, role, created_at) VALUES (:name, :role, :now);

-- name: group_insert
INSERT OR IGNORE INTO grp(name) VALUES (:name);

-- name: group_find
SELECT id FROM grp WHERE name = :name;

-- name: sample_find
SELECT s.id, s.rowset_id, r.n_rows
  FROM sample s LEFT JOIN rowset r ON r.id = s.rowset_id
 WHERE s.sample_id = :sample_id;

-- name: sample_insert
INSERT INTO sample(sample_id, sort_key, group_id, created_at)
  VALUES (:sample_id, :sort_key, :group_id, :now);

-- name: sample_set_rowset
UPDATE sample SET rowset_id = :rowset_id WHERE id = :id;

-- name: sample_status_insert
INSERT INTO sample_status(sample_ref, status, reason, annotator_id, created_at)
  VALUES (:sample_ref, :status, :reason, :annotator_id, :now);

-- name: sample_set_status
UPDATE sample SET status = :status, status_reason = :reason WHERE id = :id;

-- name: sample_version_insert
INSERT INTO sample_version(sample_ref, annotator_id, created_at, head, tail, has_rows, given_keys)
  VALUES (:sample_ref, :annotator_id, :now, :head, :tail, :has_rows, :given_keys);

-- name: sample_version_mine
SELECT head, tail, has_rows, given_keys FROM sample_version
 WHERE sample_ref = :sample_ref AND annotator_id = :annotator_id
 ORDER BY id DESC LIMIT 1;

-- name: rowset_insert
INSERT INTO rowset(sample_ref, annotator_id, created_at, n_rows, note)
  VALUES (:sample_ref, :annotator_id, :now, :n_rows, :note);

-- name: row_insert
INSERT INTO row(rowset_id, position) VALUES (:rowset_id, :position);

-- name: row_version_insert
INSERT INTO row_version(row_id, annotator_id, created_at, kind, content, start_time, end_time,
                        speaker, entities, utterance_type, relation_cycle_state,
                        relation_pattern, gold_policy, gold_sources)
  VALUES (:row_id, :annotator_id, :now, :kind, :content, :start_time, :end_time,
          :speaker, :entities, :utterance_type, :relation_cycle_state,
          :relation_pattern, :gold_policy, :gold_sources);

-- name: rows_mine
SELECT r.id, r.position,
       (SELECT v.content FROM row_version v WHERE v.id = (
          SELECT max(id) FROM row_version
           WHERE row_id = r.id AND annotator_id = :annotator_id))
  FROM row r WHERE r.rowset_id = :rowset_id ORDER BY r.position;

-- name: view_samples
SELECT s.id, s.sample_id, g.name, s.status, s.status_reason, s.rowset_id,
       (SELECT n_rows FROM rowset WHERE id = s.rowset_id),
       sv.id, sv.head, sv.tail, sv.has_rows, sv.given_keys
  FROM sample s
  JOIN grp g ON g.id = s.group_id
  LEFT JOIN sample_version sv ON sv.id = (
    CASE WHEN :view = 3 THEN
      COALESCE((SELECT max(id) FROM sample_version WHERE sample_ref = s.id
                  AND annotator_id = :annotator_id),
               (SELECT min(id) FROM sample_version WHERE sample_ref = s.id))
    ELSE (SELECT max(id) FROM sample_version WHERE sample_ref = s.id)
    END)
 WHERE :sample_ref IS NULL OR s.id = :sample_ref
 ORDER BY s.sort_key;

-- name: view_rows
-- (max()/min() rather than ORDER BY ... LIMIT 1: no temporary B-tree per row)
SELECT r.id, r.position, v.id, v.annotator_id, v.kind, v.content, v.start_time, v.end_time,
       v.speaker, v.entities, v.utterance_type, v.relation_cycle_state, v.relation_pattern
  FROM row r
  JOIN row_version v ON v.id = (
    CASE :view
      WHEN 0 THEN COALESCE(
        (SELECT max(id) FROM row_version WHERE row_id = r.id AND kind = 'gold'),
        (SELECT max(id) FROM row_version WHERE row_id = r.id))
      WHEN 1 THEN
        (SELECT max(id) FROM row_version WHERE row_id = r.id AND kind = 'gold')
      WHEN 2 THEN
        (SELECT max(id) FROM row_version WHERE row_id = r.id)
      ELSE COALESCE(
        (SELECT max(id) FROM row_version WHERE row_id = r.id AND annotator_id = :annotator_id),
        (SELECT min(id) FROM row_version WHERE row_id = r.id))
    END)
 WHERE r.rowset_id = :rowset_id
 ORDER BY r.position;

-- name: sample_count
SELECT count(*) FROM sample;

-- name: sample_media_duration
SELECT CASE WHEN g.start IS NOT NULL AND g.end IS NOT NULL THEN g.end - g.start
            ELSE src.duration END
  FROM segment g JOIN source src ON src.id = g.source_id
 WHERE g.sample_ref = :sample_ref
 ORDER BY g.id DESC LIMIT 1;

-- ---- media: sources, segment references, clips, subtitle cues (corpus/media*.c,
-- ---- corpus/clip.c, corpus/subtitles.c) ----

-- name: source_find_same
SELECT id FROM source
 WHERE root = :root AND path = :path AND size = :size AND fingerprint = :fingerprint
 ORDER BY id DESC LIMIT 1;

-- name: source_insert
INSERT INTO source(root, path, size, mtime, fingerprint, container, duration, start_time,
                   streams, probed_at)
  VALUES (:root, :path, :size, :mtime, :fingerprint, :container, :duration, :start_time,
          :streams, :now) RETURNING id;

-- name: segment_current
SELECT id, source_id, start, end FROM segment
 WHERE sample_ref = :sample_ref ORDER BY id DESC LIMIT 1;

-- name: segment_insert
INSERT INTO segment(sample_ref, source_id, start, end, created_at)
  VALUES (:sample_ref, :source_id, :start, :end, :now) RETURNING id;

-- name: media_linked
SELECT s.sample_id, g.id, g.start, g.end, src.id, src.root, src.path, src.size,
       src.fingerprint, src.duration, src.container, src.start_time, src.streams,
       (SELECT count(*) FROM segment h WHERE h.sample_ref = s.id)
  FROM sample s
  JOIN segment g ON g.id = (SELECT id FROM segment WHERE sample_ref = s.id ORDER BY id DESC LIMIT 1)
  JOIN source src ON src.id = g.source_id
 WHERE :sample_ref IS NULL OR s.id = :sample_ref
 ORDER BY s.sort_key;

-- name: media_unlinked
SELECT src.id, src.root, src.path, src.size, src.fingerprint, src.duration, src.container
  FROM source src
 WHERE src.id = (SELECT max(id) FROM source s2 WHERE s2.root = src.root AND s2.path = src.path)
   AND NOT EXISTS (
     SELECT 1 FROM segment g JOIN source s3 ON s3.id = g.source_id
      WHERE g.id = (SELECT max(id) FROM segment WHERE sample_ref = g.sample_ref)
        AND s3.root = src.root AND s3.path = src.path)
 ORDER BY src.root, src.path;

-- name: clip_current
SELECT c.position, c.mode, c.path, c.req_start, c.req_end, c.sha256, c.bytes, c.segment_id,
       c.act_start, c.act_end, c.frames, c.audio_samples
  FROM clip c
 WHERE c.id IN (SELECT max(id) FROM clip WHERE sample_ref = :sample_ref GROUP BY position, mode)
 ORDER BY c.position, c.mode;

-- name: clip_insert
INSERT INTO clip(sample_ref, position, mode, segment_id, path, req_start, req_end, act_start,
                 act_end, frames, audio_samples, bytes, sha256, created_at)
  VALUES (:sample_ref, :position, :mode, :segment_id, :path, :req_start, :req_end, :act_start,
          :act_end, :frames, :audio_samples, :bytes, :sha256, :now);

-- name: cue_next_import
SELECT coalesce(max(import_id), 0) + 1 FROM cue;

-- name: cue_insert
INSERT INTO cue(sample_ref, import_id, seq, start, end, speaker, text, file, line)
  VALUES (:sample_ref, :import_id, :seq, :start, :end, :speaker, :text, :file, :line);

-- name: cues_latest
SELECT seq, start, end, speaker, text, file, line FROM cue
 WHERE sample_ref = :sample_ref
   AND import_id = (SELECT max(import_id) FROM cue WHERE sample_ref = :sample_ref)
 ORDER BY seq;
