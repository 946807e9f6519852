// curate.js: the lead's curation view (issue 23): the queue of samples with undecided
// values (GET /api/curate, filtered by state and id; j/k and Enter), and opening one: its
// curation state (GET /api/curate/<id>), each coder's row set for the segmentation step
// (GET /api/samples/<id>?view=<coder>) and the lead's own view (the media of its rows, the
// draft's row set while the lead has saved none of their own).

import { api } from './api.js';
import { $, el, encPath } from './dom.js';
import { cur, openGrid, playerSample } from './curate_grid.js';
import { showSeg } from './curate_seg.js';
import { state } from './state.js';
import { show } from './views.js';

let queue = [], qsel = 0;

// Curation is for leads: anyone else goes back to their work (the API answers them 403).
function notLead() {
  location.hash = '#/';
}

export async function showQueue() {
  if (!state.me || state.me.role !== 'lead') { notLead(); return; }
  const r = await api('GET', '/api/curate');
  if (r.status !== 200) { notLead(); return; }
  queue = r.data.samples;
  cur.id = null;
  state.sample = null;
  $('player').pause();
  $('cur-queue').hidden = false;
  $('cur-sample').hidden = true;
  show('curate');
  drawQueue();
}

function shown() {
  const f = $('cq-status').value, t = $('cq-text').value.trim().toLowerCase();
  return queue.filter((s) => (!f || (f === 'open' ? s.undecided > 0 : s.undecided === 0)) &&
    (!t || s.sample_id.toLowerCase().includes(t)));
}

function drawQueue() {
  const rows = shown();
  qsel = Math.max(0, Math.min(qsel, rows.length - 1));
  $('cq-count').textContent = rows.length + ' of ' + queue.length + ' samples';
  $('cq').tBodies[0].replaceChildren(...rows.map((s, i) => el('tr', { 'data-sample': s.sample_id, class: i === qsel ? 'selected' : '',
    onclick: () => { location.hash = '#/curate/' + encPath(s.sample_id); } },
    el('td', {}, el('a', { href: '#/curate/' + encPath(s.sample_id), text: s.sample_id })),
    el('td', { text: String(s.rows) }),
    el('td', { text: String(s.gold_rows) }),
    el('td', { class: s.undecided ? 'lint-w' : '', text: String(s.undecided) }),
    el('td', { text: String(s.values) }),
    el('td', { text: s.coders.join(', ') }))));
}
$('cq-status').addEventListener('change', drawQueue);
$('cq-text').addEventListener('input', drawQueue);

document.addEventListener('keydown', (ev) => {
  if ($('view-curate').hidden || $('cur-queue').hidden) return;
  const a = document.activeElement, k = ev.key;
  if (a && (a.tagName === 'INPUT' || a.tagName === 'SELECT')) {
    if (k === 'Escape') a.blur();
    if (k !== 'Enter' || a.tagName === 'SELECT') return; // Enter in the id filter opens the sample chosen
  }
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const rows = shown();
  if (k === 'j' || k === 'ArrowDown') qsel = Math.min(rows.length - 1, qsel + 1);
  else if (k === 'k' || k === 'ArrowUp') qsel = Math.max(0, qsel - 1);
  else if (k === '/') $('cq-text').focus();
  else if (k === 'Enter' && rows[qsel]) location.hash = '#/curate/' + encPath(rows[qsel].sample_id);
  else return;
  ev.preventDefault();
  drawQueue();
});

// The row set a view shows, as lanes draw it.
const spans = (rows) => rows.map((r) => ({ start: Number(r.row.start_time), end: Number(r.row.end_time), speaker: r.row.primary_speaker || '?' }));

// Each coder's row set: people and models through their view; the draft as the lead's own
// view shows it while the lead has saved nothing of their own.
async function loadLanes(id, mine) {
  const lanes = [];
  for (const c of cur.state.coders) {
    let rows = null;
    if (c.kind === 'draft') {
      if (mine && !mine.rows.some((r) => r.mine)) rows = spans(mine.rows);
    } else {
      const v = await api('GET', '/api/samples/' + encPath(id) + '?view=' + encodeURIComponent(c.name));
      if (v.status === 200) rows = spans(v.data.rows);
    }
    lanes.push({ name: c.name, kind: c.kind, rows });
  }
  return lanes;
}

export async function openCurate(id) {
  if (!state.me || state.me.role !== 'lead') { notLead(); return; }
  const r = await api('GET', '/api/curate/' + encPath(id));
  if (r.status !== 200) { alert(r.data.error || String(r.status)); location.hash = '#/curate'; return; }
  const mine = await api('GET', '/api/samples/' + encPath(id));
  Object.assign(cur, { id, state: r.data, mine: mine.status === 200 ? mine.data : null, row: 0, path: null, history: [], refused: {}, editing: false });
  cur.lanes = await loadLanes(id, cur.mine);
  $('cur-title').textContent = id;
  $('cur-msg').textContent = '';
  $('cur-queue').hidden = true;
  $('cur-sample').hidden = false;
  show('curate');
  playerSample();
  showSeg(openGrid);
}
