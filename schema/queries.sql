-- queries.sql: every SQL statement the library runs, by name.
-- Inserts on the hot import path (rows, row versions) use no RETURNING clause: SQLite runs
-- such a statement through a temporary B-tree, which made every inserted row cost a page
-- allocation; those callers use sqlite3_last_insert_rowid. Inserts done once per run may.
-- Each starts with a line "-- name: <name>"; code asks for it with
-- rescue_store_stmt(st, "<name>") and binds parameters by :name. Statements are
-- prepared once per connection and cached.
--
-- The views (corpus/FORMAT.md §5) are spelled out
-- in view_rows, view_rows_annotator and view_samples, with :view = 0 corpus (gold, else
-- latest by anyone not retired), 1 gold only, 2 latest by anyone not retired, 3 one
-- annotator's (view_rows_annotator: their own, else carried over, else the draft).

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

-- name: sample_find_for
-- A sample, the row set annotator_id works in (theirs, else the base one) and its size,
-- and whether it is their own.
SELECT s.id, coalesce(ar.rowset_id, s.rowset_id), r.n_rows, ar.rowset_id IS NOT NULL
  FROM sample s
  LEFT JOIN annotator_rowset ar ON ar.sample_ref = s.id AND ar.annotator_id = :annotator_id
  LEFT JOIN rowset r ON r.id = coalesce(ar.rowset_id, s.rowset_id)
 WHERE s.sample_id = :sample_id;

-- name: annotator_rowset_set
INSERT INTO annotator_rowset(sample_ref, annotator_id, rowset_id)
  VALUES (:sample_ref, :annotator_id, :rowset_id)
  ON CONFLICT (sample_ref, annotator_id) DO UPDATE SET rowset_id = excluded.rowset_id;

-- name: member_insert
INSERT INTO rowset_member(rowset_id, position, row_id) VALUES (:rowset_id, :position, :row_id);

-- name: row_made_position
SELECT position FROM row WHERE id = :row_id;

-- name: row_split_parent
-- The parent a row was split from (row_origin relation split, one part), else nothing.
SELECT parent_id FROM row_origin o
 WHERE o.row_id = :row_id AND o.relation = 'split'
   AND NOT EXISTS (SELECT 1 FROM row_origin p WHERE p.row_id = o.row_id AND p.part <> o.part);

