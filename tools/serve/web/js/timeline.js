// timeline.js: the time line of the whole sample above the row table, drawn in a canvas:
// the waveform (GET /api/samples/<id>/waveform: min/max per bucket, computed by the server
// from the sample's media), one lane per speaker with the rows on it, the playhead, zoom
// (the buttons, or the wheel over it; shift+wheel pans), a click to seek, and row
// boundaries to drag: a boundary two adjacent rows share moves both; a drop saves through
// the segmentation API ("times", one call per row), under its rules (a row starts at 0 or
// later and ends after it starts; a row saved since it was read is a conflict), and goes
// on the undo stack (undo.js).
//
// It stays in view while the form scrolls (app.css: sticky, --timeline-h set here). It
// redraws from an animation-frame loop only when what it shows changed (the sample,
// the selected row, the playhead, the view, its width), so other modules need not call it.
// The canvas carries its geometry in data-geometry (for the browser test and the benchmark).

import { api } from './api.js';
import { $, el, encPath } from './dom.js';
import { playRow, playhead, seekSample, video, wholeSample } from './player.js';
import { selectRow } from './rows.js';
import { openSample } from './sample.js';
import { state } from './state.js';
import { reopenedNote } from './segment.js';
import { recordSeg } from './undo.js';

const WAVE_H = 44, LANE_H = 17, AXIS_H = 16, GRAB_PX = 5, MIN_ROW = 0.05;

const canvas = el('canvas', { id: 'timeline-canvas', tabindex: '-1' });
const note = el('span', { id: 'timeline-note', class: 'muted' });
const zoomBtn = (text, title, f) => el('button', { type: 'button', text, title, onclick: f });
const box = el('div', { id: 'timeline', class: 'card timeline' },
  el('div', { class: 'timeline-bar' },
    zoomBtn('−', 'zoom out', () => zoom(2, null)), zoomBtn('+', 'zoom in', () => zoom(0.5, null)),
    zoomBtn('fit', 'the whole sample', () => { tl.fit = true; setView(0, total()); }), note),
  canvas);
(document.getElementById('row-tools') || document.querySelector('#view-sample .rows-wrap')).before(box);
// it sticks at the top of its column, the form's head below it (app.css): its height
if (window.ResizeObserver) new ResizeObserver(() => document.documentElement.style.setProperty('--timeline-h', box.offsetHeight + 'px')).observe(box);

const tl = {
  sample: null,   // the sample object drawn (a new GET is a new object)
  from: 0, to: 1, // the view, seconds of the sample
  wave: null,     // {from, to, min, max} for the view, or null
  waveFor: '',    // the request that wave answers
  waveTimer: 0,
  noWave: '',     // why there is no waveform ('' while there may be one)
  fit: true,      // the view is the whole sample (follows its length once the file's is known)
  drag: null,     // {t0, t, rows: [{i, key}], lo, hi}
  sig: '',
  version: 0,     // bumped for every sample object read (the drawn layer is redrawn)
};

// The sample's length: the waveform's file, else the last row's end.
function total() {
  const s = state.sample;
  let end = 0;
  for (const r of s ? s.rows : []) end = Math.max(end, Number(r.row.end_time) || 0);
  return Math.max(end, (tl.wave && tl.wave.duration) || 0, 1);
}

function setView(a, b) {
  const span = Math.max(0.5, b - a), T = total();
  a = Math.max(0, Math.min(a, T - Math.min(span, T)));
  tl.from = a;
  tl.to = a + Math.min(span, Math.max(T, span));
  loadWave();
}
// zoom by factor f around second t (null: the view's middle)
function zoom(f, t) {
  tl.fit = false;
  const c = t == null ? (tl.from + tl.to) / 2 : t, span = (tl.to - tl.from) * f;
  const k = (c - tl.from) / (tl.to - tl.from);
  setView(c - span * k, c - span * k + span);
}

function lanes() {
  const names = [];
  for (const r of state.sample.rows) {
    const n = r.row.primary_speaker || '?';
    if (!names.includes(n)) names.push(n);
  }
  return names;
}

// the canvas's width in CSS pixels, followed by a ResizeObserver (reading it every frame
// would force a layout in every frame while the page changes)
let seenWidth = 0;
if (window.ResizeObserver) new ResizeObserver((es) => { seenWidth = es[es.length - 1].contentRect.width; }).observe(canvas);
const width = () => Math.max(200, seenWidth || canvas.clientWidth || box.clientWidth - 24);
const xOf = (t) => ((t - tl.from) / (tl.to - tl.from)) * width();
const tOf = (x) => tl.from + (x / width()) * (tl.to - tl.from);

