// player.js: the video player of the sample view: which clip it loads, playing one row's
// span, the playhead in sample time, and the subtitle cues under it.

import { $, el, clipUrl } from './dom.js';
import { state } from './state.js';

export function setupPlayer() {
  const s = state.sample, p = $('player');
  state.clipOffset = 0;
  state.media = null;
  const first = s.rows.find((r) => r.media);
  if (first) {
    // the first row's file, so the playhead means something before anything is played
    p.src = clipUrl(first.media.path);
    state.media = first.media.path;
    state.clipOffset = Number(first.media.offset) || 0;
    p.hidden = false;
    $('no-media').hidden = true;
  } else {
    p.removeAttribute('src');
    p.load();
    p.hidden = true;
    $('no-media').textContent = 'No clip for this sample under --assets.';
    $('no-media').hidden = false;
  }
}

// The row's media as the server chose it by span and row id (GET /api/samples/<id>): a file
// and the row's span inside it; never a clip picked by the row's position.
export function playRow() {
  const s = state.sample, r = s.rows[state.sel], p = $('player'), m = r && r.media;
  if (!m) {
    // nothing holds this row's span (a clip cut for other times is never played instead)
    p.pause();
    state.stopAt = null;
    $('no-media').textContent = s.rows.some((x) => x.media) ? 'No clip holds this row\'s span yet (`rescue clip` cuts it).' : 'No clip for this sample under --assets.';
    $('no-media').hidden = false;
    return;
  }
  $('no-media').hidden = true;
  const src = clipUrl(m.path);
  if (state.media !== m.path || !p.src.endsWith(src)) { p.src = src; state.media = m.path; }
  state.clipOffset = Number(m.offset) || 0;
  state.stopAt = Number(m.end);
  p.currentTime = Number(m.start) || 0;
  const pr = p.play();
  if (pr && pr.catch) pr.catch(() => {});
}
$('player').addEventListener('timeupdate', () => {
  const p = $('player');
  if (state.stopAt != null && p.currentTime >= state.stopAt) { p.pause(); state.stopAt = null; }
  drawCues();
});
export const playhead = () => state.clipOffset + $('player').currentTime;

export function drawCues() {
  const s = state.sample;
  if (!s) return;
  const r = s.rows[state.sel];
  if (!r) return;
  const a = Number(r.row.start_time), b = Number(r.row.end_time), t = playhead();
  const cues = s.cues.filter((c) => c.end > a && c.start < b);
  $('cues').replaceChildren(...(cues.length ? cues.map((c) => el('div', { class: 'cue' + (t >= c.start && t < c.end ? ' now' : '') },
    c.speaker ? el('span', { class: 'spk', text: c.speaker + ':' }) : null, c.text)) : [el('div', { class: 'muted', text: s.cues.length ? 'no subtitle cue in this span' : 'no subtitles stored' })]));
}
