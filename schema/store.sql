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

-- @migration 2
-- Double annotation: retiring annotators, comments, row lineage across row sets,
-- and a lead's per-field adjudication decisions.

ALTER TABLE annotator ADD COLUMN retired INTEGER NOT NULL DEFAULT 0;
                                     -- current pointer: 1 while retired (the latest
                                     -- annotator_retirement row says why)

CREATE TABLE annotator_retirement(
  id            INTEGER PRIMARY KEY,
  annotator_id  INTEGER NOT NULL REFERENCES annotator(id),
  retired       INTEGER NOT NULL,    -- 1: retired; 0: brought back
  reason        TEXT,                -- why
  created_at    TEXT NOT NULL
);
CREATE INDEX annotator_retirement_by_annotator ON annotator_retirement(annotator_id, id);

CREATE TABLE comment(
  id            INTEGER PRIMARY KEY,
  sample_ref    INTEGER NOT NULL REFERENCES sample(id),
  row_id        INTEGER REFERENCES row(id),  -- the row commented on; NULL: the whole sample
  position      INTEGER,             -- that row's 1-based position when the comment was made
  annotator_id  INTEGER REFERENCES annotator(id),  -- who wrote it; NULL: not given
  text          TEXT NOT NULL,
  created_at    TEXT NOT NULL
);
CREATE INDEX comment_by_sample ON comment(sample_ref, id);

-- Where the rows of a row set made by --resegment came from: one line per (new row,
-- old row of the previous row set). A new row without a line is new material.
CREATE TABLE row_origin(
  row_id     INTEGER NOT NULL REFERENCES row(id),   -- the new row
  part       INTEGER NOT NULL,       -- 1.. in time order of the old rows it came from
  parent_id  INTEGER NOT NULL REFERENCES row(id),   -- an old row
  relation   TEXT NOT NULL CHECK (relation = 'same' OR relation = 'split' OR
                                  relation = 'merged'),
                                     -- same: one old row, same span (within the overlap
                                     -- rule); split: part of one old row that became several;
                                     -- merged: one of several old rows that became this one
  PRIMARY KEY (row_id, part)
);
CREATE INDEX row_origin_by_parent ON row_origin(parent_id);

-- A lead's decision on one field of one row (rescue adjudicate --decide); the latest per
-- (row, field) is in use. Gold versions are written from them once a row is decided.
CREATE TABLE field_decision(
  id            INTEGER PRIMARY KEY,
  row_id        INTEGER NOT NULL REFERENCES row(id),
  field         TEXT NOT NULL,       -- top-level key of the row object
  value         TEXT,                -- the decided value as canonical JSON; NULL: the key is
                                     -- left out of the row
  take_id       INTEGER REFERENCES annotator(id),  -- set when the lead took a coder's value
  lead_id       INTEGER NOT NULL REFERENCES annotator(id),
  created_at    TEXT NOT NULL
);
CREATE INDEX field_decision_by_row ON field_decision(row_id, field, id);

-- @migration 3

-- Lint waivers (`rescue lint --waive`): a finding a lead has accepted, by rule, sample and
-- row. Waived findings are still reported, apart, and do not fail lint.

CREATE TABLE lint_waiver(
  id          INTEGER PRIMARY KEY,
  rule        INTEGER NOT NULL CHECK (rule >= 1),   -- the rule number (13 for R13)
  sample_ref  INTEGER NOT NULL REFERENCES sample(id),
  row         INTEGER NOT NULL CHECK (row >= 0),    -- 1-based row; 0: the sample as a whole
  reason      TEXT NOT NULL,                        -- why the finding is accepted
  waived_by   TEXT NOT NULL,                        -- who accepted it
  created_at  TEXT NOT NULL,                        -- when, UTC ISO-8601
  UNIQUE (rule, sample_ref, row)
);

-- @migration 5

-- Model pre-annotation (`rescue draft`): one record per request sent to a model command,
-- and which row versions each request wrote.
CREATE TABLE model_request(
  id             INTEGER PRIMARY KEY,
  annotator_id   INTEGER NOT NULL REFERENCES annotator(id),  -- the model (role model)
  sample_ref     INTEGER NOT NULL REFERENCES sample(id),
  row_from       INTEGER NOT NULL,     -- first row_index of the request (1-based)
  row_to         INTEGER NOT NULL,     -- last row_index of the request, inclusive
  command        TEXT NOT NULL,        -- the model command as given to --model-cmd
  prompt_sha256  TEXT NOT NULL,        -- hex SHA-256 of the first attempt's prompt
  attempts       INTEGER NOT NULL,     -- runs of the command (1 + retries used)
  wall_ms        INTEGER NOT NULL,     -- wall time of all attempts, milliseconds
  exit_status    INTEGER,              -- of the last run: exit code, 128+signal, -1 timed out
  outcome        TEXT NOT NULL,        -- ok | partial | failed
  error          TEXT,                 -- why it failed, when it did
  created_at     TEXT NOT NULL
);
CREATE INDEX model_request_by_sample ON model_request(sample_ref, id);

