// curate_grid.js: the grid of curation, one gold row at a time: one line per value (a
// field, or one item or part of a list field: /internal_emotion/Alan/intensity), one
// column per coder (the draft and models marked) numbered as their keys, the gold value
// with where it came from, differing values highlighted, the coders' comments on the row.
// A decision (PUT /api/curate/<id>/rows/<n>): 1..9 or a click takes that coder's value,
// Enter edits the gold value in place, u or Ctrl+Z undoes the last decision. The server
// lints every decision: a refusal's reason is shown next to its cell; a 409 reloads the
// row's state and says so. n/p (j/k) move between disagreements, the arrows between the
// row's lines; the row plays through js/player.js; a bar shows decided and undecided.

import { api } from './api.js';
import { $, el, encPath } from './dom.js';
import { playRow, setupPlayer, video } from './player.js';
import { state } from './state.js';

// the open sample: its id, curation state, the lead's own view (media, cues, the draft's
// rows), the lanes of the segmentation step, the focused row (0-based) and value (path),
// this session's decisions (undo), refusals by "row path", the step shown
export const cur = { id: null, state: null, mine: null, lanes: [], row: 0, path: null, history: [], refused: {}, editing: false, step: null };

const valueOf = (r, path) => r.values.find((v) => v.path === path);
// a gold value of row r (parsed), or undefined
export function gold(r, path) {
  const v = valueOf(r, path);
  return v ? v.gold : undefined;
}

// The file and span the player is given for a gold row: a file spanning the whole sample
// (review copy, segment) from any row of the lead's view, else the clip of a row with the
// same times.
function mediaFor(a, b) {
  const rows = cur.mine ? cur.mine.rows : [];
  const whole = rows.find((r) => r.media && r.media.kind !== 'clip');
  if (whole) {
    const m = whole.media, off = Number(m.offset) || 0;
    return { path: m.path, kind: m.kind, offset: off, start: a - off, end: b - off };
  }
  const same = rows.find((r) => r.media && Math.abs(r.row.start_time - a) < 0.01 && Math.abs(r.row.end_time - b) < 0.01);
  return same ? same.media : null;
}

// The player's sample: the gold rows with their media (named apart, so the review page
// loads its own sample when it is opened next).
export function playerSample() {
  state.sample = {
    sample_id: 'curate:' + cur.id,
    readonly: true,
    cues: cur.mine ? cur.mine.cues || [] : [],
    rows: cur.state.rows.map((r) => {
      const a = Number(gold(r, '/start_time')), b = Number(gold(r, '/end_time'));
      return { row: { start_time: a, end_time: b, primary_speaker: gold(r, '/primary_speaker') }, media: mediaFor(a, b) };
    }),
  };
  state.sel = Math.min(cur.row, state.sample.rows.length - 1);
  setupPlayer();
}

function play() {
  if (!state.sample || !state.sample.rows[cur.row]) return;
  state.sel = cur.row;
  state.playedRow = cur.row;
  playRow();
}

const show = (v) => (v === undefined ? '' : v === null ? '—' : typeof v === 'string' ? v : JSON.stringify(v));
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const label = (path) => path.slice(1).split('/').join(' › ');
const coderHead = (c, i) => (i < 9 ? i + 1 + ' ' : '') + (c.kind === 'draft' ? 'the draft' : c.name + (c.kind === 'model' ? ' (model)' : c.kind === 'lead' ? ' (lead)' : ''));

function provText(p, by) {
  if (!p) return '';
  const at = p.at ? ' ' + p.at.replace('T', ' ').replace(/(:\d\d)(\.\d+)?Z?$/, '$1') : '';
  if (p.how === 'taken') return 'taken from ' + p.from + (p.by ? ' by ' + p.by : '') + at;
  if (p.how === 'edited') return 'edited by ' + (p.by || by || '?') + at;
  if (p.how === 'policy' && p.policy === 'segmentation') return 'segmentation of ' + (p.from || '?');
  if (p.how === 'policy') return 'policy ' + (p.policy || '') + at;
  if (p.how === 'agreed') return 'agreed by all coders';
  return p.how;
}

// every disagreement (a value the coders differ on, or one undecided) as [row, path]
function disagreements() {
  const out = [];
  cur.state.rows.forEach((r, i) => { for (const v of r.values) if (v.differ || !v.decided) out.push([i, v.path]); });
  return out;
}
const isUndecided = (i, path) => { const v = valueOf(cur.state.rows[i], path); return v && !v.decided; };