// Ask for the view's waveform, one bucket per pixel, shortly after the view settles.
function loadWave() {
  clearTimeout(tl.waveTimer);
  const s = state.sample;
  if (!s || tl.noWave) return;
  tl.waveTimer = setTimeout(async () => {
    const n = Math.min(4096, Math.round(width()));
    const q = '?buckets=' + n + '&from=' + tl.from.toFixed(3) + '&to=' + tl.to.toFixed(3);
    if (tl.waveFor === s.sample_id + q) return;
    const r = await api('GET', '/api/samples/' + encPath(s.sample_id) + '/waveform' + q);
    if (!state.sample || state.sample.sample_id !== s.sample_id) return;
    if (r.status === 200) {
      tl.wave = r.data;
      tl.waveFor = s.sample_id + q;
      if (tl.fit && Math.abs(tl.to - total()) > 0.01) setView(0, total()); // the file is longer than the rows
    } else {
      tl.wave = null;
      tl.noWave = r.data.error || String(r.status);
      note.textContent = 'no waveform: ' + tl.noWave;
    }
    tl.sig = '';
  }, tl.wave ? 120 : 0);
}

function newSample(s) {
  tl.version++;
  const keep = tl.sample && tl.sample.sample_id === s.sample_id;
  tl.sample = s;
  if (keep) return;
  tl.wave = null;
  tl.waveFor = '';
  tl.noWave = '';
  note.textContent = '';
  tl.fit = true;
  tl.from = 0;
  tl.to = total();
  loadWave();
}

// Everything but the playhead is drawn into this canvas, again only when it changes; each
// frame copies it and draws the playhead (the rows and the waveform cost too much to draw
// at every frame while a row plays).
const layer = document.createElement('canvas');
let layerSig = '';

function draw() {
  const s = state.sample, names = lanes(), w = width();
  const h = WAVE_H + names.length * LANE_H + AXIS_H, dpr = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    canvas.style.height = h + 'px';
  }
  let mine = 0, times = 0; // what a save may change in the rows drawn
  for (const r of s.rows) { if (r.mine) mine++; times += Number(r.row.start_time) * 3 + Number(r.row.end_time); }
  const sig = [s.sample_id, s.rows.length, mine, state.sel, tl.from, tl.to, w, dpr, names.join('|'), tl.drag ? tl.drag.t : '', tl.wave ? tl.waveFor : '', tl.version, times].join('/');
  if (sig !== layerSig || layer.width !== canvas.width || layer.height !== canvas.height) {
    layer.width = canvas.width;
    layer.height = canvas.height;
    drawLayer(layer.getContext('2d'), names, w, h, dpr);
    layerSig = sig;
  }
  const g = canvas.getContext('2d');
  g.setTransform(1, 0, 0, 1, 0, 0);
  g.clearRect(0, 0, canvas.width, canvas.height);
  g.drawImage(layer, 0, 0);
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  // the playhead
  if (!video().hidden && state.media) {
    const x = xOf(playhead());
    g.fillStyle = '#b3261e';
    g.fillRect(x, 0, 1.5, WAVE_H + names.length * LANE_H);
  }
}

