// segment.js: resegmenting the sample (split at the playhead, merge with the next row,
// set a row's start or end; splits and merges go on the undo stack, undo.js) and its status
// (reviewed, after a confirmation that says how many rows are not reviewed yet; back to in
// review, discarded).

import { api } from './api.js';
import { $, encPath } from './dom.js';
import { setMsg } from './form.js';
import { playhead } from './player.js';
import { openSample } from './sample.js';
import { state } from './state.js';
import { recordSeg } from './undo.js';

// The words the page adds when an edit reopened the sample (the answer's "reopened": a save,
// a split, a merge or new times on a reviewed sample put it back in review, as
// rescue_row_save and rescue_sample_resegment do; no confirmation is asked for any of them).
export const reopenedNote = (from) => 'the sample was ' + from + ' and is in review again';

// The server's reason for the last refused segment() (a discarded sample, a stale version).
export let refusal = '';

// A split, merge or new times (body) through the segmentation API; the sample is read again
// after it (its rows, status and status history). The answer, or null after showing the
// refusal.
export async function segment(body) {
  const s = state.sample;
  const res = await api('POST', '/api/samples/' + encPath(s.sample_id) + '/segmentation', body);
  if (res.status !== 200) { refusal = res.data.error || String(res.status); setMsg(refusal, false); return null; }
  await openSample(s.sample_id, true);
  if (res.data.reopened) setMsg(body.op + ' saved; ' + reopenedNote(res.data.reopened_from), true);
  return res.data;
}
// Split the selected row at the playhead (also the s key).
export async function splitAtPlayhead() {
  const r = state.sample.rows[state.sel], at = Math.round(playhead() * 1000) / 1000;
  if (await segment({ op: 'split', row: r.index, at, base_version: r.version })) recordSeg({ kind: 'split', index: r.index, at, ids: [r.row_id] });
}
$('split-btn').addEventListener('click', splitAtPlayhead);
$('merge-btn').addEventListener('click', async () => {
  const s = state.sample, r = s.rows[state.sel], n = s.rows[state.sel + 1];
  if (!n) { setMsg('the last row has no next row', false); return; }
  const at = Number(r.row.end_time);
  if (await segment({ op: 'merge', row: r.index, base_version: r.version, next_version: n.version })) recordSeg({ kind: 'merge', index: r.index, at, ids: [r.row_id, n.row_id] });
});
// Set the selected row's start or end (key 'start' or 'end') to the playhead (buttons
// Start/End = playhead, keys [ and ]); undone like a dragged boundary (undo.js).
export async function setTimeAtPlayhead(key) {
  const r = state.sample.rows[state.sel];
  if (!r) return;
  const t = Math.round(playhead() * 1000) / 1000, from = Number(r.row[key + '_time']);
  const body = { op: 'times', row: r.index, base_version: r.version, start: Number(r.row.start_time), end: Number(r.row.end_time) };
  body[key] = t;
  if (await segment(body)) recordSeg({ kind: 'boundary', what: key + ' of row ' + r.index, from, to: t, rows: [{ id: r.row_id, key }] });
}
$('set-start').addEventListener('click', () => setTimeAtPlayhead('start'));
$('set-end').addEventListener('click', () => setTimeAtPlayhead('end'));
async function setStatus(status, reason) {
  const s = state.sample;
  const res = await api('POST', '/api/samples/' + encPath(s.sample_id) + '/status', { status, reason });
  if (res.status !== 200) { setMsg(res.data.error || String(res.status), false); return; }
  await openSample(s.sample_id, true);
}
$('mark-reviewed').addEventListener('click', () => {
  const rows = state.sample.rows, left = rows.filter((r) => !r.mine).length;
  if (left && !confirm(left + ' of ' + rows.length + ' rows are not reviewed yet (neither saved nor accepted by you). Mark the sample reviewed anyway?')) {
    setMsg('not marked reviewed: ' + left + ' rows are not reviewed yet', false);
    return;
  }
  setStatus('reviewed');
});
$('mark-inreview').addEventListener('click', () => setStatus('in_review'));
$('discard-btn').addEventListener('click', () => {
  const why = $('discard-reason').value.trim();
  if (!why) { setMsg('say why the sample is discarded', false); return; }
  setStatus('discarded', why);
});
