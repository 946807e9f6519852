// flow.js: moving through a sample fast: accept the row as reviewed and go on to the next
// unreviewed row, which plays (one key, keys.js); resume at the first unreviewed row; go to
// a row by number; the row filter (speaker, text, lint errors, not yet reviewed).

import { $, el } from './dom.js';
import { dropDraft } from './drafts.js';
import { setMsg } from './form.js';
import { drawRows, markSelected, rowVisible, selectRow } from './rows.js';
import { saveRow } from './save.js';
import { state } from './state.js';

// Index of the first row after `from` (wrapping round) that the filter shows and that is
// not reviewed yet, or -1.
export function nextUnreviewed(from) {
  const rows = state.sample.rows, n = rows.length;
  for (let k = 1; k <= n; k++) {
    const i = (from + k) % n;
    if (!rows[i].mine && rowVisible(rows[i])) return i;
  }
  return -1;
}
export const firstUnreviewed = () => Math.max(0, nextUnreviewed(state.sample.rows.length - 1));

// The next (dir 1) or previous (dir -1) row the filter shows, from the selected one.
export function stepRow(dir) {
  const rows = state.sample.rows;
  for (let i = state.sel + dir; i >= 0 && i < rows.length; i += dir)
    if (rowVisible(rows[i])) { selectRow(i, true); return; }
}

let accepting = false;
// Accept the row as shown (saved as it is: unchanged, or with the edit in the form), then
// select and play the next unreviewed row.
export async function acceptAndNext() {
  const s = state.sample;
  if (!s || s.readonly || accepting) return;
  accepting = true;
  try {
    const at = state.sel;
    if (!(await saveRow())) return;
    const next = nextUnreviewed(at);
    if (next < 0) { drawRows(); selectRow(at, false); setMsg('every row is reviewed', true); return; }
    if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur();
    selectRow(next, true);
  } finally {
    accepting = false;
  }
}
$('accept-btn').addEventListener('click', acceptAndNext);

export function resume() {
  const i = nextUnreviewed(state.sample.rows.length - 1);
  if (i < 0) { setMsg('every row is reviewed', true); return; }
  selectRow(i, true);
}
$('resume-btn').addEventListener('click', resume);

// Go to the row numbered n (as the table shows it), and play it.
function gotoRow() {
  const n = Number($('goto-row').value), i = state.sample.rows.findIndex((r) => r.index === n);
  if (i < 0) { setMsg('no row ' + $('goto-row').value, false); return; }
  $('goto-row').blur();
  selectRow(i, true);
}
$('goto-row').addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter') { ev.preventDefault(); ev.stopPropagation(); gotoRow(); }
});

// The speakers of the open sample in the filter's menu.
export function fillSpeakers() {
  const names = [...new Set(state.sample.rows.map((r) => r.row.primary_speaker).filter(Boolean))].sort();
  $('filter-speaker').replaceChildren(el('option', { value: '', text: 'any speaker' }), ...names.map((n) => el('option', { value: n, text: n })));
  state.filter = null;
  for (const id of ['filter-text']) $(id).value = '';
  for (const id of ['filter-lint', 'filter-todo']) $(id).checked = false;
}

function applyFilter() {
  const f = { speaker: $('filter-speaker').value, text: $('filter-text').value.trim(), lint: $('filter-lint').checked, todo: $('filter-todo').checked };
  state.filter = f.speaker || f.text || f.lint || f.todo ? f : null;
  drawRows();
  markSelected();
}
$('filter-speaker').addEventListener('change', applyFilter);
$('filter-text').addEventListener('input', applyFilter);
$('filter-lint').addEventListener('change', applyFilter);
$('filter-todo').addEventListener('change', applyFilter);

// Throw the selected row's draft away: the form shows the row as saved.
$('discard-draft').addEventListener('click', () => {
  const r = state.sample.rows[state.sel];
  dropDraft(r.row_id);
  selectRow(state.sel, false);
  setMsg('draft discarded', true);
});
