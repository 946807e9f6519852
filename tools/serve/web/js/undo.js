// undo.js: undo and redo for the open sample: edits of a row's fields (typing into one
// field is one step), splits, merges and boundaries dragged on the time line. A split is
// undone by merging the two halves back, which restores the parent row with its id and
// versions (corpus/edit.c); a merge is undone by splitting the merged row where the
// boundary was, which gives the two rows back with their ids and versions when nobody
// saved the merged row since (corpus/edit.c); each of them on a sample reviewed meanwhile
// reopens it, as a save does (the message says so); a dragged boundary, or a start or end set to
// the playhead (segment.js), is undone by setting the moved rows' times back. Every edit also updates the row's draft (drafts.js).

import { api } from './api.js';
import { $, encPath } from './dom.js';
import { noteEdit } from './drafts.js';
import { drawForm, drawRowText, setMsg } from './form.js';
import { selectRow } from './rows.js';
import { openSample } from './sample.js';
import { refusal, reopenedNote, segment } from './segment.js';
import { state } from './state.js';

const undoStack = [], redoStack = [];
let snap = null; // JSON of state.edit when the last step was recorded
let snapKey = null;

export function resetHistory() {
  undoStack.length = 0;
  redoStack.length = 0;
  snap = null;
}

// The edit as drawn now is the starting point of the next step (after selecting a row).
export function snapEdit() {
  snap = JSON.stringify(state.edit);
  snapKey = state.editKey;
}

export function recordSeg(entry) {
  undoStack.push(entry);
  redoStack.length = 0;
}

const isText = (t) => t && (t.tagName === 'TEXTAREA' || (t.tagName === 'INPUT' && /^(text|number|search)$/.test(t.type)));

// A change in the form (input, change or a click on add/remove): one more step, unless it
// continues the typing of the last one in the same field.
function recordEdit(ev) {
  if (!state.sample || state.sample.readonly || state.editKey == null) return;
  if (snapKey !== state.editKey) snapEdit();
  const now = JSON.stringify(state.edit);
  if (now === snap) return;
  const host = ev.target.closest && ev.target.closest('[data-path]');
  const path = host ? host.dataset.path : '';
  const top = undoStack[undoStack.length - 1];
  const typing = ev.type === 'input' && isText(ev.target);
  if (typing && top && top.kind === 'edit' && top.key === state.editKey && top.path === path && top.typing) top.after = now;
  else undoStack.push({ kind: 'edit', key: state.editKey, path, before: snap, after: now, typing });
  redoStack.length = 0;
  snap = now;
  noteEdit();
  drawRowText();
}
for (const type of ['input', 'change', 'click']) $('fields').addEventListener(type, recordEdit);

// Show the row with stable id key, then put the edit `json` in the form.
function applyEdit(key, json) {
  const s = state.sample, i = s.rows.findIndex((r) => r.row_id === key);
  if (i < 0) return false;
  if (state.editKey !== key) selectRow(i, false);
  state.edit = JSON.parse(json);
  drawForm();
  snapEdit();
  noteEdit();
  return true;
}

// A dragged boundary (timeline.js) or a time set to the playhead (segment.js) back (undo) or again: each moved row's start or end,
// found by its row id, set through the segmentation API ("times") on its current version.
async function applyTimes(e, undo) {
  const s = state.sample;
  let ok = true, reopened = '', refused = '';
  for (const m of e.rows) {
    const r = s.rows.find((x) => x.row_id === m.id);
    if (!r) { ok = false; break; }
    const body = { op: 'times', row: r.index, base_version: r.version, start: Number(r.row.start_time), end: Number(r.row.end_time) };
    body[m.key] = undo ? e.from : e.to;
    const res = await api('POST', '/api/samples/' + encPath(s.sample_id) + '/segmentation', body);
    if (res.status !== 200) { refused = res.data.error || String(res.status); break; }
    reopened = reopened || res.data.reopened_from || '';
  }
  await openSample(s.sample_id, true);
  if (refused) return { refused };
  return ok && { reopened: !!reopened, reopened_from: reopened };
}

async function applySeg(e, undo) {
  if (e.kind === 'boundary') return applyTimes(e, undo);
  const rows = state.sample.rows, a = rows[e.index - 1], b = rows[e.index];
  const merge = (e.kind === 'split') === undo;
  if (!a || (merge && !b)) return false;
  state.sel = e.index - 1;
  const res = await (merge ? segment({ op: 'merge', row: e.index, base_version: a.version, next_version: b.version })
    : segment({ op: 'split', row: e.index, at: e.at, base_version: a.version }));
  return res || { refused: refusal };
}

async function step(from, to, undo) {
  const e = from.pop();
  if (!e) { setMsg(undo ? 'nothing to undo' : 'nothing to redo', false); return; }
  const ok = e.kind === 'edit' ? applyEdit(e.key, undo ? e.before : e.after) : await applySeg(e, undo);
  if (!ok) { setMsg((undo ? 'cannot undo ' : 'cannot redo ') + 'this ' + e.kind + ': its row is gone', false); return; }
  // refused by the server (a split or merge in a discarded sample): the step stays, to be
  // undone or redone once the sample is back in review
  if (ok.refused) { from.push(e); setMsg((undo ? 'not undone: ' : 'not redone: ') + ok.refused, false); return; }
  to.push(e);
  // undoing a split or a boundary on a sample reviewed since is an edit too: it reopens it
  setMsg((undo ? 'undone: ' : 'redone: ') + (e.kind === 'edit' ? 'edit of ' + (e.path || 'the row') : e.what || e.kind) +
    (ok.reopened ? '; ' + reopenedNote(ok.reopened_from) : ''), true);
}
export const undo = () => step(undoStack, redoStack, true);
export const redo = () => step(redoStack, undoStack, false);
$('undo-btn').addEventListener('click', undo);
$('redo-btn').addEventListener('click', redo);
