// keys.js: the keyboard of the sample view, as listed on the page. Enter (outside text
// fields) or Ctrl+Enter (anywhere) accepts the row and plays the next unreviewed one;
// j/k and the arrows move; u resumes; g goes to a row; / filters; f and Alt+arrows move
// between fields; digits pick a label in a focused label field; Escape leaves a field;
// Ctrl+Z/Ctrl+Y undo and redo; s splits at the playhead, [ and ] set the row's start and
// end to it; r replays; space plays the row
// (the first time) or pauses.

import { $ } from './dom.js';
import { acceptAndNext, resume, stepRow } from './flow.js';
import { LABEL_KEYS, flushForm } from './form.js';
import { playhead, playRow } from './player.js';
import { saveRow } from './save.js';
import { setTimeAtPlayhead, splitAtPlayhead } from './segment.js';
import { state } from './state.js';
import { redo, undo } from './undo.js';

const controls = () => [...document.querySelectorAll('#fields .field')].map((f) => f.querySelector('textarea, input, select, button')).filter(Boolean);

// Focus the field `dir` fields away from the focused one (the first one for dir 0).
function moveField(dir) {
  const list = controls(), at = document.activeElement && document.activeElement.closest ? document.activeElement.closest('.field') : null;
  let i = dir === 0 || !at ? 0 : list.findIndex((c) => c.closest('.field') === at) + dir;
  i = Math.max(0, Math.min(list.length - 1, i));
  if (list[i]) list[i].focus();
}

// A digit on a focused label field picks that label (1-9, then 0); Backspace/Delete clears.
function pickLabel(sel, key) {
  const opts = [...sel.options].map((o) => o.value).filter((v) => v !== '');
  let v = null;
  if (key === 'Backspace' || key === 'Delete') v = '';
  else if (LABEL_KEYS.includes(key) && LABEL_KEYS.indexOf(key) < opts.length) v = opts[LABEL_KEYS.indexOf(key)];
  if (v === null) return false;
  sel.value = v;
  sel.dispatchEvent(new Event('change', { bubbles: true }));
  return true;
}

function space() {
  const p = $('player'), r = state.sample.rows[state.sel];
  const past = r && playhead() >= Number(r.row.end_time) - 0.05;
  if (p.paused && (state.playedRow !== state.sel || past)) { state.playedRow = state.sel; playRow(); return; }
  if (p.paused) { const pr = p.play(); if (pr && pr.catch) pr.catch(() => {}); } else p.pause();
}

document.addEventListener('keydown', (ev) => {
  if ($('view-sample').hidden || !state.sample) return;
  flushForm(); // a key acts on the row's form: drawn now when it waits for the first frame
  const a = document.activeElement, tag = a && a.tagName;
  const typing = tag === 'TEXTAREA' || (tag === 'INPUT' && !/^(checkbox|radio|range|button|submit)$/.test(a.type));
  const inField = typing || tag === 'SELECT';
  const ctrl = ev.ctrlKey || ev.metaKey, k = ev.key;
  if (ctrl && k.toLowerCase() === 's') { ev.preventDefault(); saveRow(); return; }
  if (ctrl && k === 'Enter') { ev.preventDefault(); acceptAndNext(); return; }
  if (ev.altKey && (k === 'ArrowDown' || k === 'ArrowUp')) { ev.preventDefault(); moveField(k === 'ArrowDown' ? 1 : -1); return; }
  if (k === 'Escape' && a && a !== document.body) { a.blur(); return; }
  if (tag === 'SELECT' && a.dataset.labels && !ctrl && !ev.altKey && pickLabel(a, k)) { ev.preventDefault(); return; }
  if (ctrl && !typing && (k === 'z' || k === 'Z' || k === 'y')) {
    ev.preventDefault();
    if (k === 'y' || ev.shiftKey) redo(); else undo();
    return;
  }
  if (inField || ctrl || ev.altKey) return;
  if (k === 'Enter') {
    if (tag === 'BUTTON' || tag === 'A' || tag === 'SUMMARY') return; // their own action
    ev.preventDefault();
    acceptAndNext();
  } else if (k === 'j' || k === 'ArrowDown') { ev.preventDefault(); stepRow(1); }
  else if (k === 'k' || k === 'ArrowUp') { ev.preventDefault(); stepRow(-1); }
  else if (k === 'r') { ev.preventDefault(); state.playedRow = state.sel; playRow(); }
  else if (k === 'u') { ev.preventDefault(); resume(); }
  else if (k === 'g') { ev.preventDefault(); $('goto-row').value = ''; $('goto-row').focus(); }
  else if (k === '/') { ev.preventDefault(); $('filter-text').focus(); }
  else if (k === 'f') { ev.preventDefault(); moveField(0); }
  else if (k === 's') { ev.preventDefault(); splitAtPlayhead(); }
  else if (k === '[' || k === ']') { ev.preventDefault(); setTimeAtPlayhead(k === '[' ? 'start' : 'end'); }
  else if (k === ' ') { ev.preventDefault(); space(); }
});