// The waveform, the lanes with their rows and the axis, into g.
function drawLayer(g, names, w, h, dpr) {
  const s = state.sample;
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  // the waveform
  g.fillStyle = '#f0f3f7';
  g.fillRect(0, 0, w, WAVE_H);
  const wv = tl.wave, mid = WAVE_H / 2;
  if (wv && wv.min.length) {
    g.fillStyle = '#5b7fa6';
    const n = wv.min.length, bw = xOf(wv.to) - xOf(wv.from);
    for (let i = 0; i < n; i++) {
      const x = xOf(wv.from) + (i * bw) / n, y0 = mid - wv.max[i] * mid, y1 = mid - wv.min[i] * mid;
      g.fillRect(x, y0, Math.max(1, bw / n), Math.max(1, y1 - y0));
    }
  }
  // the lanes and their rows
  g.font = '11px system-ui, sans-serif';
  g.textBaseline = 'middle';
  names.forEach((n, k) => {
    const y = WAVE_H + k * LANE_H;
    g.fillStyle = k % 2 ? '#fafbfc' : '#f3f5f8';
    g.fillRect(0, y, w, LANE_H);
  });
  s.rows.forEach((r, i) => {
    const k = names.indexOf(r.row.primary_speaker || '?'), y = WAVE_H + k * LANE_H;
    let a = Number(r.row.start_time), b = Number(r.row.end_time);
    if (tl.drag) for (const d of tl.drag.rows) if (d.i === i) { if (d.key === 'start') a = tl.drag.t; else b = tl.drag.t; }
    if (b < tl.from || a > tl.to) return;
    const x0 = xOf(a), x1 = xOf(b), sel = i === state.sel;
    g.fillStyle = sel ? '#2f6fb0' : r.mine ? '#bfe3c8' : '#cddcec';
    g.fillRect(x0, y + 2, Math.max(1, x1 - x0), LANE_H - 4);
    g.fillStyle = '#23313f';
    g.fillRect(x0, y + 1, 1, LANE_H - 2);
    g.fillRect(x1 - 1, y + 1, 1, LANE_H - 2);
    if (x1 - x0 > 24) {
      g.fillStyle = sel ? '#fff' : '#23313f';
      g.fillText(String(r.index), x0 + 3, y + LANE_H / 2);
    }
  });
  names.forEach((n, k) => { // the lane's name on a light patch, over the rows
    const y = WAVE_H + k * LANE_H;
    g.fillStyle = 'rgba(255, 255, 255, 0.85)';
    g.fillRect(0, y + 2, g.measureText(n).width + 8, LANE_H - 4);
    g.fillStyle = '#66707a';
    g.fillText(n, 4, y + LANE_H / 2);
  });
  // the axis
  const ay = WAVE_H + names.length * LANE_H, step = niceStep((tl.to - tl.from) / 8);
  g.fillStyle = '#66707a';
  for (let t = Math.ceil(tl.from / step) * step; t <= tl.to; t += step) {
    const x = xOf(t);
    g.fillRect(x, ay, 1, 4);
    g.fillText(fmtT(t), x + 2, ay + 9);
  }
  canvas.dataset.geometry = JSON.stringify({ from: tl.from, to: tl.to, width: w, waveH: WAVE_H, laneH: LANE_H, lanes: names,
    wave: wv ? wv.min.length : 0 });
}

function niceStep(x) {
  for (const s of [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600]) if (s >= x) return s;
  return 7200;
}
const fmtT = (t) => (t >= 60 ? Math.floor(t / 60) + ':' + String(Math.floor(t % 60)).padStart(2, '0') : (Math.round(t * 10) / 10) + ' s');

// The boundary under (x, y): the rows whose start or end lies there (a shared one moves two).
function boundaryAt(x, y) {
  const s = state.sample, names = lanes(), k = Math.floor((y - WAVE_H) / LANE_H);
  if (k < 0 || k >= names.length) return null;
  let best = null;
  s.rows.forEach((r, i) => {
    if ((r.row.primary_speaker || '?') !== names[k]) return;
    for (const key of ['start', 'end']) {
      const t = Number(r.row[key + '_time']), d = Math.abs(xOf(t) - x);
      if (d <= GRAB_PX && (!best || d < best.d)) best = { d, i, key, t };
    }
  });
  if (!best) return null;
  const rows = [{ i: best.i, key: best.key }], j = best.key === 'end' ? best.i + 1 : best.i - 1, o = s.rows[j];
  const other = best.key === 'end' ? 'start' : 'end';
  if (o && Math.abs(Number(o.row[other + '_time']) - best.t) < 0.0015) rows.push({ i: j, key: other });
  // how far it may go: each moved row keeps at least MIN_ROW seconds
  let lo = 0, hi = Infinity;
  for (const d of rows) {
    const r = s.rows[d.i].row;
    if (d.key === 'start') hi = Math.min(hi, Number(r.end_time) - MIN_ROW);
    else lo = Math.max(lo, Number(r.start_time) + MIN_ROW);
  }
  return { t0: best.t, t: best.t, rows, lo, hi };
}

function rowAt(x, y) {
  const s = state.sample, names = lanes(), k = Math.floor((y - WAVE_H) / LANE_H), t = tOf(x);
  if (k < 0 || k >= names.length) return -1;
  return s.rows.findIndex((r) => (r.row.primary_speaker || '?') === names[k] && t >= Number(r.row.start_time) && t <= Number(r.row.end_time));
}

