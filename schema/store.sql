-- store.sql: the whole schema of a rescue corpus (one SQLite file per corpus).
--
-- The file is a list of ordered migrations. Each starts with a line
-- "-- @migration N"; a store whose PRAGMA user_version is below N runs that block in
-- one transaction and sets user_version = N. Never edit a migration that has shipped:
-- add a new one. PRAGMA application_id is 0x52455343 ("RESC").
--
-- CHECK constraints spell lists out with OR: `x IN (...)` makes SQLite build a
-- temporary index for every inserted row, which once cost a third of an import.
--
-- Original data (samples, annotator versions, media facts) is kept apart from what
-- can be rebuilt (indexes, the participant cache). Nothing in the original tables is
-- ever updated in place except the few "current pointer" columns marked as such;
-- every change to an annotation is a new version row.

-- @migration 1

CREATE TABLE meta(
  key   TEXT PRIMARY KEY,          -- setting name: 'scheme' (the annotation scheme XML),
                                   -- 'created_at' (UTC ISO-8601), 'created_by' (tool version)
  value TEXT NOT NULL              -- its value
);

CREATE TABLE annotator(
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE,  -- who: a person's short name, a model name, or 'import'
  role        TEXT NOT NULL DEFAULT 'annotator'
              CHECK (role = 'annotator' OR role = 'lead' OR role = 'model'),
  token_hash  TEXT,                  -- hex sha256 of the review sign-in token; NULL: none issued
  created_at  TEXT NOT NULL          -- UTC ISO-8601
);

CREATE TABLE grp(
  id    INTEGER PRIMARY KEY,
  name  TEXT NOT NULL UNIQUE       -- the couple or family: sample_id without its last path
                                   -- component ('alan_and_evelyn', 'family_therapy/003')
);

CREATE TABLE sample(
  id             INTEGER PRIMARY KEY,
  sample_id      TEXT NOT NULL UNIQUE,  -- release id, a safe relative path ('a/b_segment04')
  sort_key       BLOB NOT NULL,         -- sample_id with '/' as byte 0x01, so bytewise order
                                        -- is path-component order (corpus/FORMAT.md §6.2)
  group_id       INTEGER NOT NULL REFERENCES grp(id),
  rowset_id      INTEGER,               -- current pointer: the row set in use (rowset.id)
  status         TEXT NOT NULL DEFAULT 'new'
                 CHECK (status = 'new' OR status = 'in_review' OR status = 'reviewed' OR
                        status = 'discarded'),
                                        -- current pointer: latest sample_status.status
  status_reason  TEXT,                  -- current pointer: latest sample_status.reason
  created_at     TEXT NOT NULL          -- first import, UTC ISO-8601
);
CREATE INDEX sample_order ON sample(sort_key);
CREATE INDEX sample_by_group ON sample(group_id);

CREATE TABLE sample_status(
  id            INTEGER PRIMARY KEY,
  sample_ref    INTEGER NOT NULL REFERENCES sample(id),
  status        TEXT NOT NULL,          -- new | in_review | reviewed | discarded
  reason        TEXT,                   -- why (required for discarded)
  annotator_id  INTEGER REFERENCES annotator(id),  -- who changed it
  created_at    TEXT NOT NULL
);
CREATE INDEX sample_status_by_sample ON sample_status(sample_ref, id);

CREATE TABLE sample_version(
  id            INTEGER PRIMARY KEY,
  sample_ref    INTEGER NOT NULL REFERENCES sample(id),
  annotator_id  INTEGER NOT NULL REFERENCES annotator(id),
  created_at    TEXT NOT NULL,
  head          TEXT NOT NULL,   -- canonical JSON of the sample object up to and including
                                 -- '"rows": ' (the whole object when has_rows = 0)
  tail          TEXT NOT NULL,   -- canonical JSON after the rows array (usually '}')
  has_rows      INTEGER NOT NULL,  -- 1 when the object has a "rows" member
  given_keys    INTEGER NOT NULL   -- bit 1: sample_id given; 2: scenario; 4: participants
);
CREATE INDEX sample_version_by_sample ON sample_version(sample_ref, id);
CREATE INDEX sample_version_by_annotator ON sample_version(sample_ref, annotator_id, id);

