// player.js: the video player of the sample view: which file it loads, playing one row's
// span (with context before and after, looped, at a chosen rate) and stopping at its end
// within one frame, seeking anywhere in the sample (the time line), preloading the next
// row (its clip, or the same file seeked to its start), the playhead in sample time, and
// the subtitle cues under it.
//
// A row plays the file the server names for it (GET /api/samples/<id>: media.path, span
// start-end inside it, offset = the second of the sample at the file's start): the review
// copy `rescue clip --review-copy` writes (1 s between keyframes, so a seek decodes little),
// else segment.mp4, else the row's clip. The review copy and the segment span the whole
// sample: playing starts at the row's start and goes on past it when asked, never locked
// inside a clip.

import { $, el, clipUrl } from './dom.js';
import { state } from './state.js';

// what the player does now: the row's file span [from, to] (seconds of the file), or null
const play = { from: 0, to: null, loop: false, timer: 0, fps: 25, last: null, step: 0.04, preload: 0 };

// the controls under the video: context, loop, rate (made here, so index.html stays as it is)
const ctx = el('select', { id: 'play-context', title: 'seconds played before and after the row' },
  ...[0, 1, 2].map((s) => el('option', { value: String(s), text: s + ' s' })));
const loop = el('input', { id: 'play-loop', type: 'checkbox' });
const rate = el('select', { id: 'play-rate', title: 'playback rate' },
  ...[0.5, 0.75, 1, 1.25, 1.5, 2].map((r) => el('option', { value: String(r), text: r + '×' })));
rate.value = '1';
$('player').after(el('div', { id: 'player-tools', class: 'player-tools' },
  el('label', {}, 'context ', ctx), el('label', {}, loop, ' loop row'), el('label', {}, 'rate ', rate)));
rate.addEventListener('change', () => { video().playbackRate = Number(rate.value); });
loop.addEventListener('change', () => { play.loop = loop.checked; });

export const video = () => $('player');

// the hidden second element that loads the next row's clip while this one plays
let spare = null;
function spareVideo() {
  if (!spare) {
    spare = el('video', { preload: 'auto', muted: true, class: 'preload' });
    spare.hidden = true;
    wire(spare);
    video().after(spare); // in the page (hidden), where a test can find it
  }
  return spare;
}

// Let the spare go (its file, its decoder, its buffer) when the row it holds is not about
// to be played: another sample opened, the sample view left, the tab hidden, a row
// selected without playing. The next row played preloads again.
export function releaseSpare() {
  if (!spare || !spare.dataset.path && !spare.hasAttribute('src')) return;
  spare.pause();
  spare.removeAttribute('src');
  spare.load();
  spare.dataset.path = '';
  spare.dataset.at = '';
}
document.addEventListener('visibilitychange', () => { if (document.hidden) releaseSpare(); });
// A row selected without playing it (a save, the time line, undo): the spare is kept only
// when it holds the row after it, as preloadNext left it.
export function keepSpareForNext() {
  const s = state.sample, n = s && s.rows[state.sel + 1], m = n && n.media;
  const at = m ? Math.max(0, (Number(m.start) || 0) - (Number(ctx.value) || 0)) : -1;
  if (!spare || !m || spare.dataset.path !== m.path || Number(spare.dataset.at) !== at) releaseSpare();
}

function wire(v) {
  v.addEventListener('timeupdate', () => { if (v === video()) { checkStop(); drawCues(); } });
  v.addEventListener('playing', () => { if (v === video()) armStop(); });
  v.addEventListener('ratechange', () => { if (v === video()) armStop(); });
  v.addEventListener('seeked', () => { if (v === video()) armStop(); });
}
wire($('player'));

