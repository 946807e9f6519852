// bench_page.js: the review page measured in headless chromium (playwright-core), p50 and
// p95 of what an annotator waits for: a row selected until its first frame plays, a row
// saved until the page says so, a 432-row sample opened until its table and form are drawn
// (and the part of that its GET took), and a time-line boundary dropped until both rows are
// saved and the sample is read again. Row selection (a click on any row) is measured
// twice: on the review copy `rescue clip --review-copy` writes (1 s between keyframes) and,
// as the reference, on the segment alone (stream copy of a source with 10 s between
// keyframes, what the page played before); the next row (j, preloaded while a row plays)
// once, on the review copy. Figures, not checks: it exits 0 whatever they are.
//
//   NODE_PATH=tests/browser/node_modules RESCUE_BIN=build/rescue node tools/bench/bench_page.js [runs]
//
// It also writes screenshots of the sample view (the time line with its waveform, the
// player and time line that stay in view while the form scrolls, the compact form) at
// 1366x768 and 1920x1080 into RESCUE_SCREENSHOTS (default: browser-screenshots next to
// the rescue binary, in the build directory).
//
// Environment: RESCUE_BIN (the rescue binary), RESCUE_SOURCE_DIR (the source tree),
// RESCUE_SCREENSHOTS (where the screenshots go).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { CHROMIUM, src, shots, chromium: launcher, rescue, tokenOf, startServer, stopServer } = require('../../tests/browser/util');

const chromium = launcher();
const RUNS = Number(process.argv[2]) || 20;
const SAMPLE = 'maya_and_daniel/001_s01e01_segment01';
const BIG = 'bench/interview_432';

function pct(xs, q) {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
}
const fmt = (xs) => (xs.length ? pct(xs, 0.5).toFixed(0).padStart(6) + ' ms ' + pct(xs, 0.95).toFixed(0).padStart(6) + ' ms' : '     -         -   ');

async function signIn(page, base, token) {
  await page.goto(base + '/');
  await page.fill('#token', token);
  await page.click('#signin-btn');
  await page.waitForSelector('#nav:not([hidden])');
}
async function openSample(page, base, id) {
  await page.goto(base + '/#/sample/' + id);
  await page.waitForSelector('#rows tbody tr');
}

// Select row `index` by a click on its table row; ms until the first frame at or after its
// start is presented (requestVideoFrameCallback) while playing.
function selectToFrame(page, index) {
  return page.evaluate((index) => new Promise((resolve) => {
    const v = document.getElementById('player');
    const tr = document.querySelector('#rows tbody tr[data-index="' + index + '"]');
    const start = Number(tr.children[1].textContent.split('–')[0]);
    const t0 = performance.now();
    const give = setTimeout(() => resolve(NaN), 10000);
    const cb = (now, md) => {
      const p = document.getElementById('player'); // the preloaded element may have been swapped in
      if (!p.paused && md.mediaTime >= start - 0.1) { clearTimeout(give); resolve(performance.now() - t0); } else p.requestVideoFrameCallback(cb);
    };
    tr.children[2].click();
    document.getElementById('player').requestVideoFrameCallback(cb);
  }), index);
}

async function measureSelection(page, n) {
  const order = [3, 7, 1, 9, 5, 2, 8, 4, 6], out = [];
  for (let k = 0; k < n; k++) {
    const ms = await selectToFrame(page, order[k % order.length]);
    if (!Number.isNaN(ms)) out.push(ms);
    await page.waitForTimeout(150);
  }
  await page.evaluate(() => document.getElementById('player').pause());
  return out;
}