CREATE TABLE model_version(
  version_id  INTEGER PRIMARY KEY REFERENCES row_version(id),  -- a version the model wrote
  request_id  INTEGER NOT NULL REFERENCES model_request(id)    -- the request that wrote it
);

-- @migration 6

-- Sharing safely: the pseudonym map (`rescue pseudonyms`) and the audit trail (`rescue log`).
CREATE TABLE pseudonym(
  id          INTEGER PRIMARY KEY,   -- the latest entry of (group_id, real) is current;
                                     -- earlier ones are its history
  group_id    INTEGER NOT NULL REFERENCES grp(id),
  real        TEXT NOT NULL,         -- a participant's real name; '' for the group's own
                                     -- pseudonym
  pseudonym   TEXT NOT NULL,         -- what exports show instead
  how         TEXT NOT NULL CHECK (how = 'auto' OR how = 'set'),
  created_at  TEXT NOT NULL
);
CREATE INDEX pseudonym_by_real ON pseudonym(group_id, real, id);

CREATE TABLE audit(
  id             INTEGER PRIMARY KEY,
  created_at     TEXT NOT NULL,
  action         TEXT NOT NULL,        -- export | import | adjudicate | draft | pseudonyms
  os_user        TEXT NOT NULL,        -- the operating-system account that ran it
  annotator      TEXT,                 -- --annotator, when given
  command        TEXT NOT NULL,        -- the command line
  view           TEXT,                 -- the view exported, when one applies
  pseudonymised  INTEGER NOT NULL DEFAULT 0,  -- 1: an export with --pseudonymise
  output         TEXT,                 -- the output path, when there is one
  output_sha256  TEXT,                 -- hex SHA-256 of the output's manifest.json, or of
                                       -- the output file, or of the list of its files
  detail         TEXT                  -- one line: what was done
);

-- @migration 7

-- Row sets as lists of stable rows (issue 22). A row is an identity: its id never
-- changes and is never reused; row.rowset_id and row.position now say where it was first
-- made. rowset_member gives every row set's rows in their stored order (never re-sorted),
-- so a row stays the same row, with its versions, comments and decisions, in every row set
-- it belongs to. annotator_rowset says which row set an annotator works in (made by their
-- split, merge or `import --resegment --annotator`); an annotator without one works in the
-- sample's base row set (sample.rowset_id).
CREATE TABLE rowset_member(
  rowset_id  INTEGER NOT NULL REFERENCES rowset(id),
  position   INTEGER NOT NULL,       -- 1-based position in this row set
  row_id     INTEGER NOT NULL REFERENCES row(id),
  PRIMARY KEY (rowset_id, position)
) WITHOUT ROWID;
CREATE INDEX rowset_member_by_row ON rowset_member(row_id, rowset_id);

INSERT INTO rowset_member(rowset_id, position, row_id) SELECT rowset_id, position, id FROM row;

CREATE TABLE annotator_rowset(
  sample_ref    INTEGER NOT NULL REFERENCES sample(id),
  annotator_id  INTEGER NOT NULL REFERENCES annotator(id),
  rowset_id     INTEGER NOT NULL REFERENCES rowset(id),  -- current pointer: their row set
  PRIMARY KEY (sample_ref, annotator_id)
);

-- The rows of every row set as (row id, row set, position): what queries read.
CREATE VIEW row_in(id, rowset_id, position) AS
  SELECT row_id, rowset_id, position FROM rowset_member;

-- @migration 8

