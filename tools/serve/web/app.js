// app.js: the review page. Plain JavaScript, no libraries: sign-in, "my work", the sample
// view (rows, player, cues, a form built from the scheme, save with conflict and lint
// handling, segmentation, status), and the leads' dashboard drawn as inline SVG.
'use strict';

const state = {
  me: null,          // {name, role, csrf}
  scheme: null,
  sample: null,      // GET /api/samples/<id>
  other: null,       // a second view to compare with (leads)
  sel: 0,            // selected row (0-based)
  edit: null,        // the row object being edited
  editBase: 0,       // its base version
  stopAt: null,      // pause the player here
  clipOffset: 0,     // seconds of the sample where the loaded clip starts
  pending: null,     // the conflict's current version
};

const $ = (id) => document.getElementById(id);
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v === true) e.setAttribute(k, '');
    else if (v !== false && v != null) e.setAttribute(k, v);
  }
  for (const k of kids) if (k != null) e.append(k);
  return e;
}
const SVG = 'http://www.w3.org/2000/svg';
function sv(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text != null) e.textContent = text;
  return e;
}
const encPath = (p) => p.split('/').map(encodeURIComponent).join('/');
const fmt = (t) => (typeof t === 'number' ? t.toFixed(2) : '');

async function api(method, path, body) {
  const opt = { method, headers: {}, credentials: 'same-origin' };
  if (body !== undefined) {
    opt.headers['Content-Type'] = 'application/json';
    opt.body = JSON.stringify(body);
  }
  if (method !== 'GET' && state.me) opt.headers['X-CSRF-Token'] = state.me.csrf;
  const r = await fetch(path, opt);
  let data = null;
  try { data = await r.json(); } catch (e) { data = { error: 'the server sent no JSON' }; }
  if (r.status === 401 && path !== '/api/login') { state.me = null; show('signin'); }
  return { status: r.status, data };
}

function show(name) {
  for (const v of document.querySelectorAll('.view')) v.hidden = v.id !== 'view-' + name;
  const signed = !!state.me;
  $('nav').hidden = !signed;
  $('signout').hidden = !signed;
  $('who').textContent = signed ? state.me.name + ' (' + state.me.role + ')' : '';
  $('nav-dashboard').hidden = !(signed && state.me.role === 'lead');
}

// ---- sign-in ----

$('signin-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  $('signin-error').textContent = '';
  const r = await api('POST', '/api/login', { token: $('token').value.trim() });
  if (r.status !== 200) { $('signin-error').textContent = r.data.error || 'sign-in failed'; return; }
  state.me = r.data;
  $('token').value = '';
  route();
});

$('signout').addEventListener('click', async () => {
  await api('POST', '/api/logout');
  state.me = null;
  location.hash = '#/';
  show('signin');
});

// ---- my work ----

let workList = [];
async function showWork() {
  const r = await api('GET', '/api/samples');
  if (r.status !== 200) return;
  workList = r.data.samples;
  const groups = [...new Set(workList.map((s) => s.group))].sort();
  const g = $('f-group'), keep = g.value;
  g.replaceChildren(el('option', { value: '', text: 'any' }), ...groups.map((x) => el('option', { text: x })));
  g.value = groups.includes(keep) ? keep : '';
  drawWork();
  show('work');
}
function drawWork() {
  const fs = $('f-status').value, fc = $('f-scenario').value, fg = $('f-group').value;
  const rows = workList.filter((s) => (!fs || s.status === fs) && (!fc || s.scenario === fc) && (!fg || s.group === fg));
  $('samples').tBodies[0].replaceChildren(...rows.map((s) => {
    const pct = s.rows ? Math.round((100 * s.mine) / s.rows) : 0;
    const bar = el('span', { class: 'progress', title: pct + '%' }, el('span'));
    bar.firstChild.style.width = pct + '%';
    return el('tr', { 'data-sample': s.sample_id },
      el('td', {}, el('a', { href: '#/sample/' + encPath(s.sample_id), text: s.sample_id })),
      el('td', { text: s.scenario }),
      el('td', {}, el('span', { class: 'badge ' + s.status, text: s.status })),
      el('td', {}, bar, ' ' + s.mine + ' / ' + s.rows + ' rows'),
      el('td', { text: s.assignees || '' }));
  }));
  $('work-empty').hidden = rows.length > 0;
}
for (const id of ['f-status', 'f-scenario', 'f-group']) $(id).addEventListener('change', drawWork);

