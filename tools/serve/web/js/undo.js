// undo.js: undo and redo for the open sample: edits of a row's fields (typing into one
// field is one step), splits, merges and boundaries dragged on the time line. A split is
// undone by merging the two halves back, which restores the parent row with its id and
// versions (corpus/edit.c); a merge is undone by splitting the merged row where the
// boundary was, which gives the two rows back with their ids and versions when nobody
// saved the merged row since (corpus/edit.c); each of them on a sample reviewed meanwhile
// reopens it, as a save does (the message says so); a dragged boundary, or a start or end set to
// the playhead (segment.js), is undone by setting the moved rows' times back. Every edit also updates the row's draft (drafts.js).
//
// A step the server refuses because a row it acts on was saved elsewhere since this page
// read it (another tab or client of the same annotator: 409, stale version) can no longer
// apply, and neither can any other step of that row held here: each was recorded against
// a version that is gone, and once the page has read the row again the server would take
// them on the newer version and quietly undo the other save. So the page reads the sample
// again (the row shows what the server has), says which row changed and whose save it was,
// and drops every step of that row from both stacks; other rows' steps stay. For example,
// with undo steps [end of row 3, end of row 5, start of row 3] and row 3 saved in another
// tab, Ctrl+Z is refused and drops both row 3 steps; the next Ctrl+Z undoes row 5's. Any
// other refusal (a split or merge in a discarded sample) keeps the step, to be undone or
// redone once the sample is back in review.

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

// The row ids a step acts on: an edit's row, a boundary's moved rows, and for a split or
// merge every row it has made or taken apart so far (e.ids: ids change as it is undone
// and redone).
const idsOf = (e) => (e.kind === 'edit' ? [e.key] : e.kind === 'boundary' ? e.rows.map((m) => m.id) : e.ids || []);

// After a split or merge step was done, undone or redone: the rows it stands for now (the
// merged row, or the two halves, at its position in the sample just read) join e.ids.
function noteIds(e, merged) {
  const rows = state.sample.rows, ids = new Set(e.ids || []);
  for (const r of merged ? [rows[e.index - 1]] : [rows[e.index - 1], rows[e.index]]) if (r) ids.add(r.row_id);
  e.ids = [...ids];
}

// A split, merge or new times just done (the sample read again after it) becomes the next
// undo step; a split or merge may name in entry.ids the rows it took apart.
export function recordSeg(entry) {
  if (entry.kind === 'split' || entry.kind === 'merge') noteIds(entry, entry.kind === 'merge');
  undoStack.push(entry);
  redoStack.length = 0;
}

// Take every step acting on one of the row ids out of both stacks; how many were taken.
function dropSteps(ids) {
  let n = 0;
  for (const st of [undoStack, redoStack]) {
    const keep = st.filter((e) => !idsOf(e).some((id) => ids.includes(id)));
    n += st.length - keep.length;
    st.splice(0, st.length, ...keep);
  }
  return n;
}