CREATE TABLE rowset(
  id            INTEGER PRIMARY KEY,
  sample_ref    INTEGER NOT NULL REFERENCES sample(id),
  annotator_id  INTEGER NOT NULL REFERENCES annotator(id),  -- who segmented
  created_at    TEXT NOT NULL,
  n_rows        INTEGER NOT NULL,  -- number of rows; fixed for the life of the row set
  note          TEXT             -- why it was made ('import', 'resegment', 'subtitles')
);
CREATE INDEX rowset_by_sample ON rowset(sample_ref, id);

CREATE TABLE row(
  id         INTEGER PRIMARY KEY,
  rowset_id  INTEGER NOT NULL REFERENCES rowset(id),
  position   INTEGER NOT NULL,     -- 1-based position in the sample
  UNIQUE (rowset_id, position)
);

CREATE TABLE row_version(
  id                    INTEGER PRIMARY KEY,  -- increases with time: "latest" = largest id
  row_id                INTEGER NOT NULL REFERENCES row(id),
  annotator_id          INTEGER NOT NULL REFERENCES annotator(id),
  created_at            TEXT NOT NULL,
  kind                  TEXT NOT NULL CHECK (kind = 'import' OR kind = 'edit' OR kind = 'gold'),
                                      -- import: from a file; edit: saved in review;
                                      -- gold: written by adjudication
  content               TEXT NOT NULL,  -- canonical JSON of the row object, keys in input order
  start_time            REAL,           -- copy of content.start_time
  end_time              REAL,           -- copy of content.end_time
  speaker               TEXT,           -- cleaned primary_speaker (corpus/FORMAT.md §6.1)
  entities              TEXT,           -- cleaned speaker, target entries and support_strategy
                                        -- target entries in order, joined by 0x1F
                                        -- (scenario and participant derivation, FORMAT.md §6.3-6.4)
  utterance_type        TEXT,           -- cleaned utterance_type
  relation_cycle_state  TEXT,           -- cleaned relation_cycle_state (NULL: key absent)
  relation_pattern      TEXT,           -- cleaned relation_pattern (NULL: key absent)
  gold_policy           TEXT,           -- kind = gold: lead | majority | latest
  gold_sources          TEXT            -- kind = gold: JSON array of the row_version ids decided from
);

-- One index serves both "latest by anyone" (a row has few versions: sorting them is
-- cheap) and "this annotator's latest"; a second one on (row_id, id) cost 5% of imports.
CREATE INDEX row_version_by_annotator ON row_version(row_id, annotator_id, id);
CREATE INDEX row_version_gold ON row_version(row_id, id) WHERE kind = 'gold';

-- Media (filled by `rescue media add`, `rescue import` of subtitles and `rescue clip`).
-- A source row is one probe of one file: when the file on disk changes and is linked
-- again, a new source row records the new facts and the old one stays as history.

CREATE TABLE source(
  id           INTEGER PRIMARY KEY,
  root         TEXT NOT NULL DEFAULT '',  -- the media root `path` is relative to: '' the
                                      -- corpus folder, else a folder (relative to the corpus
                                      -- folder when under it, else absolute)
  path         TEXT NOT NULL,         -- relative to the media root when under it, else absolute
  size         INTEGER NOT NULL,      -- bytes
  mtime        INTEGER,               -- seconds since the epoch when probed
  fingerprint  TEXT NOT NULL,         -- hex sha256 over the size (8 bytes, little-endian),
                                      -- the first MiB and the last MiB of the file
  container    TEXT,                  -- libavformat's short name ('mov,mp4,m4a,3gp,3g2,mj2')
  duration     REAL,                  -- seconds
  start_time   REAL,                  -- container start time, seconds
  streams      TEXT,                  -- JSON array of {index, type, codec, width, height, fps,
                                      -- sample_rate, channels}
  probed_at    TEXT NOT NULL
);
CREATE INDEX source_by_path ON source(root, path, id);