-- Clips follow rows: the row (row.id) a clip was cut for. NULL: recorded before this
-- column existed (a clip whose span still matches its position is taken as that row's).
ALTER TABLE clip ADD COLUMN row_id INTEGER REFERENCES row(id);

-- @migration 9

-- Curation (issue 23): a lead's decisions address one field, one item of a list field
-- (keyed by its person) or one part of an item, and can be undone; every value of a gold
-- version records who decided it, when and how. Gold versions written by curation have
-- gold_policy 'curate'.
ALTER TABLE field_decision ADD COLUMN path TEXT;    -- JSON pointer of the part decided
                                                    -- ("/internal_emotion/Alan/intensity");
                                                    -- NULL: the whole field
ALTER TABLE field_decision ADD COLUMN how TEXT;     -- take | value | undo; NULL (before this
                                                    -- migration): take when take_id is set
ALTER TABLE field_decision ADD COLUMN undoes INTEGER REFERENCES field_decision(id);
                                                    -- how = undo: the decision it takes back

CREATE TABLE gold_provenance(
  version_id   INTEGER NOT NULL REFERENCES row_version(id),  -- a gold version
  path         TEXT NOT NULL,      -- JSON pointer of the value ("/target", "/internal_emotion/Alan")
  how          TEXT NOT NULL CHECK (how = 'agreed' OR how = 'policy' OR how = 'taken' OR
                                    how = 'edited'),
                                   -- agreed: every coder had it; policy: a policy chose it;
                                   -- taken: the lead took a coder's value; edited: the lead
                                   -- gave the value
  policy       TEXT,               -- how = policy: the policy's name
  coder_id     INTEGER REFERENCES annotator(id),  -- how = taken: whose value
  decided_by   INTEGER REFERENCES annotator(id),  -- the lead (taken, edited)
  decision_id  INTEGER REFERENCES field_decision(id),
  decided_at   TEXT NOT NULL,
  PRIMARY KEY (version_id, path)
) WITHOUT ROWID;

-- @migration 10

-- Waiver history (`rescue lint --waive`, `--unwaive`): every waiver given, replaced or
-- removed, by whom and when, kept after lint_waiver forgets it.
CREATE TABLE lint_waiver_history(
  id          INTEGER PRIMARY KEY,
  rule        INTEGER NOT NULL,
  sample_ref  INTEGER NOT NULL REFERENCES sample(id),
  row         INTEGER NOT NULL,
  action      TEXT NOT NULL CHECK (action IN ('waive', 'unwaive')),
  reason      TEXT,                                 -- why (NULL for an unwaive)
  by_name     TEXT NOT NULL,                        -- who
  at          TEXT NOT NULL                         -- when, UTC ISO-8601
);

-- @migration 11

-- References follow rows (issue 22): the rows a version's row-number lists (the scheme's
-- `ints` fields, relation_pattern_evidence_rows and relation_cycle_evidence_rows) point at,
-- as stable row ids. The content keeps the numbers verbatim (the release round-trips byte
-- for byte); one line per number that named a row of the row set the version was written
-- in. A number that named no row (0, or past the end) has no line and stays verbatim in
-- every view. Readers write the numbers as positions of the row set shown (corpus/FORMAT.md
-- §4.1).
CREATE TABLE row_ref(
  version_id  INTEGER NOT NULL REFERENCES row_version(id),
  field       TEXT NOT NULL,          -- the ints field's key
  ord         INTEGER NOT NULL,       -- 0-based index in the field's list
  row_id      INTEGER NOT NULL REFERENCES row(id),  -- the row that number named
  PRIMARY KEY (version_id, field, ord)
) WITHOUT ROWID;

