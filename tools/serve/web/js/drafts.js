// drafts.js: edits not saved yet. Every change to the row being edited is kept as a draft
// of that row (by its stable row id) in the page and in localStorage, one entry per
// annotator and sample, until it is saved or discarded: leaving the row, another sample, a
// reload or a crash loses nothing. Sign-out clears the annotator's drafts (machines are
// shared); leaving the page with drafts of any sample asks first.

import { $ } from './dom.js';
import { state } from './state.js';
import { drawnRows, stateText } from './rows.js';

const PREFIX = 'rescue.drafts.';
let drafts = {}; // row_id -> {row, base, orig}: the edit, its base version, the row at that base

const storeKey = () => PREFIX + state.me.name + '|' + state.sample.sample_id;

// Load the signed-in annotator's drafts of the open sample (none in someone else's view).
export function loadDrafts() {
  drafts = {};
  if (!state.sample || state.sample.readonly) return;
  try { drafts = JSON.parse(localStorage.getItem(storeKey())) || {}; } catch (e) { drafts = {}; }
}

function persist() {
  const k = storeKey();
  if (Object.keys(drafts).length) localStorage.setItem(k, JSON.stringify(drafts));
  else localStorage.removeItem(k);
}

export const draftOf = (r) => (r ? drafts[r.row_id] || null : null);
export const draftCount = () => Object.keys(drafts).length;

// After any change of state.edit: keep it as the row's draft, or drop the draft when the
// edit is back to the row as it was.
export function noteEdit() {
  const s = state.sample;
  if (!s || s.readonly || state.editKey == null) return;
  const now = JSON.stringify(state.edit);
  if (now === state.editOrig) delete drafts[state.editKey];
  else drafts[state.editKey] = { row: JSON.parse(now), base: state.editBase, orig: state.editOrig };
  persist();
  markDrafts();
}

export function dropDraft(key) {
  if (!(key in drafts)) return;
  delete drafts[key];
  persist();
  markDrafts();
}

// Sign-out: forget every draft of this annotator in this browser.
export function clearDrafts(name) {
  for (let i = localStorage.length - 1; i >= 0; i--) {
    const k = localStorage.key(i);
    if (k && k.startsWith(PREFIX + name + '|')) localStorage.removeItem(k);
  }
  drafts = {};
}

// The visible marks: each row's state cell, the count in the sample's head, the form title.
export function markDrafts() {
  const s = state.sample;
  if (!s) return;
  const byIndex = new Map(s.rows.map((x) => [x.index, x]));
  for (const tr of drawnRows()) {
    const r = byIndex.get(Number(tr.dataset.index));
    if (!r) continue;
    const td = tr.querySelector('td.state');
    td.textContent = stateText(r);
    td.classList.toggle('unsaved', !!draftOf(r));
  }
  const n = draftCount();
  $('draft-count').hidden = n === 0;
  $('draft-count').textContent = n + ' unsaved draft' + (n === 1 ? '' : 's');
  const r = s.rows[state.sel];
  const mine = draftOf(r);
  $('discard-draft').hidden = !mine;
  if (r) $('form-title').textContent = 'Row ' + r.index + (mine ? ' (unsaved draft)' : r.mine ? ' (saved by ' + s.view + ')' : ' (draft)');
}

// Whether this annotator has unsaved drafts in this browser: of the open sample, or of any
// other sample (kept in localStorage when its page was left).
export function anyDrafts() {
  if (draftCount()) return true;
  if (!state.me) return false;
  for (let i = 0; i < localStorage.length; i++) {
    const k = localStorage.key(i);
    if (k && k.startsWith(PREFIX + state.me.name + '|') && localStorage.getItem(k) !== '{}') return true;
  }
  return false;
}

window.addEventListener('beforeunload', (ev) => {
  if (!anyDrafts()) return;
  ev.preventDefault();
  ev.returnValue = '';
});
