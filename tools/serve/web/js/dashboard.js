// dashboard.js: the leads' dashboard: counts, progress per annotator, agreement per field,
// label distributions and relation-pattern transitions, drawn as inline SVG.

import { api } from './api.js';
import { $, el, sv } from './dom.js';
import { show } from './views.js';

function barChart(title, entries, opts) {
  const w = (opts && opts.width) || 420, bh = 16, lw = 170, max = Math.max(1, ...entries.map((e) => e[1]));
  const svg = sv('svg', { width: w, height: 22 + entries.length * (bh + 4), role: 'img', 'aria-label': title });
  svg.append(sv('text', { x: 0, y: 12, 'font-weight': 600 }, title));
  entries.forEach(([name, v, label], i) => {
    const y = 20 + i * (bh + 4), bw = ((w - lw - ((opts && opts.labelw) || 50)) * v) / max;
    svg.append(sv('text', { x: lw - 6, y: y + 12, 'text-anchor': 'end' }, name));
    svg.append(sv('rect', { x: lw, y, width: Math.max(0, bw), height: bh, fill: (opts && opts.color) || '#2f6fb0', rx: 2 }));
    svg.append(sv('text', { x: lw + bw + 4, y: y + 12 }, label != null ? label : String(v)));
  });
  return svg;
}

function agreementChart(fields) {
  const w = 500, lw = 170, rowh = 20, plot = w - lw - 100;
  const svg = sv('svg', { width: w, height: 34 + fields.length * rowh, role: 'img', 'aria-label': 'agreement per field' });
  const x = (a) => lw + ((Math.max(-1, Math.min(1, a)) + 1) / 2) * plot;
  for (const t of [-1, -0.5, 0, 0.5, 0.667, 0.8, 1]) {
    svg.append(sv('line', { x1: x(t), x2: x(t), y1: 14, y2: 20 + fields.length * rowh, stroke: t === 0.8 || t === 0.667 ? '#9bd3a8' : '#e3e8ee' }));
    if (t !== 0.667) svg.append(sv('text', { x: x(t), y: 10, 'text-anchor': 'middle' }, String(t)));
  }
  fields.forEach((f, i) => {
    const y = 26 + i * rowh;
    svg.append(sv('text', { x: lw - 6, y: y + 4, 'text-anchor': 'end' }, f.field));
    if (f.alpha == null) {
      const txt = f.share_identical != null ? 'free text: ' + Math.round(100 * f.share_identical) + '% identical, token F1 ' + (f.token_f1 != null ? f.token_f1.toFixed(2) : '–')
        : f.status.replace(/_/g, ' ');
      svg.append(sv('text', { x: lw + 4, y: y + 4, fill: '#66707a' }, txt));
      return;
    }
    if (f.ci && f.ci.low != null && f.ci.high != null)
      svg.append(sv('line', { x1: x(f.ci.low), x2: x(f.ci.high), y1: y, y2: y, stroke: '#2f6fb0', 'stroke-width': 2 }));
    svg.append(sv('circle', { cx: x(f.alpha), cy: y, r: 4, fill: '#23313f' }));
    svg.append(sv('text', { x: w - 90, y: y + 4 }, f.alpha.toFixed(2) + (f.ci && f.ci.low == null ? ' (no interval)' : '')));
  });
  return svg;
}

function heatmap(title, t) {
  const n = t.labels.length, cell = 26, lw = 170, top = 140;
  const svg = sv('svg', { width: lw + n * cell + 130, height: top + n * cell + 10, role: 'img', 'aria-label': title });
  svg.append(sv('text', { x: 0, y: 12, 'font-weight': 600 }, title + ' (' + t.transitions + ' transitions; row = from)'));
  t.labels.forEach((l, j) => {
    const tx = lw + j * cell + cell / 2;
    svg.append(sv('text', { x: tx, y: top - 6, transform: 'rotate(-60 ' + tx + ' ' + (top - 6) + ')' }, l));
    svg.append(sv('text', { x: lw - 6, y: top + j * cell + cell / 2 + 4, 'text-anchor': 'end' }, l));
  });
  t.probabilities.forEach((row, i) => row.forEach((p, j) => {
    const shade = Math.round(255 - 200 * p);
    svg.append(sv('rect', { x: lw + j * cell, y: top + i * cell, width: cell - 1, height: cell - 1, fill: 'rgb(' + shade + ',' + shade + ',255)' }));
    if (t.counts[i][j]) svg.append(sv('text', { x: lw + j * cell + cell / 2, y: top + i * cell + cell / 2 + 4, 'text-anchor': 'middle' }, String(t.counts[i][j])));
  }));
  return svg;
}

export async function showDashboard() {
  const r = await api('GET', '/api/dashboard');
  if (r.status !== 200) { alert(r.data.error); return; }
  const d = r.data;
  const card = (label, n) => el('div', { class: 'card' }, el('div', { class: 'num', text: String(n) }), el('div', { class: 'muted', text: label }));
  $('dash-cards').replaceChildren(card('samples (not discarded)', d.samples), card('prepared (with rows)', d.prepared),
    card('rows', d.rows), card('rows in reviewed samples', d.rows_reviewed), card('rows remaining', d.rows_remaining),
    card('discarded samples', d.status.discarded || 0),
    card('commented samples', d.commented_samples == null ? '–' : d.commented_samples));
  $('dash-people').replaceChildren(barChart('rows saved (of rows assigned)', d.people.map((p) => [p.name, p.rows_saved,
    p.rows_saved + (p.assigned_rows ? ' / ' + p.assigned_rows : '') + (p.assigned ? ' rows; ' + p.reviewed + '/' + p.assigned + ' samples reviewed' : '')]), { width: 620, labelw: 230 }));
  const ag = d.agreement;
  $('dash-agree').replaceChildren(ag && ag.fields ? agreementChart(ag.fields) : el('p', { class: 'muted', text: 'no agreement data' }),
    el('p', { class: 'muted', text: ag && ag.coders ? 'coders: ' + ag.coders.join(', ') + '; samples: ' + ag.samples : '' }));
  const labels = [];
  const ld = d.stats && d.stats.label_distributions;
  for (const scen of ['couple', 'family']) {
    if (!ld || !ld[scen] || !ld[scen].samples) continue;
    for (const f of ['utterance_type', 'support_strategy', 'relation_pattern', 'intensity']) {
      const dist = ld[scen][f];
      if (!dist || !dist.total) continue;
      labels.push(barChart(scen + ': ' + f.replace(/_/g, ' ') + ' (' + dist.total + ')', Object.entries(dist.counts).map(([k, v]) => [k, v]), { color: scen === 'couple' ? '#2f6fb0' : '#8a4fb0' }));
    }
  }
  $('dash-labels').replaceChildren(...(labels.length ? labels : [el('p', { class: 'muted', text: 'no labels yet' })]));
  const tr = d.stats && d.stats.relation_transitions;
  const maps = [];
  for (const scen of ['couple', 'family']) if (tr && tr[scen] && tr[scen].transitions) maps.push(heatmap(scen, tr[scen]));
  $('dash-trans').replaceChildren(...(maps.length ? maps : [el('p', { class: 'muted', text: 'no relation transitions yet' })]));
  show('dashboard');
}