// The next (dir 1) or previous (-1) disagreement after the focused value; undecidedOnly:
// only those still undecided. Moves the focus; 0 when there is none.
function step(dir, undecidedOnly) {
  const all = disagreements().filter(([i, p]) => !undecidedOnly || isUndecided(i, p));
  if (!all.length) return 0;
  const order = (i, p) => i * 10000 + cur.state.rows[i].values.findIndex((v) => v.path === p);
  const here = cur.path ? order(cur.row, cur.path) : -1;
  let k = dir > 0 ? all.findIndex(([i, p]) => order(i, p) > here) : all.map(([i, p]) => order(i, p) < here).lastIndexOf(true);
  if (k < 0) k = dir > 0 ? 0 : all.length - 1;
  focus(all[k][0], all[k][1]);
  return 1;
}

function focus(i, path) {
  const moved = i !== cur.row;
  cur.row = i;
  cur.path = path;
  cur.editing = false;
  draw();
  if (moved) play();
}

export function progress() {
  let values = 0, undecided = 0, goldRows = 0;
  for (const r of cur.state.rows) { values += r.values.length; undecided += r.undecided; goldRows += r.gold_version ? 1 : 0; }
  const bar = document.querySelector('#cur-progress .progress > span');
  bar.style.width = (values ? Math.round((100 * (values - undecided)) / values) : 0) + '%';
  // a row nobody disagrees on gets its gold when the segmentation is chosen or kept (s, Enter)
  const quiet = cur.state.rows.filter((r) => !r.gold_version && !r.undecided).length;
  $('cur-progress-text').textContent = (values - undecided) + ' of ' + values + ' values decided, ' + undecided + ' undecided · ' +
    goldRows + ' of ' + cur.state.rows.length + ' rows gold' +
    (!undecided && quiet ? ' (' + quiet + ' rows the coders agree on entirely: s, then Enter, keeps the segmentation and writes their gold)' : '');
  $('cur-progress').dataset.undecided = String(undecided);
}

function drawRowHead(r) {
  $('cur-rownav').replaceChildren(...cur.state.rows.map((x, i) => el('button', {
    type: 'button', class: 'cur-rowbtn' + (i === cur.row ? ' on' : '') + (x.undecided ? ' open' : x.gold_version ? ' gold' : ''),
    title: 'row ' + x.row + ': ' + x.undecided + ' undecided', text: String(x.row),
    onclick: () => focus(i, (x.values.find((v) => !v.decided) || x.values.find((v) => v.differ) || x.values[0]).path),
  })));
  const a = Number(gold(r, '/start_time')), b = Number(gold(r, '/end_time'));
  $('cur-rowtext').replaceChildren(el('span', { class: 'spk', text: show(gold(r, '/primary_speaker')) + ' ' }),
    el('span', { class: 'muted', text: a.toFixed(2) + '–' + b.toFixed(2) + ' s · row ' + r.row + ' of ' + cur.state.rows.length +
      ' · ' + r.undecided + ' undecided' + (r.gold_version ? ' · gold version ' + r.gold_version : '') + ' ' }),
    el('button', { type: 'button', text: 'play (r)', onclick: play }), ' ',
    el('div', { text: show(gold(r, '/dialogue_cleaned')) }));
}

function drawComments(r) {
  const list = r.comments || [];
  $('cur-comments').hidden = !list.length;
  $('cur-comments').querySelector('ul').replaceChildren(...list.map((c) => el('li', {},
    el('div', { class: 'meta', text: (c.annotator || '?') + ' · ' + (c.created_at || '') }), c.text)));
}

// the gold cell: the value (or the editor), its provenance, a refusal's reason
function goldCell(r, v) {
  const td = el('td', { class: 'gold' + (v.decided ? '' : ' undecided') });
  if (cur.editing && v.path === cur.path) {
    const first = v.decided ? v.gold : (v.coders.find((c) => c.present) || {}).value;
    const input = el('input', { type: 'text', class: 'cur-edit', value: show(first === undefined ? '' : first) });
    input.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') { ev.preventDefault(); ev.stopPropagation(); busy(() => commitEdit(v, input.value)); }
      else if (ev.key === 'Escape') { ev.preventDefault(); ev.stopPropagation(); cur.editing = false; draw(); }
    });
    td.append(input);
    editor = input;
  } else {
    td.append(el('div', { class: 'val', text: v.decided ? show(v.gold) : 'undecided', title: v.decided ? show(v.gold) : '' }));
  }
  if (v.differ || !v.decided || (v.provenance && v.provenance.how !== 'agreed')) td.append(el('div', { class: 'prov', text: provText(v.provenance) }));
  const why = cur.refused[r.row + ' ' + v.path];
  if (why) td.append(el('div', { class: 'cur-refusal lint-msg', role: 'alert', text: why }));
  td.addEventListener('dblclick', () => { focus(cur.row, v.path); cur.editing = true; draw(); });
  return td;
}

