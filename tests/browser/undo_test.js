// undo_test.js: what the review page's undo and leave warning cover (issue 24), in headless
// Debian chromium driven by playwright-core, no media: a boundary dragged on the time line
// is undone and redone with Ctrl+Z / Ctrl+Y (both rows' times back, then moved again); a
// merge undone gives the two rows back with their ids and versions; a draft left in one
// sample makes the page ask before a reload while another sample is open. Bob's view of
// the sample stays as it was throughout. Exit 0 pass, 1 fail, 77 skipped (no browser).
//
// Environment: as serve_test.js (RESCUE_BIN, RESCUE_SOURCE_DIR, RESCUE_REQUIRE_FIXTURES).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { CHROMIUM, src, chromium: launcher, check, fail, finish, rescue, tokenOf, startServer, stopServer } = require('./util');

const chromium = launcher();
const SAMPLE = 'maya_and_daniel/001_s01e01_segment01', OTHER = 'maya_and_daniel/002_copy';

// The rows of SAMPLE as `tok` sees them (bearer token, no browser): [index, row_id, version, start, end].
async function rowsOf(base, tok) {
  const r = await fetch(base + '/api/samples/' + SAMPLE, { headers: { Authorization: 'Bearer ' + tok } });
  return (await r.json()).rows.map((x) => [x.index, x.row_id, x.version, x.row.start_time, x.row.end_time]);
}

// the canvas position (page pixels) of second t in lane k's middle
async function at(page, t, lane) {
  const g = await page.evaluate(() => JSON.parse(document.getElementById('timeline-canvas').dataset.geometry || 'null'));
  const box = await page.locator('#timeline-canvas').boundingBox();
  return { x: box.x + ((t - g.from) / (g.to - g.from)) * g.width, y: box.y + g.waveH + lane * g.laneH + g.laneH / 2 };
}

