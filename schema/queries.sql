-- queries.sql: every SQL statement the library runs, by name.
-- Inserts on the hot import path (rows, row versions) use no RETURNING clause: SQLite runs
-- such a statement through a temporary B-tree, which made every inserted row cost a page
-- allocation; those callers use sqlite3_last_insert_rowid. Inserts done once per run may.
-- Each starts with a line "-- name: <name>"; code asks for it with
-- rescue_store_stmt(st, "<name>") and binds parameters by :name. Statements are
-- prepared once per connection and cached.
--
-- The views of corpus/FORMAT.md §5 are spelled out
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

-- ---- annotate/: annotators, assignment, agreement, lint, adjudication ----

-- name: agree_annotators
SELECT a.id, a.name, a.role FROM annotator a
 WHERE a.id IN (SELECT annotator_id FROM row_version WHERE kind <> 'gold')
 ORDER BY a.id;

-- name: rowset_coders
SELECT DISTINCT v.annotator_id FROM row r JOIN row_version v ON v.row_id = r.id
 WHERE r.rowset_id = :rowset_id AND v.kind <> 'gold';

-- name: lint_cues
SELECT seq, start, end, text FROM cue
 WHERE sample_ref = :sample_ref
   AND import_id = (SELECT max(import_id) FROM cue WHERE sample_ref = :sample_ref)
 ORDER BY seq;

-- name: annotator_get
SELECT id, role, token_hash FROM annotator WHERE name = :name;

-- name: annotator_issue_token
UPDATE annotator SET token_hash = :token_hash, role = :role WHERE id = :id AND token_hash IS NULL;

-- name: annotator_by_token
SELECT id FROM annotator WHERE token_hash = :token_hash;

-- name: annotator_list
SELECT a.id, a.name, a.role, a.token_hash IS NOT NULL, a.created_at,
       coalesce(w.versions, 0), coalesce(w.gold, 0), coalesce(w.samples, 0),
       (SELECT count(*) FROM assignment s
         WHERE s.annotator_id = a.id AND s.run_id = (SELECT max(id) FROM assign_run)),
       (SELECT count(*) FROM assignment s
         WHERE s.annotator_id = a.id AND s.run_id = (SELECT max(id) FROM assign_run)
           AND EXISTS (SELECT 1 FROM assignment o WHERE o.run_id = s.run_id
                         AND o.sample_ref = s.sample_ref AND o.annotator_id <> s.annotator_id))
  FROM annotator a
  LEFT JOIN (SELECT v.annotator_id AS annotator_id, sum(v.kind <> 'gold') AS versions,
                    sum(v.kind = 'gold') AS gold, count(DISTINCT rs.sample_ref) AS samples
               FROM row_version v JOIN row r ON r.id = v.row_id JOIN rowset rs ON rs.id = r.rowset_id
              GROUP BY v.annotator_id) w ON w.annotator_id = a.id
 ORDER BY a.name;

-- name: assign_run_latest
SELECT id, seed, overlap, annotators, created_at FROM assign_run ORDER BY id DESC LIMIT 1;

-- name: assign_run_insert
INSERT INTO assign_run(created_at, seed, overlap, annotators)
  VALUES (:now, :seed, :overlap, :annotators) RETURNING id;

-- name: assignment_insert
INSERT INTO assignment(run_id, sample_ref, annotator_id) VALUES (:run_id, :sample_ref, :annotator_id);

-- name: assigned_samples
SELECT s.sample_id FROM assignment a JOIN sample s ON s.id = a.sample_ref
 WHERE a.annotator_id = :annotator_id AND a.run_id = (SELECT max(id) FROM assign_run)
 ORDER BY s.sort_key;

-- name: adj_versions
SELECT r.id, r.position, v.id, v.annotator_id, a.name, a.role, v.kind, v.content
  FROM row r
  JOIN row_version v ON v.row_id = r.id
  JOIN annotator a ON a.id = v.annotator_id
 WHERE r.rowset_id = :rowset_id
 ORDER BY r.position, v.id;

-- name: annotator_leads
SELECT id, name FROM annotator WHERE role = 'lead' AND name <> :reserved ORDER BY name;
-- ---------------------------------------------------------------------------------
-- export: task datasets, splits (export/tasks.c, export/split.c)

-- name: task_clips
-- The clips `rescue clip` recorded for a sample's rows (video modes only), oldest
-- first, so the last one read for a position is the latest.
SELECT position, path FROM clip
 WHERE sample_ref = :sample_ref AND mode IN ('copy', 'exact')
 ORDER BY position, id;

-- name: split_groups
-- Every group that has samples, by name (bytewise).
SELECT g.id, g.name FROM grp g
 WHERE EXISTS (SELECT 1 FROM sample s WHERE s.group_id = g.id)
 ORDER BY g.name;

-- name: split_run_insert
INSERT INTO split_run(created_at, seed, ratios, stratify)
  VALUES (:now, :seed, :ratios, :stratify) RETURNING id;

-- name: split_group_insert
INSERT INTO split_group(run_id, group_id, split) VALUES (:run_id, :group_id, :split);

-- name: split_latest
SELECT id, seed, ratios, stratify, created_at FROM split_run ORDER BY id DESC LIMIT 1;

-- name: split_of_sample
SELECT sg.split FROM sample s
  JOIN split_group sg ON sg.group_id = s.group_id AND sg.run_id = :run_id
 WHERE s.id = :sample_ref;
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

-- ---- edits through the import path (rescue_import_edits) ----

-- The version an annotator sees of each row of a row set (the annotator view): their
-- latest, else the row's first version.
-- name: rows_seen
SELECT r.id, r.position,
       (SELECT v.content FROM row_version v WHERE v.id = coalesce(
          (SELECT max(id) FROM row_version
            WHERE row_id = r.id AND annotator_id = :annotator_id),
          (SELECT min(id) FROM row_version WHERE row_id = r.id)))
  FROM row r WHERE r.rowset_id = :rowset_id ORDER BY r.position;

-- The sample-level keys an annotator sees: their latest sample version, else the first.
-- name: sample_version_seen
SELECT head, tail, has_rows, given_keys FROM sample_version
 WHERE sample_ref = :sample_ref
 ORDER BY annotator_id = :annotator_id DESC,
          CASE WHEN annotator_id = :annotator_id THEN -id ELSE id END
 LIMIT 1;