// Of the rows a refused request named ({id, version}: the version it was sent with), the
// ids of those the sample, read again since, shows with another version or no more.
function staleOf(sent) {
  const rows = state.sample.rows;
  return sent.filter((x) => { const r = rows.find((y) => y.row_id === x.id); return !r || r.version !== x.version; }).map((x) => x.id);
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
// A refusal answers {refused, stale, done}: the server's reason, the ids of the rows found
// saved elsewhere since (staleOf) and the rows whose times were set before it.
async function applyTimes(e, undo) {
  const s = state.sample;
  let ok = true, reopened = '', refused = '', sent = [];
  const done = [];
  for (const m of e.rows) {
    const r = s.rows.find((x) => x.row_id === m.id);
    if (!r) { ok = false; break; }
    const body = { op: 'times', row: r.index, base_version: r.version, start: Number(r.row.start_time), end: Number(r.row.end_time) };
    body[m.key] = undo ? e.from : e.to;
    const res = await api('POST', '/api/samples/' + encPath(s.sample_id) + '/segmentation', body);
    if (res.status !== 200) { refused = res.data.error || String(res.status); sent = [{ id: m.id, version: r.version }]; break; }
    done.push(r.index);
    reopened = reopened || res.data.reopened_from || '';
  }
  await openSample(s.sample_id, true);
  if (refused) return { refused, stale: staleOf(sent), done };
  return ok && { reopened: !!reopened, reopened_from: reopened };
}

// A split or merge refused is read again (segment() reads the sample only after one that
// was done), to tell a row saved elsewhere (stale) from a refusal the step outlives.
async function applySeg(e, undo) {
  if (e.kind === 'boundary') return applyTimes(e, undo);
  const rows = state.sample.rows, a = rows[e.index - 1], b = rows[e.index];
  const merge = (e.kind === 'split') === undo;
  if (!a || (merge && !b)) return false;
  state.sel = e.index - 1;
  const sent = (merge ? [a, b] : [a]).map((r) => ({ id: r.row_id, version: r.version }));
  const res = await (merge ? segment({ op: 'merge', row: e.index, base_version: a.version, next_version: b.version })
    : segment({ op: 'split', row: e.index, at: e.at, base_version: a.version }));
  if (res) { noteIds(e, merge); return res; }
  const why = refusal;
  await openSample(state.sample.sample_id, true);
  return { refused: why, stale: staleOf(sent), done: [] };
}

// "row 3", "rows 3 and 4": the rows with these ids, numbered as the sample read again
// shows them (old: the numbers they had, for a row that is gone).
function rowNames(ids, old) {
  const n = ids.map((id) => { const r = state.sample.rows.find((x) => x.row_id === id); return r ? r.index : old.get(id); });
  return (n.length > 1 ? 'rows ' : 'row ') + n.join(' and ');
}

// A step refused because rows it acts on were saved elsewhere (ok.stale, see the file's
// head): drop every step of those rows, show the first of them as the server has it now,
// and say whose save it was: in an annotator's own view only saves under their name
// (another tab, a script with their token, an import naming them) change a row they saved.
function dropStale(ok, undo, old) {
  const s = state.sample, n = dropSteps(ok.stale) + 1, names = rowNames(ok.stale, old);
  const now = ok.stale.map((id) => s.rows.find((x) => x.row_id === id)).filter(Boolean);
  const versions = ' (version ' + now.map((r) => r.version).join(', ') + ' now), which the page shows';
  const it = ok.stale.length > 1 ? 'them' : 'it';
  const who = !now.length ? (ok.stale.length > 1 ? 'they are' : 'it is') + ' no longer in the sample (resegmented elsewhere)'
    : now.every((r) => r.mine) ? s.view + ' saved ' + it + ' in another tab or client' + versions : (ok.stale.length > 1 ? 'they were' : 'it was') + ' changed elsewhere' + versions;
  if (now.length) selectRow(s.rows.indexOf(now[0]), false);
  setMsg((undo ? 'not undone: ' : 'not redone: ') + names + ' changed since this page read it: ' + who +
    (ok.done.length ? '; row ' + ok.done.join(' and ') + ' was ' + (undo ? 'undone' : 'redone') + ' before it' : '') +
    '; ' + (n === 1 ? 'this step is' : 'this step and ' + (n - 1) + ' more of ' + names + ' are') + ' dropped, other rows\' steps stay', false);
}

async function step(from, to, undo) {
  const e = from.pop();
  if (!e) { setMsg(undo ? 'nothing to undo' : 'nothing to redo', false); return; }
  const old = new Map(state.sample.rows.map((r) => [r.row_id, r.index]));
  const ok = e.kind === 'edit' ? applyEdit(e.key, undo ? e.before : e.after) : await applySeg(e, undo);
  if (!ok) { setMsg((undo ? 'cannot undo ' : 'cannot redo ') + 'this ' + e.kind + ': its row is gone', false); return; }
  if (ok.refused && ok.stale.length) { dropStale(ok, undo, old); return; }
  // refused by the server for another reason (a split or merge in a discarded sample): the
  // step stays, to be undone or redone once the sample is back in review
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