// The next row, as the review goes: row k plays for a moment, then j selects row k + 1 (which
// the page preloaded while row k played); ms from the key until its first frame is presented.
async function measureNext(page, n) {
  const out = [];
  for (let k = 0; k < n; k++) {
    const from = 2 + (k % 6);
    await page.click('#rows tbody tr[data-index="' + from + '"] td:nth-child(3)');
    await page.waitForTimeout(600);
    const ms = await page.evaluate((index) => new Promise((resolve) => {
      const tr = document.querySelector('#rows tbody tr[data-index="' + index + '"]');
      const start = Number(tr.children[1].textContent.split('–')[0]);
      document.activeElement.blur();
      const t0 = performance.now();
      const give = setTimeout(() => resolve(NaN), 10000);
      document.dispatchEvent(new KeyboardEvent('keydown', { key: 'j', bubbles: true }));
      const cb = (now, md) => {
        const p = document.getElementById('player');
        if (!p.paused && md.mediaTime >= start - 0.1) { clearTimeout(give); resolve(performance.now() - t0); } else p.requestVideoFrameCallback(cb);
      };
      document.getElementById('player').requestVideoFrameCallback(cb);
    }), from + 1);
    if (!Number.isNaN(ms)) out.push(ms);
    await page.evaluate(() => document.getElementById('player').pause());
  }
  return out;
}

// Save row 2 with a changed tone of voice: ms from the click until the page reports it.
async function measureSave(page, n) {
  const out = [];
  await page.click('#rows tbody tr[data-index="2"] td:nth-child(3)');
  await page.evaluate(() => document.getElementById('player').pause());
  for (let k = 0; k < n; k++) {
    await page.fill('#fields [data-path="tone_of_voice"]', 'flat, run ' + k);
    const ms = await page.evaluate(() => new Promise((resolve) => {
      const m = document.getElementById('save-msg'), before = m.textContent, t0 = performance.now();
      const obs = new MutationObserver(() => {
        if (m.textContent !== before && /saved/.test(m.textContent)) { obs.disconnect(); resolve(performance.now() - t0); }
      });
      obs.observe(m, { childList: true, characterData: true, subtree: true });
      setTimeout(() => { obs.disconnect(); resolve(NaN); }, 10000);
      document.getElementById('save-btn').click();
    }));
    if (!Number.isNaN(ms)) out.push(ms);
  }
  return out;
}

// Open the 432-row sample from the work list's URL: ms until its rows and form are drawn
// (the table draws the rows in view: #rows data-rows counts the sample's rows), and how
// much of it the sample's GET took (request to the response's last byte).
async function measureOpen(page, base, n, get) {
  const out = [];
  for (let k = 0; k < n; k++) {
    await page.goto(base + '/#/');
    await page.waitForSelector('#samples tbody tr');
    const ms = await page.evaluate((id) => new Promise((resolve) => {
      const t0 = performance.now();
      const poll = () => {
        const rows = Number(document.getElementById('rows').dataset.rows);
        if (rows === 432 && document.querySelector('#rows tbody tr') && !document.getElementById('view-sample').hidden && document.querySelector('#fields [data-path]')) {
          const e = performance.getEntriesByType('resource').filter((x) => x.startTime >= t0 && /\/api\/samples\/[^?]*interview_432$/.test(x.name)).pop();
          resolve([performance.now() - t0, e ? e.responseEnd - e.startTime : NaN]);
        } else requestAnimationFrame(poll);
      };
      location.hash = '#/sample/' + id.split('/').map(encodeURIComponent).join('/');
      poll();
    }), BIG);
    out.push(ms[0]);
    if (!Number.isNaN(ms[1])) get.push(ms[1]);
  }
  return out;
}