canvas.addEventListener('pointerdown', (ev) => {
  if (!state.sample) return;
  const x = ev.offsetX, y = ev.offsetY;
  const b = state.sample.readonly ? null : boundaryAt(x, y);
  if (b) {
    tl.drag = b;
    canvas.setPointerCapture(ev.pointerId);
    ev.preventDefault();
    return;
  }
  // a click seeks: inside the file that spans the sample, else by playing the row there
  const t = tOf(x), i = rowAt(x, y);
  if (i >= 0 && i !== state.sel) selectRow(i, false);
  if (!wholeSample() || !seekSample(t)) {
    const j = i >= 0 ? i : state.sample.rows.findIndex((r) => t >= Number(r.row.start_time) && t <= Number(r.row.end_time));
    if (j >= 0) { selectRow(j, false); playRow(); }
  }
  tl.sig = '';
});
canvas.addEventListener('pointermove', (ev) => {
  if (tl.drag) {
    tl.drag.t = Math.round(Math.max(tl.drag.lo, Math.min(tl.drag.hi, tOf(ev.offsetX))) * 1000) / 1000;
    tl.sig = '';
    return;
  }
  canvas.style.cursor = state.sample && !state.sample.readonly && boundaryAt(ev.offsetX, ev.offsetY) ? 'col-resize' : 'default';
});
canvas.addEventListener('pointerup', async () => {
  const d = tl.drag;
  if (!d) return;
  if (Math.abs(d.t - d.t0) < 0.001) { tl.drag = null; tl.sig = ''; return; }
  await saveBoundary(d);
});

// Save a dragged boundary: one "times" call per moved row; the sample is read again after.
async function saveBoundary(d) {
  const s = state.sample;
  let err = '', reopened = '';
  for (const m of d.rows) {
    const r = s.rows[m.i];
    const body = { op: 'times', row: r.index, base_version: r.version, start: Number(r.row.start_time), end: Number(r.row.end_time) };
    body[m.key] = d.t;
    const res = await api('POST', '/api/samples/' + encPath(s.sample_id) + '/segmentation', body);
    if (res.status !== 200) { err = 'row ' + r.index + ': ' + (res.data.error || res.status); break; }
    reopened = reopened || res.data.reopened_from || ''; // new times are a save: they reopen a reviewed sample
  }
  tl.drag = null;
  const moved = d.rows.map((m) => ({ id: s.rows[m.i].row_id, key: m.key }));
  // the sample is read again before the move is told and undoable: an undo right after
  // must start from the rows' new versions
  await openSample(s.sample_id, true);
  if (!err) recordSeg({ kind: 'boundary', from: d.t0, to: d.t, rows: moved });
  note.textContent = (err ? 'boundary not saved: ' + err : 'boundary moved to ' + d.t.toFixed(3) + ' s') +
    (reopened ? '; ' + reopenedNote(reopened) : '');
  note.className = err ? 'error' : 'muted';
  tl.sig = '';
  return !err;
}

canvas.addEventListener('wheel', (ev) => {
  if (!state.sample) return;
  ev.preventDefault();
  if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
    const dt = ((ev.deltaX || ev.deltaY) / width()) * (tl.to - tl.from);
    tl.fit = false;
    setView(tl.from + dt, tl.to + dt);
  } else {
    zoom(ev.deltaY > 0 ? 1.25 : 0.8, tOf(ev.offsetX));
  }
}, { passive: false });

// Keep the selected row in view, and redraw when anything drawn changed.
function tick() {
  requestAnimationFrame(tick);
  const s = state.sample;
  if (!s || $('view-sample').hidden) return;
  if (s !== tl.sample) newSample(s);
  const r = s.rows[state.sel];
  if (r && !tl.drag) {
    const a = Number(r.row.start_time), b = Number(r.row.end_time);
    if (b < tl.from || a > tl.to) { const span = tl.to - tl.from; setView(a - span * 0.1, a + span * 0.9); }
  }
  const sig = [s.sample_id, state.sel, playhead().toFixed(3), tl.from, tl.to, width(), tl.drag ? tl.drag.t : '', tl.wave ? tl.waveFor : ''].join('|');
  if (sig === tl.sig) return;
  tl.sig = sig;
  draw();
}
requestAnimationFrame(tick);
