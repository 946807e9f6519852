-- A corpus written by rescue before migration 7 (issue 22: row sets as lists of stable
-- rows), for check_rowsets' upgrade test: the demo couple sample imported as the draft,
-- ann's edit of row 3, bob's import --resegment splitting row 2, ann's comment on row 4.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE meta(
  key   TEXT PRIMARY KEY,          -- setting name: 'scheme' (the annotation scheme XML),
                                   -- 'created_at' (UTC ISO-8601), 'created_by' (tool version)
  value TEXT NOT NULL              -- its value
);
INSERT INTO meta VALUES('scheme',replace('<?xml version="1.0" encoding="UTF-8"?>\n<!--\n  rescue.xml: the RESCUE annotation scheme as data (corpus/FORMAT.md §3, annotate/LINT.md, export/TASKS.md §2).\n  Lint, agreement levels, the review form, ELAN vocabularies and the task candidate lists\n  are driven from here. Validated at load against rescue.rng.\n\n  Field types: number (a JSON number, optional min/max), int, text (free string),\n  entity (one entity of the sample''s set), entities (a list of entities), label (one\n  label of a labelset, or empty), ints (a list of row numbers), list (a list of objects\n  whose members are the nested fields). `level` is the measurement level agreement uses.\n-->\n<scheme xmlns="urn:rescue:scheme:1" name="rescue" version="1">\n  <entities>\n    <reserved name="Therapist" role="practitioner"/>\n    <group scenario="couple" label="Couple"/>\n    <group scenario="family" label="Family"/>\n  </entities>\n\n  <labelset name="utterance_type">\n    <label name="accusation">blames or criticises another member</label>\n    <label name="defense">justifies oneself or counters a criticism</label>\n    <label name="disclosure">reveals one''s own feelings, needs or experience</label>\n    <label name="request">asks another member for something</label>\n    <label name="recollection">recounts a past event</label>\n    <label name="reflection">thinks aloud about oneself or the relationship</label>\n    <label name="repair">apologises, softens or reconnects</label>\n    <label name="withdrawal">shuts down, avoids or disengages</label>\n    <label name="validation">acknowledges another member''s view or feeling</label>\n    <label name="other">none of the above</label>\n  </labelset>\n\n  <labelset name="relation_pattern" scenario="couple">\n    <label name="pursue_withdraw">one partner presses, demands or seeks engagement; the other avoids, shuts down, minimises or disengages</label>\n    <label name="attack_attack">both partners blame, criticise, defend or counter-attack; mutual escalation</label>\n    <label name="withdraw_withdraw">both avoid emotional engagement, low responsiveness, mutual disengagement; nobody pursues</label>\n    <label name="repair_softening">defensiveness drops; vulnerability, apology, validation, openness or reconnection are emerging (still fragile)</label>\n    <label name="constructive_alignment">a more stable shared understanding, cooperation or joint problem solving</label>\n    <label name="mixed_transition">two strong patterns are salient at once, or there is a visible pivot between patterns</label>\n  </labelset>\n\n  <labelset name="relation_pattern" scenario="family">\n    <label name="escalation_conflict">two or more members in overt conflict, blame or escalating exchange</label>\n    <label name="pursue_withdraw">one member pursues while another avoids or disengages</label>\n    <label name="mutual_disengagement">key members collectively withdraw, stay silent or avoid the issue</label>\n    <label name="cross_generational_coalition">an alliance across generations around or against another member (triangulation)</label>\n    <label name="boundary_hierarchy_strain">unclear boundaries, unstable hierarchy, role reversal, parentification, subsystem tension</label>\n    <label name="repair_softening">blame or rigidity decreases; vulnerability, validation, apology or reconnection are emerging</label>\n    <label name="cooperative_family_alliance">several members hold a coordinated, constructive, shared stance</label>\n    <label name="mixed_transition">several family dynamics salient at once, or a clear shift between patterns</label>\n  </labelset>\n\n  <labelset name="support_strategy" scenario="couple">\n    <label name="counterbalance">bring a sidelined or less-heard partner back; restore symmetry and voice</label>\n    <label name="safeguard">protect a vulnerable partner from being overrun, shamed, cornered or flooded</label>\n    <label name="goal_align">re-orient toward a shared task, purpose or therapeutic goal</label>\n    <label name="track">follow or name the live sequence or negative cycle (only if nothing more specific fits)</label>\n    <label name="reframe">turn blame or a rigid story into a relational or shared-pattern frame</label>\n    <label name="evoke">deepen access to hurt, fear, longing, shame or need</label>\n    <label name="enact">have one partner speak directly to the other in the room</label>\n    <label name="join">foster softer empathic contact between partners</label>\n    <label name="detach">help both step back and view the problem as a shared pattern</label>\n    <label name="repair">soften rupture, clarify intent, apologise, reconnect</label>\n  </labelset>\n\n  <labelset name="support_strategy" scenario="family">\n    <label name="safeguard">protect a member who is overrun, shamed, threatened, scapegoated or overwhelmed</label>\n    <label name="join">build trust and working alliance; reduce defensiveness so the family stays engaged</label>\n    <label name="track">name or follow the live family pattern, escalation, coalition or cycle</label>\n    <label name="counterbalance">rebalance voice or influence toward a less-heard or lower-power member</label>\n    <label name="enact">move members into direct in-room interaction</label>\n    <label name="boundary">clarify or restructure boundaries, roles, hierarchy, coalitions, subsystems</label>\n    <label name="reframe">shift from individual blame to a systemic or shared family frame</label>\n    <label name="repair">apology, acknowledgement of hurt, reconnection after rupture</label>\n  </labelset>\n\n  <fields>\n    <field key="start_time" type="number" min="0" unit="s" required="true" level="interval">row start, seconds from the start of the sample clip</field>\n    <field key="end_time" type="number" min="0" unit="s" required="true" level="interval">row end, seconds</field>\n    <field key="primary_speaker" type="entity" required="true" level="nominal">who speaks</field>\n    <field key="target" type="entities" required="true" level="masi">addressee(s); never the speaker</field>\n    <field key="dialogue_cleaned" type="text" required="true">foreground utterance, faithful to the subtitle</field>\n    <field key="utterance_type" type="label" labels="utterance_type" required="true" rows="client" level="nominal">main function of a client row; empty on therapist rows</field>\n    <field key="background_dialogue" type="list" required="true">overlapping or secondary speech\n      <field key="speaker" type="entity" required="true">who speaks in the background</field>\n      <field key="target" type="entities" required="true">addressee(s)</field>\n      <field key="content" type="text" required="true">what is said</field>\n    </field>\n    <field key="tone_of_voice" type="text" required="true">audible delivery</field>\n    <field key="body_posture" type="list" required="true">posture and orientation\n      <field key="person" type="entity" required="true">whose posture</field>\n      <field key="description" type="text" required="true">what is seen</field>\n    </field>\n    <field key="facial_expressions" type="list" required="true">visible facial evidence\n      <field key="person" type="entity" required="true">whose face</field>\n      <field key="description" type="text" required="true">what is seen</field>\n    </field>\n    <field key="self_directed_behavior" type="list" required="true">sighing, fidgeting, looking away\n      <field key="person" type="entity" required="true">who</field>\n      <field key="description" type="text" required="true">what is seen</field>\n    </field>\n    <field key="interaction_behavior" type="list" required="true">observable behaviour toward others\n      <field key="initiator" type="entity" required="true">who acts</field>\n      <field key="target" type="entities" required="true">toward whom; never the initiator</field>\n      <field key="description" type="text" required="true">what is seen</field>\n    </field>\n    <field key="internal_emotion" type="list" required="true">inferred emotion\n      <field key="person" type="entity" required="true">whose emotion</field>\n      <field key="emotion_description" type="text" required="true">the emotion in words</field>\n      <field key="intensity" type="number" min="0" max="10" required="true" level="interval">0 (none) to 10 (overwhelming)</field>\n    </field>\n    <field key="viewpoints_attitudes" type="list" required="true">directed stance\n      <field key="source" type="entity" required="true">who holds the view</field>\n      <field key="target" type="entity" required="true">about whom (one entity)</field>\n      <field key="viewpoint" type="text" required="true">the view</field>\n      <field key="attitude" type="text" required="true">the attitude</field>\n    </field>\n    <field key="support_strategy" type="list" required="true" rows="therapist">therapist moves\n      <field key="provider" type="entity" required="true">always Therapist</field>\n      <field key="target" type="entities" required="true">who is supported; never Therapist</field>\n      <field key="strategy_type" type="label" labels="support_strategy" required="true" level="nominal">the move</field>\n      <field key="strategy_content" type="text" required="true">what the therapist does</field>\n    </field>\n    <field key="relation_cycle_state" type="label" labels="relation_pattern" level="nominal">the dominant relation pattern (therapist rows)</field>\n    <field key="relation_cycle_reason" type="text">why</field>\n    <field key="relation_cycle_evidence_rows" type="ints">rows that show it</field>\n    <field key="row_index" type="int" min="1">1-based position of the row</field>\n    <field key="relation_pattern" type="label" labels="relation_pattern" level="nominal">the group''s relation pattern at this row</field>\n    <field key="relation_pattern_reason" type="text">why</field>\n    <field key="relation_pattern_evidence_rows" type="ints">rows that show it</field>\n  </fields>\n</scheme>\n','\n',char(10)));
INSERT INTO meta VALUES('created_at','2026-12-01T20:15:22.869Z');
INSERT INTO meta VALUES('created_by','rescue 0.1.0');
CREATE TABLE annotator(
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE,  -- who: a person's short name, a model name, or 'import'
  role        TEXT NOT NULL DEFAULT 'annotator'
              CHECK (role = 'annotator' OR role = 'lead' OR role = 'model'),
  token_hash  TEXT,                  -- hex sha256 of the review sign-in token; NULL: none issued
  created_at  TEXT NOT NULL          -- UTC ISO-8601
, retired INTEGER NOT NULL DEFAULT 0);
INSERT INTO annotator VALUES(1,'import','annotator',NULL,'2026-12-01T20:15:23.859Z',0);
INSERT INTO annotator VALUES(2,'ann','annotator','25178aa9dee06383b00adf64ad384ffc5967fb679409ba9ab1341a02d2a3b836','2026-12-01T20:15:24.818Z',0);
INSERT INTO annotator VALUES(3,'bob','annotator','a15904c8f35828936f77e8b88f562599a019b4b2293ead97fb8943447ef68487','2026-12-01T20:15:25.598Z',0);
CREATE TABLE grp(
  id    INTEGER PRIMARY KEY,
  name  TEXT NOT NULL UNIQUE       -- the couple or family: sample_id without its last path
                                   -- component ('alan_and_evelyn', 'family_therapy/003')
);
INSERT INTO grp VALUES(1,'maya_and_daniel');
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
INSERT INTO sample VALUES(1,'maya_and_daniel/001_s01e01_segment01',X'6d6179615f616e645f64616e69656c013030315f7330316530315f7365676d656e743031',1,2,'new',NULL,'2026-12-01T20:15:23.860Z');
CREATE TABLE sample_status(
  id            INTEGER PRIMARY KEY,
  sample_ref    INTEGER NOT NULL REFERENCES sample(id),
  status        TEXT NOT NULL,          -- new | in_review | reviewed | discarded
  reason        TEXT,                   -- why (required for discarded)
  annotator_id  INTEGER REFERENCES annotator(id),  -- who changed it
  created_at    TEXT NOT NULL
);
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
INSERT INTO sample_version VALUES(1,1,1,'2026-12-01T20:15:23.860Z','{"sample_id": "maya_and_daniel/001_s01e01_segment01", "scenario": "couple", "participants": ["Maya", "Daniel"], "source_file": "demo/maya_and_daniel/001_s01e01_segment01.json", "rows": ','}',1,7);
INSERT INTO sample_version VALUES(2,1,2,'2026-12-01T20:15:29.495Z','{"sample_id": "maya_and_daniel/001_s01e01_segment01", "scenario": "couple", "participants": ["Maya", "Daniel"], "source_file": "demo/maya_and_daniel/001_s01e01_segment01.json", "rows": ','}',1,7);
INSERT INTO sample_version VALUES(3,1,3,'2026-12-01T20:15:30.460Z','{"sample_id": "maya_and_daniel/001_s01e01_segment01", "scenario": "couple", "participants": ["Maya", "Daniel"], "source_file": "demo/maya_and_daniel/001_s01e01_segment01.json", "rows": ','}',1,7);
CREATE TABLE rowset(
  id            INTEGER PRIMARY KEY,
  sample_ref    INTEGER NOT NULL REFERENCES sample(id),
  annotator_id  INTEGER NOT NULL REFERENCES annotator(id),  -- who segmented
  created_at    TEXT NOT NULL,
  n_rows        INTEGER NOT NULL,  -- number of rows; fixed for the life of the row set
  note          TEXT             -- why it was made ('import', 'resegment', 'subtitles')
);
INSERT INTO rowset VALUES(1,1,1,'2026-12-01T20:15:23.860Z',9,'import');
INSERT INTO rowset VALUES(2,1,3,'2026-12-01T20:15:30.460Z',10,'resegment');
CREATE TABLE row(
  id         INTEGER PRIMARY KEY,
  rowset_id  INTEGER NOT NULL REFERENCES rowset(id),
  position   INTEGER NOT NULL,     -- 1-based position in the sample
  UNIQUE (rowset_id, position)
);
INSERT INTO "row" VALUES(1,1,1);
INSERT INTO "row" VALUES(2,1,2);
INSERT INTO "row" VALUES(3,1,3);
INSERT INTO "row" VALUES(4,1,4);
INSERT INTO "row" VALUES(5,1,5);
INSERT INTO "row" VALUES(6,1,6);
INSERT INTO "row" VALUES(7,1,7);
INSERT INTO "row" VALUES(8,1,8);
INSERT INTO "row" VALUES(9,1,9);
INSERT INTO "row" VALUES(10,2,1);
INSERT INTO "row" VALUES(11,2,2);
INSERT INTO "row" VALUES(12,2,3);
INSERT INTO "row" VALUES(13,2,4);
INSERT INTO "row" VALUES(14,2,5);
INSERT INTO "row" VALUES(15,2,6);
INSERT INTO "row" VALUES(16,2,7);
INSERT INTO "row" VALUES(17,2,8);
INSERT INTO "row" VALUES(18,2,9);
INSERT INTO "row" VALUES(19,2,10);
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
INSERT INTO row_version VALUES(1,1,1,'2026-12-01T20:15:23.860Z','import','{"start_time": 0.0, "end_time": 5.4, "primary_speaker": "Maya", "target": ["Therapist"], "dialogue_cleaned": "Every time I bring up the budget he just goes quiet.", "utterance_type": "accusation", "background_dialogue": [], "tone_of_voice": "tight, frustrated", "body_posture": [{"person": "Maya", "description": "turned toward the therapist, arms crossed"}], "facial_expressions": [{"person": "Maya", "description": "jaw set, eyes narrowed"}], "self_directed_behavior": [], "interaction_behavior": [], "internal_emotion": [{"person": "Maya", "emotion_description": "feels shut out when money comes up", "intensity": 6}], "viewpoints_attitudes": [{"source": "Maya", "target": "Daniel", "viewpoint": "he avoids every hard conversation", "attitude": "frustrated"}], "support_strategy": [], "row_index": 1, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',0.0,5.4000000000000003552,'Maya','MayaTherapist','accusation',NULL,'',NULL,NULL);
INSERT INTO row_version VALUES(2,2,1,'2026-12-01T20:15:23.860Z','import','{"start_time": 5.4, "end_time": 9.86, "primary_speaker": "Daniel", "target": ["Maya"], "dialogue_cleaned": "I go quiet because it always turns into a fight.", "utterance_type": "defense", "background_dialogue": [], "tone_of_voice": "low, guarded", "body_posture": [{"person": "Daniel", "description": "leaning back, looking at the floor"}], "facial_expressions": [{"person": "Daniel", "description": "brow furrowed"}], "self_directed_behavior": [{"person": "Daniel", "description": "rubs the back of his neck"}], "interaction_behavior": [], "internal_emotion": [{"person": "Daniel", "emotion_description": "feels cornered and tired", "intensity": 5}], "viewpoints_attitudes": [{"source": "Daniel", "target": "Maya", "viewpoint": "she starts arguments about money", "attitude": "wary"}], "support_strategy": [], "row_index": 2, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',5.4000000000000003552,9.8599999999999994315,'Daniel','DanielMaya','defense',NULL,'',NULL,NULL);
INSERT INTO row_version VALUES(3,3,1,'2026-12-01T20:15:23.860Z','import','{"start_time": 9.86, "end_time": 14.2, "primary_speaker": "Maya", "target": ["Daniel"], "dialogue_cleaned": "It turns into a fight because you won''t answer me!", "utterance_type": "accusation", "background_dialogue": [], "tone_of_voice": "raised, sharp", "body_posture": [{"person": "Maya", "description": "leaning toward Daniel"}], "facial_expressions": [{"person": "Maya", "description": "eyes wide"}], "self_directed_behavior": [], "interaction_behavior": [{"initiator": "Maya", "target": ["Daniel"], "description": "points at him while speaking"}], "internal_emotion": [{"person": "Maya", "emotion_description": "feels unheard and angry", "intensity": 8}], "viewpoints_attitudes": [{"source": "Maya", "target": "Daniel", "viewpoint": "he refuses to engage", "attitude": "angry"}], "support_strategy": [], "row_index": 3, "relation_pattern": "pursue_withdraw", "relation_pattern_reason": "Maya presses for an answer while Daniel retreats.", "relation_pattern_evidence_rows": [1, 2, 3]}',9.8599999999999994315,14.199999999999999289,'Maya','MayaDaniel','accusation',NULL,'pursue_withdraw',NULL,NULL);
INSERT INTO row_version VALUES(4,4,1,'2026-12-01T20:15:23.860Z','import','{"start_time": 14.2, "end_time": 21.05, "primary_speaker": "Therapist", "target": ["Couple"], "dialogue_cleaned": "Can we slow down for a second? Maya, you reach for him, and Daniel, you pull back. Does that sound familiar?", "utterance_type": "", "background_dialogue": [], "tone_of_voice": "calm, steady", "body_posture": [{"person": "Therapist", "description": "leaning forward, open hands"}], "facial_expressions": [{"person": "Therapist", "description": "attentive"}], "self_directed_behavior": [], "interaction_behavior": [{"initiator": "Therapist", "target": ["Maya", "Daniel"], "description": "looks from one partner to the other"}], "internal_emotion": [], "viewpoints_attitudes": [], "support_strategy": [{"provider": "Therapist", "target": ["Couple"], "strategy_type": "track", "strategy_content": "names the pursue-withdraw cycle as it happens"}], "relation_cycle_state": "pursue_withdraw", "row_index": 4, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',14.199999999999999289,21.050000000000000711,'Therapist','TherapistCoupleCouple','','pursue_withdraw','',NULL,NULL);
INSERT INTO row_version VALUES(5,5,1,'2026-12-01T20:15:23.860Z','import','{"start_time": 21.05, "end_time": 25.3, "primary_speaker": "Daniel", "target": ["Therapist"], "dialogue_cleaned": "Yeah. That''s pretty much every Sunday.", "utterance_type": "reflection", "background_dialogue": [], "tone_of_voice": "quiet, rueful", "body_posture": [{"person": "Daniel", "description": "shoulders drop"}], "facial_expressions": [{"person": "Daniel", "description": "half smile"}], "self_directed_behavior": [], "interaction_behavior": [], "internal_emotion": [{"person": "Daniel", "emotion_description": "feels a little relieved to be understood", "intensity": 3}], "viewpoints_attitudes": [], "support_strategy": [], "row_index": 5, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',21.050000000000000711,25.30000000000000071,'Daniel','DanielTherapist','reflection',NULL,'',NULL,NULL);
INSERT INTO row_version VALUES(6,6,1,'2026-12-01T20:15:23.860Z','import','{"start_time": 25.3, "end_time": 31.7, "primary_speaker": "Therapist", "target": ["Daniel"], "dialogue_cleaned": "What happens inside you right before you go quiet?", "utterance_type": "", "background_dialogue": [], "tone_of_voice": "soft, curious", "body_posture": [{"person": "Therapist", "description": "turned toward Daniel"}], "facial_expressions": [{"person": "Therapist", "description": "warm"}], "self_directed_behavior": [], "interaction_behavior": [], "internal_emotion": [], "viewpoints_attitudes": [], "support_strategy": [{"provider": "Therapist", "target": ["Daniel"], "strategy_type": "evoke", "strategy_content": "invites Daniel to name the feeling under his withdrawal"}], "relation_cycle_state": "pursue_withdraw", "row_index": 6, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',25.30000000000000071,31.699999999999999289,'Therapist','TherapistDanielDaniel','','pursue_withdraw','',NULL,NULL);
INSERT INTO row_version VALUES(7,7,1,'2026-12-01T20:15:23.860Z','import','{"start_time": 31.7, "end_time": 39.25, "primary_speaker": "Daniel", "target": ["Therapist"], "dialogue_cleaned": "I guess I feel like I''m already failing her, so why say anything.", "utterance_type": "disclosure", "background_dialogue": [], "tone_of_voice": "hesitant, heavy", "body_posture": [{"person": "Daniel", "description": "hunched forward"}], "facial_expressions": [{"person": "Daniel", "description": "eyes down, lips pressed"}], "self_directed_behavior": [{"person": "Daniel", "description": "twists his wedding ring"}], "interaction_behavior": [], "internal_emotion": [{"person": "Daniel", "emotion_description": "feels ashamed and inadequate", "intensity": 7}], "viewpoints_attitudes": [{"source": "Daniel", "target": "Daniel", "viewpoint": "he is letting his partner down", "attitude": "self-critical"}], "support_strategy": [], "row_index": 7, "relation_pattern": "repair_softening", "relation_pattern_reason": "Daniel starts to show the vulnerability under his silence.", "relation_pattern_evidence_rows": [6, 7]}',31.699999999999999289,39.25,'Daniel','DanielTherapist','disclosure',NULL,'repair_softening',NULL,NULL);
INSERT INTO row_version VALUES(8,8,1,'2026-12-01T20:15:23.860Z','import','{"start_time": 39.25, "end_time": 43.0, "primary_speaker": "Maya", "target": ["Daniel"], "dialogue_cleaned": "I didn''t know you felt that way.", "utterance_type": "validation", "background_dialogue": [], "tone_of_voice": "softer, surprised", "body_posture": [{"person": "Maya", "description": "uncrosses her arms, turns to Daniel"}], "facial_expressions": [{"person": "Maya", "description": "eyebrows raised, softer gaze"}], "self_directed_behavior": [], "interaction_behavior": [{"initiator": "Maya", "target": ["Daniel"], "description": "reaches toward his hand"}], "internal_emotion": [{"person": "Maya", "emotion_description": "feels surprised and tender", "intensity": 5}], "viewpoints_attitudes": [{"source": "Maya", "target": "Daniel", "viewpoint": "he is hurting, not indifferent", "attitude": "compassionate"}], "support_strategy": [], "row_index": 8, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',39.25,43.0,'Maya','MayaDaniel','validation',NULL,'',NULL,NULL);
INSERT INTO row_version VALUES(9,9,1,'2026-12-01T20:15:23.861Z','import','{"start_time": 43.0, "end_time": 49.6, "primary_speaker": "Therapist", "target": ["Maya"], "dialogue_cleaned": "Can you tell him what it''s like to hear that?", "utterance_type": "", "background_dialogue": [], "tone_of_voice": "gentle, encouraging", "body_posture": [{"person": "Therapist", "description": "gestures from Maya toward Daniel"}], "facial_expressions": [{"person": "Therapist", "description": "encouraging"}], "self_directed_behavior": [], "interaction_behavior": [], "internal_emotion": [], "viewpoints_attitudes": [], "support_strategy": [{"provider": "Therapist", "target": ["Maya"], "strategy_type": "enact", "strategy_content": "asks Maya to speak directly to Daniel"}], "relation_cycle_state": "repair_softening", "row_index": 9, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',43.0,49.600000000000001422,'Therapist','TherapistMayaMaya','','repair_softening','',NULL,NULL);
INSERT INTO row_version VALUES(10,1,2,'2026-12-01T20:15:29.495Z','import','{"start_time": 0.0, "end_time": 5.4, "primary_speaker": "Maya", "target": ["Therapist"], "dialogue_cleaned": "Every time I bring up the budget he just goes quiet.", "utterance_type": "accusation", "background_dialogue": [], "tone_of_voice": "tight, frustrated", "body_posture": [{"person": "Maya", "description": "turned toward the therapist, arms crossed"}], "facial_expressions": [{"person": "Maya", "description": "jaw set, eyes narrowed"}], "self_directed_behavior": [], "interaction_behavior": [], "internal_emotion": [{"person": "Maya", "emotion_description": "feels shut out when money comes up", "intensity": 6}], "viewpoints_attitudes": [{"source": "Maya", "target": "Daniel", "viewpoint": "he avoids every hard conversation", "attitude": "frustrated"}], "support_strategy": [], "row_index": 1, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',0.0,5.4000000000000003552,'Maya','MayaTherapist','accusation',NULL,'',NULL,NULL);
INSERT INTO row_version VALUES(11,2,2,'2026-12-01T20:15:29.496Z','import','{"start_time": 5.4, "end_time": 9.86, "primary_speaker": "Daniel", "target": ["Maya"], "dialogue_cleaned": "I go quiet because it always turns into a fight.", "utterance_type": "defense", "background_dialogue": [], "tone_of_voice": "low, guarded", "body_posture": [{"person": "Daniel", "description": "leaning back, looking at the floor"}], "facial_expressions": [{"person": "Daniel", "description": "brow furrowed"}], "self_directed_behavior": [{"person": "Daniel", "description": "rubs the back of his neck"}], "interaction_behavior": [], "internal_emotion": [{"person": "Daniel", "emotion_description": "feels cornered and tired", "intensity": 5}], "viewpoints_attitudes": [{"source": "Daniel", "target": "Maya", "viewpoint": "she starts arguments about money", "attitude": "wary"}], "support_strategy": [], "row_index": 2, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',5.4000000000000003552,9.8599999999999994315,'Daniel','DanielMaya','defense',NULL,'',NULL,NULL);
INSERT INTO row_version VALUES(12,3,2,'2026-12-01T20:15:29.496Z','import','{"start_time": 9.86, "end_time": 14.2, "primary_speaker": "Maya", "target": ["Daniel"], "dialogue_cleaned": "It turns into a fight because you won''t answer me!", "utterance_type": "request", "background_dialogue": [], "tone_of_voice": "raised, sharp", "body_posture": [{"person": "Maya", "description": "leaning toward Daniel"}], "facial_expressions": [{"person": "Maya", "description": "eyes wide"}], "self_directed_behavior": [], "interaction_behavior": [{"initiator": "Maya", "target": ["Daniel"], "description": "points at him while speaking"}], "internal_emotion": [{"person": "Maya", "emotion_description": "feels unheard and angry", "intensity": 8}], "viewpoints_attitudes": [{"source": "Maya", "target": "Daniel", "viewpoint": "he refuses to engage", "attitude": "angry"}], "support_strategy": [], "row_index": 3, "relation_pattern": "pursue_withdraw", "relation_pattern_reason": "Maya presses for an answer while Daniel retreats.", "relation_pattern_evidence_rows": [1, 2, 3]}',9.8599999999999994315,14.199999999999999289,'Maya','MayaDaniel','request',NULL,'pursue_withdraw',NULL,NULL);
INSERT INTO row_version VALUES(13,4,2,'2026-12-01T20:15:29.496Z','import','{"start_time": 14.2, "end_time": 21.05, "primary_speaker": "Therapist", "target": ["Couple"], "dialogue_cleaned": "Can we slow down for a second? Maya, you reach for him, and Daniel, you pull back. Does that sound familiar?", "utterance_type": "", "background_dialogue": [], "tone_of_voice": "calm, steady", "body_posture": [{"person": "Therapist", "description": "leaning forward, open hands"}], "facial_expressions": [{"person": "Therapist", "description": "attentive"}], "self_directed_behavior": [], "interaction_behavior": [{"initiator": "Therapist", "target": ["Maya", "Daniel"], "description": "looks from one partner to the other"}], "internal_emotion": [], "viewpoints_attitudes": [], "support_strategy": [{"provider": "Therapist", "target": ["Couple"], "strategy_type": "track", "strategy_content": "names the pursue-withdraw cycle as it happens"}], "relation_cycle_state": "pursue_withdraw", "row_index": 4, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',14.199999999999999289,21.050000000000000711,'Therapist','TherapistCoupleCouple','','pursue_withdraw','',NULL,NULL);
INSERT INTO row_version VALUES(14,5,2,'2026-12-01T20:15:29.496Z','import','{"start_time": 21.05, "end_time": 25.3, "primary_speaker": "Daniel", "target": ["Therapist"], "dialogue_cleaned": "Yeah. That''s pretty much every Sunday.", "utterance_type": "reflection", "background_dialogue": [], "tone_of_voice": "quiet, rueful", "body_posture": [{"person": "Daniel", "description": "shoulders drop"}], "facial_expressions": [{"person": "Daniel", "description": "half smile"}], "self_directed_behavior": [], "interaction_behavior": [], "internal_emotion": [{"person": "Daniel", "emotion_description": "feels a little relieved to be understood", "intensity": 3}], "viewpoints_attitudes": [], "support_strategy": [], "row_index": 5, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',21.050000000000000711,25.30000000000000071,'Daniel','DanielTherapist','reflection',NULL,'',NULL,NULL);
INSERT INTO row_version VALUES(15,6,2,'2026-12-01T20:15:29.496Z','import','{"start_time": 25.3, "end_time": 31.7, "primary_speaker": "Therapist", "target": ["Daniel"], "dialogue_cleaned": "What happens inside you right before you go quiet?", "utterance_type": "", "background_dialogue": [], "tone_of_voice": "soft, curious", "body_posture": [{"person": "Therapist", "description": "turned toward Daniel"}], "facial_expressions": [{"person": "Therapist", "description": "warm"}], "self_directed_behavior": [], "interaction_behavior": [], "internal_emotion": [], "viewpoints_attitudes": [], "support_strategy": [{"provider": "Therapist", "target": ["Daniel"], "strategy_type": "evoke", "strategy_content": "invites Daniel to name the feeling under his withdrawal"}], "relation_cycle_state": "pursue_withdraw", "row_index": 6, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',25.30000000000000071,31.699999999999999289,'Therapist','TherapistDanielDaniel','','pursue_withdraw','',NULL,NULL);
INSERT INTO row_version VALUES(16,7,2,'2026-12-01T20:15:29.496Z','import','{"start_time": 31.7, "end_time": 39.25, "primary_speaker": "Daniel", "target": ["Therapist"], "dialogue_cleaned": "I guess I feel like I''m already failing her, so why say anything.", "utterance_type": "disclosure", "background_dialogue": [], "tone_of_voice": "hesitant, heavy", "body_posture": [{"person": "Daniel", "description": "hunched forward"}], "facial_expressions": [{"person": "Daniel", "description": "eyes down, lips pressed"}], "self_directed_behavior": [{"person": "Daniel", "description": "twists his wedding ring"}], "interaction_behavior": [], "internal_emotion": [{"person": "Daniel", "emotion_description": "feels ashamed and inadequate", "intensity": 7}], "viewpoints_attitudes": [{"source": "Daniel", "target": "Daniel", "viewpoint": "he is letting his partner down", "attitude": "self-critical"}], "support_strategy": [], "row_index": 7, "relation_pattern": "repair_softening", "relation_pattern_reason": "Daniel starts to show the vulnerability under his silence.", "relation_pattern_evidence_rows": [6, 7]}',31.699999999999999289,39.25,'Daniel','DanielTherapist','disclosure',NULL,'repair_softening',NULL,NULL);
INSERT INTO row_version VALUES(17,8,2,'2026-12-01T20:15:29.496Z','import','{"start_time": 39.25, "end_time": 43.0, "primary_speaker": "Maya", "target": ["Daniel"], "dialogue_cleaned": "I didn''t know you felt that way.", "utterance_type": "validation", "background_dialogue": [], "tone_of_voice": "softer, surprised", "body_posture": [{"person": "Maya", "description": "uncrosses her arms, turns to Daniel"}], "facial_expressions": [{"person": "Maya", "description": "eyebrows raised, softer gaze"}], "self_directed_behavior": [], "interaction_behavior": [{"initiator": "Maya", "target": ["Daniel"], "description": "reaches toward his hand"}], "internal_emotion": [{"person": "Maya", "emotion_description": "feels surprised and tender", "intensity": 5}], "viewpoints_attitudes": [{"source": "Maya", "target": "Daniel", "viewpoint": "he is hurting, not indifferent", "attitude": "compassionate"}], "support_strategy": [], "row_index": 8, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',39.25,43.0,'Maya','MayaDaniel','validation',NULL,'',NULL,NULL);
INSERT INTO row_version VALUES(18,9,2,'2026-12-01T20:15:29.496Z','import','{"start_time": 43.0, "end_time": 49.6, "primary_speaker": "Therapist", "target": ["Maya"], "dialogue_cleaned": "Can you tell him what it''s like to hear that?", "utterance_type": "", "background_dialogue": [], "tone_of_voice": "gentle, encouraging", "body_posture": [{"person": "Therapist", "description": "gestures from Maya toward Daniel"}], "facial_expressions": [{"person": "Therapist", "description": "encouraging"}], "self_directed_behavior": [], "interaction_behavior": [], "internal_emotion": [], "viewpoints_attitudes": [], "support_strategy": [{"provider": "Therapist", "target": ["Maya"], "strategy_type": "enact", "strategy_content": "asks Maya to speak directly to Daniel"}], "relation_cycle_state": "repair_softening", "row_index": 9, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',43.0,49.600000000000001422,'Therapist','TherapistMayaMaya','','repair_softening','',NULL,NULL);
INSERT INTO row_version VALUES(19,10,3,'2026-12-01T20:15:30.461Z','import','{"start_time": 0.0, "end_time": 5.4, "primary_speaker": "Maya", "target": ["Therapist"], "dialogue_cleaned": "Every time I bring up the budget he just goes quiet.", "utterance_type": "accusation", "background_dialogue": [], "tone_of_voice": "tight, frustrated", "body_posture": [{"person": "Maya", "description": "turned toward the therapist, arms crossed"}], "facial_expressions": [{"person": "Maya", "description": "jaw set, eyes narrowed"}], "self_directed_behavior": [], "interaction_behavior": [], "internal_emotion": [{"person": "Maya", "emotion_description": "feels shut out when money comes up", "intensity": 6}], "viewpoints_attitudes": [{"source": "Maya", "target": "Daniel", "viewpoint": "he avoids every hard conversation", "attitude": "frustrated"}], "support_strategy": [], "row_index": 1, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',0.0,5.4000000000000003552,'Maya','MayaTherapist','accusation',NULL,'',NULL,NULL);
INSERT INTO row_version VALUES(20,11,3,'2026-12-01T20:15:30.461Z','import','{"start_time": 5.4, "end_time": 7.63, "primary_speaker": "Daniel", "target": ["Maya"], "dialogue_cleaned": "I go quiet because it always turns into a fight.", "utterance_type": "defense", "background_dialogue": [], "tone_of_voice": "low, guarded", "body_posture": [{"person": "Daniel", "description": "leaning back, looking at the floor"}], "facial_expressions": [{"person": "Daniel", "description": "brow furrowed"}], "self_directed_behavior": [{"person": "Daniel", "description": "rubs the back of his neck"}], "interaction_behavior": [], "internal_emotion": [{"person": "Daniel", "emotion_description": "feels cornered and tired", "intensity": 5}], "viewpoints_attitudes": [{"source": "Daniel", "target": "Maya", "viewpoint": "she starts arguments about money", "attitude": "wary"}], "support_strategy": [], "row_index": 2, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',5.4000000000000003552,7.6299999999999998934,'Daniel','DanielMaya','defense',NULL,'',NULL,NULL);
INSERT INTO row_version VALUES(21,12,3,'2026-12-01T20:15:30.461Z','import','{"start_time": 7.63, "end_time": 9.86, "primary_speaker": "Daniel", "target": ["Maya"], "dialogue_cleaned": "second half", "utterance_type": "defense", "background_dialogue": [], "tone_of_voice": "low, guarded", "body_posture": [{"person": "Daniel", "description": "leaning back, looking at the floor"}], "facial_expressions": [{"person": "Daniel", "description": "brow furrowed"}], "self_directed_behavior": [{"person": "Daniel", "description": "rubs the back of his neck"}], "interaction_behavior": [], "internal_emotion": [{"person": "Daniel", "emotion_description": "feels cornered and tired", "intensity": 5}], "viewpoints_attitudes": [{"source": "Daniel", "target": "Maya", "viewpoint": "she starts arguments about money", "attitude": "wary"}], "support_strategy": [], "row_index": 3, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',7.6299999999999998934,9.8599999999999994315,'Daniel','DanielMaya','defense',NULL,'',NULL,NULL);
INSERT INTO row_version VALUES(22,13,3,'2026-12-01T20:15:30.461Z','import','{"start_time": 9.86, "end_time": 14.2, "primary_speaker": "Maya", "target": ["Daniel"], "dialogue_cleaned": "It turns into a fight because you won''t answer me!", "utterance_type": "accusation", "background_dialogue": [], "tone_of_voice": "raised, sharp", "body_posture": [{"person": "Maya", "description": "leaning toward Daniel"}], "facial_expressions": [{"person": "Maya", "description": "eyes wide"}], "self_directed_behavior": [], "interaction_behavior": [{"initiator": "Maya", "target": ["Daniel"], "description": "points at him while speaking"}], "internal_emotion": [{"person": "Maya", "emotion_description": "feels unheard and angry", "intensity": 8}], "viewpoints_attitudes": [{"source": "Maya", "target": "Daniel", "viewpoint": "he refuses to engage", "attitude": "angry"}], "support_strategy": [], "row_index": 4, "relation_pattern": "pursue_withdraw", "relation_pattern_reason": "Maya presses for an answer while Daniel retreats.", "relation_pattern_evidence_rows": [1, 2, 3]}',9.8599999999999994315,14.199999999999999289,'Maya','MayaDaniel','accusation',NULL,'pursue_withdraw',NULL,NULL);
INSERT INTO row_version VALUES(23,14,3,'2026-12-01T20:15:30.461Z','import','{"start_time": 14.2, "end_time": 21.05, "primary_speaker": "Therapist", "target": ["Couple"], "dialogue_cleaned": "Can we slow down for a second? Maya, you reach for him, and Daniel, you pull back. Does that sound familiar?", "utterance_type": "", "background_dialogue": [], "tone_of_voice": "calm, steady", "body_posture": [{"person": "Therapist", "description": "leaning forward, open hands"}], "facial_expressions": [{"person": "Therapist", "description": "attentive"}], "self_directed_behavior": [], "interaction_behavior": [{"initiator": "Therapist", "target": ["Maya", "Daniel"], "description": "looks from one partner to the other"}], "internal_emotion": [], "viewpoints_attitudes": [], "support_strategy": [{"provider": "Therapist", "target": ["Couple"], "strategy_type": "track", "strategy_content": "names the pursue-withdraw cycle as it happens"}], "relation_cycle_state": "pursue_withdraw", "row_index": 5, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',14.199999999999999289,21.050000000000000711,'Therapist','TherapistCoupleCouple','','pursue_withdraw','',NULL,NULL);
INSERT INTO row_version VALUES(24,15,3,'2026-12-01T20:15:30.461Z','import','{"start_time": 21.05, "end_time": 25.3, "primary_speaker": "Daniel", "target": ["Therapist"], "dialogue_cleaned": "Yeah. That''s pretty much every Sunday.", "utterance_type": "reflection", "background_dialogue": [], "tone_of_voice": "quiet, rueful", "body_posture": [{"person": "Daniel", "description": "shoulders drop"}], "facial_expressions": [{"person": "Daniel", "description": "half smile"}], "self_directed_behavior": [], "interaction_behavior": [], "internal_emotion": [{"person": "Daniel", "emotion_description": "feels a little relieved to be understood", "intensity": 3}], "viewpoints_attitudes": [], "support_strategy": [], "row_index": 6, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',21.050000000000000711,25.30000000000000071,'Daniel','DanielTherapist','reflection',NULL,'',NULL,NULL);
INSERT INTO row_version VALUES(25,16,3,'2026-12-01T20:15:30.461Z','import','{"start_time": 25.3, "end_time": 31.7, "primary_speaker": "Therapist", "target": ["Daniel"], "dialogue_cleaned": "What happens inside you right before you go quiet?", "utterance_type": "", "background_dialogue": [], "tone_of_voice": "soft, curious", "body_posture": [{"person": "Therapist", "description": "turned toward Daniel"}], "facial_expressions": [{"person": "Therapist", "description": "warm"}], "self_directed_behavior": [], "interaction_behavior": [], "internal_emotion": [], "viewpoints_attitudes": [], "support_strategy": [{"provider": "Therapist", "target": ["Daniel"], "strategy_type": "evoke", "strategy_content": "invites Daniel to name the feeling under his withdrawal"}], "relation_cycle_state": "pursue_withdraw", "row_index": 7, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',25.30000000000000071,31.699999999999999289,'Therapist','TherapistDanielDaniel','','pursue_withdraw','',NULL,NULL);
INSERT INTO row_version VALUES(26,17,3,'2026-12-01T20:15:30.461Z','import','{"start_time": 31.7, "end_time": 39.25, "primary_speaker": "Daniel", "target": ["Therapist"], "dialogue_cleaned": "I guess I feel like I''m already failing her, so why say anything.", "utterance_type": "disclosure", "background_dialogue": [], "tone_of_voice": "hesitant, heavy", "body_posture": [{"person": "Daniel", "description": "hunched forward"}], "facial_expressions": [{"person": "Daniel", "description": "eyes down, lips pressed"}], "self_directed_behavior": [{"person": "Daniel", "description": "twists his wedding ring"}], "interaction_behavior": [], "internal_emotion": [{"person": "Daniel", "emotion_description": "feels ashamed and inadequate", "intensity": 7}], "viewpoints_attitudes": [{"source": "Daniel", "target": "Daniel", "viewpoint": "he is letting his partner down", "attitude": "self-critical"}], "support_strategy": [], "row_index": 8, "relation_pattern": "repair_softening", "relation_pattern_reason": "Daniel starts to show the vulnerability under his silence.", "relation_pattern_evidence_rows": [6, 7]}',31.699999999999999289,39.25,'Daniel','DanielTherapist','disclosure',NULL,'repair_softening',NULL,NULL);
INSERT INTO row_version VALUES(27,18,3,'2026-12-01T20:15:30.461Z','import','{"start_time": 39.25, "end_time": 43.0, "primary_speaker": "Maya", "target": ["Daniel"], "dialogue_cleaned": "I didn''t know you felt that way.", "utterance_type": "validation", "background_dialogue": [], "tone_of_voice": "softer, surprised", "body_posture": [{"person": "Maya", "description": "uncrosses her arms, turns to Daniel"}], "facial_expressions": [{"person": "Maya", "description": "eyebrows raised, softer gaze"}], "self_directed_behavior": [], "interaction_behavior": [{"initiator": "Maya", "target": ["Daniel"], "description": "reaches toward his hand"}], "internal_emotion": [{"person": "Maya", "emotion_description": "feels surprised and tender", "intensity": 5}], "viewpoints_attitudes": [{"source": "Maya", "target": "Daniel", "viewpoint": "he is hurting, not indifferent", "attitude": "compassionate"}], "support_strategy": [], "row_index": 9, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',39.25,43.0,'Maya','MayaDaniel','validation',NULL,'',NULL,NULL);
INSERT INTO row_version VALUES(28,19,3,'2026-12-01T20:15:30.461Z','import','{"start_time": 43.0, "end_time": 49.6, "primary_speaker": "Therapist", "target": ["Maya"], "dialogue_cleaned": "Can you tell him what it''s like to hear that?", "utterance_type": "", "background_dialogue": [], "tone_of_voice": "gentle, encouraging", "body_posture": [{"person": "Therapist", "description": "gestures from Maya toward Daniel"}], "facial_expressions": [{"person": "Therapist", "description": "encouraging"}], "self_directed_behavior": [], "interaction_behavior": [], "internal_emotion": [], "viewpoints_attitudes": [], "support_strategy": [{"provider": "Therapist", "target": ["Maya"], "strategy_type": "enact", "strategy_content": "asks Maya to speak directly to Daniel"}], "relation_cycle_state": "repair_softening", "row_index": 10, "relation_pattern": null, "relation_pattern_reason": null, "relation_pattern_evidence_rows": []}',43.0,49.600000000000001422,'Therapist','TherapistMayaMaya','','repair_softening','',NULL,NULL);
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
CREATE TABLE segment(
  id          INTEGER PRIMARY KEY,
  sample_ref  INTEGER NOT NULL REFERENCES sample(id),
  source_id   INTEGER NOT NULL REFERENCES source(id),
  start       REAL,                  -- seconds into the source; NULL: whole file
  end         REAL,                  -- seconds into the source; NULL: whole file
  created_at  TEXT NOT NULL          -- the latest segment of a sample is its reference;
                                     -- earlier ones are its history
);
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
CREATE TABLE annotator_retirement(
  id            INTEGER PRIMARY KEY,
  annotator_id  INTEGER NOT NULL REFERENCES annotator(id),
  retired       INTEGER NOT NULL,    -- 1: retired; 0: brought back
  reason        TEXT,                -- why
  created_at    TEXT NOT NULL
);
CREATE TABLE comment(
  id            INTEGER PRIMARY KEY,
  sample_ref    INTEGER NOT NULL REFERENCES sample(id),
  row_id        INTEGER REFERENCES row(id),  -- the row commented on; NULL: the whole sample
  position      INTEGER,             -- that row's 1-based position when the comment was made
  annotator_id  INTEGER REFERENCES annotator(id),  -- who wrote it; NULL: not given
  text          TEXT NOT NULL,
  created_at    TEXT NOT NULL
);
INSERT INTO comment VALUES(1,1,13,4,2,'check the pause','2026-12-01T20:15:31.296Z');
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
INSERT INTO row_origin VALUES(10,1,1,'same');
INSERT INTO row_origin VALUES(11,1,2,'split');
INSERT INTO row_origin VALUES(12,1,2,'split');
INSERT INTO row_origin VALUES(13,1,3,'same');
INSERT INTO row_origin VALUES(14,1,4,'same');
INSERT INTO row_origin VALUES(15,1,5,'same');
INSERT INTO row_origin VALUES(16,1,6,'same');
INSERT INTO row_origin VALUES(17,1,7,'same');
INSERT INTO row_origin VALUES(18,1,8,'same');
INSERT INTO row_origin VALUES(19,1,9,'same');
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
CREATE TABLE model_version(
  version_id  INTEGER PRIMARY KEY REFERENCES row_version(id),  -- a version the model wrote
  request_id  INTEGER NOT NULL REFERENCES model_request(id)    -- the request that wrote it
);
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
INSERT INTO audit VALUES(1,'2026-12-01T20:15:23.861Z','import','root',NULL,'rescue import c.db /work/wt-segcore/tools/demo/couple.jsonl',NULL,0,NULL,NULL,'1 samples, 9 rows: 9 row versions added');
INSERT INTO audit VALUES(2,'2026-12-01T20:15:29.496Z','import','root','ann','rescue import c.db ann.jsonl --annotator ann',NULL,0,NULL,NULL,'1 samples, 9 rows: 9 row versions added');
INSERT INTO audit VALUES(3,'2026-12-01T20:15:30.461Z','import','root','bob','rescue import c.db bob.jsonl --annotator bob --resegment',NULL,0,NULL,NULL,'1 samples, 10 rows: 10 row versions added');
CREATE INDEX sample_order ON sample(sort_key);
CREATE INDEX sample_by_group ON sample(group_id);
CREATE INDEX sample_status_by_sample ON sample_status(sample_ref, id);
CREATE INDEX sample_version_by_sample ON sample_version(sample_ref, id);
CREATE INDEX sample_version_by_annotator ON sample_version(sample_ref, annotator_id, id);
CREATE INDEX rowset_by_sample ON rowset(sample_ref, id);
CREATE INDEX row_version_by_annotator ON row_version(row_id, annotator_id, id);
CREATE INDEX row_version_gold ON row_version(row_id, id) WHERE kind = 'gold';
CREATE INDEX source_by_path ON source(root, path, id);
CREATE INDEX segment_by_sample ON segment(sample_ref, id);
CREATE INDEX clip_by_sample ON clip(sample_ref, position, mode, id);
CREATE INDEX cue_by_sample ON cue(sample_ref, import_id, seq);
CREATE INDEX annotator_retirement_by_annotator ON annotator_retirement(annotator_id, id);
CREATE INDEX comment_by_sample ON comment(sample_ref, id);
CREATE INDEX row_origin_by_parent ON row_origin(parent_id);
CREATE INDEX field_decision_by_row ON field_decision(row_id, field, id);
CREATE INDEX model_request_by_sample ON model_request(sample_ref, id);
CREATE INDEX pseudonym_by_real ON pseudonym(group_id, real, id);
COMMIT;
PRAGMA user_version=6;
PRAGMA application_id=1380275011;