// a coder's column head; where their values come from another row of theirs (aligned to
// this gold row as adjudication aligns: greatest overlap, one to one), that row's times
function coderTh(r, c, i) {
  const al = (r.aligned || []).find((x) => x.coder === c.name);
  if (!al) return el('th', { class: 'coder ' + c.kind, text: coderHead(c, i) });
  const span = al.start_time.toFixed(2) + '–' + al.end_time.toFixed(2) + ' s';
  return el('th', { class: 'coder aligned ' + c.kind, 'data-row-id': String(al.row_id), title: c.name + "'s row " + al.row_id + ' (' + span + '), aligned with this gold row' },
    coderHead(c, i), el('div', { class: 'muted', text: 'their row ' + span }));
}

// the in-place editor drawn last (focused once it is in the page)
let editor = null;

function draw() {
  const s = cur.state, r = s.rows[cur.row];
  if (!r) return;
  if (!cur.path || !valueOf(r, cur.path)) cur.path = (r.values.find((v) => !v.decided) || r.values.find((v) => v.differ) || r.values[0]).path;
  drawRowHead(r);
  $('cur-table').tHead.replaceChildren(el('tr', {}, el('th', { text: 'Field' }), el('th', { text: 'Gold (where it came from)' }),
    ...s.coders.map((c, i) => coderTh(r, c, i))));
  $('cur-table').tBodies[0].replaceChildren(...r.values.map((v) => {
    const tr = el('tr', { 'data-path': v.path, class: (v.differ ? 'differ' : 'agreed') + (v.decided ? '' : ' undecided') + (v.path === cur.path ? ' focus' : '') },
      el('td', { class: 'field-name', text: label(v.path) }), goldCell(r, v));
    v.coders.forEach((c, i) => {
      const off = v.differ && (v.decided ? !same(c.value, v.gold) : true);
      const text = !c.has_row ? '(no row)' : !c.present ? '(none)' : show(c.value);
      const td = el('td', { class: 'coder-val' + (off ? ' off' : '') + (v.decided && c.present && same(c.value, v.gold) ? ' chosen' : ''), title: text, text });
      td.addEventListener('click', () => { focus(cur.row, v.path); busy(() => take(i)); });
      tr.append(td);
    });
    tr.firstChild.addEventListener('click', () => focus(cur.row, v.path));
    return tr;
  }));
  drawComments(r);
  progress();
  if (editor) { editor.focus(); editor.select(); editor = null; }
  // the focused line in view inside the table's own scroller (the page stays put)
  const f = $('cur-table').querySelector('tr.focus'), wrap = $('cur-table-wrap');
  if (f) {
    const head = $('cur-table').tHead.offsetHeight, top = f.offsetTop - head, bottom = f.offsetTop + f.offsetHeight;
    if (top < wrap.scrollTop) wrap.scrollTop = top;
    else if (bottom > wrap.scrollTop + wrap.clientHeight) wrap.scrollTop = bottom - wrap.clientHeight;
  }
}

function say(text, ok) {
  $('cur-msg').textContent = text;
  $('cur-msg').className = ok ? 'ok' : 'err';
}

// Replace row n's state with the one the server sent.
function putRow(row) {
  const i = cur.state.rows.findIndex((x) => x.row === row.row);
  if (i >= 0) cur.state.rows[i] = row;
}

// Run a decision; the grid carries data-busy until it is answered and drawn.
async function busy(f) {
  $('cur-grid').dataset.busy = '1';
  try { await f(); } finally { delete $('cur-grid').dataset.busy; }
}

