// save.js: saving the edited row (a new version on the version the page showed), and the
// conflict panel when someone saved it meanwhile (keep mine / take theirs).

import { api } from './api.js';
import { $, el, encPath } from './dom.js';
import { setMsg, showLint } from './form.js';
import { drawRows, selectRow } from './rows.js';
import { state } from './state.js';

export async function saveRow(base) {
  const s = state.sample;
  if (!s || s.readonly) return;
  const r = s.rows[state.sel];
  const res = await api('PUT', '/api/samples/' + encPath(s.sample_id) + '/rows/' + r.index,
    { base_version: base != null ? base : state.editBase, row: state.edit });
  if (res.status === 200) {
    r.version = res.data.version;
    r.row = JSON.parse(JSON.stringify(state.edit));
    r.mine = true;
    state.editBase = res.data.version;
    $('conflict').hidden = true;
    s.lint = s.lint.filter((x) => x.row !== r.index).concat(res.data.warnings || []);
    drawRows();
    for (const tr of $('rows').tBodies[0].rows) tr.classList.toggle('selected', Number(tr.dataset.index) === r.index);
    showLint(res.data.warnings || []);
    setMsg(res.data.unchanged ? 'nothing changed' : 'saved (version ' + res.data.version + ')' +
      ((res.data.warnings || []).length ? ' with ' + res.data.warnings.length + ' warning(s)' : ''), true);
    $('form-title').textContent = 'Row ' + r.index + ' (saved by ' + s.view + ')';
    if (s.status === 'new') { s.status = 'in_review'; $('sample-status').textContent = s.status; $('sample-status').className = 'badge in_review'; }
  } else if (res.status === 409) {
    showConflict(res.data);
  } else if (res.status === 400 && res.data.findings) {
    showLint(res.data.findings);
    setMsg('not saved: ' + res.data.findings.filter((x) => x.severity === 'error').map((x) => x.rule + ' ' + x.reason).join('; '), false);
  } else {
    setMsg('not saved: ' + (res.data.error || res.status), false);
  }
}

function showConflict(d) {
  state.pending = d;
  const mine = state.edit, theirs = d.row || {};
  const keys = [...new Set([...Object.keys(mine), ...Object.keys(theirs)])];
  $('conflict-theirs-head').textContent = 'Saved meanwhile (version ' + d.version + ')';
  $('conflict-rows').replaceChildren(...keys.filter((k) => JSON.stringify(mine[k]) !== JSON.stringify(theirs[k])).map((k) =>
    el('tr', {}, el('td', { text: k }), el('td', { class: 'changed mine-value', text: JSON.stringify(mine[k]) }), el('td', { class: 'changed theirs-value', text: JSON.stringify(theirs[k]) }))));
  $('conflict').hidden = false;
  setMsg('not saved: this row changed since you opened it', false);
}
$('keep-mine').addEventListener('click', () => { if (state.pending) saveRow(state.pending.version); });
$('take-theirs').addEventListener('click', () => {
  const d = state.pending, r = state.sample.rows[state.sel];
  if (!d) return;
  r.row = d.row; r.version = d.version; r.mine = true;
  state.pending = null;
  drawRows();
  selectRow(state.sel, false);
});
$('row-form').addEventListener('submit', (ev) => { ev.preventDefault(); saveRow(); });
