// curate_seg.js: the segmentation step of curation: each coder's row set (and the
// draft's) drawn as a lane on one time line, in SVG, one box per row coloured by speaker,
// the lane whose rows are the gold row set now marked gold. A key 1..9 (the coder's
// number, as in the grid's columns) or a click on a lane makes that row set gold (PUT
// /api/curate/<id>/segmentation); Enter keeps the gold row set there is (the same PUT,
// which writes the gold of the rows every coder agrees on); s in the grid
// comes back to this step.

import { api } from './api.js';
import { $, el, encPath, sv } from './dom.js';
import { cur, gold, playerSample, progress } from './curate_grid.js';

const LANE_H = 24, LABEL_W = 170, AXIS_H = 18;
const COLORS = ['#2f6fb0', '#b05a2f', '#4f8a3a', '#7a4fb0', '#9a6700', '#2f9aa0'];
let done = null;

// 1 when the lane's rows are the gold rows (every start and end within 10 ms).
function isGold(lane) {
  const g = cur.state.rows;
  return !!lane.rows && lane.rows.length === g.length && lane.rows.every((r, i) =>
    Math.abs(r.start - Number(gold(g[i], '/start_time'))) < 0.011 && Math.abs(r.end - Number(gold(g[i], '/end_time'))) < 0.011);
}

function draw() {
  const lanes = cur.lanes, w = Math.max(400, $('cur-lanes').clientWidth || 800);
  let T = 1;
  for (const l of lanes) for (const r of l.rows || []) T = Math.max(T, r.end);
  const speakers = [];
  for (const l of lanes) for (const r of l.rows || []) if (!speakers.includes(r.speaker)) speakers.push(r.speaker);
  const gs = cur.state.rows.map((r) => ({ start: Number(gold(r, '/start_time')), end: Number(gold(r, '/end_time')) }));
  const x = (t) => LABEL_W + (t / T) * (w - LABEL_W - 8), h = lanes.length * LANE_H + AXIS_H;
  const svg = sv('svg', { width: w, height: h, viewBox: '0 0 ' + w + ' ' + h, id: 'cur-lanes-svg' });
  lanes.forEach((l, i) => {
    const y = i * LANE_H, g = sv('g', { class: 'cur-lane' + (isGold(l) ? ' gold' : ''), 'data-coder': l.name });
    g.append(sv('rect', { x: 0, y: y + 1, width: w, height: LANE_H - 2, class: 'lane-bg' }));
    const label = (i + 1) + ' ' + l.name + (l.kind === 'model' ? ' (model)' : '') +
      (l.rows ? ' · ' + l.rows.length : '') + (isGold(l) ? ' · gold' : '');
    g.append(sv('text', { x: 4, y: y + 16 }, label));
    for (const r of l.rows || []) {
      // a row the gold row set does not have (times within 10 ms) is outlined
      const other = !gs.some((g) => Math.abs(g.start - r.start) < 0.011 && Math.abs(g.end - r.end) < 0.011);
      const box = sv('rect', { x: x(r.start), y: y + 4, width: Math.max(1, x(r.end) - x(r.start) - 1), height: LANE_H - 8,
        fill: COLORS[speakers.indexOf(r.speaker) % COLORS.length], class: 'seg-row' + (other ? ' seg-diff' : '') });
      box.append(sv('title', {}, r.speaker + ' ' + r.start.toFixed(2) + '–' + r.end.toFixed(2) + ' s'));
      g.append(box);
    }
    if (!l.rows) g.append(sv('text', { x: LABEL_W, y: y + 16, class: 'muted' }, l.kind === 'draft' ? 'not shown: your own view holds rows you saved' : 'no rows to show'));
    g.addEventListener('click', () => choose(i));
    svg.append(g);
  });
  for (let t = 0; t <= T; t += T > 120 ? 30 : 10)
    svg.append(sv('text', { x: x(t), y: h - 4 }, Math.floor(t / 60) + ':' + String(Math.round(t % 60)).padStart(2, '0')));
  $('cur-lanes').replaceChildren(svg, el('p', { class: 'muted', text: 'Speakers: ' + speakers.map((n, i) => n + ' (' + ['blue', 'orange', 'green', 'purple', 'brown', 'teal'][i % 6] + ')').join(', ') +
    '. Rows outlined in red are not in the gold row set, which has ' + cur.state.rows.length + ' rows now.' }));
  progress();
}

async function choose(i) {
  const l = cur.lanes[i];
  if (!l) return;
  // choosing the gold row set again keeps it: the PUT writes the gold of agreed rows
  $('cur-msg').textContent = 'choosing ' + l.name + "'s rows…";
  const r = await api('PUT', '/api/curate/' + encPath(cur.id) + '/segmentation', { from: l.name });
  if (r.status !== 200) {
    $('cur-msg').textContent = (r.data && r.data.error) || String(r.status);
    $('cur-msg').className = 'err';
    return;
  }
  cur.state = r.data;
  cur.row = 0;
  cur.path = null;
  $('cur-msg').textContent = l.name + "'s rows are the gold row set (" + r.data.rows.length + ' rows)';
  $('cur-msg').className = 'ok';
  playerSample();
  done();
}

export function showSeg(then) {
  done = then;
  cur.step = 'seg';
  $('cur-grid').hidden = true;
  $('cur-seg').hidden = false;
  draw();
}

document.addEventListener('keydown', (ev) => {
  if ($('view-curate').hidden || $('cur-sample').hidden || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const a = document.activeElement, k = ev.key;
  // s in the grid comes back here
  if (cur.step === 'grid' && k === 's' && !(a && /^(INPUT|TEXTAREA|SELECT)$/.test(a.tagName))) { ev.preventDefault(); showSeg(done); return; }
  if (cur.step !== 'seg') return;
  if (k >= '1' && k <= '9') { ev.preventDefault(); choose(Number(k) - 1); }
  else if (k === 'Enter') { ev.preventDefault(); const g = cur.lanes.findIndex(isGold); if (g >= 0) choose(g); else done(); }
  else if (k === 'q') { ev.preventDefault(); location.hash = '#/curate'; }
});
