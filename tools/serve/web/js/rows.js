// rows.js: the row table of the sample view (times, speaker, target, text, saved state,
// lint marks, differences from the compared view), the row filter, and selecting a row
// (which opens the row's unsaved draft when there is one).

import { $, el, fmt } from './dom.js';
import { draftOf, markDrafts } from './drafts.js';
import { snapEdit } from './undo.js';
import { drawForm } from './form.js';
import { drawCues, playRow } from './player.js';
import { state } from './state.js';

function lintOf(index) {
  const f = state.sample.lint.filter((x) => x.row === index);
  return { e: f.filter((x) => x.severity === 'error'), w: f.filter((x) => x.severity === 'warning') };
}

function differingFields(a, b) {
  if (!a || !b) return [];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

// The text of a row's state cell: saved by me, an unsaved draft, or where its version came from.
export function stateText(r) {
  return (draftOf(r) ? 'unsaved ✎' : r.mine ? 'saved' : r.origin !== 'own' ? r.origin : 'draft') + (r.seg_changed ? ' ⚑' : '');
}

// Whether the row filter (state.filter: speaker, text, lint errors, not yet reviewed) shows row r.
export function rowVisible(r) {
  const f = state.filter;
  if (!f) return true;
  if (f.speaker && r.row.primary_speaker !== f.speaker) return false;
  if (f.text && !(r.row.dialogue_cleaned || '').toLowerCase().includes(f.text.toLowerCase())) return false;
  if (f.lint && !lintOf(r.index).e.length) return false;
  if (f.todo && r.mine && !draftOf(r)) return false;
  return true;
}

export function drawRows() {
  const s = state.sample;
  $('rows').tBodies[0].replaceChildren(...s.rows.map((r, i) => {
    const row = r.row, l = lintOf(r.index);
    const other = state.other && state.other.rows[i] ? state.other.rows[i].row : null;
    const diff = differingFields(row, other);
    const tr = el('tr', { 'data-index': r.index, class: diff.length ? 'differs' : '', title: diff.length ? 'differs from ' + state.compareName + ': ' + diff.join(', ') : '' },
      el('td', { text: String(r.index) }),
      el('td', { text: fmt(row.start_time) + '–' + fmt(row.end_time) }),
      el('td', { text: row.primary_speaker || '' }),
      el('td', { text: Array.isArray(row.target) ? row.target.join(', ') : '' }),
      el('td', { class: 'text', text: row.dialogue_cleaned || '' }),
      el('td', { class: 'state ' + (r.mine ? 'mine' : 'draft'), title: r.seg_changed ? "someone else's resegmentation changed this row: review it" : r.origin !== 'own' ? 'your version, carried over from the row it came from (' + r.origin + ')' : '',
        text: stateText(r) }),
      el('td', {}, l.e.length ? el('span', { class: 'lint-e', title: l.e.map((x) => x.rule + ' ' + x.field + ': ' + x.reason).join('\n'), text: l.e.length + '✗' }) : null,
        l.w.length ? el('span', { class: 'lint-w', title: l.w.map((x) => x.rule + ' ' + x.field + ': ' + x.reason).join('\n'), text: ' ' + l.w.length + '!' }) : null));
    tr.addEventListener('click', () => selectRow(i, true));
    tr.hidden = !rowVisible(r);
    return tr;
  }));
  markDrafts();
  const shown = s.rows.filter(rowVisible).length, todo = s.rows.filter((r) => !r.mine).length;
  $('row-count').textContent = (shown < s.rows.length ? shown + ' shown of ' : '') + s.rows.length + ' rows, ' + todo + ' not reviewed';
}

export function selectRow(i, play) {
  const s = state.sample;
  if (!s || !s.rows.length) return;
  state.sel = Math.max(0, Math.min(s.rows.length - 1, i));
  const r = s.rows[state.sel];
  for (const tr of $('rows').tBodies[0].rows) tr.classList.toggle('selected', Number(tr.dataset.index) === r.index);
  const tr = $('rows').tBodies[0].rows[state.sel];
  if (tr && tr.scrollIntoView) tr.scrollIntoView({ block: 'nearest' });
  if (play) playRow(); // first: the seek runs while the form is drawn
  const d = draftOf(r);
  state.edit = JSON.parse(JSON.stringify(d ? d.row : r.row));
  state.editBase = d ? d.base : r.version;
  state.editOrig = d ? d.orig : JSON.stringify(r.row);
  state.editKey = r.row_id;
  $('conflict').hidden = true;
  $('save-msg').textContent = '';
  $('save-msg').className = '';
  drawForm();
  snapEdit();
  markDrafts();
  drawCues();
  state.playedRow = play ? state.sel : null;
}
