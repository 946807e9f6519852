// rows.js: the row table of the sample view (times, speaker, target, text, saved state,
// lint marks, differences from the compared view), the row filter, and selecting a row
// (which opens the row's unsaved draft when there is one).
//
// The table draws only the rows in its scrolled box plus MARGIN rows above and below (a
// sample may have hundreds): each row is one line of a fixed height (app.css), and the
// table's top and bottom margins stand for the rows not drawn, so the box scrolls over the
// whole sample. #rows carries data-rows (the sample's rows) and data-shown (those the
// filter shows); the time line (timeline.js) still draws every row.

import { $, el, fmt } from './dom.js';
import { draftOf, markDrafts } from './drafts.js';
import { snapEdit } from './undo.js';
import { drawForm, drawFormSoon } from './form.js';
import { drawCues, keepSpareForNext, playRow, video } from './player.js';
import { state } from './state.js';

const MARGIN = 30;  // rows drawn beyond each edge of the box
let rowH = 21;      // px, one table row (measured once drawn)
let lintBy = null;  // row index -> {e, w}: the sample's lint findings by row
let lintFor = null; // the lint array lintBy was made from
let list = [];      // positions in state.sample.rows of the rows the filter shows
let drawn = '';     // the window drawn: "first:last:generation"
let gen = 0;        // bumped when the rows' content may have changed

const table = () => $('rows');
const wrap = () => $('rows').parentElement;