// ---- the sample view ----

function labelset(name, scenario) {
  const sets = state.scheme.labelsets.filter((l) => l.name === name);
  return (sets.find((l) => l.scenario === scenario) || sets.find((l) => !l.scenario) || { labels: [] }).labels.map((l) => l.name);
}

async function openSample(id, keepSel) {
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
  if (switched) setupPlayer();
  drawComments();
  drawRows();
  if (!keepSel || state.sel >= s.rows.length) state.sel = 0;
  selectRow(state.sel, false);
  show('sample');
}

function setupPlayer() {
  const s = state.sample, p = $('player');
  state.clipOffset = 0;
  if (s.segment) { p.src = '/clips/' + encPath(s.segment); p.hidden = false; $('no-media').hidden = true; }
  else if (s.rows.some((r) => r.clip)) { p.removeAttribute('src'); p.hidden = false; $('no-media').hidden = true; }
  else { p.removeAttribute('src'); p.load(); p.hidden = true; $('no-media').hidden = false; }
}

function lintOf(index) {
  const f = state.sample.lint.filter((x) => x.row === index);
  return { e: f.filter((x) => x.severity === 'error'), w: f.filter((x) => x.severity === 'warning') };
}

function differingFields(a, b) {
  if (!a || !b) return [];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

function drawRows() {
  const s = state.sample;
  $('rows').tBodies[0].replaceChildren(...s.rows.map((r, i) => {
    const row = r.row, l = lintOf(r.index);
    const other = state.other && state.other.rows[i] ? state.other.rows[i].row : null;
    const diff = differingFields(row, other);
    const tr = el('tr', { 'data-index': r.index, class: diff.length ? 'differs' : '', title: diff.length ? 'differs from ' + state.compareName + ': ' + diff.join(', ') : '' },
      el('td', { text: String(r.index) }),
      el('td', { text: fmt(row.start_time) + '–' + fmt(row.end_time) }),
      el('td', { text: row.primary_speaker || '' }),
      el('td', { text: Array.isArray(row.target) ? row.target.join(', ') : '' }),
      el('td', { class: 'text', text: row.dialogue_cleaned || '' }),
      el('td', { class: 'state ' + (r.mine ? 'mine' : 'draft'), title: r.seg_changed ? "someone else's resegmentation changed this row: review it" : r.origin !== 'own' ? 'your version, carried over from the row it came from (' + r.origin + ')' : '',
        text: (r.mine ? 'saved' : r.origin !== 'own' ? r.origin : 'draft') + (r.seg_changed ? ' ⚑' : '') }),
      el('td', {}, l.e.length ? el('span', { class: 'lint-e', title: l.e.map((x) => x.rule + ' ' + x.field + ': ' + x.reason).join('\n'), text: l.e.length + '✗' }) : null,
        l.w.length ? el('span', { class: 'lint-w', title: l.w.map((x) => x.rule + ' ' + x.field + ': ' + x.reason).join('\n'), text: ' ' + l.w.length + '!' }) : null));
    tr.addEventListener('click', () => selectRow(i, true));
    return tr;
  }));
}

function selectRow(i, play) {
  const s = state.sample;
  if (!s || !s.rows.length) return;
  state.sel = Math.max(0, Math.min(s.rows.length - 1, i));
  const r = s.rows[state.sel];
  for (const tr of $('rows').tBodies[0].rows) tr.classList.toggle('selected', Number(tr.dataset.index) === r.index);
  const tr = $('rows').tBodies[0].rows[state.sel];
  if (tr && tr.scrollIntoView) tr.scrollIntoView({ block: 'nearest' });
  state.edit = JSON.parse(JSON.stringify(r.row));
  state.editBase = r.version;
  $('conflict').hidden = true;
  $('save-msg').textContent = '';
  $('save-msg').className = '';
  $('form-title').textContent = 'Row ' + r.index + (r.mine ? ' (saved by ' + s.view + ')' : ' (draft)');
  drawForm();
  drawCues();
  if (play) playRow();
}

function playRow() {
  const s = state.sample, r = s.rows[state.sel], p = $('player');
  const start = Number(r.row.start_time) || 0, end = Number(r.row.end_time) || start;
  if (s.segment) {
    state.clipOffset = 0;
    state.stopAt = end;
    p.currentTime = start;
  } else if (r.clip) {
    const src = '/clips/' + encPath(r.clip);
    if (!p.src.endsWith(src)) p.src = src;
    state.clipOffset = start;
    state.stopAt = null;
    p.currentTime = 0;
  } else {
    return;
  }
  const pr = p.play();
  if (pr && pr.catch) pr.catch(() => {});
}
$('player').addEventListener('timeupdate', () => {
  const p = $('player');
  if (state.stopAt != null && p.currentTime >= state.stopAt) { p.pause(); state.stopAt = null; }
  drawCues();
});
const playhead = () => state.clipOffset + $('player').currentTime;

function drawCues() {
  const s = state.sample;
  if (!s) return;
  const r = s.rows[state.sel];
  if (!r) return;
  const a = Number(r.row.start_time), b = Number(r.row.end_time), t = playhead();
  const cues = s.cues.filter((c) => c.end > a && c.start < b);
  $('cues').replaceChildren(...(cues.length ? cues.map((c) => el('div', { class: 'cue' + (t >= c.start && t < c.end ? ' now' : '') },
    c.speaker ? el('span', { class: 'spk', text: c.speaker + ':' }) : null, c.text)) : [el('div', { class: 'muted', text: s.cues.length ? 'no subtitle cue in this span' : 'no subtitles stored' })]));
}

function drawComments() {
  const s = state.sample;
  $('comments').replaceChildren(...s.comments.map((c) => el('li', {},
    el('div', { class: 'meta', text: (c.row ? 'row ' + c.row : 'sample') + ' · ' + (c.annotator || '?') + ' · ' + c.created_at }), c.text)));
  $('history').replaceChildren(...s.history.map((h) => el('li', {},
    el('span', { class: 'meta', text: h.created_at + ' · ' + (h.annotator || '?') + ': ' }), h.status + (h.reason ? ' (' + h.reason + ')' : ''))));
}

// ---- the form, built from the scheme ----

function entityOptions(current) {
  const ents = state.sample.entities.slice();
  if (current && !ents.includes(current)) ents.push(current);
  return ents;
}

function inputFor(f, value, set, path) {
  const scen = state.sample.scenario;
  let inp;
  switch (f.type) {
  case 'number': case 'int': {
    inp = el('input', { type: 'number', step: f.key === 'intensity' ? '1' : 'any', 'data-path': path });
    if (f.min != null) inp.min = f.min;
    if (f.max != null) inp.max = f.max;
    inp.value = typeof value === 'number' ? String(value) : '';
    inp.addEventListener('input', () => {
      const v = inp.value.trim();
      set(v === '' ? null : Number(v));
      if (rng) rng.value = inp.value;
    });
    let rng = null;
    if (f.key === 'intensity') {
      rng = el('input', { type: 'range', min: '0', max: '10', step: '1' });
      rng.value = inp.value || '0';
      rng.addEventListener('input', () => { inp.value = rng.value; set(Number(rng.value)); });
      return el('span', { class: 'intensity' }, rng, inp);
    }
    return inp;
  }
  case 'text':
    if (f.key === 'dialogue_cleaned' || f.key.endsWith('reason') || f.key === 'content' || f.key === 'description' || f.key === 'strategy_content') {
      inp = el('textarea', { rows: f.key === 'dialogue_cleaned' ? '3' : '2', 'data-path': path });
    } else {
      inp = el('input', { type: 'text', 'data-path': path });
    }
    inp.value = typeof value === 'string' ? value : value == null ? '' : JSON.stringify(value);
    inp.addEventListener('input', () => set(inp.value));
    return inp;
  case 'entity': {
    inp = el('select', { 'data-path': path });
    for (const e of ['', ...entityOptions(value)]) inp.append(el('option', { value: e, text: e || '—' }));
    inp.append(el('option', { value: '\u0000new', text: 'another participant…' }));
    inp.value = typeof value === 'string' ? value : '';
    let prev = inp.value;
    inp.addEventListener('change', () => {
      if (inp.value === '\u0000new') {
        const n = (prompt('Name of the participant (as on screen)') || '').trim();
        if (!n) { inp.value = prev; return; }
        if (!state.sample.entities.includes(n)) state.sample.entities.push(n);
        inp.insertBefore(el('option', { value: n, text: n }), inp.lastChild);
        inp.value = n;
      }
      prev = inp.value;
      set(inp.value);
    });
    return inp;
  }
  case 'entities': {
    const cur = Array.isArray(value) ? value.slice() : [];
    const box = el('span', { class: 'checks', 'data-path': path });
    const ents = state.sample.entities.slice();
    for (const v of cur) if (!ents.includes(v)) ents.push(v);
    for (const e of ents) {
      const cb = el('input', { type: 'checkbox', value: e });
      cb.checked = cur.includes(e);
      cb.addEventListener('change', () => {
        const now = [...box.querySelectorAll('input')].filter((x) => x.checked).map((x) => x.value);
        set(now);
      });
      box.append(el('label', {}, cb, ' ' + e));
    }
    box.append(el('button', { type: 'button', class: 'add-entity', text: '+', title: 'another participant', onclick: () => {
      const n = (prompt('Name of the participant (as on screen)') || '').trim();
      if (!n) return;
      if (!state.sample.entities.includes(n)) state.sample.entities.push(n);
      const cb = el('input', { type: 'checkbox', value: n });
      cb.checked = true;
      cb.addEventListener('change', () => set([...box.querySelectorAll('input')].filter((x) => x.checked).map((x) => x.value)));
      box.insertBefore(el('label', {}, cb, ' ' + n), box.lastChild);
      set([...box.querySelectorAll('input')].filter((x) => x.checked).map((x) => x.value));
    } }));
    return box;
  }
  case 'label': {
    const labels = labelset(f.labels, scen);
    inp = el('select', { 'data-path': path });
    const opts = ['', ...labels];
    if (typeof value === 'string' && value && !labels.includes(value)) opts.push(value);
    for (const l of opts) inp.append(el('option', { value: l, text: l || '—' }));
    inp.value = typeof value === 'string' ? value : '';
    inp.addEventListener('change', () => set(inp.value === '' && value === null ? null : inp.value));
    return inp;
  }
  case 'ints': {
    inp = el('input', { type: 'text', placeholder: 'row numbers, e.g. 3, 5', 'data-path': path });
    inp.value = Array.isArray(value) ? value.join(', ') : '';
    inp.addEventListener('input', () => {
      const v = inp.value.split(/[ ,]+/).filter(Boolean).map(Number).filter((n) => Number.isInteger(n));
      set(v);
    });
    return inp;
  }
  case 'list': {
    const box = el('div', { 'data-path': path });
    const items = Array.isArray(value) ? value : [];
    const draw = () => {
      box.replaceChildren();
      items.forEach((it, i) => {
        const item = el('div', { class: 'item' },
          el('button', { type: 'button', class: 'remove', text: 'remove', onclick: () => { items.splice(i, 1); set(items); draw(); } }));
        for (const c of f.fields) {
          item.append(el('div', { class: 'sub' }, el('span', { text: c.key }),
            inputFor(c, it[c.key], (v) => { it[c.key] = v; set(items); }, path + '[' + (i + 1) + '].' + c.key)));
        }
        box.append(item);
      });
      box.append(el('button', { type: 'button', class: 'add', text: 'add ' + f.key.replace(/_/g, ' '), onclick: () => {
        const blank = {};
        for (const c of f.fields) blank[c.key] = c.type === 'entities' ? [] : c.type === 'number' ? 0 : '';
        items.push(blank); set(items); draw();
      } }));
    };
    draw();
    return box;
  }
  default:
    inp = el('input', { type: 'text', 'data-path': path });
    inp.value = JSON.stringify(value);
    return inp;
  }
}

function drawForm() {
  const row = state.edit, s = state.sample;
  const other = state.other && state.other.rows[state.sel] ? state.other.rows[state.sel].row : null;
  const box = $('fields');
  box.replaceChildren();
  for (const f of state.scheme.fields) {
    if (!(f.key in row) && !f.required) continue;
    const wrap = el('div', { class: 'field', 'data-key': f.key },
      el('div', { class: 'label' }, f.key.replace(/_/g, ' '), el('small', { text: f.description })),
      el('div', { class: 'value' }, inputFor(f, row[f.key], (v) => { row[f.key] = v; }, f.key)));
    if (other && JSON.stringify(other[f.key]) !== JSON.stringify(row[f.key])) {
      wrap.classList.add('differs');
      wrap.lastChild.append(el('div', { class: 'other-value', text: state.compareName + ': ' + JSON.stringify(other[f.key]) }));
    }
    box.append(wrap);
  }
  showLint(s.lint.filter((x) => x.row === s.rows[state.sel].index));
  if (s.readonly) for (const i of box.querySelectorAll('input, select, textarea, button')) i.disabled = true;
}

function showLint(findings) {
  for (const m of document.querySelectorAll('#fields .lint-msg')) m.remove();
  for (const f of document.querySelectorAll('#fields .field.has-error')) f.classList.remove('has-error');
  for (const x of findings) {
    const key = x.field.split(/[.[]/)[0];
    const wrap = document.querySelector('#fields .field[data-key="' + CSS.escape(key) + '"]');
    if (!wrap) continue;
    if (x.severity === 'error') wrap.classList.add('has-error');
    wrap.lastChild.append(el('div', { class: 'lint-msg ' + x.severity, text: x.rule + ' ' + x.field + ': ' + x.reason }));
  }
}

function setMsg(text, ok) {
  $('save-msg').textContent = text;
  $('save-msg').className = ok ? 'ok' : 'err';
}

async function saveRow(base) {
  const s = state.sample;
  if (!s || s.readonly) return;
  const r = s.rows[state.sel];
  const res = await api('PUT', '/api/samples/' + encPath(s.sample_id) + '/rows/' + r.index,
    { base_version: base != null ? base : state.editBase, row: state.edit });
  if (res.status === 200) {
    r.version = res.data.version;
    r.row = JSON.parse(JSON.stringify(state.edit));
    r.mine = true;
    state.editBase = res.data.version;
    $('conflict').hidden = true;
    s.lint = s.lint.filter((x) => x.row !== r.index).concat(res.data.warnings || []);
    drawRows();
    for (const tr of $('rows').tBodies[0].rows) tr.classList.toggle('selected', Number(tr.dataset.index) === r.index);
    showLint(res.data.warnings || []);
    setMsg(res.data.unchanged ? 'nothing changed' : 'saved (version ' + res.data.version + ')' +
      ((res.data.warnings || []).length ? ' with ' + res.data.warnings.length + ' warning(s)' : ''), true);
    $('form-title').textContent = 'Row ' + r.index + ' (saved by ' + s.view + ')';
    if (s.status === 'new') { s.status = 'in_review'; $('sample-status').textContent = s.status; $('sample-status').className = 'badge in_review'; }
  } else if (res.status === 409) {
    showConflict(res.data);
  } else if (res.status === 400 && res.data.findings) {
    showLint(res.data.findings);
    setMsg('not saved: ' + res.data.findings.filter((x) => x.severity === 'error').map((x) => x.rule + ' ' + x.reason).join('; '), false);
  } else {
    setMsg('not saved: ' + (res.data.error || res.status), false);
  }
}

function showConflict(d) {
  state.pending = d;
  const mine = state.edit, theirs = d.row || {};
  const keys = [...new Set([...Object.keys(mine), ...Object.keys(theirs)])];
  $('conflict-theirs-head').textContent = 'Saved meanwhile (version ' + d.version + ')';
  $('conflict-rows').replaceChildren(...keys.filter((k) => JSON.stringify(mine[k]) !== JSON.stringify(theirs[k])).map((k) =>
    el('tr', {}, el('td', { text: k }), el('td', { class: 'changed mine-value', text: JSON.stringify(mine[k]) }), el('td', { class: 'changed theirs-value', text: JSON.stringify(theirs[k]) }))));
  $('conflict').hidden = false;
  setMsg('not saved: this row changed since you opened it', false);
}
$('keep-mine').addEventListener('click', () => { if (state.pending) saveRow(state.pending.version); });
$('take-theirs').addEventListener('click', () => {
  const d = state.pending, r = state.sample.rows[state.sel];
  if (!d) return;
  r.row = d.row; r.version = d.version; r.mine = true;
  state.pending = null;
  drawRows();
  selectRow(state.sel, false);
});
$('row-form').addEventListener('submit', (ev) => { ev.preventDefault(); saveRow(); });

// ---- segmentation and status ----

async function segment(body) {
  const s = state.sample;
  const res = await api('POST', '/api/samples/' + encPath(s.sample_id) + '/segmentation', body);
  if (res.status !== 200) { setMsg(res.data.error || String(res.status), false); return false; }
  await openSample(s.sample_id, true);
  return true;
}
$('split-btn').addEventListener('click', () => {
  const r = state.sample.rows[state.sel];
  segment({ op: 'split', row: r.index, at: Math.round(playhead() * 1000) / 1000, base_version: r.version });
});
$('merge-btn').addEventListener('click', () => {
  const s = state.sample, r = s.rows[state.sel], n = s.rows[state.sel + 1];
  if (!n) { setMsg('the last row has no next row', false); return; }
  segment({ op: 'merge', row: r.index, base_version: r.version, next_version: n.version });
});
for (const [id, key] of [['set-start', 'start_time'], ['set-end', 'end_time']]) {
  $(id).addEventListener('click', () => {
    const r = state.sample.rows[state.sel];
    const t = Math.round(playhead() * 1000) / 1000;
    const body = { op: 'times', row: r.index, base_version: r.version, start: Number(r.row.start_time), end: Number(r.row.end_time) };
    body[key === 'start_time' ? 'start' : 'end'] = t;
    segment(body);
  });
}
async function setStatus(status, reason) {
  const s = state.sample;
  const res = await api('POST', '/api/samples/' + encPath(s.sample_id) + '/status', { status, reason });
  if (res.status !== 200) { setMsg(res.data.error || String(res.status), false); return; }
  await openSample(s.sample_id, true);
}
$('mark-reviewed').addEventListener('click', () => setStatus('reviewed'));
$('mark-inreview').addEventListener('click', () => setStatus('in_review'));
$('discard-btn').addEventListener('click', () => {
  const why = $('discard-reason').value.trim();
  if (!why) { setMsg('say why the sample is discarded', false); return; }
  setStatus('discarded', why);
});
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
async function leadControls() {
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

// ---- keyboard ----

document.addEventListener('keydown', (ev) => {
  if ($('view-sample').hidden) return;
  const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement && document.activeElement.tagName);
  if ((ev.ctrlKey || ev.metaKey) && ev.key.toLowerCase() === 's') { ev.preventDefault(); saveRow(); return; }
  if (typing || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.key === 'j' || ev.key === 'ArrowDown') { ev.preventDefault(); selectRow(state.sel + 1, true); }
  else if (ev.key === 'k' || ev.key === 'ArrowUp') { ev.preventDefault(); selectRow(state.sel - 1, true); }
  else if (ev.key === 'r') { ev.preventDefault(); playRow(); }
  else if (ev.key === ' ') {
    ev.preventDefault();
    const p = $('player');
    if (p.paused) { const pr = p.play(); if (pr && pr.catch) pr.catch(() => {}); } else p.pause();
  }
});

// ---- dashboard ----

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

async function showDashboard() {
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

// ---- routing ----

async function route() {
  if (!state.me) {
    const r = await api('GET', '/api/me');
    if (r.status !== 200) { show('signin'); return; }
    state.me = r.data;
  }
  if (!state.scheme) state.scheme = (await api('GET', '/api/scheme')).data;
  const h = location.hash.replace(/^#/, '');
  if (h.startsWith('/sample/')) {
    const id = h.slice(8).split('/').map(decodeURIComponent).join('/');
    await leadControls();
    if (!state.viewName) state.viewName = state.me.name;
    await openSample(id, state.sample && state.sample.sample_id === id);
  } else if (h === '/dashboard') {
    await showDashboard();
  } else {
    state.sample = null;
    await showWork();
  }
}
window.addEventListener('hashchange', route);
route();