// Drag the boundary rows 4 and 5 share back and forth by 0.4 s: ms from the drop until the
// time line says it was saved (two saves and the sample read again).
async function measureDrag(page, n) {
  const out = [];
  await page.evaluate(() => document.getElementById('player').pause());
  for (let k = 0; k < n; k++) {
    const rows = await page.evaluate(() => [...document.querySelectorAll('#rows tbody tr')].map((tr) => tr.children[1].textContent));
    const b = Number(rows[3].split('–')[1]), to = b + (k % 2 ? -0.4 : 0.4);
    const g = await page.evaluate(() => JSON.parse(document.getElementById('timeline-canvas').dataset.geometry));
    await page.locator('#timeline-canvas').scrollIntoViewIfNeeded();
    const box = await page.locator('#timeline-canvas').boundingBox();
    const x = (t) => box.x + ((t - g.from) / (g.to - g.from)) * g.width;
    const y = box.y + g.waveH + g.lanes.indexOf('Therapist') * g.laneH + g.laneH / 2;
    await page.evaluate(() => {
      const c = document.getElementById('timeline-canvas'), note = document.getElementById('timeline-note');
      window.dragMs = null;
      c.addEventListener('pointerup', () => {
        const t0 = performance.now(), before = note.textContent;
        const obs = new MutationObserver(() => { if (note.textContent !== before) { obs.disconnect(); window.dragMs = performance.now() - t0; } });
        obs.observe(note, { childList: true, characterData: true, subtree: true });
      }, { once: true, capture: true });
    });
    await page.mouse.move(x(b), y);
    await page.mouse.down();
    await page.mouse.move(x(to), y, { steps: 4 });
    await page.mouse.up();
    await page.waitForFunction(() => window.dragMs != null, null, { timeout: 10000 }).catch(async (e) => {
      throw new Error('the drop was not saved: ' + JSON.stringify(await page.evaluate(() => [document.getElementById('timeline-note').textContent, document.getElementById('timeline-canvas').dataset.geometry]), null) + ' b=' + b + ' box=' + JSON.stringify(box));
    });
    // the sample is read again after the note changes
    await page.waitForFunction((t) => Math.abs(Number(document.querySelectorAll('#rows tbody tr')[3].children[1].textContent.split('–')[1]) - t) < 0.011, to, { timeout: 10000 });
    out.push(await page.evaluate(() => window.dragMs));
  }
  return out;
}

// The screenshots: the sample view with row 3 (an internal emotion with its intensity)
// played for a moment, at 1366x768 (as opened, and with the page scrolled to the form's
// end: the player and the time line stay), then at 1920x1080; the boxes of what must be
// seen without scrolling are printed with them.
async function screenshots(page) {
  fs.mkdirSync(shots, { recursive: true });
  await page.click('#rows tbody tr[data-index="3"] td:nth-child(3)');
  await page.waitForTimeout(1500);
  await page.evaluate(() => document.getElementById('player').pause());
  const boxes = () => page.evaluate(() => {
    const out = {};
    for (const [k, s] of [['player', '#player'], ['timeline', '#timeline-canvas'], ['text', '#row-text'],
      ['utterance', '.field[data-key="utterance_type"]'], ['target', '.field[data-key="target"]'],
      ['emotion', '.field[data-key="internal_emotion"]'], ['intensity', '[data-path="internal_emotion[1].intensity"]'],
      ['strategy', '.field[data-key="support_strategy"]']]) {
      const e = document.querySelector(s), r = e && e.getBoundingClientRect();
      out[k] = r ? Math.round(r.top) + '-' + Math.round(r.bottom) + (r.top >= 0 && r.bottom <= innerHeight ? '' : ' (out of view)') : 'missing';
    }
    return JSON.stringify(out);
  });
  const shot = async (name) => {
    await page.screenshot({ path: path.join(shots, name) });
    process.stderr.write('bench_page: ' + path.join(shots, name) + ' ' + (await boxes()) + '\n');
  };
  await shot('page-1366x768.png');
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await page.waitForTimeout(300);
  await shot('page-1366x768-scrolled.png');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.waitForTimeout(300);
  await shot('page-1920x1080.png');
  await page.setViewportSize({ width: 1366, height: 768 });
}

