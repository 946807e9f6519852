// sample.js: the sample view: loading a sample (one annotator's view, and a second one to
// compare with), its comments and status history, adding a comment, and the lead's
// choice of whose view to show and compare.

import { api } from './api.js';
import { $, el, encPath } from './dom.js';
import { loadDrafts } from './drafts.js';
import { firstUnreviewed, fillSpeakers } from './flow.js';
import { setupPlayer } from './player.js';
import { drawRows, selectRow } from './rows.js';
import { state } from './state.js';
import { resetHistory } from './undo.js';
import { show } from './views.js';

export async function openSample(id, keepSel) {
  const view = state.viewName && state.viewName !== state.me.name ? '?view=' + encodeURIComponent(state.viewName) : '';
  const r = await api('GET', '/api/samples/' + encPath(id) + view);
  if (r.status !== 200) { alert(r.data.error); return; }
  const s = r.data;
  const switched = !state.sample || state.sample.sample_id !== s.sample_id;
  state.sample = s;
  state.other = null;
  if (state.compareName) {
    const o = await api('GET', '/api/samples/' + encPath(id) + '?view=' + encodeURIComponent(state.compareName));
    if (o.status === 200) state.other = o.data;
  }
  $('sample-title').textContent = s.sample_id;
  $('sample-status').textContent = s.status;
  $('sample-status').className = 'badge ' + s.status;
  $('sample-view-note').textContent = s.readonly ? 'read-only: ' + s.view + "'s view" : '';
  for (const b of document.querySelectorAll('#segment-tools button, #status-tools button, #comment-tools button, #save-btn'))
    b.disabled = s.readonly;
  if (switched) { setupPlayer(); resetHistory(); fillSpeakers(); }
  loadDrafts();
  drawComments();
  show('sample'); // first: the row table draws the rows its box shows
  drawRows();
  // a sample opens at the first row not reviewed yet (space then plays it)
  if (!keepSel || state.sel >= s.rows.length) state.sel = keepSel ? 0 : firstUnreviewed();
  selectRow(state.sel, false);
}

function drawComments() {
  const s = state.sample;
  $('comments').replaceChildren(...s.comments.map((c) => el('li', {},
    el('div', { class: 'meta', text: (c.row ? 'row ' + c.row : 'sample') + ' · ' + (c.annotator || '?') + ' · ' + c.created_at }), c.text)));
  $('history').replaceChildren(...s.history.map((h) => el('li', {},
    el('span', { class: 'meta', text: h.created_at + ' · ' + (h.annotator || '?') + ': ' }), h.status + (h.reason ? ' (' + h.reason + ')' : ''))));
}

$('comment-btn').addEventListener('click', async () => {
  const s = state.sample, text = $('comment-text').value.trim();
  if (!text) return;
  const body = { text };
  if (!$('comment-sample').checked) body.row = s.rows[state.sel].index;
  const res = await api('POST', '/api/samples/' + encPath(s.sample_id) + '/comments', body);
  $('comment-msg').textContent = res.status === 200 ? 'comment added' : (res.data.error || String(res.status));
  if (res.status === 200) { $('comment-text').value = ''; await openSample(s.sample_id, true); }
});

// lead: whose view, and compare with whom
export async function leadControls() {
  const lead = state.me && state.me.role === 'lead';
  document.querySelector('.lead-only').hidden = !lead;
  if (!lead || state.people) return;
  const r = await api('GET', '/api/dashboard');
  state.people = r.status === 200 ? r.data.people.map((p) => p.name) : [];
  $('view-select').replaceChildren(...state.people.map((n) => el('option', { value: n, text: n })));
  $('view-select').value = state.me.name;
  $('compare-select').replaceChildren(el('option', { value: '', text: 'nobody' }), ...state.people.map((n) => el('option', { value: n, text: n })));
}
$('view-select').addEventListener('change', () => { state.viewName = $('view-select').value; openSample(state.sample.sample_id, true); });
$('compare-select').addEventListener('change', () => { state.compareName = $('compare-select').value || null; openSample(state.sample.sample_id, true); });