function lintOf(index) {
  const s = state.sample;
  if (lintFor !== s.lint) {
    lintBy = new Map();
    for (const x of s.lint) {
      if (!lintBy.has(x.row)) lintBy.set(x.row, { e: [], w: [] });
      if (x.severity === 'error') lintBy.get(x.row).e.push(x);
      else if (x.severity === 'warning') lintBy.get(x.row).w.push(x);
    }
    lintFor = s.lint;
  }
  return lintBy.get(index) || { e: [], w: [] };
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

// The table row of sample row i (its position in state.sample.rows).
function rowTr(i) {
  const s = state.sample, r = s.rows[i], row = r.row, l = lintOf(r.index);
  const other = state.other && state.other.rows[i] ? state.other.rows[i].row : null;
  const diff = differingFields(row, other);
  const text = row.dialogue_cleaned || '';
  const tr = el('tr', { 'data-index': r.index, class: (diff.length ? 'differs' : '') + (i === state.sel ? ' selected' : ''), title: diff.length ? 'differs from ' + state.compareName + ': ' + diff.join(', ') : '' },
    el('td', { text: String(r.index) }),
    el('td', { text: fmt(row.start_time) + '–' + fmt(row.end_time) }),
    el('td', { text: row.primary_speaker || '' }),
    el('td', { text: Array.isArray(row.target) ? row.target.join(', ') : '' }),
    el('td', { class: 'text', text, title: text }),
    el('td', { class: 'state ' + (r.mine ? 'mine' : 'draft') + (draftOf(r) ? ' unsaved' : ''), title: r.seg_changed ? "someone else's resegmentation changed this row: review it" : r.origin !== 'own' ? 'your version, carried over from the row it came from (' + r.origin + ')' : '',
      text: stateText(r) }),
    el('td', {}, l.e.length ? el('span', { class: 'lint-e', title: l.e.map((x) => x.rule + ' ' + x.field + ': ' + x.reason).join('\n'), text: l.e.length + '✗' }) : null,
      l.w.length ? el('span', { class: 'lint-w', title: l.w.map((x) => x.rule + ' ' + x.field + ': ' + x.reason).join('\n'), text: ' ' + l.w.length + '!' }) : null));
  tr.addEventListener('click', () => selectRow(i, true));
  return tr;
}

// Where the box is scrolled and how tall it is, as last seen (read on scroll, so drawing
// the table never waits for a layout).
const box = { top: 0, height: 112, head: 22 };

// Draw the rows of the list that fall in the box (plus the margins); force: even when the
// same window is drawn already.
function drawWindow(force) {
  const t = table(), top = Math.max(0, box.top - box.head), seen = box.height || 10 * rowH;
  const first = Math.max(0, Math.min(Math.floor(top / rowH) - MARGIN, list.length - Math.ceil(seen / rowH) - 2 * MARGIN));
  const last = Math.min(list.length, Math.max(0, first) + Math.ceil(seen / rowH) + 2 * MARGIN);
  const key = first + ':' + last + ':' + gen;
  if (!force && key === drawn) return;
  drawn = key;
  const trs = [];
  for (let k = Math.max(0, first); k < last; k++) trs.push(rowTr(list[k]));
  t.style.marginTop = Math.max(0, first) * rowH + 'px';
  t.style.marginBottom = (list.length - last) * rowH + 'px';
  t.tBodies[0].replaceChildren(...trs);
}
// Read the box's scroll position and size (layout is clean in a scroll event or an
// animation frame), the rows' height as drawn (fonts differ between machines), and draw
// the window there.
function measure() {
  const w = wrap(), t = table(), tr = t.tBodies[0].rows[0];
  box.top = w.scrollTop;
  if (w.clientHeight) box.height = w.clientHeight;
  if (t.tHead && t.tHead.offsetHeight) box.head = t.tHead.offsetHeight;
  if (tr && tr.offsetHeight && Math.abs(tr.offsetHeight - rowH) > 0.5) { rowH = tr.offsetHeight; drawn = ''; }
  if (state.sample && list.length) drawWindow(false);
}
let pending = 0;
function onScroll() {
  if (pending || !state.sample) return;
  pending = requestAnimationFrame(() => { pending = 0; measure(); });
}
wrap().addEventListener('scroll', onScroll, { passive: true });

// The table rows drawn now (the window), for marks that change without a redraw.
export const drawnRows = () => [...table().tBodies[0].rows];

export function drawRows() {
  const s = state.sample;
  gen++;
  list = [];
  s.rows.forEach((r, i) => { if (rowVisible(r)) list.push(i); });
  table().dataset.rows = String(s.rows.length);
  table().dataset.shown = String(list.length);
  drawWindow(true);
  markDrafts();
  let todo = 0;
  for (const r of s.rows) if (!r.mine) todo++;
  const shown = list.length;
  $('row-count').textContent = (shown < s.rows.length ? shown + ' shown of ' : '') + s.rows.length + ' rows, ' + todo + ' not reviewed';
}

// Scroll the box so that sample row i is in it (when the filter shows it) and draw the
// window there; at the next frame (one layout for everything drawn meanwhile) the box is
// scrolled and the row brought into view on the page.
let revealing = 0;
function revealRow(i) {
  const k = list.indexOf(i);
  if (k < 0) return;
  const y = k * rowH;
  if (y < box.top) box.top = y;
  else if (y + rowH + box.head > box.top + box.height) box.top = y + rowH + box.head - box.height;
  drawWindow(false);
  if (revealing) return;
  revealing = requestAnimationFrame(() => {
    revealing = 0;
    if (!state.sample) return;
    const w = wrap(), want = box.top;
    if (Math.abs(w.scrollTop - want) > 0.5) w.scrollTop = want;
    measure();
    const tr = table().querySelector('tbody tr.selected');
    if (tr && tr.scrollIntoView) tr.scrollIntoView({ block: 'nearest' });
  });
}

// Mark the selected row in the window drawn.
export function markSelected() {
  const s = state.sample, at = s && s.rows[state.sel] ? s.rows[state.sel].index : null;
  for (const tr of drawnRows()) tr.classList.toggle('selected', Number(tr.dataset.index) === at);
}

export function selectRow(i, play) {
  const s = state.sample;
  if (!s || !s.rows.length) return;
  state.sel = Math.max(0, Math.min(s.rows.length - 1, i));
  const r = s.rows[state.sel];
  if (play) playRow(); // first: the seek runs while the table is drawn
  else keepSpareForNext();
  revealRow(state.sel);
  markSelected();
  const d = draftOf(r);
  state.edit = JSON.parse(JSON.stringify(d ? d.row : r.row));
  state.editBase = d ? d.base : r.version;
  state.editOrig = d ? d.orig : JSON.stringify(r.row);
  state.editKey = r.row_id;
  $('conflict').hidden = true;
  $('save-msg').textContent = '';
  $('save-msg').className = '';
  if (play && r.media) drawFormSoon(video()); // the first frame first
  else drawForm();
  snapEdit();
  markDrafts();
  drawCues();
  state.playedRow = play ? state.sel : null;
}