-- Existing versions: a number names the row at that position of the row set its writer
-- worked in when that set holds the row (their own, else the sample's base one), else of
-- the row set the row was made in (the rule rescue_store_add_row_version applies).
INSERT INTO row_ref(version_id, field, ord, row_id)
  SELECT v.id, f.key, e.key, m.row_id
    FROM row_version v
    JOIN row w ON w.id = v.row_id
    JOIN rowset rs ON rs.id = w.rowset_id
    JOIN sample s ON s.id = rs.sample_ref
    JOIN json_each(v.content) f
    JOIN json_each(f.value) e
    JOIN rowset_member m
      ON m.position = e.value AND m.rowset_id = coalesce(
         (SELECT x.rowset_id FROM rowset_member x
           WHERE x.row_id = w.id AND x.rowset_id = coalesce(
             (SELECT ar.rowset_id FROM annotator_rowset ar
               WHERE ar.sample_ref = s.id AND ar.annotator_id = v.annotator_id), s.rowset_id)),
         w.rowset_id)
   WHERE json_valid(v.content) AND f.type = 'array' AND e.type = 'integer'
     AND (f.key IN ('relation_pattern_evidence_rows', 'relation_cycle_evidence_rows')
          OR instr(coalesce((SELECT value FROM meta WHERE key = 'scheme'), ''),
                   'key="' || f.key || '" type="ints"') > 0);

-- @migration 12

-- Undo reopens a row (issue 23): when the undo of a lead's decision leaves a value of a
-- row undecided, the gold versions curation wrote since the row's last policy gold no
-- longer match the decisions; they leave row_version (so the row shows the policy's gold,
-- or none) and are kept here with the undo that retired them.
CREATE TABLE gold_retired(
  id            INTEGER PRIMARY KEY,
  version_id    INTEGER NOT NULL,   -- the row_version id it had (ids may be given again)
  row_id        INTEGER NOT NULL REFERENCES row(id),
  annotator_id  INTEGER NOT NULL REFERENCES annotator(id),
  created_at    TEXT NOT NULL,
  content       TEXT NOT NULL,
  gold_policy   TEXT,
  gold_sources  TEXT,
  retired_at    TEXT NOT NULL,
  undo_id       INTEGER REFERENCES field_decision(id)  -- the undo record that retired it
);
CREATE INDEX gold_retired_by_row ON gold_retired(row_id, id);

-- @migration 13

-- A generation number per sample (issue 25): every write that can change how a view shows
-- the sample (its rows, versions, row sets, references' rows, status, head, cues, comments,
-- waivers) adds one to it in the writing transaction, whichever program writes (the
-- server, the command line). A reader that read the number before loading the sample knows
-- its copy is current while the number stays the same (tools/serve/serve_cache.c). A
-- sample without a line has generation 0.
CREATE TABLE sample_generation(
  sample_ref  INTEGER PRIMARY KEY REFERENCES sample(id),
  gen         INTEGER NOT NULL
);

CREATE TRIGGER gen_row_version_ins AFTER INSERT ON row_version BEGIN
  INSERT INTO sample_generation(sample_ref, gen)
    SELECT rs.sample_ref, 1 FROM row w JOIN rowset rs ON rs.id = w.rowset_id WHERE w.id = NEW.row_id
    ON CONFLICT(sample_ref) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER gen_row_version_upd AFTER UPDATE ON row_version BEGIN
  INSERT INTO sample_generation(sample_ref, gen)
    SELECT rs.sample_ref, 1 FROM row w JOIN rowset rs ON rs.id = w.rowset_id WHERE w.id = NEW.row_id
    ON CONFLICT(sample_ref) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER gen_row_version_del AFTER DELETE ON row_version BEGIN
  INSERT INTO sample_generation(sample_ref, gen)
    SELECT rs.sample_ref, 1 FROM row w JOIN rowset rs ON rs.id = w.rowset_id WHERE w.id = OLD.row_id
    ON CONFLICT(sample_ref) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER gen_rowset_ins AFTER INSERT ON rowset BEGIN
  INSERT INTO sample_generation(sample_ref, gen) VALUES (NEW.sample_ref, 1)
    ON CONFLICT(sample_ref) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER gen_rowset_member_ins AFTER INSERT ON rowset_member BEGIN
  INSERT INTO sample_generation(sample_ref, gen)
    SELECT rs.sample_ref, 1 FROM rowset rs WHERE rs.id = NEW.rowset_id
    ON CONFLICT(sample_ref) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER gen_rowset_member_del AFTER DELETE ON rowset_member BEGIN
  INSERT INTO sample_generation(sample_ref, gen)
    SELECT rs.sample_ref, 1 FROM rowset rs WHERE rs.id = OLD.rowset_id
    ON CONFLICT(sample_ref) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER gen_annotator_rowset_ins AFTER INSERT ON annotator_rowset BEGIN
  INSERT INTO sample_generation(sample_ref, gen) VALUES (NEW.sample_ref, 1)
    ON CONFLICT(sample_ref) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER gen_annotator_rowset_upd AFTER UPDATE ON annotator_rowset BEGIN
  INSERT INTO sample_generation(sample_ref, gen) VALUES (NEW.sample_ref, 1)
    ON CONFLICT(sample_ref) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER gen_annotator_rowset_del AFTER DELETE ON annotator_rowset BEGIN
  INSERT INTO sample_generation(sample_ref, gen) VALUES (OLD.sample_ref, 1)
    ON CONFLICT(sample_ref) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER gen_sample_upd AFTER UPDATE ON sample BEGIN
  INSERT INTO sample_generation(sample_ref, gen) VALUES (NEW.id, 1)
    ON CONFLICT(sample_ref) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER gen_sample_version_ins AFTER INSERT ON sample_version BEGIN
  INSERT INTO sample_generation(sample_ref, gen) VALUES (NEW.sample_ref, 1)
    ON CONFLICT(sample_ref) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER gen_cue_ins AFTER INSERT ON cue BEGIN
  INSERT INTO sample_generation(sample_ref, gen) VALUES (NEW.sample_ref, 1)
    ON CONFLICT(sample_ref) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER gen_cue_del AFTER DELETE ON cue BEGIN
  INSERT INTO sample_generation(sample_ref, gen) VALUES (OLD.sample_ref, 1)
    ON CONFLICT(sample_ref) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER gen_row_ref_ins AFTER INSERT ON row_ref BEGIN
  INSERT INTO sample_generation(sample_ref, gen)
    SELECT rs.sample_ref, 1 FROM row_version v JOIN row w ON w.id = v.row_id
      JOIN rowset rs ON rs.id = w.rowset_id WHERE v.id = NEW.version_id
    ON CONFLICT(sample_ref) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER gen_comment_ins AFTER INSERT ON comment BEGIN
  INSERT INTO sample_generation(sample_ref, gen) VALUES (NEW.sample_ref, 1)
    ON CONFLICT(sample_ref) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER gen_lint_waiver_ins AFTER INSERT ON lint_waiver BEGIN
  INSERT INTO sample_generation(sample_ref, gen) VALUES (NEW.sample_ref, 1)
    ON CONFLICT(sample_ref) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER gen_lint_waiver_del AFTER DELETE ON lint_waiver BEGIN
  INSERT INTO sample_generation(sample_ref, gen) VALUES (OLD.sample_ref, 1)
    ON CONFLICT(sample_ref) DO UPDATE SET gen = gen + 1;
END;
-- Retiring or bringing back an annotator changes what views show of every sample they
-- wrote in (rare: every sample's generation moves).
CREATE TRIGGER gen_retirement_ins AFTER INSERT ON annotator_retirement BEGIN
  INSERT INTO sample_generation(sample_ref, gen) SELECT id, 1 FROM sample WHERE true
    ON CONFLICT(sample_ref) DO UPDATE SET gen = gen + 1;
END;

-- @migration 14

-- A reference line is only ever written by rescue_store_add_row_version, in the same
-- transaction right after the insert of its row_version, whose trigger gen_row_version_ins
-- already moved the sample's generation; the trigger per reference line only made each
-- reference of a saved row cost one more write of the same number (issue 25).
DROP TRIGGER gen_row_ref_ins;

-- @migration 15

-- A generation number for who may do what (issue 25): every write to the annotators (names,
-- roles, tokens, retirement), the assignment runs and assignments, or to which samples exist
-- adds one to it in the writing transaction, whichever program writes. The review server
-- keeps what it learned about a caller (who a token belongs to, whether a sample is theirs)
-- while the number read in the request's own snapshot stays the same
-- (tools/serve/serve_access.c). A sample's status and rows do not move it.
CREATE TABLE access_generation(
  id   INTEGER PRIMARY KEY CHECK (id = 1),
  gen  INTEGER NOT NULL
);
INSERT INTO access_generation(id, gen) VALUES (1, 0);

CREATE TRIGGER access_annotator_ins AFTER INSERT ON annotator BEGIN
  UPDATE access_generation SET gen = gen + 1;
END;
CREATE TRIGGER access_annotator_upd AFTER UPDATE ON annotator BEGIN
  UPDATE access_generation SET gen = gen + 1;
END;
CREATE TRIGGER access_annotator_del AFTER DELETE ON annotator BEGIN
  UPDATE access_generation SET gen = gen + 1;
END;
CREATE TRIGGER access_retirement_ins AFTER INSERT ON annotator_retirement BEGIN
  UPDATE access_generation SET gen = gen + 1;
END;
CREATE TRIGGER access_assign_run_ins AFTER INSERT ON assign_run BEGIN
  UPDATE access_generation SET gen = gen + 1;
END;
CREATE TRIGGER access_assign_run_del AFTER DELETE ON assign_run BEGIN
  UPDATE access_generation SET gen = gen + 1;
END;
CREATE TRIGGER access_assignment_ins AFTER INSERT ON assignment BEGIN
  UPDATE access_generation SET gen = gen + 1;
END;
CREATE TRIGGER access_assignment_upd AFTER UPDATE ON assignment BEGIN
  UPDATE access_generation SET gen = gen + 1;
END;
CREATE TRIGGER access_assignment_del AFTER DELETE ON assignment BEGIN
  UPDATE access_generation SET gen = gen + 1;
END;
CREATE TRIGGER access_sample_ins AFTER INSERT ON sample BEGIN
  UPDATE access_generation SET gen = gen + 1;
END;
CREATE TRIGGER access_sample_del AFTER DELETE ON sample BEGIN
  UPDATE access_generation SET gen = gen + 1;
END;
CREATE TRIGGER access_sample_id_upd AFTER UPDATE OF sample_id ON sample BEGIN
  UPDATE access_generation SET gen = gen + 1;
END;