(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rescue-bench-page-'));
  const db = path.join(dir, 'c.db');
  let server = null, browser = null;
  try {
    process.stderr.write('bench_page: making the corpus and media...\n');
    rescue('init', db);
    rescue('import', db, path.join(src, 'tools/demo/couple.jsonl'));
    // a 432-row interview (28.8 min of 4 s rows), text only
    const line = JSON.parse(fs.readFileSync(path.join(src, 'tools/demo/couple.jsonl'), 'utf8').split('\n')[0]);
    const rows = [];
    for (let i = 0; i < 432; i++) {
      const r = JSON.parse(JSON.stringify(line.rows[i % line.rows.length]));
      r.start_time = i * 4;
      r.end_time = i * 4 + 4;
      r.row_index = i + 1;
      rows.push(r);
    }
    fs.writeFileSync(path.join(dir, 'big.jsonl'), JSON.stringify({ ...line, sample_id: BIG, rows }) + '\n');
    rescue('import', db, path.join(dir, 'big.jsonl'));
    const ann = tokenOf(rescue('annotator', 'add', db, 'ann'));
    // 640x360 at 25 fps with a keyframe every 10 s, as recordings often are; a tone whose
    // loudness rises and falls, for a waveform one can see in the screenshots
    execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=25:duration=60',
      '-f', 'lavfi', '-i', "aevalsrc='(0.2+0.6*abs(sin(2*PI*t/9)))*sin(2*PI*440*t)':s=44100:d=60", '-c:v', 'libx264', '-preset', 'veryfast', '-g', '250',
      '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', path.join(dir, 'src.mp4')]);
    rescue('media', 'add', db, path.join(dir, 'src.mp4'), '--sample', SAMPLE, '--start', '0', '--end', '55');
    rescue('clip', db, '--out', path.join(dir, 'ref'), '--samples', SAMPLE);
    rescue('clip', db, '--out', path.join(dir, 'review'), '--samples', SAMPLE, '--review-copy');

    const load0 = os.loadavg()[0];
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true,
      args: ['--autoplay-policy=no-user-gesture-required', '--no-sandbox', '--mute-audio'] });
    const res = {};
    for (const kind of ['review', 'ref']) {
      server = await startServer(db, path.join(dir, kind));
      const base = 'http://127.0.0.1:' + server.port;
      const ctx = await browser.newContext({ viewport: { width: 1366, height: 768 } });
      const page = await ctx.newPage();
      await signIn(page, base, ann);
      await openSample(page, base, SAMPLE);
      await page.waitForTimeout(500);
      if (kind === 'review') await screenshots(page);
      process.stderr.write('bench_page: ' + kind + ': row selection...\n');
      res['select_' + kind] = await measureSelection(page, RUNS);
      if (kind === 'review') res.next = await measureNext(page, Math.max(6, RUNS >> 1));
      if (kind === 'review') {
        process.stderr.write('bench_page: saves, boundary drags, opening the 432-row sample...\n');
        res.save = await measureSave(page, RUNS);
        res.drag = await measureDrag(page, Math.max(6, RUNS >> 1));
        res.get = [];
        res.open = await measureOpen(page, base, Math.max(6, RUNS >> 1), res.get);
      }
      await ctx.close();
      await stopServer(server);
      server = null;
    }
    const ver = browser.version();
    console.log('bench_page: chromium ' + ver + ', 1366x768, ' + os.cpus().length + ' cores (' + os.cpus()[0].model.trim() + '), load average ' +
      load0.toFixed(1) + ' at the start, ' + os.loadavg()[0].toFixed(1) + ' at the end');
    console.log('measure                                       n      p50       p95     target (p50)');
    const line2 = (what, xs, target) => console.log(what.padEnd(42) + String(xs.length).padStart(5) + '  ' + fmt(xs) + '   ' + target);
    line2('row selected -> first frame (review copy)', res.select_review, '< 150 ms');
    line2('  reference: segment only, 10 s GOP', res.select_ref, '(before)');
    line2('next row (j, preloaded) -> first frame', res.next, '-');
    line2('save round trip (click -> "saved")', res.save, '< 50 ms');
    line2('open a 432-row sample (table + form)', res.open, '< 200 ms');
    line2('  of which its GET (server, 450 kB JSON)', res.get, '-');
    line2('boundary drop -> both rows saved', res.drag, '-');
  } finally {
    if (browser) await browser.close();
    if (server) await stopServer(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }
})().catch((e) => { console.error('bench_page: ' + (e && e.stack ? e.stack : e)); process.exit(1); });
