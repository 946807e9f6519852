// undo_stale_test.js: an undo or redo step the server refuses because its row was saved
// meanwhile elsewhere (409, stale version), in headless Debian chromium driven by
// playwright-core. Rows are per annotator's view, so what makes ann's version stale is a
// save of ann's own from elsewhere: her second tab. Ann sets row 3's start, row 5's end and
// row 3's end to the playhead ([ and ]); her second tab then saves row 3. Ctrl+Z of row 3's
// end is refused: the page says row 3 changed and that ann saved it in another tab, shows
// row 3 as the server has it, and drops both row 3 steps; the next Ctrl+Z undoes row 5's
// end (not the refused step again) and a third has nothing left. The second tab saves row 5
// too: Ctrl+Y of row 5's end is refused the same way and dropped. A reload shows what the
// server has. Last, the undo of a split whose second half the second tab saved is refused
// and dropped too. Exit 0 pass, 1 fail, 77 skipped (no browser).
//
// Environment: as serve_test.js (RESCUE_BIN, RESCUE_SOURCE_DIR, RESCUE_REQUIRE_FIXTURES).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { CHROMIUM, src, chromium: launcher, check, fail, finish, rescue, tokenOf, startServer, stopServer } = require('./util');

const chromium = launcher();
const SAMPLE = 'maya_and_daniel/001_s01e01_segment01';
const WAIT = { timeout: 10000 };

