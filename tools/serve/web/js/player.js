// player.js: the video player of the sample view: which clip it loads, playing one row's
// span, the playhead in sample time, and the subtitle cues under it.

import { $, el, clipUrl } from './dom.js';
import { state } from './state.js';

export function setupPlayer() {
  const s = state.sample, p = $('player');
  state.clipOffset = 0;
  if (s.segment) { p.src = clipUrl(s.segment); p.hidden = false; $('no-media').hidden = true; }
  else if (s.rows.some((r) => r.clip)) { p.removeAttribute('src'); p.hidden = false; $('no-media').hidden = true; }
  else { p.removeAttribute('src'); p.load(); p.hidden = true; $('no-media').hidden = false; }
}

export function playRow() {
  const s = state.sample, r = s.rows[state.sel], p = $('player');
  const start = Number(r.row.start_time) || 0, end = Number(r.row.end_time) || start;
  if (s.segment) {
    state.clipOffset = 0;
    state.stopAt = end;
    p.currentTime = start;
  } else if (r.clip) {
    const src = clipUrl(r.clip);
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
