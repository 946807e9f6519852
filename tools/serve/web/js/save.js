// save.js: saving the edited row (a new version on the version the page showed), and the
// conflict panel when someone saved it meanwhile: "keep mine" keeps only the fields this
// edit changed and takes the rest from the newer version; "take theirs" drops the edit.

import { api } from './api.js';
import { $, el, encPath } from './dom.js';
import { dropDraft, markDrafts } from './drafts.js';
import { drawForm, setMsg, showLint } from './form.js';
import { drawRows, selectRow } from './rows.js';
import { openSample } from './sample.js';
import { reopenedNote } from './segment.js';
import { state } from './state.js';

// Save the edited row; true when it is stored (or was already), false otherwise.
export async function saveRow(base) {
  const s = state.sample;
  if (!s || s.readonly) return false;
  const r = s.rows[state.sel];
  const res = await api('PUT', '/api/samples/' + encPath(s.sample_id) + '/rows/' + r.index,
    { base_version: base != null ? base : state.editBase, row: state.edit });
  if (res.status === 200) {
    r.version = res.data.version;
    r.row = JSON.parse(JSON.stringify(state.edit));
    r.mine = true;
    state.editBase = res.data.version;
    state.editOrig = JSON.stringify(r.row);
    state.pending = null;
    dropDraft(r.row_id);
    $('conflict').hidden = true;
    s.lint = s.lint.filter((x) => x.row !== r.index).concat(res.data.warnings || []);
    drawRows();
    showLint(res.data.warnings || []);
    markDrafts();
    // the status after the save, from the answer: the first save starts the review, and a
    // save reopens a reviewed or discarded sample (rescue_row_save); an unchanged one does
    // not. A reopening is read again with the sample, so its status history shows it, as
    // after a split or merge (segment.js).
    if (res.data.reopened) await openSample(s.sample_id, true);
    else if (res.data.status) {
      s.status = res.data.status; $('sample-status').textContent = s.status; $('sample-status').className = 'badge ' + s.status;
    }
    setMsg((res.data.unchanged ? 'nothing changed' : 'saved (version ' + res.data.version + ')' +
      ((res.data.warnings || []).length ? ' with ' + res.data.warnings.length + ' warning(s)' : '')) +
      (res.data.reopened ? '; ' + reopenedNote(res.data.reopened_from) : ''), true);
    return true;
  } else if (res.status === 409) {
    showConflict(res.data);
  } else if (res.status === 400 && res.data.findings) {
    showLint(res.data.findings);
    setMsg('not saved: ' + res.data.findings.filter((x) => x.severity === 'error').map((x) => x.rule + ' ' + x.reason).join('; '), false);
  } else {
    setMsg('not saved: ' + (res.data.error || res.status), false);
  }
  return false;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// The fields this edit changed, against the row it started from (state.editOrig).
function changedKeys() {
  const orig = JSON.parse(state.editOrig || '{}'), mine = state.edit;
  return [...new Set([...Object.keys(mine), ...Object.keys(orig)])].filter((k) => !same(mine[k], orig[k]));
}

function showConflict(d) {
  const mine = state.edit, theirs = d.row || {}, orig = JSON.parse(state.editOrig || '{}');
  const changed = changedKeys();
  const merged = JSON.parse(JSON.stringify(theirs));
  for (const k of changed) { if (mine[k] === undefined) delete merged[k]; else merged[k] = mine[k]; }
  state.pending = Object.assign({}, d, { merged });
  $('conflict-theirs-head').textContent = 'Saved meanwhile (version ' + d.version + ')';
  const rows = changed.filter((k) => !same(mine[k], theirs[k])).map((k) =>
    el('tr', {}, el('td', { text: k }), el('td', { class: 'changed mine-value', text: JSON.stringify(mine[k]) }), el('td', { class: 'changed theirs-value', text: JSON.stringify(theirs[k]) })));
  // fields only the other save changed: kept as saved, not labelled as an edit of yours
  for (const k of Object.keys(theirs).filter((k) => !changed.includes(k) && !same(theirs[k], orig[k])))
    rows.push(el('tr', { class: 'theirs-only' }, el('td', { text: k }), el('td', { class: 'muted', text: 'not edited by you: theirs is kept' }), el('td', { class: 'theirs-value', text: JSON.stringify(theirs[k]) })));
  $('conflict-rows').replaceChildren(...rows);
  $('conflict').hidden = false;
  setMsg('not saved: this row changed since you opened it', false);
}
$('keep-mine').addEventListener('click', () => {
  const d = state.pending;
  if (!d) return;
  state.edit = d.merged;
  state.editOrig = JSON.stringify(d.row || {});
  saveRow(d.version).then((ok) => { if (ok) drawForm(); });
});
$('take-theirs').addEventListener('click', () => {
  const d = state.pending, r = state.sample.rows[state.sel];
  if (!d) return;
  r.row = d.row; r.version = d.version; r.mine = true;
  state.pending = null;
  dropDraft(r.row_id);
  drawRows();
  selectRow(state.sel, false);
});
$('row-form').addEventListener('submit', (ev) => { ev.preventDefault(); saveRow(); });