export function setupPlayer() {
  const s = state.sample, p = video();
  releaseSpare();
  state.clipOffset = 0;
  state.media = null;
  play.to = null;
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

// 1 when the file the player has loaded spans the whole sample (review copy or segment)
export const wholeSample = () => { const m = currentMedia(); return !!m && m.kind !== 'clip'; };
function currentMedia() {
  const r = state.sample && state.sample.rows.find((x) => x.media && x.media.path === state.media);
  return r ? r.media : null;
}

// Load path into the player, to play from second `from` of it: the spare element when it
// holds that file (a clip preloaded), or the same file already seeked to `from` with a
// frame ready (the next row, preloaded): it is swapped in; else the player itself.
function load(path, from) {
  const src = clipUrl(path), p = video();
  const same = state.media === path && p.src.endsWith(src);
  const warm = spare && spare.dataset.path === path &&
    (!same || (Number(spare.dataset.at) === from && spare.readyState >= 2 && !spare.seeking));
  if (same && !warm) return p;
  if (warm) {
    const old = p;
    spare.id = 'player';
    spare.controls = true;
    spare.muted = old.muted;
    spare.className = old.className;
    spare.hidden = false;
    old.pause();
    old.replaceWith(spare);
    spare.after(old);
    old.id = '';
    old.hidden = true;
    old.className = 'preload';
    old.controls = false;
    old.preload = 'auto';
    spare = old;
    spare.dataset.path = '';
  } else {
    p.src = src;
  }
  state.media = path;
  return video();
}

// Warm the next row: its clip is loaded into the spare element; when it plays from the
// same file (review copy, segment) the spare loads that file and seeks to where the row
// starts, so that selecting it (Enter, j) starts on a decoded frame (swapped in by load).
function preloadNext() {
  const s = state.sample, n = s && s.rows[state.sel + 1], m = n && n.media;
  if (!m) return;
  const v = spareVideo(), at = Math.max(0, (Number(m.start) || 0) - (Number(ctx.value) || 0));
  if (v.dataset.path === m.path && Number(v.dataset.at) === at) return;
  if (!v.src.endsWith(clipUrl(m.path))) v.src = clipUrl(m.path);
  v.dataset.path = m.path;
  v.dataset.at = String(at);
  v.currentTime = at;
}

// The row's media as the server chose it by span and row id (GET /api/samples/<id>): a file
// and the row's span inside it; never a clip picked by the row's position.
export function playRow() {
  const s = state.sample, r = s.rows[state.sel], m = r && r.media;
  if (!m) {
    // nothing holds this row's span (a clip cut for other times is never played instead)
    video().pause();
    play.to = null;
    $('no-media').textContent = s.rows.some((x) => x.media) ? 'No clip holds this row\'s span yet (`rescue clip` cuts it).' : 'No clip for this sample under --assets.';
    $('no-media').hidden = false;
    return;
  }
  $('no-media').hidden = true;
  const c = Number(ctx.value) || 0, a = Number(m.start) || 0, b = Number(m.end);
  const p = load(m.path, Math.max(0, a - c));
  state.clipOffset = Number(m.offset) || 0;
  play.from = Math.max(0, a - c);
  play.to = b + c;
  play.loop = loop.checked;
  p.playbackRate = Number(rate.value);
  if (p.currentTime !== play.from) p.currentTime = play.from; // a preloaded row is there already
  start(p);
  // the next row once this one shows its first frame: both seeks at once would share the CPU
  clearTimeout(play.preload);
  play.preload = setTimeout(preloadNext, 1000);
  if (p.requestVideoFrameCallback) p.requestVideoFrameCallback(() => { clearTimeout(play.preload); preloadNext(); });
}

function start(p) {
  const pr = p.play();
  if (pr && pr.catch) pr.catch(() => {});
}

// Play from second t of the sample (the time line's click): inside the loaded file when it
// spans the sample, without a stop; 0 when the loaded file does not hold t.
export function seekSample(t) {
  const p = video(), m = currentMedia();
  if (!m) return 0;
  const local = t - (Number(m.offset) || 0);
  if (m.kind === 'clip' && (local < 0 || (p.duration && local > p.duration))) return 0;
  play.to = null;
  p.currentTime = Math.max(0, local);
  return 1;
}

// The stop at the row's end (plus context), within one frame: a timer set from currentTime
// and the rate wakes shortly before it, then every presented frame (requestVideoFrameCallback,
// or animation frames without it) is checked; timeupdate (4 Hz) alone overshoots.
function armStop() {
  const p = video();
  clearTimeout(play.timer);
  play.last = null;
  play.step = (p.playbackRate || 1) / play.fps;
  if (play.to == null || p.paused) return;
  const ms = ((play.to - p.currentTime) / (p.playbackRate || 1)) * 1000 - 120;
  play.timer = setTimeout(watchFrames, Math.max(0, ms));
}
function watchFrames() {
  const p = video(), t = p.currentTime;
  if (play.to == null || p.paused) return;
  // how far the picture moves between two checks (one frame, more at 2x or when frames are
  // dropped): stopping when the next one would pass the end keeps the last frame shown
  // inside the row
  if (play.last != null && t > play.last) play.step = Math.min(0.25, t - play.last);
  play.last = t;
  if (checkStop(play.step)) return;
  if (p.requestVideoFrameCallback) p.requestVideoFrameCallback(watchFrames);
  else requestAnimationFrame(watchFrames);
}
// Stop when the picture is within half a frame of the end, or would pass it at the next
// check (ahead seconds away); the player then rests on the end.
function checkStop(ahead = 0) {
  const p = video();
  if (play.to == null || p.currentTime + ahead < play.to - 0.5 / play.fps) return false;
  if (play.loop) {
    p.currentTime = play.from;
    return true;
  }
  p.pause();
  p.currentTime = play.to;
  play.to = null;
  clearTimeout(play.timer);
  return true;
}

export const playhead = () => state.clipOffset + video().currentTime;
// the second of the sample where the row being played stops (null: none)
export const stopAt = () => (play.to == null ? null : state.clipOffset + play.to);

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