CREATE TABLE segment(
  id          INTEGER PRIMARY KEY,
  sample_ref  INTEGER NOT NULL REFERENCES sample(id),
  source_id   INTEGER NOT NULL REFERENCES source(id),
  start       REAL,                  -- seconds into the source; NULL: whole file
  end         REAL,                  -- seconds into the source; NULL: whole file
  created_at  TEXT NOT NULL          -- the latest segment of a sample is its reference;
                                     -- earlier ones are its history
);
CREATE INDEX segment_by_sample ON segment(sample_ref, id);

CREATE TABLE clip(
  id             INTEGER PRIMARY KEY,
  sample_ref     INTEGER NOT NULL REFERENCES sample(id),
  position       INTEGER NOT NULL,   -- row position (1-based); 0: the sample's segment.mp4
  mode           TEXT NOT NULL,      -- copy | exact | audio
  segment_id     INTEGER REFERENCES segment(id),  -- the segment reference it was cut from
  path           TEXT NOT NULL,      -- where the clip was written, as given to `clip --out`
  req_start      REAL NOT NULL,      -- requested span in the source, seconds (padding included)
  req_end        REAL NOT NULL,
  act_start      REAL,               -- what the written file presents, seconds in the source
  act_end        REAL,
  frames         INTEGER,            -- video frames presented (copy: counted from the written
                                     -- packets inside the edit list; exact: encoded)
  audio_samples  INTEGER,            -- audio samples presented (per channel)
  bytes          INTEGER NOT NULL,   -- size of the written file
  sha256         TEXT NOT NULL,      -- hex digest of the written file
  created_at     TEXT NOT NULL       -- the latest record of (sample, position, mode) is current
);
CREATE INDEX clip_by_sample ON clip(sample_ref, position, mode, id);

CREATE TABLE cue(
  id          INTEGER PRIMARY KEY,
  sample_ref  INTEGER NOT NULL REFERENCES sample(id),
  import_id   INTEGER NOT NULL,      -- cues of one subtitle import share it; the latest wins
  seq         INTEGER NOT NULL,      -- cue number in time order (1-based)
  start       REAL NOT NULL,         -- seconds, relative to the sample clip
  end         REAL NOT NULL,
  speaker     TEXT NOT NULL,         -- from a 'Name:', '[Name]' or WebVTT '<v Name>' prefix;
                                     -- '' when none
  text        TEXT NOT NULL,         -- cue text without the prefix and markup, lines joined
                                     -- by one space
  file        TEXT,                  -- the subtitle file as given to import
  line        INTEGER                -- line of the cue's timing line in that file
);
CREATE INDEX cue_by_sample ON cue(sample_ref, import_id, seq);

-- Splits (filled by `rescue split`): each run is a new, recorded assignment.

CREATE TABLE split_run(
  id          INTEGER PRIMARY KEY,   -- the latest run is the one in use
  created_at  TEXT NOT NULL,
  seed        INTEGER NOT NULL,
  ratios      TEXT NOT NULL,         -- as given, e.g. '0.8,0.1,0.1'
  stratify    INTEGER NOT NULL       -- 1: by scenario
);

CREATE TABLE split_group(
  run_id    INTEGER NOT NULL REFERENCES split_run(id),
  group_id  INTEGER NOT NULL REFERENCES grp(id),
  split     TEXT NOT NULL CHECK (split = 'train' OR split = 'validation' OR split = 'test'),
  PRIMARY KEY (run_id, group_id)
);

-- Work assignment (filled by `rescue assign`).

CREATE TABLE assign_run(
  id          INTEGER PRIMARY KEY,   -- the latest run is the one in use
  created_at  TEXT NOT NULL,
  seed        INTEGER NOT NULL,
  overlap     REAL NOT NULL,         -- share of samples given to two annotators
  annotators  TEXT NOT NULL          -- as given, comma-separated
);

CREATE TABLE assignment(
  run_id        INTEGER NOT NULL REFERENCES assign_run(id),
  sample_ref    INTEGER NOT NULL REFERENCES sample(id),
  annotator_id  INTEGER NOT NULL REFERENCES annotator(id),
  PRIMARY KEY (run_id, sample_ref, annotator_id)
);
