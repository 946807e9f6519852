// timeline_test.js: the review page's time line and player (issue 24 items 1 and 2) in
// headless Debian chromium driven by playwright-core, on a sample whose segment and review
// copy were cut by `rescue clip --review-copy` from a source with a 10 s GOP and a sound
// that is silent for its first 5 s: the waveform is drawn (loud where the sound is, flat
// where it is silent), one lane per speaker with the rows on it, a click on the time line
// seeks, dragging a boundary two rows share moves both and saves them (a second annotator's
// view stays as it was), the player stops within one frame of a row's end, with 1 or 2 s
// of context and at other rates, loops a row when asked, and the view zooms. Screenshots at 1366x768 and 1920x1080. Exit 0 pass, 1 fail, 77
// skipped (no browser).
//
// Environment: as serve_test.js (RESCUE_BIN, RESCUE_SOURCE_DIR, RESCUE_SCREENSHOTS,
// RESCUE_REQUIRE_FIXTURES).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const util = require('./util');
const { CHROMIUM, bin, src, shots, check, fail, finish, tokenOf, startServer, stopServer } = util;

const SAMPLE = 'maya_and_daniel/001_s01e01_segment01';
const FPS = 25;
const chromium = util.chromium();
// the CLI with its standard error kept out of the log
const rescue = (...args) => execFileSync(bin, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

// The rows of SAMPLE as `tok` sees them (bearer token, no browser).
async function rowsOf(base, tok) {
  const r = await fetch(base + '/api/samples/' + SAMPLE, { headers: { Authorization: 'Bearer ' + tok } });
  return (await r.json()).rows;
}

const geometry = (page) => page.evaluate(() => JSON.parse(document.getElementById('timeline-canvas').dataset.geometry || 'null'));
// the canvas position (page pixels) of second t, and of lane k's middle
async function at(page, t, lane) {
  const g = await geometry(page), box = await page.locator('#timeline-canvas').boundingBox();
  const x = box.x + ((t - g.from) / (g.to - g.from)) * g.width;
  const y = box.y + (lane == null ? g.waveH / 2 : g.waveH + lane * g.laneH + g.laneH / 2);
  return { x, y, g };
}

// Play row `index` from the table and watch every presented frame until the player stops:
// {start, first, last, frames, t} (where the page told the player to seek, media times of the first
// and last presented frames, the frame count, currentTime once paused).
async function playAndWatch(page, index) {
  // hooked before the click: the first frame after the seek is the first one seen
  await page.evaluate(() => {
    window.seen = [];
    const v = document.getElementById('player');
    window.seeks = [];
    v.requestVideoFrameCallback(function cb(now, md) { window.seen.push(md.mediaTime); if (!v.paused) v.requestVideoFrameCallback(cb); });
  });
  await page.click('#rows tbody tr[data-index="' + index + '"] td:nth-child(3)');
  await page.waitForFunction(() => { const v = document.getElementById('player'); return !v.paused && v.currentTime > 0; }, null, { timeout: 20000 });
  await page.waitForFunction(() => document.getElementById('player').paused, null, { timeout: 30000 });
  return page.evaluate(() => ({ start: window.seeks[0], first: Math.min(...window.seen), last: Math.max(...window.seen), frames: window.seen.length, t: document.getElementById('player').currentTime }));
}

(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rescue-timeline-'));
  const db = path.join(dir, 'c.db'), assets = path.join(dir, 'assets');
  let server = null, browser = null;
  try {
    rescue('init', db);
    rescue('import', db, path.join(src, 'tools/demo/couple.jsonl'));
    const ann = tokenOf(rescue('annotator', 'add', db, 'ann'));
    const bob = tokenOf(rescue('annotator', 'add', db, 'bob'));
    rescue('assign', db, '--annotators', 'ann,bob', '--overlap', '1', '--seed', '1');
    // 60 s at 25 fps, a keyframe every 10 s; silence for 5 s, then a 440 Hz tone at 0.7
    execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x180:rate=25:duration=60',
      '-f', 'lavfi', '-i', "aevalsrc='if(lt(t,5),0,0.7)*sin(2*PI*440*t)':s=44100:d=60", '-c:v', 'libx264', '-preset', 'ultrafast',
      '-g', '250', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', path.join(dir, 'src.mp4')]);
    rescue('media', 'add', db, path.join(dir, 'src.mp4'), '--sample', SAMPLE, '--start', '0', '--end', '55');
    rescue('clip', db, '--out', assets, '--review-copy');
    check(fs.existsSync(path.join(assets, SAMPLE, 'review.mp4')), 'rescue clip --review-copy wrote review.mp4');

    server = await startServer(db, assets);
    const base = 'http://127.0.0.1:' + server.port;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true,
      args: ['--autoplay-policy=no-user-gesture-required', '--no-sandbox', '--mute-audio'] });
    const ctx = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    const page = await ctx.newPage();
    // every seek the page asks for (window.seeks), for where playing starts
    await page.addInitScript(() => {
      const d = Object.getOwnPropertyDescriptor(HTMLMediaElement.prototype, 'currentTime');
      Object.defineProperty(HTMLMediaElement.prototype, 'currentTime', { configurable: true,
        get() { return d.get.call(this); }, set(v) { if (window.seeks) window.seeks.push(v); d.set.call(this, v); } });
    });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource|status of 401/.test(m.text())) errors.push(m.text()); });
    await page.goto(base + '/');
    await page.fill('#token', ann);
    await page.click('#signin-btn');
    await page.waitForSelector('#nav:not([hidden])');
    await page.goto(base + '/#/sample/' + SAMPLE);
    await page.waitForSelector('#rows tbody tr');

    // ---- the waveform and the lanes ----
    await page.waitForFunction(() => { const g = JSON.parse(document.getElementById('timeline-canvas').dataset.geometry || 'null'); return g && g.wave > 0; }, null, { timeout: 20000 });
    const g = await geometry(page);
    check(JSON.stringify(g.lanes) === JSON.stringify(['Maya', 'Daniel', 'Therapist']), 'one lane per speaker: ' + g.lanes.join(', '));
    check(g.from === 0 && Math.abs(g.to - 55) < 0.2, 'the time line shows the whole sample (0-' + g.to.toFixed(2) + ' s)');
    // ink in the waveform band: none over the silent first 5 s, a tall band after
    // (polled: the canvas is redrawn on the next animation frame after the peaks arrive)
    const inkAt = () => page.evaluate(({ g }) => {
      const c = document.getElementById('timeline-canvas'), x = c.getContext('2d'), dpr = c.width / g.width;
      const column = (t) => {
        const px = Math.round(((t - g.from) / (g.to - g.from)) * g.width * dpr);
        const d = x.getImageData(px, 0, 1, Math.round(g.waveH * dpr)).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4) if (d[i] < 120 && d[i + 2] > 130) n++; // the waveform's blue
        return n / dpr;
      };
      return { silent: column(2.5), loud: column(30) };
    }, { g });
    let ink = await inkAt();
    for (let i = 0; i < 50 && !(ink.loud >= g.waveH * 0.55); i++) {
      await page.waitForTimeout(100);
      ink = await inkAt();
    }
    check(ink.silent <= 2 && ink.loud >= g.waveH * 0.55, 'the waveform is flat where the sound is silent (' + ink.silent + ' px) and tall where it is loud (' + ink.loud + ' px)');
    const rowInk = await page.evaluate(({ g }) => {
      const c = document.getElementById('timeline-canvas'), x = c.getContext('2d'), dpr = c.width / g.width;
      const px = (t, lane) => Array.from(x.getImageData(Math.round(((t - g.from) / (g.to - g.from)) * g.width * dpr), Math.round((g.waveH + lane * g.laneH + g.laneH / 2) * dpr), 1, 1).data);
      return { daniel7: px(35, 1), maya7: px(35, 0) };
    }, { g });
    check(rowInk.daniel7.join() !== rowInk.maya7.join(), 'row 7 is drawn in the Daniel lane, not in the Maya lane');

    // ---- a click seeks ----
    await page.evaluate(() => document.getElementById('player').pause());
    let p = await at(page, 20, null);
    await page.mouse.click(p.x, p.y);
    await page.waitForFunction(() => !document.getElementById('player').seeking);
    const t20 = await page.evaluate(() => document.getElementById('player').currentTime);
    check(Math.abs(t20 - 20) < 0.1, 'a click at 20 s on the time line puts the playhead there (' + t20.toFixed(3) + ')');

    // ---- dragging the boundary rows 4 and 5 share (21.05 s) ----
    const before = await rowsOf(base, ann), bobBefore = JSON.stringify(await rowsOf(base, bob));
    p = await at(page, 21.05, 2); // the end of row 4, in the Therapist lane
    const to = await at(page, 22.5, 2);
    await page.mouse.move(p.x, p.y);
    await page.mouse.down();
    await page.mouse.move((p.x + to.x) / 2, p.y);
    await page.mouse.move(to.x, p.y);
    await page.mouse.up();
    await page.waitForFunction(() => /boundary moved|not saved/.test(document.getElementById('timeline-note').textContent), null, { timeout: 10000 });
    const after = await rowsOf(base, ann), moved = after[3].row.end_time;
    check(Math.abs(moved - 22.5) < 0.15 && after[4].row.start_time === moved,
      'the shared boundary moved both rows: row 4 ends and row 5 starts at ' + moved);
    check(after[3].version !== before[3].version && after[4].version !== before[4].version &&
      after[3].row.start_time === before[3].row.start_time && after[4].row.end_time === before[4].row.end_time,
      'both rows were saved as new versions; their other ends stayed');
    check(JSON.stringify(await rowsOf(base, bob)) === bobBefore, "bob's view of the sample is unchanged by ann's drag");
    const note = await page.textContent('#timeline-note');
    check(/boundary moved/.test(note), 'the page says the boundary moved: ' + note);

    // ---- the player: plays from the review copy, stops within one frame ----
    const media = after[2].media;
    check(media && media.kind === 'review' && /review\.mp4/.test(media.path), 'rows play the review copy (' + (media && media.kind) + ')');
    let w = await playAndWatch(page, 3);
    const frame = 1 / FPS;
    // where playing starts is the seek the page asks for; on a loaded machine the first
    // frame shown may come a few frames later (never earlier)
    check(w.frames > 10 && Math.abs(w.start - 9.86) <= frame && w.first >= 9.86 - frame - 0.001,
      'row 3 plays from its start (seek to ' + w.start.toFixed(3) + ' s, first frame ' + w.first.toFixed(3) + ' s, ' + w.frames + ' frames)');
    check(w.last <= 14.2 + frame + 0.001 && w.last >= 14.2 - 2 * frame,
      'the player stops within one frame of row 3\'s end 14.2 s (last frame shown ' + w.last.toFixed(3) + ' s)');
    check(Math.abs(w.t - 14.2) <= frame, 'it rests at the row\'s end (' + w.t.toFixed(3) + ' s)');
    // context 1 s and rate 2x
    await page.selectOption('#play-context', '1');
    await page.selectOption('#play-rate', '2');
    w = await playAndWatch(page, 2);
    const rate = await page.evaluate(() => document.getElementById('player').playbackRate);
    check(rate === 2, 'the rate menu sets 2x');
    check(Math.abs(w.start - 4.4) <= frame && w.first >= 4.4 - frame - 0.001 && w.last <= 9.86 + 1 + frame + 0.001 && w.last >= 9.86 + 1 - 4 * frame,
      'with 1 s of context row 2 plays from ' + w.start.toFixed(3) + ' to ' + w.last.toFixed(3) + ' s (4.4-10.86) and stops within one frame, at 2x');
    // context 2 s; the rate menu's slowest
    await page.selectOption('#play-context', '2');
    w = await playAndWatch(page, 2);
    check(Math.abs(w.start - 3.4) <= frame && w.last <= 9.86 + 2 + frame + 0.001 && w.last >= 9.86 + 2 - 4 * frame,
      'with 2 s of context row 2 plays from ' + w.start.toFixed(3) + ' to ' + w.last.toFixed(3) + ' s (3.4-11.86) and stops within one frame');
    await page.selectOption('#play-rate', '0.5');
    check(await page.evaluate(() => document.getElementById('player').playbackRate) === 0.5, 'the rate menu sets 0.5x');
    // loop row: at its end row 3 starts again instead of stopping
    await page.selectOption('#play-context', '0');
    await page.selectOption('#play-rate', '2');
    await page.check('#play-loop');
    await page.evaluate(() => { window.seeks = []; });
    await page.click('#rows tbody tr[data-index="3"] td:nth-child(3)');
    await page.waitForFunction(() => window.seeks.filter((t) => Math.abs(t - 9.86) < 0.001).length >= 2, null, { timeout: 30000 });
    const looped = await page.evaluate(() => ({ paused: document.getElementById('player').paused, t: document.getElementById('player').currentTime, seeks: window.seeks }));
    check(!looped.paused && looped.t >= 9.86 - frame && looped.t <= 14.2 + frame, 'loop row: at 14.2 s row 3 goes back to 9.86 s and plays on (seeks ' +
      looped.seeks.map((t) => t.toFixed(2)).join(', ') + '; at ' + looped.t.toFixed(2) + ' s)');
    await page.uncheck('#play-loop');
    await page.evaluate(() => document.getElementById('player').pause());
    await page.selectOption('#play-rate', '1');

    // ---- zoom: the wheel and the buttons narrow and widen the view ----
    const span = () => page.evaluate(() => { const g = JSON.parse(document.getElementById('timeline-canvas').dataset.geometry); return [g.from, g.to]; });
    const z0 = await span();
    const cv = await page.locator('#timeline-canvas').boundingBox();
    await page.mouse.move(cv.x + cv.width / 2, cv.y + 10);
    await page.mouse.wheel(0, -100);
    await page.waitForFunction((w0) => { const g = JSON.parse(document.getElementById('timeline-canvas').dataset.geometry); return g.to - g.from < w0 - 0.5; }, z0[1] - z0[0]);
    const z1 = await span();
    check(z1[1] - z1[0] < z0[1] - z0[0] && z1[0] >= z0[0] && z1[1] <= z0[1], 'the wheel zooms in (' + z0.map((t) => t.toFixed(1)).join('-') + ' s to ' + z1.map((t) => t.toFixed(1)).join('-') + ' s)');
    await page.click('#timeline button[title="the whole sample"]');
    await page.waitForFunction((w0) => { const g = JSON.parse(document.getElementById('timeline-canvas').dataset.geometry); return Math.abs(g.to - g.from - w0) < 0.01; }, z0[1] - z0[0]);
    check(true, '"fit" shows the whole sample again');

    // ---- screenshots ----
    fs.mkdirSync(shots, { recursive: true });
    await page.click('#rows tbody tr[data-index="6"] td:nth-child(3)');
    await page.waitForTimeout(1500);
    await page.evaluate(() => document.getElementById('player').pause());
    await page.screenshot({ path: path.join(shots, 'timeline-1366x768.png') });
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(shots, 'timeline-1920x1080.png') });
    check(errors.length === 0, 'no script errors or CSP violations' + (errors.length ? ': ' + errors.join(' | ') : ''));
  } catch (e) {
    fail(e);
  } finally {
    if (browser) await browser.close();
    await stopServer(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  finish();
})();