-- name: ref_rowset_for
-- The row set whose positions a new version of row_id by annotator_id counts in: the one
-- the annotator works in (theirs, else the sample's base one) when it holds the row, else
-- the one the row was made in.
SELECT coalesce(
  (SELECT m.rowset_id FROM row w
     JOIN rowset rs ON rs.id = w.rowset_id
     JOIN sample s ON s.id = rs.sample_ref
     LEFT JOIN annotator_rowset ar ON ar.sample_ref = s.id AND ar.annotator_id = :annotator_id
     JOIN rowset_member m ON m.rowset_id = coalesce(ar.rowset_id, s.rowset_id) AND m.row_id = w.id
    WHERE w.id = :row_id),
  (SELECT rowset_id FROM row WHERE id = :row_id));

-- name: member_at
SELECT row_id FROM rowset_member WHERE rowset_id = :rowset_id AND position = :position;

-- name: member_position
SELECT position FROM rowset_member WHERE row_id = :row_id AND rowset_id = :rowset_id;

-- name: row_ref_insert
INSERT INTO row_ref(version_id, field, ord, row_id) VALUES (:version_id, :field, :ord, :row_id);

-- name: row_refs_of
SELECT field, ord, row_id FROM row_ref WHERE version_id = :version_id ORDER BY field, ord;

-- name: row_children
-- The rows made from row_id by a resegmentation (split halves, the merged row, the same
-- span in a new row set), in part order.
SELECT row_id FROM row_origin WHERE parent_id = :row_id ORDER BY row_id;

-- name: row_merge_parents
-- The two rows row_id was merged from (relation merged, parts 1 and 2, no third), when
-- row_id has had no version since the merge and a version of the first one ended at :at
-- (where a split of row_id gives them back), else nothing.
SELECT a.parent_id, b.parent_id FROM row_origin a
  JOIN row_origin b ON b.row_id = a.row_id AND b.part = 2 AND b.relation = 'merged'
 WHERE a.row_id = :row_id AND a.part = 1 AND a.relation = 'merged'
   AND NOT EXISTS (SELECT 1 FROM row_origin c WHERE c.row_id = a.row_id AND c.part > 2)
   AND (SELECT count(*) FROM row_version v WHERE v.row_id = a.row_id) = 1
   AND EXISTS (SELECT 1 FROM row_version v WHERE v.row_id = a.parent_id
                AND abs(v.end_time - :at) < 0.0005);

-- name: row_parents
SELECT parent_id FROM row_origin WHERE row_id = :row_id ORDER BY part;

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
-- The id is one above every id row_version ever gave: the largest held, or the largest of
-- a gold version an undo retired (gold_retired), which left the table and whose id must
-- never be given again (SQLite's own choice is the largest held + 1).
INSERT INTO row_version(id, row_id, annotator_id, created_at, kind, content, start_time,
                        end_time, speaker, entities, utterance_type, relation_cycle_state,
                        relation_pattern, gold_policy, gold_sources)
  VALUES (max(coalesce((SELECT max(id) FROM row_version), 0),
              coalesce((SELECT max(version_id) FROM gold_retired), 0)) + 1,
          :row_id, :annotator_id, :now, :kind, :content, :start_time, :end_time,
          :speaker, :entities, :utterance_type, :relation_cycle_state,
          :relation_pattern, :gold_policy, :gold_sources);

-- name: rows_mine
-- Each row of a row set, the annotator's latest version of it, the position the row was
-- made at (a version's row_index, corpus/FORMAT.md §4) and that version's id.
SELECT r.id, r.position, v.content, (SELECT position FROM row WHERE id = r.id), v.id
  FROM row_in r
  LEFT JOIN row_version v ON v.id = (SELECT max(id) FROM row_version
                                      WHERE row_id = r.id AND annotator_id = :annotator_id)
 WHERE r.rowset_id = :rowset_id ORDER BY r.position;

-- name: view_samples
-- In the annotator view (3) the row set is the annotator's own, else the base one.
SELECT s.id, s.sample_id, g.name, s.status, s.status_reason, coalesce(ar.rowset_id, s.rowset_id),
       (SELECT n_rows FROM rowset WHERE id = coalesce(ar.rowset_id, s.rowset_id)),
       sv.id, sv.head, sv.tail, sv.has_rows, sv.given_keys,
       (SELECT note FROM rowset WHERE id = coalesce(ar.rowset_id, s.rowset_id))
  FROM sample s
  JOIN grp g ON g.id = s.group_id
  LEFT JOIN annotator_rowset ar ON :view = 3 AND ar.sample_ref = s.id
                               AND ar.annotator_id = :annotator_id
  LEFT JOIN sample_version sv ON sv.id = (
    CASE WHEN :view = 3 THEN
      COALESCE((SELECT max(id) FROM sample_version WHERE sample_ref = s.id
                  AND annotator_id = :annotator_id),
               (SELECT max(x.id) FROM sample_version x JOIN annotator d ON d.id = x.annotator_id
                 WHERE x.sample_ref = s.id AND d.retired = 0
                   AND (d.name = :draft OR d.role = 'model')),
               (SELECT min(id) FROM sample_version WHERE sample_ref = s.id))
    ELSE (SELECT max(id) FROM sample_version WHERE sample_ref = s.id)
    END)
 WHERE :sample_ref IS NULL OR s.id = :sample_ref
 ORDER BY s.sort_key;

-- name: view_rows
-- (max()/min() rather than ORDER BY ... LIMIT 1: no temporary B-tree per row)
-- Retired annotators' versions are left out. The annotator view is view_rows_annotator.
SELECT r.id, r.position, v.id, v.annotator_id, v.kind, v.content, v.start_time, v.end_time,
       v.speaker, v.entities, v.utterance_type, v.relation_cycle_state, v.relation_pattern,
       0, 0, (SELECT position FROM row WHERE id = r.id)
  FROM row_in r
  JOIN row_version v ON v.id = (
    CASE :view
      WHEN 0 THEN COALESCE(
        (SELECT max(id) FROM row_version WHERE row_id = r.id AND kind = 'gold'),
        (SELECT max(id) FROM row_version WHERE row_id = r.id
            AND annotator_id NOT IN (SELECT id FROM annotator WHERE retired = 1)))
      WHEN 1 THEN
        (SELECT max(id) FROM row_version WHERE row_id = r.id AND kind = 'gold')
      ELSE
        (SELECT max(id) FROM row_version WHERE row_id = r.id
            AND annotator_id NOT IN (SELECT id FROM annotator WHERE retired = 1))
    END)
 WHERE r.rowset_id = :rowset_id
 ORDER BY r.position;

-- name: view_rows_annotator_flat
-- view_rows_annotator for a row set no resegmentation made (nothing to follow back).
SELECT r.id, r.position, v.id, v.annotator_id, v.kind, v.content, v.start_time, v.end_time,
       v.speaker, v.entities, v.utterance_type, v.relation_cycle_state, v.relation_pattern,
       0, 0, (SELECT position FROM row WHERE id = r.id)
  FROM row_in r
  JOIN row_version v ON v.id = COALESCE(
    (SELECT max(id) FROM row_version WHERE row_id = r.id AND annotator_id = :annotator_id),
    (SELECT max(x.id) FROM row_version x JOIN annotator d ON d.id = x.annotator_id
      WHERE x.row_id = r.id AND x.kind <> 'gold' AND d.retired = 0
        AND (d.name = :draft OR d.role = 'model')))
 WHERE r.rowset_id = :rowset_id
 ORDER BY r.position;

-- name: view_rows_annotator
-- One annotator's view, built only from the draft and their own versions. Each current
-- row is followed back through the row sets before it (row_origin, first part): the
-- nearest row on that line with the annotator's own version wins, else the nearest with a
-- draft version (the import pseudo-annotator or a model; never another person's). The
-- origin column says how it got here (0 this row, 1 same span, 2 split, 3 merged: the
-- strongest change on the line); seg_changed marks rows that someone else's
-- resegmentation split, merged or added. A version carried from another row keeps its
-- labels, but its segmentation (times, speaker, text) is this row's: the last four columns
-- are the row's own draft version when the shown version is carried (store.c).
WITH RECURSIVE line(row_id, anc_id, depth, rel) AS (
  SELECT id, id, 0, 0 FROM row_in WHERE rowset_id = :rowset_id
  UNION ALL
  SELECT l.row_id, o.parent_id, l.depth + 1,
         max(l.rel, CASE o.relation WHEN 'same' THEN 1 WHEN 'split' THEN 2 ELSE 3 END)
    FROM line l JOIN row_origin o ON o.row_id = l.anc_id AND o.part = 1
   WHERE l.depth < 32
),
cand AS (
  SELECT l.row_id, l.depth, l.rel,
         (SELECT max(id) FROM row_version WHERE row_id = l.anc_id
             AND annotator_id = :annotator_id) AS own,
         (SELECT max(x.id) FROM row_version x JOIN annotator d ON d.id = x.annotator_id
           WHERE x.row_id = l.anc_id AND x.kind <> 'gold' AND d.retired = 0
             AND (d.name = :draft OR d.role = 'model')) AS draft
    FROM line l
),
pick AS (
  SELECT r.id AS row_id, r.position AS position,
         COALESCE(
           (SELECT own FROM cand c WHERE c.row_id = r.id AND own IS NOT NULL
             ORDER BY depth LIMIT 1),
           (SELECT draft FROM cand c WHERE c.row_id = r.id AND draft IS NOT NULL
             ORDER BY depth LIMIT 1)) AS vid
    FROM row_in r WHERE r.rowset_id = :rowset_id
)
SELECT p.row_id, p.position, v.id, v.annotator_id, v.kind, v.content, v.start_time, v.end_time,
       v.speaker, v.entities, v.utterance_type, v.relation_cycle_state, v.relation_pattern,
       (SELECT c.rel FROM cand c WHERE c.row_id = p.row_id AND (c.own = p.vid OR c.draft = p.vid)
         ORDER BY c.depth LIMIT 1),
       (SELECT rs.note = 'resegment' AND rs.annotator_id <> :annotator_id
               AND NOT EXISTS (SELECT 1 FROM row_origin o WHERE o.row_id = p.row_id
                                  AND o.part = 1 AND o.relation = 'same')
          FROM rowset rs WHERE rs.id = :rowset_id),
       (SELECT position FROM row WHERE id = v.row_id), -- a carried version: its row's
       sv.content, sv.start_time, sv.end_time, sv.speaker
  FROM pick p JOIN row_version v ON v.id = p.vid
  LEFT JOIN row_version sv ON v.row_id <> p.row_id AND sv.id = (
    SELECT max(x.id) FROM row_version x JOIN annotator d ON d.id = x.annotator_id
     WHERE x.row_id = p.row_id AND x.kind <> 'gold' AND d.retired = 0
       AND (d.name = :draft OR d.role = 'model'))
 ORDER BY p.position;

-- name: view_rowset_pick
-- The row set the corpus, gold and latest views show for one sample (store.c): the gold
-- row set where adjudication chose one (columns 1-3), else, for the corpus and latest
-- views (:view 0, 2) when some annotator works in a row set of their own that is not the
-- base one, the whole view of the annotator who saved last, ties by name (columns 4-7:
-- annotator, their row set, its size and note). NULLs: the base row set, as before.
WITH gold AS (
  SELECT ar.rowset_id AS id, rs.n_rows AS n
    FROM annotator_rowset ar JOIN annotator a ON a.id = ar.annotator_id
    JOIN rowset rs ON rs.id = ar.rowset_id
   WHERE ar.sample_ref = :sample_ref AND a.name = :adjudication),
last AS (
  SELECT a.id AS id FROM annotator a
    JOIN row_version v ON v.annotator_id = a.id
    JOIN row r ON r.id = v.row_id JOIN rowset rs ON rs.id = r.rowset_id
   WHERE (:view = 0 OR :view = 2) AND NOT EXISTS (SELECT 1 FROM gold)
     AND EXISTS (SELECT 1 FROM annotator_rowset x JOIN annotator xa ON xa.id = x.annotator_id
                   JOIN sample s ON s.id = x.sample_ref
                  WHERE x.sample_ref = :sample_ref AND x.rowset_id <> s.rowset_id
                    AND xa.retired = 0 AND xa.name <> :adjudication)
     AND rs.sample_ref = :sample_ref AND v.kind <> 'gold' AND a.retired = 0
     AND a.role <> 'model' AND a.name <> :draft AND a.name <> :adjudication
   GROUP BY a.id ORDER BY max(v.created_at) DESC, a.name LIMIT 1),
whole AS (
  SELECT l.id AS annotator_id,
         coalesce((SELECT x.rowset_id FROM annotator_rowset x
                    WHERE x.sample_ref = :sample_ref AND x.annotator_id = l.id),
                  (SELECT rowset_id FROM sample WHERE id = :sample_ref)) AS rowset_id
    FROM last l)
SELECT (SELECT id FROM gold), (SELECT n FROM gold), 'gold',
       w.annotator_id, w.rowset_id, rs.n_rows, rs.note
  FROM (SELECT 1) LEFT JOIN whole w LEFT JOIN rowset rs ON rs.id = w.rowset_id;

-- name: rowset_info
SELECT n_rows, note FROM rowset WHERE id = :rowset_id;

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
-- Annotators with saved versions, without the draft, gold and retired annotators.
SELECT a.id, a.name, a.role FROM annotator a
 WHERE a.id IN (SELECT annotator_id FROM row_version WHERE kind <> 'gold')
   AND a.retired = 0 AND a.name <> :draft AND a.name <> :adjudication
 ORDER BY a.id;

-- name: rowset_coders
-- Who saved a version of one of the row set's rows, or of a row they came from (their
-- versions carry over a resegmentation).
WITH RECURSIVE line(id, depth) AS (
  SELECT id, 0 FROM row_in WHERE rowset_id = :rowset_id
  UNION
  SELECT o.parent_id, l.depth + 1 FROM line l JOIN row_origin o ON o.row_id = l.id
   WHERE l.depth < 32
)
SELECT DISTINCT v.annotator_id FROM line l JOIN row_version v ON v.row_id = l.id
 WHERE v.kind <> 'gold';

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
                         AND o.sample_ref = s.sample_ref AND o.annotator_id <> s.annotator_id)),
       a.retired
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
  FROM row_in r
  JOIN row_version v ON v.row_id = r.id
  JOIN annotator a ON a.id = v.annotator_id
 WHERE r.rowset_id = :rowset_id
 ORDER BY r.position, v.id;

-- name: gold_rowset
-- The gold row set adjudication chose for a sample (annotate/gold_seg.c) and whose
-- segmentation it is (rowset.annotator_id: the coder, or the draft's importer).
SELECT ar.rowset_id, rs.annotator_id, rs.n_rows
  FROM annotator_rowset ar JOIN annotator a ON a.id = ar.annotator_id
  JOIN rowset rs ON rs.id = ar.rowset_id
 WHERE ar.sample_ref = :sample_ref AND a.name = :adjudication;

-- name: gold_rowset_maker
SELECT annotator_id FROM rowset WHERE id = :rowset_id;

-- name: sample_annotator_saved
-- Did the annotator save a version (not gold) of any row of the sample?
SELECT EXISTS (SELECT 1 FROM row_version v JOIN row r ON r.id = v.row_id
                 JOIN rowset rs ON rs.id = r.rowset_id
                WHERE rs.sample_ref = :sample_ref AND v.annotator_id = :annotator_id
                  AND v.kind <> 'gold');

-- name: rowset_same_members
-- Do two row sets list the same rows in the same order?
SELECT (SELECT count(*) FROM rowset_member WHERE rowset_id = :a) =
       (SELECT count(*) FROM rowset_member WHERE rowset_id = :b)
   AND NOT EXISTS (SELECT 1 FROM rowset_member x
                     LEFT JOIN rowset_member y ON y.rowset_id = :b AND y.position = x.position
                    WHERE x.rowset_id = :a AND (y.row_id IS NULL OR y.row_id <> x.row_id));

-- name: rowset_member_copy
INSERT INTO rowset_member(rowset_id, position, row_id)
  SELECT :to_id, position, row_id FROM rowset_member WHERE rowset_id = :from_id;

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

-- name: clip_records
-- Every clip recorded for a sample, oldest first: a run keeps the latest one of each
-- position and mode that was written into its own output folder (corpus/clip.c).
SELECT c.position, c.mode, c.path, c.req_start, c.req_end, c.sha256, c.bytes, c.segment_id,
       c.act_start, c.act_end, c.frames, c.audio_samples, c.row_id
  FROM clip c
 WHERE c.sample_ref = :sample_ref
 ORDER BY c.id;

-- name: clip_insert
INSERT INTO clip(sample_ref, position, mode, segment_id, path, req_start, req_end, act_start,
                 act_end, frames, audio_samples, bytes, sha256, created_at, row_id)
  VALUES (:sample_ref, :position, :mode, :segment_id, :path, :req_start, :req_end, :act_start,
          :act_end, :frames, :audio_samples, :bytes, :sha256, :now, :row_id);

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

-- ---- model pre-annotation (rescue draft) ----

-- name: draft_request_insert
INSERT INTO model_request(annotator_id, sample_ref, row_from, row_to, command, prompt_sha256,
                          attempts, wall_ms, exit_status, outcome, error, created_at)
  VALUES (:annotator_id, :sample_ref, :row_from, :row_to, :command, :prompt_sha256,
          :attempts, :wall_ms, :exit_status, :outcome, :error, :now);

-- name: draft_request_seen
-- A request of an answers file that a merge already stored (rescue_draft_merge).
SELECT count(*) FROM model_request
 WHERE annotator_id = :annotator_id AND sample_ref = :sample_ref AND row_from = :row_from
   AND row_to = :row_to AND prompt_sha256 = :prompt_sha256 AND attempts = :attempts
   AND wall_ms = :wall_ms AND created_at = :created_at;

-- name: draft_version_insert
INSERT INTO model_version(version_id, request_id) VALUES (:version_id, :request_id);

-- ---- sharing safely: pseudonyms and the audit trail (export/privacy.c) ----

-- name: pseudo_group_heads
SELECT sv.head, sv.tail, sv.has_rows FROM sample s
  JOIN sample_version sv ON sv.sample_ref = s.id
 WHERE s.group_id = :group_id ORDER BY s.sort_key, sv.id;

-- name: pseudo_group_entities
SELECT v.entities FROM sample s
  JOIN rowset rs ON rs.sample_ref = s.id
  JOIN row_in r ON r.rowset_id = rs.id
  JOIN row_version v ON v.row_id = r.id
 WHERE s.group_id = :group_id ORDER BY s.sort_key, rs.id, r.position, v.id;

-- name: pseudo_get
SELECT pseudonym, how, created_at FROM pseudonym
 WHERE id = (SELECT max(id) FROM pseudonym WHERE group_id = :group_id AND real = :real);

-- name: pseudo_put
INSERT INTO pseudonym(group_id, real, pseudonym, how, created_at)
  VALUES (:group_id, :real, :pseudonym, :how, :now);

-- name: pseudo_clips
-- The current clip file of each row of a sample (any mode; the latest record wins).
SELECT c.position, c.path FROM clip c
 WHERE c.sample_ref = :sample_ref AND c.position > 0
   AND c.id = (SELECT max(id) FROM clip WHERE sample_ref = c.sample_ref
                 AND position = c.position)
 ORDER BY c.position;

-- name: pseudo_split_groups
-- The latest split, group by group, with its run's settings.
SELECT g.name, sg.split, r.created_at, r.seed, r.ratios, r.stratify FROM split_run r
  JOIN split_group sg ON sg.run_id = r.id
  JOIN grp g ON g.id = sg.group_id
 WHERE r.id = (SELECT max(id) FROM split_run)
 ORDER BY g.name;

-- name: pseudo_split_run_insert
INSERT INTO split_run(created_at, seed, ratios, stratify)
  VALUES (:now, :seed, :ratios, :stratify);

-- name: audit_insert
INSERT INTO audit(created_at, action, os_user, annotator, command, view, pseudonymised, output,
                  output_sha256, detail)
  VALUES (:now, :action, :os_user, :annotator, :command, :view, :pseudonymised, :output,
          :output_sha256, :detail);

-- name: audit_annotator_name
SELECT name FROM annotator WHERE id = :id;

-- name: audit_log
-- Audit entries and sample status changes, in time order. A status change has an audit
-- record of its own (same time, same detail) written with it; status changes from before
-- those records existed are shown from sample_status.
SELECT created_at, action, os_user, annotator, command, view, pseudonymised, output,
       output_sha256, detail FROM audit
UNION ALL
SELECT * FROM (
  SELECT st.created_at, 'status', NULL, a.name, NULL, NULL, 0, NULL, NULL,
         s.sample_id || ': ' || st.status || COALESCE(' (' || st.reason || ')', '') AS detail
    FROM sample_status st JOIN sample s ON s.id = st.sample_ref
    LEFT JOIN annotator a ON a.id = st.annotator_id) old
 WHERE NOT EXISTS (SELECT 1 FROM audit au WHERE au.action = 'status'
                     AND au.created_at = old.created_at AND au.detail = old.detail)
 ORDER BY 1;
-- ---- review (annotate/review.c, for tools/serve/) and saving one row (corpus/row_save.c) ----

-- name: row_save_mine
-- A row of the sample's current row set and the annotator's latest version of it (NULL
-- when they have none) with its content, and that row set.
SELECT r.id, v.id, v.content, r.rowset_id
  FROM sample s
  JOIN row_in r ON r.rowset_id = coalesce((SELECT x.rowset_id FROM annotator_rowset x WHERE x.sample_ref = s.id AND x.annotator_id = :annotator_id), s.rowset_id)
                AND r.position = :position
  LEFT JOIN row_version v ON v.id =
       (SELECT max(id) FROM row_version WHERE row_id = r.id AND annotator_id = :annotator_id)
 WHERE s.sample_id = :sample_id;

-- name: row_save_status
SELECT status FROM sample WHERE sample_id = :sample_id;

-- name: sample_status_of
SELECT id, status FROM sample WHERE sample_id = :sample_id;

-- name: access_generation
-- Who may do what, as of this snapshot (schema migration 15).
SELECT gen FROM access_generation;

-- name: review_annotator
SELECT name, role, retired, token_hash FROM annotator WHERE id = :id;

-- name: review_assigned
-- Whether the latest assignment run gives anyone the sample, and whether it gives it to
-- this annotator (no run at all: 0, 0).
SELECT EXISTS (SELECT 1 FROM assignment a JOIN sample s ON s.id = a.sample_ref
                WHERE s.sample_id = :sample_id AND a.run_id = (SELECT max(id) FROM assign_run)),
       EXISTS (SELECT 1 FROM assignment a JOIN sample s ON s.id = a.sample_ref
                WHERE s.sample_id = :sample_id AND a.annotator_id = :annotator_id
                  AND a.run_id = (SELECT max(id) FROM assign_run));

-- name: review_work_list
-- Every sample with its status, rows, the rows this annotator has versions of, whether the
-- latest assignment gives it to them, who it is assigned to, and whether any row of its
-- row set names the family group label (for the scenario rule).
SELECT s.sample_id, g.name, s.status, s.status_reason,
       coalesce((SELECT n_rows FROM rowset WHERE id = coalesce((SELECT x.rowset_id FROM annotator_rowset x WHERE x.sample_ref = s.id AND x.annotator_id = :annotator_id), s.rowset_id)), 0),
       (SELECT count(*) FROM row_in r WHERE r.rowset_id = coalesce((SELECT x.rowset_id FROM annotator_rowset x WHERE x.sample_ref = s.id AND x.annotator_id = :annotator_id), s.rowset_id)
           AND EXISTS (SELECT 1 FROM row_version v WHERE v.row_id = r.id
                         AND v.annotator_id = :annotator_id)),
       EXISTS (SELECT 1 FROM assignment a WHERE a.sample_ref = s.id
                  AND a.annotator_id = :annotator_id
                  AND a.run_id = (SELECT max(id) FROM assign_run)),
       (SELECT group_concat(an.name, ',') FROM assignment a JOIN annotator an ON an.id = a.annotator_id
         WHERE a.sample_ref = s.id AND a.run_id = (SELECT max(id) FROM assign_run)),
       EXISTS (SELECT 1 FROM row_in r JOIN row_version v ON v.row_id = r.id
                WHERE r.rowset_id = s.rowset_id
                  AND (v.entities = :family OR v.entities LIKE :family || char(31) || '%'
                       OR v.entities LIKE '%' || char(31) || :family
                       OR v.entities LIKE '%' || char(31) || :family || char(31) || '%'))
  FROM sample s JOIN grp g ON g.id = s.group_id LEFT JOIN rowset rs ON rs.id = s.rowset_id
 ORDER BY s.sort_key;

-- name: review_any_assignment
SELECT EXISTS (SELECT 1 FROM assign_run);

-- name: review_dash_status
SELECT s.status, count(*), coalesce(sum(rs.n_rows), 0), sum(s.rowset_id IS NOT NULL)
  FROM sample s LEFT JOIN rowset rs ON rs.id = s.rowset_id
 GROUP BY s.status;

-- name: review_dash_people
-- Per person (not models, not the adjudication pseudo-annotator): samples assigned in the
-- latest run, rows in them, rows of current row sets they wrote a version of (saved in
-- review or imported with --annotator), and how many
-- of their samples are reviewed.
SELECT an.name, an.role,
       (SELECT count(*) FROM assignment a
         WHERE a.annotator_id = an.id AND a.run_id = (SELECT max(id) FROM assign_run)),
       (SELECT coalesce(sum(rs.n_rows), 0) FROM assignment a
          JOIN sample s ON s.id = a.sample_ref JOIN rowset rs ON rs.id = s.rowset_id
         WHERE a.annotator_id = an.id AND a.run_id = (SELECT max(id) FROM assign_run)),
       (SELECT count(DISTINCT v.row_id) FROM row_version v
          JOIN row_in r ON r.id = v.row_id JOIN sample s
            ON r.rowset_id = coalesce((SELECT x.rowset_id FROM annotator_rowset x WHERE x.sample_ref = s.id AND x.annotator_id = an.id), s.rowset_id)
         WHERE v.annotator_id = an.id AND v.kind IN ('edit', 'import')),
       (SELECT count(*) FROM assignment a JOIN sample s ON s.id = a.sample_ref
         WHERE a.annotator_id = an.id AND a.run_id = (SELECT max(id) FROM assign_run)
           AND s.status = 'reviewed')
  FROM annotator an
 WHERE an.role <> 'model' AND an.name <> :reserved AND an.name <> :draft AND an.retired = 0
 ORDER BY an.name;

-- name: review_commented
SELECT count(DISTINCT c.sample_ref) FROM comment c JOIN sample s ON s.id = c.sample_ref
 WHERE s.status <> 'discarded';
-- ---------------------------------------------------------------------------------
-- Double annotation: registered annotators, retiring, statuses, comments, assignment
-- lists, row lineage, per-field decisions (annotate/workflow.c, annotators.c,
-- corpus/sample.c, annotate/adjudicate.c)

-- name: annotator_registered
SELECT id, role, retired FROM annotator
 WHERE name = :name AND name <> :draft AND name <> :adjudication;

-- name: annotator_names
SELECT name FROM annotator WHERE name <> :draft AND name <> :adjudication ORDER BY name;

-- name: annotator_set_retired
UPDATE annotator SET retired = :retired,
       token_hash = CASE WHEN :retired THEN token_hash END WHERE id = :id;

-- name: annotator_rotate_token
UPDATE annotator SET token_hash = :token_hash WHERE id = :id;

-- name: annotator_retirement_insert
INSERT INTO annotator_retirement(annotator_id, retired, reason, created_at)
  VALUES (:annotator_id, :retired, :reason, :now);

-- name: status_history
SELECT h.status, h.reason, a.name, h.created_at
  FROM sample_status h LEFT JOIN annotator a ON a.id = h.annotator_id
 WHERE h.sample_ref = :sample_ref ORDER BY h.id;

-- name: comment_row
-- Row `position` in the commenter's view (their row set, else the base one).
SELECT r.id FROM sample s
  JOIN row_in r ON r.rowset_id = coalesce((SELECT x.rowset_id FROM annotator_rowset x
                                            WHERE x.sample_ref = s.id
                                              AND x.annotator_id = :annotator_id),
                                          s.rowset_id)
 WHERE s.id = :sample_ref AND r.position = :position;

-- name: comment_insert
INSERT INTO comment(sample_ref, row_id, position, annotator_id, text, created_at)
  VALUES (:sample_ref, :row_id, :position, :annotator_id, :text, :now);

-- name: comments_list
SELECT c.id, s.sample_id, c.position, a.name, c.text, c.created_at, s.id
  FROM comment c JOIN sample s ON s.id = c.sample_ref
  LEFT JOIN annotator a ON a.id = c.annotator_id
 ORDER BY s.sort_key, c.id;

-- name: assign_list
SELECT s.sample_id, a.name, s.status, s.status_reason,
       (SELECT n_rows FROM rowset WHERE id = coalesce((SELECT x.rowset_id FROM annotator_rowset x WHERE x.sample_ref = s.id AND x.annotator_id = a.id), s.rowset_id)),
       (SELECT count(*) FROM row_in r WHERE r.rowset_id = coalesce((SELECT x.rowset_id FROM annotator_rowset x WHERE x.sample_ref = s.id AND x.annotator_id = a.id), s.rowset_id)
           AND EXISTS (SELECT 1 FROM row_version v WHERE v.row_id = r.id
                         AND v.annotator_id = a.id AND v.kind <> 'gold')),
       (SELECT count(*) FROM comment c WHERE c.sample_ref = s.id)
  FROM assignment x
  JOIN sample s ON s.id = x.sample_ref
  JOIN annotator a ON a.id = x.annotator_id
 WHERE x.run_id = (SELECT max(id) FROM assign_run)
   AND (:annotator_id = 0 OR x.annotator_id = :annotator_id)
 ORDER BY s.sort_key, a.name;

-- name: default_coders
-- Annotators and leads, not retired, with at least one saved (not gold) version.
SELECT a.id, a.name FROM annotator a
 WHERE a.role <> 'model' AND a.retired = 0 AND a.name <> :draft AND a.name <> :adjudication
   AND EXISTS (SELECT 1 FROM row_version v WHERE v.annotator_id = a.id AND v.kind <> 'gold')
 ORDER BY a.name;

-- name: row_spans_for
-- The rows of a row set with the span `annotator_id` sees (their latest, else the draft,
-- else the row's first version), for the alignment check and resegment lineage.
SELECT r.id, r.position, v.start_time, v.end_time
  FROM row_in r
  LEFT JOIN row_version v ON v.id = COALESCE(
    (SELECT max(id) FROM row_version WHERE row_id = r.id AND annotator_id = :annotator_id
        AND kind <> 'gold'),
    (SELECT max(x.id) FROM row_version x JOIN annotator d ON d.id = x.annotator_id
      WHERE x.row_id = r.id AND x.kind <> 'gold' AND d.retired = 0
        AND (d.name = :draft OR d.role = 'model')),
    (SELECT min(id) FROM row_version WHERE row_id = r.id))
 WHERE r.rowset_id = :rowset_id
 ORDER BY r.position;

-- name: row_origin_insert
INSERT INTO row_origin(row_id, part, parent_id, relation)
  VALUES (:row_id, :part, :parent_id, :relation);

-- name: rowset_rows
SELECT id, position FROM row_in WHERE rowset_id = :rowset_id ORDER BY position;

-- name: field_decision_insert
INSERT INTO field_decision(row_id, field, value, take_id, lead_id, created_at)
  VALUES (:row_id, :field, :value, :take_id, :lead_id, :now);

-- name: field_decisions_of_rowset
SELECT d.row_id, d.field, d.value, d.id FROM field_decision d JOIN row_in r ON r.id = d.row_id
 WHERE r.rowset_id = :rowset_id
   AND d.id = (SELECT max(id) FROM field_decision e WHERE e.row_id = d.row_id AND e.field = d.field)
 ORDER BY d.row_id, d.field;

-- name: gold_of_row
SELECT content FROM row_version
 WHERE id = (SELECT max(id) FROM row_version WHERE row_id = :row_id AND kind = 'gold');

-- name: row_at
SELECT r.id FROM sample s JOIN row_in r ON r.rowset_id = s.rowset_id
 WHERE s.sample_id = :sample_id AND r.position = :position;

-- name: field_decision_latest
-- The whole-field decision in force (policy runs): parts decided through curation
-- (path set), undo records and decisions undone are left to rescue_curate.
SELECT value FROM field_decision d
 WHERE d.row_id = :row_id AND d.field = :field AND d.path IS NULL
   AND coalesce(d.how, '') <> 'undo'
   AND NOT EXISTS (SELECT 1 FROM field_decision u WHERE u.undoes = d.id)
 ORDER BY d.id DESC LIMIT 1;

-- ---------------------------------------------------------------------------------
-- curation (annotate/curate.c)

-- name: curate_coders
-- Everyone with a version (not gold) of a row of the sample, the draft included; not retired.
SELECT DISTINCT a.id, a.name, a.role FROM annotator a
  JOIN row_version v ON v.annotator_id = a.id
  JOIN row r ON r.id = v.row_id
  JOIN rowset s ON s.id = r.rowset_id
 WHERE s.sample_ref = :sample_ref AND v.kind <> 'gold' AND a.retired = 0
   AND a.name <> :adjudication
 ORDER BY a.name = :draft, a.role = 'model', a.name;

-- name: curate_decisions
SELECT d.id, d.field, d.path, d.value, d.take_id, t.name, d.lead_id, l.name, d.created_at,
       d.how, d.undoes
  FROM field_decision d
  LEFT JOIN annotator t ON t.id = d.take_id
  JOIN annotator l ON l.id = d.lead_id
 WHERE d.row_id = :row_id
 ORDER BY d.id;

-- name: curate_decision_insert
INSERT INTO field_decision(row_id, field, value, take_id, lead_id, created_at, path, how, undoes)
  VALUES (:row_id, :field, :value, :take_id, :lead_id, :now, :path, :how, :undoes);

-- name: curate_version
-- A row's curation state version: its decisions and gold versions so far (retired ones
-- included, so that it only grows).
SELECT (SELECT count(*) FROM field_decision WHERE row_id = :row_id) +
       (SELECT count(*) FROM row_version WHERE row_id = :row_id AND kind = 'gold') +
       (SELECT count(*) FROM gold_retired WHERE row_id = :row_id);

-- name: curate_retire_gold
-- The gold versions curation wrote since the row's last policy gold, kept as retired by
-- undo :undo_id (then deleted from row_version by curate_retired_*).
INSERT INTO gold_retired(version_id, row_id, annotator_id, created_at, content, gold_policy,
                         gold_sources, retired_at, undo_id)
  SELECT v.id, v.row_id, v.annotator_id, v.created_at, v.content, v.gold_policy,
         v.gold_sources, :now, :undo_id
    FROM row_version v
   WHERE v.row_id = :row_id AND v.kind = 'gold' AND v.gold_policy = 'curate'
     AND v.id > coalesce((SELECT max(p.id) FROM row_version p
                           WHERE p.row_id = :row_id AND p.kind = 'gold'
                             AND coalesce(p.gold_policy, '') <> 'curate'), 0)
   ORDER BY v.id;

-- name: curate_retired_provenance
DELETE FROM gold_provenance
 WHERE version_id IN (SELECT version_id FROM gold_retired WHERE undo_id = :undo_id);

-- name: curate_retired_refs
DELETE FROM row_ref
 WHERE version_id IN (SELECT version_id FROM gold_retired WHERE undo_id = :undo_id);

-- name: curate_retired_versions
DELETE FROM row_version
 WHERE id IN (SELECT version_id FROM gold_retired WHERE undo_id = :undo_id);

-- name: curate_gold
-- The row's latest gold version, and the latest one a policy wrote (the curation baseline).
SELECT v.id, v.content, v.gold_policy, v.created_at FROM row_version v
 WHERE v.row_id = :row_id AND v.kind = 'gold'
   AND (:baseline = 0 OR coalesce(v.gold_policy, '') <> 'curate')
 ORDER BY v.id DESC LIMIT 1;

-- name: curate_provenance_insert
INSERT INTO gold_provenance(version_id, path, how, policy, coder_id, decided_by, decision_id,
                            decided_at)
  VALUES (:version_id, :path, :how, :policy, :coder_id, :decided_by, :decision_id, :at);

-- name: curate_decision_in_force
-- The whole-field decision in force (as field_decision_latest), with who and when.
SELECT d.id, d.value, d.take_id, d.lead_id, d.created_at FROM field_decision d
 WHERE d.row_id = :row_id AND d.field = :field AND d.path IS NULL
   AND coalesce(d.how, '') <> 'undo'
   AND NOT EXISTS (SELECT 1 FROM field_decision u WHERE u.undoes = d.id)
 ORDER BY d.id DESC LIMIT 1;

-- name: curate_provenance_of
SELECT p.how, p.policy, c.name, b.name, p.decided_at FROM gold_provenance p
  LEFT JOIN annotator c ON c.id = p.coder_id
  LEFT JOIN annotator b ON b.id = p.decided_by
 WHERE p.version_id = :version_id AND p.path = :path;

-- name: curate_decisions_live
-- Lead decisions in force on the row (fields, items, parts): policy runs replay them over
-- their gold (rescue_curate_keep_decisions).
SELECT count(*) FROM field_decision d
 WHERE d.row_id = :row_id AND coalesce(d.how, '') <> 'undo'
   AND NOT EXISTS (SELECT 1 FROM field_decision u WHERE u.undoes = d.id);

-- name: curate_sample_of_row
SELECT s.sample_id FROM row r JOIN rowset rs ON rs.id = r.rowset_id
  JOIN sample s ON s.id = rs.sample_ref
 WHERE r.id = :row_id;

-- name: gold_baseline_of_row
-- The content of the row's latest gold version a policy wrote (not curation).
SELECT content FROM row_version
 WHERE row_id = :row_id AND kind = 'gold' AND coalesce(gold_policy, '') <> 'curate'
 ORDER BY id DESC LIMIT 1;

-- name: curate_row_comments
-- Everyone's comments on a row, in time order.
SELECT a.name, c.text, c.created_at FROM comment c
  LEFT JOIN annotator a ON a.id = c.annotator_id
 WHERE c.row_id = :row_id
 ORDER BY c.created_at, c.id;

-- name: curate_samples
SELECT s.sample_id FROM sample s WHERE s.status <> 'discarded' ORDER BY s.sort_key;

-- name: curate_queue_samples
-- The queue's samples, each with its base row set and whether its rows can be read flat
-- (rescue_curate_queue_json): nobody has a row set of their own and every row is still
-- where it was made, made from no other row (a draft imported again with --resegment makes
-- rows whose coders' versions are on the rows they came from), so each coder's view is
-- view_rows_annotator_flat verbatim.
SELECT s.id, s.sample_id, s.rowset_id,
       NOT EXISTS (SELECT 1 FROM annotator_rowset x WHERE x.sample_ref = s.id)
       AND NOT EXISTS (SELECT 1 FROM rowset_member m JOIN row w ON w.id = m.row_id
                        WHERE m.rowset_id = s.rowset_id
                          AND (w.rowset_id <> m.rowset_id OR w.position <> m.position))
       AND NOT EXISTS (SELECT 1 FROM rowset_member m JOIN row_origin o ON o.row_id = m.row_id
                        WHERE m.rowset_id = s.rowset_id)
  FROM sample s WHERE s.status <> 'discarded' ORDER BY s.sort_key;
-- ---------------------------------------------------------------------------------
-- lint waivers (annotate/lint.c)

-- name: lint_waiver_put
-- A new waiver, or new reason, author and time for the same rule, sample and row.
INSERT INTO lint_waiver(rule, sample_ref, row, reason, waived_by, created_at)
  VALUES (:rule, :sample_ref, :row, :reason, :by, :at)
  ON CONFLICT (rule, sample_ref, row) DO UPDATE
  SET reason = excluded.reason, waived_by = excluded.waived_by, created_at = excluded.created_at;

-- name: lint_waiver_delete
DELETE FROM lint_waiver WHERE rule = :rule AND sample_ref = :sample_ref AND row = :row;

-- name: lint_waivers
SELECT w.rule, s.sample_id, w.row, w.reason, w.waived_by, w.created_at
  FROM lint_waiver w JOIN sample s ON s.id = w.sample_ref
 ORDER BY s.sort_key, w.row, w.rule;

-- name: lint_waiver_history_put
INSERT INTO lint_waiver_history(rule, sample_ref, row, action, reason, by_name, at)
  VALUES (:rule, :sample_ref, :row, :action, :reason, :by, :at);

-- name: lint_waiver_current
SELECT reason, waived_by, created_at FROM lint_waiver
 WHERE rule = :rule AND sample_ref = :sample_ref AND row = :row;

-- name: lint_waiver_history
SELECT h.at, h.action, h.rule, s.sample_id, h.row, h.by_name, h.reason
  FROM lint_waiver_history h JOIN sample s ON s.id = h.sample_ref
 WHERE :sample_id IS NULL OR s.sample_id = :sample_id
 ORDER BY h.id;

-- name: lint_waiver_history_table
SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'lint_waiver_history';

-- name: lint_waiver_table
-- 1 when the corpus has the waiver table (a corpus opened read-only is not migrated).
SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'lint_waiver';
-- ---- export provenance (dataset card and manifest of a task export) ----

-- name: prov_gold_policy
SELECT gold_policy FROM row_version WHERE id = :id;

-- name: prov_annotator
SELECT name, role FROM annotator WHERE id = :id;

-- The lead whose decision on a row came last (rescue adjudicate --decide, the curation
-- page), if any; undo records and undone decisions do not count.
-- name: prov_gold_lead
SELECT lead_id FROM field_decision d
 WHERE d.row_id = :row_id AND coalesce(d.how, '') <> 'undo'
   AND NOT EXISTS (SELECT 1 FROM field_decision u WHERE u.undoes = d.id)
 ORDER BY d.id DESC LIMIT 1;

-- The versions a gold version was decided from: how many, how many distinct contents, and
-- the lead who wrote one of them (NULL: none).
-- name: prov_gold_sources
SELECT count(*), count(DISTINCT s.content),
       max(CASE WHEN a.role = 'lead' THEN s.annotator_id END)
  FROM row_version s JOIN annotator a ON a.id = s.annotator_id
 WHERE s.id IN (SELECT value FROM json_each((SELECT gold_sources FROM row_version
                                             WHERE id = :id)));

-- How a gold version was decided, from its values' provenance (rescue_gold_how_of): values
-- recorded; of the values that are not the segmentation's (times, speaker, text, row_index
-- come with the gold row set): those a lead decided, and the lead of the latest such
-- decision; those a policy chose, the policy, and the lead it names (policy lead).
-- name: gold_how_of
WITH p AS (SELECT * FROM gold_provenance
            WHERE version_id = :version_id AND coalesce(policy, '') <> 'segmentation'
              AND path NOT IN ('/start_time', '/end_time', '/primary_speaker',
                               '/dialogue_cleaned', '/row_index'))
SELECT (SELECT count(*) FROM gold_provenance WHERE version_id = :version_id),
       (SELECT count(*) FROM p WHERE how IN ('taken', 'edited')),
       (SELECT decided_by FROM p WHERE how IN ('taken', 'edited')
         ORDER BY decided_at DESC, decision_id DESC LIMIT 1),
       (SELECT count(*) FROM p WHERE how = 'policy'),
       (SELECT policy FROM p WHERE how = 'policy' LIMIT 1),
       (SELECT decided_by FROM p WHERE how = 'policy' AND decided_by IS NOT NULL LIMIT 1);

-- A gold row set (note 'gold') and whose row set it was chosen from (rescue_gold_segmenter).
-- name: gold_segmenter
SELECT note = 'gold', annotator_id FROM rowset WHERE id = :rowset_id;

-- name: prov_coder_count
SELECT count(DISTINCT v.annotator_id)
  FROM row_version v JOIN annotator a ON a.id = v.annotator_id
 WHERE v.kind <> 'gold' AND a.role <> 'model';

-- Who versioned rows of the sample of row set :rowset_id, in any of its row sets (a coder
-- who split or merged rows works in a row set of their own), and how many rows.
-- name: prov_sample_annotators
SELECT v.annotator_id, count(DISTINCT v.row_id)
  FROM row_version v
 WHERE v.kind <> 'gold'
   AND v.row_id IN (SELECT m.row_id FROM rowset_member m JOIN rowset rs ON rs.id = m.rowset_id
                     WHERE rs.sample_ref = (SELECT sample_ref FROM rowset WHERE id = :rowset_id))
 GROUP BY v.annotator_id;
-- ---- edits through the import path (rescue_import_edits) ----

-- The version an annotator sees of each row of a row set (the annotator view): their
-- latest, else the row's first version; the position the row was made at; the version's id.
-- name: rows_seen
SELECT r.id, r.position, v.content, (SELECT position FROM row WHERE id = r.id), v.id
  FROM row_in r
  LEFT JOIN row_version v ON v.id = coalesce(
          (SELECT max(id) FROM row_version
            WHERE row_id = r.id AND annotator_id = :annotator_id),
          (SELECT min(id) FROM row_version WHERE row_id = r.id))
 WHERE r.rowset_id = :rowset_id ORDER BY r.position;

-- The sample-level keys an annotator sees: their latest sample version, else the first.
-- name: sample_version_seen
SELECT head, tail, has_rows, given_keys FROM sample_version
 WHERE sample_ref = :sample_ref
 ORDER BY annotator_id = :annotator_id DESC,
          CASE WHEN annotator_id = :annotator_id THEN -id ELSE id END
 LIMIT 1;

-- name: sample_generation
-- The sample's generation (schema migration 13; 0 when it has no line) and its status.
SELECT coalesce(g.gen, 0), s.status
  FROM sample s LEFT JOIN sample_generation g ON g.sample_ref = s.id
 WHERE s.sample_id = :sample_id;
