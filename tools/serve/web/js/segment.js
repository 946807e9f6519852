// segment.js: resegmenting the sample (split at the playhead, merge with the next row,
// set a row's start or end) and its status (reviewed, back to in review, discarded).

import { api } from './api.js';
import { $, encPath } from './dom.js';
import { setMsg } from './form.js';
import { playhead } from './player.js';
import { openSample } from './sample.js';
import { state } from './state.js';

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
