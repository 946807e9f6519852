// work.js: "My work": the samples assigned to the signed-in annotator, with the status,
// scenario and group filters.

import { api } from './api.js';
import { $, el, encPath } from './dom.js';
import { show } from './views.js';

let workList = [];
export async function showWork() {
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