(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rescue-undostale-'));
  const db = path.join(dir, 'c.db'), assets = path.join(dir, 'assets');
  let server = null, browser = null;
  const timer = setTimeout(() => { console.log('FAIL - the test did not end within 240 s'); process.exit(1); }, 240000);
  try {
    rescue('init', db);
    rescue('import', db, path.join(src, 'tools/demo/couple.jsonl'));
    const ann = tokenOf(rescue('annotator', 'add', db, 'ann'));
    // 50 s at 10 fps, a keyframe every second: the playhead the times are set to
    execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=160x90:rate=10:duration=50',
      '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '10', '-pix_fmt', 'yuv420p', path.join(dir, 'src.mp4')]);
    rescue('media', 'add', db, path.join(dir, 'src.mp4'), '--sample', SAMPLE, '--start', '0', '--end', '49.6');
    rescue('clip', db, '--out', assets, '--review-copy');
    server = await startServer(db, assets);
    const base = 'http://127.0.0.1:' + server.port;
    // row n of ann's view as the server has it (bearer token, no browser)
    const rowOf = async (n) => (await (await fetch(base + '/api/samples/' + SAMPLE, { headers: { Authorization: 'Bearer ' + ann } })).json()).rows[n - 1];

    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--mute-audio'] });
    const errors = [];
    // ann signed in, the sample open, in a browser context of its own: a second sign-in in
    // the same context would take the first tab's session (its CSRF token) away
    const openTab = async () => {
      const p = await (await browser.newContext({ viewport: { width: 1366, height: 768 } })).newPage();
      p.on('pageerror', (e) => errors.push(String(e)));
      await p.goto(base + '/');
      await p.fill('#token', ann);
      await p.click('#signin-btn');
      await p.waitForSelector('#nav:not([hidden])');
      await p.goto(base + '/#/sample/' + SAMPLE);
      await p.waitForSelector('#rows tbody tr');
      await p.waitForFunction(() => !!document.getElementById('timeline-canvas').dataset.geometry);
      return p;
    };
    const page = await openTab();
    const msg = () => page.textContent('#save-msg');
    const clearMsg = () => page.evaluate(() => { document.activeElement.blur(); document.getElementById('save-msg').textContent = ''; });
    const said = (re) => page.waitForFunction((re) => new RegExp(re).test(document.getElementById('save-msg').textContent), re, WAIT);
    // a click on the time line at second t in the lane of row n's speaker: selects row n
    // and seeks there, paused
    const seekIn = async (n, t) => {
      await page.evaluate(() => document.getElementById('player').pause());
      const g = await page.evaluate(() => JSON.parse(document.getElementById('timeline-canvas').dataset.geometry));
      const speaker = await page.evaluate((n) => document.querySelector('#rows tbody tr[data-index="' + n + '"]').children[2].textContent, n);
      const box = await page.locator('#timeline-canvas').boundingBox();
      const lane = g.lanes.indexOf(speaker);
      await page.mouse.click(box.x + ((t - g.from) / (g.to - g.from)) * g.width, box.y + g.waveH + lane * g.laneH + g.laneH / 2);
      await page.waitForFunction((n) => !!document.querySelector('#rows tbody tr.selected[data-index="' + n + '"]'), n, WAIT);
      await page.waitForFunction((t) => Math.abs(document.getElementById('player').currentTime - t) < 0.2, t, WAIT);
      await page.evaluate(() => document.getElementById('player').pause());
      return page.evaluate(() => Math.round(document.getElementById('player').currentTime * 1000) / 1000);
    };
    // set row n's start ('[') or end (']') to second t: waits until the server has it
    const setTime = async (n, t, key) => {
      const at = await seekIn(n, t);
      await clearMsg();
      await page.keyboard.press(key);
      const field = key === '[' ? 'start_time' : 'end_time';
      for (let i = 0; i < 100 && (await rowOf(n)).row[field] !== at; i++) await new Promise((r) => setTimeout(r, 100));
      check((await rowOf(n)).row[field] === at, key + ' sets row ' + n + '\'s ' + field + ' to ' + at);
      return at;
    };
    const row3 = await rowOf(3), row5 = await rowOf(5);
    const s3 = await setTime(3, 10.5, '[');
    const e5 = await setTime(5, 24, ']');
    const e3 = await setTime(3, 13.5, ']');

    // ---- ann's second tab saves row 3 (a new tone): the first tab's version is stale ----
    const tab2 = await openTab();
    await tab2.click('#rows tbody tr[data-index="3"] td:nth-child(3)');
    await tab2.evaluate(() => document.getElementById('player').pause());
    await tab2.fill('#fields [data-path="tone_of_voice"]', 'changed in tab 2');
    await tab2.keyboard.press('Control+s');
    await tab2.waitForFunction(() => /^saved/.test(document.getElementById('save-msg').textContent), null, WAIT);
    const saved3 = await rowOf(3);
    check(saved3.row.tone_of_voice === 'changed in tab 2' && saved3.row.start_time === s3 && saved3.row.end_time === e3,
      'the second tab saved row 3 as version ' + saved3.version);

    // ---- Ctrl+Z of row 3's end: refused, said, row 3 current, both row 3 steps dropped ----
    await page.bringToFront();
    await clearMsg();
    await page.keyboard.press('Control+z');
    await said('^not undone');
    const m1 = await msg();
    check(/^not undone: row 3 changed since this page read it: ann saved it in another tab or client \(version \d+ now\)/.test(m1) &&
      m1.includes('version ' + saved3.version + ' now') && /this step and 1 more of row 3 are dropped/.test(m1),
    'Ctrl+Z of row 3\'s end is refused and the page says why and whose save it was: ' + m1);
    const after = await rowOf(3);
    check(after.version === saved3.version && after.row.end_time === e3, 'the server kept the second tab\'s row 3 (version ' + after.version + ', end ' + after.row.end_time + ')');
    check(await page.evaluate(() => !!document.querySelector('#rows tbody tr.selected[data-index="3"]')) &&
      (await page.inputValue('#fields [data-path="tone_of_voice"]')) === 'changed in tab 2' &&
      (await page.textContent('#rows tbody tr[data-index="3"] td:nth-child(2)')) === s3.toFixed(2) + '–' + e3.toFixed(2),
    'the page shows row 3 as the server has it: the second tab\'s tone, ' + s3 + '–' + e3);
    await clearMsg();
    await page.keyboard.press('Control+z');
    await said('^(undone|not undone|cannot)');
    check(await msg() === 'undone: end of row 5' && (await rowOf(5)).row.end_time === row5.row.end_time,
      'the second Ctrl+Z undoes row 5\'s end (' + (await rowOf(5)).row.end_time + '), not the refused step: ' + await msg());
    await clearMsg();
    await page.keyboard.press('Control+z');
    await said('^(undone|not undone|nothing|cannot)');
    const r3 = await rowOf(3);
    check(await msg() === 'nothing to undo' && r3.version === saved3.version && r3.row.start_time === s3,
      'a third Ctrl+Z has nothing left: row 3\'s start step went with the refused one (' + await msg() + ')');

    // ---- a redo refused the same way: the second tab saves row 5, Ctrl+Y of its end ----
    await tab2.reload();
    await tab2.waitForSelector('#rows tbody tr');
    await tab2.click('#rows tbody tr[data-index="5"] td:nth-child(3)');
    await tab2.evaluate(() => document.getElementById('player').pause());
    await tab2.fill('#fields [data-path="tone_of_voice"]', 'row 5 in tab 2');
    await tab2.keyboard.press('Control+s');
    await tab2.waitForFunction(() => /^saved/.test(document.getElementById('save-msg').textContent), null, WAIT);
    const saved5 = await rowOf(5);
    await page.bringToFront();
    await clearMsg();
    await page.keyboard.press('Control+y');
    await said('^(redone|not redone|nothing)');
    const m2 = await msg();
    check(/^not redone: row 5 changed since this page read it: ann saved it in another tab or client/.test(m2) && /this step is dropped/.test(m2) &&
      (await rowOf(5)).version === saved5.version && (await rowOf(5)).row.end_time === row5.row.end_time &&
      (await page.inputValue('#fields [data-path="tone_of_voice"]')) === 'row 5 in tab 2', 'Ctrl+Y of row 5\'s end is refused, said and row 5 shown as saved: ' + m2);
    await clearMsg();
    await page.keyboard.press('Control+y');
    await said('^(redone|not redone|nothing)');
    check(await msg() === 'nothing to redo' && (await rowOf(5)).row.end_time === row5.row.end_time, 'a second Ctrl+Y has nothing left: ' + await msg());

    // ---- a reload shows what the server has ----
    await page.reload();
    await page.waitForSelector('#rows tbody tr[data-index="5"]');
    const cells = await page.evaluate(() => [3, 5].map((n) => document.querySelector('#rows tbody tr[data-index="' + n + '"]').children[1].textContent));
    const f3 = await rowOf(3), f5 = await rowOf(5);
    check(cells[0] === f3.row.start_time.toFixed(2) + '–' + f3.row.end_time.toFixed(2) && cells[1] === f5.row.start_time.toFixed(2) + '–' + f5.row.end_time.toFixed(2) &&
      f3.row.tone_of_voice === 'changed in tab 2' && f5.row.tone_of_voice === 'row 5 in tab 2' && f3.row.start_time === s3 && f3.row.end_time === e3 &&
      f5.row.end_time === row5.row.end_time && f3.row.start_time !== row3.row.start_time,
    'after a reload the page shows the server\'s rows 3 and 5: ' + cells.join(', '));
    check(e5 !== row5.row.end_time, 'row 5\'s end had moved to ' + e5 + ' before its undo');

    // ---- a split undone after the second tab saved one of its halves: the merge-back is
    // refused (it would put the parent row back over that save) and dropped ----
    const nRows = () => fetch(base + '/api/samples/' + SAMPLE, { headers: { Authorization: 'Bearer ' + ann } }).then((r) => r.json()).then((v) => v.rows.length);
    await seekIn(6, 28);
    await clearMsg();
    await page.keyboard.press('s');
    await page.waitForFunction(() => document.getElementById('rows').dataset.rows === '10', null, WAIT);
    check(await nRows() === 10, 'ann splits row 6 at 28 s: 10 rows');
    await tab2.reload();
    await tab2.waitForFunction(() => document.getElementById('rows').dataset.rows === '10', null, WAIT);
    await tab2.click('#rows tbody tr[data-index="7"] td:nth-child(3)');
    await tab2.evaluate(() => document.getElementById('player').pause());
    await tab2.fill('#fields [data-path="tone_of_voice"]', 'second half in tab 2');
    await tab2.keyboard.press('Control+s');
    await tab2.waitForFunction(() => /^saved/.test(document.getElementById('save-msg').textContent), null, WAIT);
    const saved7 = await rowOf(7);
    await page.bringToFront();
    await clearMsg();
    await page.keyboard.press('Control+z');
    await said('^(undone|not undone|nothing|cannot)');
    const m3 = await msg();
    check(/^not undone: row 7 changed since this page read it: ann saved it in another tab or client \(version \d+ now\)/.test(m3) && /this step is dropped/.test(m3) &&
      await nRows() === 10 && (await rowOf(7)).version === saved7.version && (await page.inputValue('#fields [data-path="tone_of_voice"]')) === 'second half in tab 2',
    'Ctrl+Z of the split is refused, row 7 shown as the second tab saved it: ' + m3);
    await clearMsg();
    await page.keyboard.press('Control+z');
    await said('^(undone|not undone|nothing|cannot)');
    check(await msg() === 'nothing to undo' && await nRows() === 10, 'a second Ctrl+Z does not try the merge-back again: ' + await msg());
    check(errors.length === 0, 'no script errors' + (errors.length ? ': ' + errors.join(' | ') : ''));
  } catch (e) {
    fail(e);
  } finally {
    clearTimeout(timer);
    if (browser) await browser.close();
    await stopServer(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  finish();
})();