// Send one decision on the focused row; returns 1 when it was stored.
async function decide(path, body, what) {
  const r = cur.state.rows[cur.row], key = r.row + ' ' + path;
  const res = await api('PUT', '/api/curate/' + encPath(cur.id) + '/rows/' + r.row, Object.assign({ base_version: r.version, field: path }, body));
  if (res.status === 200) {
    delete cur.refused[key];
    putRow(res.data.state.rows[0]);
    say('row ' + r.row + ' ' + label(path) + ': ' + what + (res.data.gold_version ? ' · row ' + r.row + ' is gold (version ' + res.data.gold_version + ')' : ''), true);
    return 1;
  }
  if (res.status === 409 && res.data.state) {
    putRow(res.data.state.rows[0]);
    say((res.data.error || 'row ' + r.row + ' changed') + ' · row ' + r.row + ' reloaded: nothing was decided, look again', false);
  } else if (res.status === 400) {
    const f = res.data.findings || [];
    cur.refused[key] = 'refused: ' + (f.length ? f.filter((x) => x.severity === 'error').map((x) => x.rule + ' ' + x.reason).join('; ') : res.data.error);
    say('row ' + r.row + ' ' + label(path) + ': refused, see the reason next to it', false);
  } else {
    say((res.data && res.data.error) || 'the server answered ' + res.status, false);
  }
  draw();
  return 0;
}

async function take(i) {
  const c = cur.state.coders[i], path = cur.path;
  if (!c || !path) return;
  if (await decide(path, { take: c.name }, 'taken from ' + c.name)) {
    cur.history.push({ row: cur.row, path });
    if (!step(1, true)) draw();
  }
}

async function commitEdit(v, text) {
  const strings = v.coders.every((c) => !c.present || c.value === null || typeof c.value === 'string');
  let value = text;
  if (!strings) { try { value = JSON.parse(text); } catch (e) { value = text; } }
  cur.editing = false;
  const path = v.path;
  if (await decide(path, { value }, 'edited to ' + show(value))) {
    cur.history.push({ row: cur.row, path });
    if (!step(1, true)) draw();
  }
}

async function undoLast() {
  const h = cur.history.length ? cur.history[cur.history.length - 1] : { row: cur.row, path: cur.path };
  if (!h.path) return;
  cur.row = h.row;
  cur.path = h.path;
  if (await decide(h.path, { undo: true }, 'decision undone')) {
    if (cur.history.length) cur.history.pop();
    draw();
    play();
  }
}

// the row's lines, one up or down
function line(dir) {
  const vs = cur.state.rows[cur.row].values, i = vs.findIndex((v) => v.path === cur.path);
  cur.path = vs[Math.max(0, Math.min(vs.length - 1, i + dir))].path;
  draw();
}

export function openGrid() {
  cur.step = 'grid';
  $('cur-seg').hidden = true;
  $('cur-grid').hidden = false;
  if (!cur.path) {
    const d = disagreements().find(([i, p]) => isUndecided(i, p)) || disagreements()[0];
    if (d) { cur.row = d[0]; cur.path = d[1]; }
  }
  draw();
  play();
}

document.addEventListener('keydown', async (ev) => {
  if ($('view-curate').hidden || $('cur-sample').hidden || cur.step !== 'grid' || !cur.state) return;
  const a = document.activeElement, k = ev.key, ctrl = ev.ctrlKey || ev.metaKey;
  if (a && (a.tagName === 'INPUT' || a.tagName === 'TEXTAREA' || a.tagName === 'SELECT')) return;
  if ($('cur-grid').dataset.busy) { ev.preventDefault(); return; } // one decision at a time
  if (ctrl && (k === 'z' || k === 'Z')) { ev.preventDefault(); await busy(undoLast); return; }
  if (ctrl || ev.altKey) return;
  if (a && a.tagName === 'BUTTON' && (k === 'Enter' || k === ' ')) return;
  if (k >= '1' && k <= '9') { ev.preventDefault(); await busy(() => take(Number(k) - 1)); }
  else if (k === 'n' || k === 'j') { ev.preventDefault(); step(1, false); }
  else if (k === 'p' || k === 'k') { ev.preventDefault(); step(-1, false); }
  else if (k === 'ArrowDown' || k === 'ArrowUp') { ev.preventDefault(); line(k === 'ArrowDown' ? 1 : -1); }
  else if (k === 'Enter') { ev.preventDefault(); cur.editing = true; draw(); }
  else if (k === 'u') { ev.preventDefault(); await busy(undoLast); }
  else if (k === 'r') { ev.preventDefault(); play(); }
  else if (k === ' ') { ev.preventDefault(); const p = video(); if (p.paused) { const pr = p.play(); if (pr && pr.catch) pr.catch(() => {}); } else p.pause(); }
  else if (k === 'q') { ev.preventDefault(); location.hash = '#/curate'; }
});