(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rescue-undo-'));
  const db = path.join(dir, 'c.db'), assets = path.join(dir, 'assets');
  let server = null, browser = null;
  try {
    const demo = fs.readFileSync(path.join(src, 'tools/demo/couple.jsonl'), 'utf8').split('\n')[0];
    fs.writeFileSync(path.join(dir, 'other.jsonl'), JSON.stringify(Object.assign(JSON.parse(demo), { sample_id: OTHER })) + '\n');
    rescue('init', db);
    rescue('import', db, path.join(src, 'tools/demo/couple.jsonl'));
    rescue('import', db, path.join(dir, 'other.jsonl'));
    const ann = tokenOf(rescue('annotator', 'add', db, 'ann'));
    const bob = tokenOf(rescue('annotator', 'add', db, 'bob'));
    fs.mkdirSync(assets);
    server = await startServer(db, assets);
    const base = 'http://127.0.0.1:' + server.port;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    const page = await (await browser.newContext({ viewport: { width: 1366, height: 768 } })).newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(base + '/');
    await page.fill('#token', ann);
    await page.click('#signin-btn');
    await page.waitForSelector('#nav:not([hidden])');
    await page.goto(base + '/#/sample/' + SAMPLE);
    await page.waitForSelector('#rows tbody tr');
    await page.waitForFunction(() => !!document.getElementById('timeline-canvas').dataset.geometry);
    const bobBefore = JSON.stringify(await rowsOf(base, bob)), first = await rowsOf(base, ann);

    // ---- a boundary dragged, undone, redone ----
    const p = await at(page, 21.05, 2), to = await at(page, 22.5, 2); // rows 4 and 5 meet at 21.05 s, Therapist lane
    await page.mouse.move(p.x, p.y);
    await page.mouse.down();
    await page.mouse.move((p.x + to.x) / 2, p.y);
    await page.mouse.move(to.x, p.y);
    await page.mouse.up();
    await page.waitForFunction(() => /boundary moved|not saved/.test(document.getElementById('timeline-note').textContent), null, { timeout: 10000 });
    let rows = await rowsOf(base, ann);
    const moved = rows[3][4];
    check(Math.abs(moved - 22.5) < 0.15 && rows[4][3] === moved, 'the drag moved the boundary rows 4 and 5 share to ' + moved);
    const undoMsg = () => page.waitForFunction(() => /^(undone|redone|cannot)/.test(document.getElementById('save-msg').textContent), null, { timeout: 10000 });
    await page.evaluate(() => { document.getElementById('save-msg').textContent = ''; });
    await page.keyboard.press('Control+z');
    await undoMsg();
    rows = await rowsOf(base, ann);
    check(rows[3][4] === 21.05 && rows[4][3] === 21.05 && rows[3][1] === first[3][1] && rows[4][1] === first[4][1],
      'Ctrl+Z puts the boundary back: row 4 ends and row 5 starts at ' + rows[3][4] + ' / ' + rows[4][3] + ' (' + await page.textContent('#save-msg') + ')');
    await page.evaluate(() => { document.getElementById('save-msg').textContent = ''; });
    await page.keyboard.press('Control+y');
    await undoMsg();
    rows = await rowsOf(base, ann);
    check(rows[3][4] === moved && rows[4][3] === moved, 'Ctrl+Y moves it again (' + rows[3][4] + ')');
    await page.evaluate(() => { document.getElementById('save-msg').textContent = ''; });
    await page.keyboard.press('Control+z');
    await undoMsg();

    // ---- a merge undone: the two rows again, their ids and versions ----
    const beforeMerge = await rowsOf(base, ann);
    await page.click('#rows tbody tr[data-index="2"] td:nth-child(3)');
    await page.click('#merge-btn');
    await page.waitForFunction(() => document.getElementById('rows').dataset.rows === '8');
    check((await rowsOf(base, ann)).length === 8, 'the merge of rows 2 and 3 leaves 8 rows');
    await page.evaluate(() => { document.activeElement.blur(); document.getElementById('save-msg').textContent = ''; });
    await page.keyboard.press('Control+z');
    await page.waitForFunction(() => document.getElementById('rows').dataset.rows === '9');
    rows = await rowsOf(base, ann);
    check(JSON.stringify(rows) === JSON.stringify(beforeMerge), 'undoing the merge gives rows 2 and 3 back with their ids and versions (' +
      JSON.stringify(rows.slice(1, 3).map((r) => r.slice(1, 3))) + ', before ' + JSON.stringify(beforeMerge.slice(1, 3).map((r) => r.slice(1, 3))) + ')');
    check(JSON.stringify(await rowsOf(base, bob)) === bobBefore, "bob's view is unchanged by ann's drags, merge and undos");

    // ---- a draft of one sample: leaving the page from another asks first ----
    await page.click('#rows tbody tr[data-index="3"] td:nth-child(3)');
    await page.fill('#fields [data-path="tone_of_voice"]', 'left as a draft');
    await page.keyboard.press('Escape');
    await page.goto(base + '/#/sample/' + OTHER);
    await page.waitForFunction((id) => document.getElementById('sample-title').textContent === id, OTHER);
    check(await page.evaluate(() => document.getElementById('draft-count').hidden), 'the other sample has no draft of its own');
    let asked = null;
    page.once('dialog', (d) => { asked = d.type(); d.accept(); });
    await page.reload();
    await page.waitForSelector('#rows tbody tr');
    check(asked === 'beforeunload', 'reloading with a draft of another sample asks first (' + asked + ')');
    await page.goto(base + '/#/sample/' + SAMPLE);
    await page.waitForFunction((id) => document.getElementById('sample-title').textContent === id, SAMPLE);
    check(await page.evaluate(() => !document.getElementById('draft-count').hidden), 'and the draft is still there in its sample');
    check(errors.length === 0, 'no script errors' + (errors.length ? ': ' + errors.join(' | ') : ''));
  } catch (e) {
    fail(e);
  } finally {
    if (browser) await browser.close();
    await stopServer(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  finish();
})();
