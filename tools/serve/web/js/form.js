// form.js: the row form, built from the scheme (one input per field type, label sets per
// scenario, participants), lint findings next to their fields, and the save message. The
// fields judged most often come first; empty lists fold into one "add" line; label fields
// show their digit hotkeys (keys.js) while focused; the row's text sticks above the form.

import { $, el, fmt } from './dom.js';
import { state } from './state.js';

function labelset(name, scenario) {
  const sets = state.scheme.labelsets.filter((l) => l.name === name);
  return (sets.find((l) => l.scenario === scenario) || sets.find((l) => !l.scenario) || { labels: [] }).labels.map((l) => l.name);
}

function entityOptions(current) {
  const ents = state.sample.entities.slice();
  if (current && !ents.includes(current)) ents.push(current);
  return ents;
}

// Digit hotkeys of a label field: 1-9 then 0 pick the labels in order (keys.js).
export const LABEL_KEYS = '1234567890';

// A new item of list field f, every part empty.
function blankItem(f) {
  const blank = {};
  for (const c of f.fields) blank[c.key] = c.type === 'entities' ? [] : c.type === 'number' ? 0 : '';
  return blank;
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
    inp.dataset.labels = String(labels.length);
    return el('span', { class: 'labelpick' }, inp,
      el('span', { class: 'keyhint', text: labels.slice(0, LABEL_KEYS.length).map((l, i) => LABEL_KEYS[i] + ' ' + l).join(' · ') }));
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
        items.push(blankItem(f)); set(items); draw();
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

// Shown first, in this order (and never folded): what changes most from row to row.
const FIRST = ['dialogue_cleaned', 'utterance_type', 'target', 'internal_emotion', 'support_strategy'];

// The row's speaker, times and text above the form (sticky: it stays while the form scrolls).
export function drawRowText() {
  const s = state.sample, r = s && s.rows[state.sel], e = state.edit;
  if (!r || !e) return;
  $('row-text').replaceChildren(el('span', { class: 'spk', text: (e.primary_speaker || '?') + ' ' }),
    el('span', { class: 'muted', text: '#' + r.index + ' ' + fmt(e.start_time) + '–' + fmt(e.end_time) + ' s ' }),
    el('span', { class: 'txt', text: e.dialogue_cleaned || '' }));
}

// A form waiting to be drawn (drawFormSoon): its timer, and the form's last height.
const soon = { timer: 0, waiting: false, height: 0 };
if (window.ResizeObserver) new ResizeObserver((es) => { if (!soon.waiting) soon.height = es[es.length - 1].contentRect.height; }).observe($('fields'));

// Draw the form once the row's first frame is shown on video v (or 250 ms later at most), so
// that a row starts playing before the CPU goes to the form; the row's text shows at once,
// the old form is taken away (its height kept, so the page does not jump), and a key or
// anything else that needs the form draws it at once (flushForm).
export function drawFormSoon(v) {
  clearTimeout(soon.timer);
  soon.waiting = true;
  const box = $('fields');
  if (soon.height) box.style.minHeight = soon.height + 'px';
  box.replaceChildren();
  drawRowText();
  soon.timer = setTimeout(flushForm, 250);
  if (v && v.requestVideoFrameCallback) v.requestVideoFrameCallback(() => flushForm());
}
export function flushForm() {
  if (soon.waiting) drawForm();
}

export function drawForm() {
  clearTimeout(soon.timer);
  soon.waiting = false;
  $('fields').style.minHeight = '';
  const row = state.edit, s = state.sample;
  const other = state.other && state.other.rows[state.sel] ? state.other.rows[state.sel].row : null;
  const box = $('fields');
  const fields = FIRST.map((k) => state.scheme.fields.find((f) => f.key === k)).filter(Boolean)
    .concat(state.scheme.fields.filter((f) => !FIRST.includes(f.key)));
  const folded = [];
  box.replaceChildren();
  for (const f of fields) {
    if (!(f.key in row) && !f.required) continue;
    if (f.type === 'list' && !FIRST.includes(f.key) && !(Array.isArray(row[f.key]) && row[f.key].length) &&
        !(other && Array.isArray(other[f.key]) && other[f.key].length)) {
      folded.push(f);
      continue;
    }
    const wrap = el('div', { class: 'field', 'data-key': f.key },
      el('div', { class: 'label', title: f.description || '' }, f.key.replace(/_/g, ' '), el('small', { text: f.description })),
      el('div', { class: 'value' }, inputFor(f, row[f.key], (v) => { row[f.key] = v; }, f.key)));
    if (other && JSON.stringify(other[f.key]) !== JSON.stringify(row[f.key])) {
      wrap.classList.add('differs');
      wrap.lastChild.append(el('div', { class: 'other-value', text: state.compareName + ': ' + JSON.stringify(other[f.key]) }));
    }
    box.append(wrap);
  }
  if (folded.length) {
    box.append(el('div', { class: 'field folded', 'data-key': '' }, el('div', { class: 'label', text: 'add' }),
      el('div', { class: 'value' }, ...folded.map((f) => el('button', { type: 'button', class: 'add', 'data-add': f.key,
        text: '+ ' + f.key.replace(/_/g, ' '), onclick: () => {
          row[f.key] = [blankItem(f)];
          drawForm();
          const c = box.querySelector('.field[data-key="' + f.key + '"] input, .field[data-key="' + f.key + '"] select');
          if (c) c.focus();
        } })))));
  }
  drawRowText();
  showLint(s.lint.filter((x) => x.row === s.rows[state.sel].index));
  if (s.readonly) for (const i of box.querySelectorAll('input, select, textarea, button')) i.disabled = true;
}

export function showLint(findings) {
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

export function setMsg(text, ok) {
  $('save-msg').textContent = text;
  $('save-msg').className = ok ? 'ok' : 'err';
}
