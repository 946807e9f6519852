// undo_test.js: what the review page's undo, drafts and navigation cover (issue 24), in
// headless Debian chromium driven by playwright-core, on review copies `rescue clip
// --review-copy` cut from a small H.264 file made with ffmpeg: a boundary dragged on the
// time line is undone and redone with Ctrl+Z / Ctrl+Y (both rows' times back, then moved
// again), and a drag past the next row's end stops short of it; on a sample bob marked
// reviewed ann's split reopens it (both views show it, the page says so), and its undo in
// the page restores the row and reopens it again; on a sample bob discarded ann's merge is
// refused, saying why (so is the redo of her split), and her save reopens it, as a boundary dragged on a reviewed
// sample does; a merge undone gives the two
// rows back with their ids and versions; a row's end set to the playhead with ] and its
// start with the Start = playhead button are undone and redone; the preloaded next row is
// let go when another row is selected without playing or the sample view is left; a
// draft left in one sample makes the page ask before a reload while another sample is
// open; a sample linked to the whole file plays its review copy; g goes to a row, u
// resumes, the row filter (speaker, text, lint errors, not reviewed); empty lists fold
// into one "add" line; drafts are per annotator (bob on the same browser neither sees nor
// clears ann's; her sign-out does). Bob's view of the sample stays as it was throughout.
// Exit 0 pass, 1 fail, 77 skipped (no browser).
//
// Environment: as serve_test.js (RESCUE_BIN, RESCUE_SOURCE_DIR, RESCUE_REQUIRE_FIXTURES).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
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
    // 50 s at 10 fps, a keyframe every second, for the playhead the times are set to
    execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=160x90:rate=10:duration=50',
      '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '10', '-pix_fmt', 'yuv420p', path.join(dir, 'src.mp4')]);
    rescue('media', 'add', db, path.join(dir, 'src.mp4'), '--sample', SAMPLE, '--start', '0', '--end', '49.6');
    // SAMPLE is a span of it (segment.mp4 and review.mp4); OTHER is linked to the whole
    // file: no segment.mp4, its rows play the review copy
    rescue('media', 'add', db, path.join(dir, 'src.mp4'), '--sample', OTHER);
    rescue('clip', db, '--out', assets, '--review-copy');
    server = await startServer(db, assets);
    const base = 'http://127.0.0.1:' + server.port;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--mute-audio'] });
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

    // ---- a drag past the next row's end stops short of it: row 5 keeps a span ----
    const p2 = await at(page, 21.05, 2), far = await at(page, 29, 2);
    await page.evaluate(() => { document.getElementById('timeline-note').textContent = ''; });
    await page.mouse.move(p2.x, p2.y);
    await page.mouse.down();
    await page.mouse.move((p2.x + far.x) / 2, p2.y);
    await page.mouse.move(far.x, p2.y);
    await page.mouse.up();
    await page.waitForFunction(() => /boundary moved|not saved/.test(document.getElementById('timeline-note').textContent), null, { timeout: 10000 });
    rows = await rowsOf(base, ann);
    check(rows[3][4] === rows[4][3] && rows[4][3] < 25.3 && rows[4][3] > 24 && rows[4][4] === 25.3,
      'a drag to 29 s stops before row 5\'s end: rows 4 and 5 meet at ' + rows[4][3] + ', row 5 still ends at ' + rows[4][4]);
    await page.evaluate(() => { document.getElementById('save-msg').textContent = ''; });
    await page.keyboard.press('Control+z');
    await undoMsg();

    const playAt = async (t) => { // a click on the time line (Therapist lane, inside row 5's span) seeks there, paused
      await page.evaluate(() => document.getElementById('player').pause());
      const q = await at(page, t, 2);
      await page.mouse.click(q.x, q.y);
      await page.waitForFunction((t) => Math.abs(document.getElementById('player').currentTime - t) < 0.2, t);
      await page.evaluate(() => document.activeElement.blur());
      return page.evaluate(() => Math.round(document.getElementById('player').currentTime * 1000) / 1000);
    };
    const status = (tok, st) => fetch(base + '/api/samples/' + SAMPLE + '/status', { method: 'POST',
      headers: { Authorization: 'Bearer ' + tok, 'Content-Type': 'application/json' }, body: JSON.stringify(st) });
    const viewOf = async (tok) => (await fetch(base + '/api/samples/' + SAMPLE, { headers: { Authorization: 'Bearer ' + tok } })).json();
    const said = (re) => page.waitForFunction((re) => new RegExp(re).test(document.getElementById('save-msg').textContent), re, { timeout: 10000 });

    // ---- bob marks the sample reviewed (the status is the sample's, one for everyone): ann's
    // split reopens it, as a save does, under her name; bob's rows stay as they were ----
    const marked = await status(bob, { status: 'reviewed' });
    check(marked.status === 200, 'bob marks the sample reviewed (' + marked.status + ')');
    await page.reload();
    await page.waitForFunction(() => document.getElementById('sample-status').textContent === 'reviewed', null, { timeout: 10000 });
    const beforeSplit = await rowsOf(base, ann);
    await page.click('#rows tbody tr[data-index="5"] td:nth-child(3)');
    const splitAt = await playAt(23.2);
    await page.evaluate(() => { document.getElementById('save-msg').textContent = ''; });
    await page.keyboard.press('s');
    await page.waitForFunction(() => document.getElementById('rows').dataset.rows === '10', null, { timeout: 10000 });
    await said('in review again');
    rows = await rowsOf(base, ann);
    check(rows.length === 10 && Math.abs(rows[4][4] - splitAt) < 0.002 && rows[5][3] === rows[4][4], 'on the reviewed sample ann\'s split at ' + splitAt + ' makes 10 rows');
    check(await page.textContent('#sample-status') === 'in_review' && /^split saved; the sample was reviewed and is in review again$/.test(await page.textContent('#save-msg')),
      'the page shows the sample in review again and says so: ' + await page.textContent('#save-msg'));
    check((await page.textContent('#history')).includes('ann: in_review (reopened: a row was split)'), 'the status history in the page shows ann\'s reopening: ' + await page.textContent('#history'));
    const annView = await viewOf(ann);
    let bobView = await viewOf(bob);
    const lastOf = (v) => v.history[v.history.length - 1];
    check(annView.status === 'in_review' && bobView.status === 'in_review' && lastOf(bobView).annotator === 'ann' && lastOf(bobView).reason === 'reopened: a row was split',
      'ann\'s and bob\'s views both show the sample in review, reopened by ann (' + JSON.stringify(lastOf(bobView)) + ')');
    check(JSON.stringify(await rowsOf(base, bob)) === bobBefore, 'bob\'s rows are unchanged by ann\'s split');
    // the split undone in the page, after bob marked the sample reviewed again: the
    // merge-back restores row 5 with its id and versions, and reopens the sample too
    check((await status(bob, { status: 'reviewed' })).status === 200, 'bob marks it reviewed again');
    await page.evaluate(() => { document.activeElement.blur(); document.getElementById('save-msg').textContent = ''; });
    await page.keyboard.press('Control+z');
    await undoMsg();
    await page.waitForFunction(() => document.getElementById('rows').dataset.rows === '9', null, { timeout: 10000 });
    rows = await rowsOf(base, ann);
    check(JSON.stringify(rows) === JSON.stringify(beforeSplit), 'Ctrl+Z undoes the split: row 5 is back with its id and versions (' + JSON.stringify(rows[4]) + ')');
    check(await page.textContent('#save-msg') === 'undone: split; the sample was reviewed and is in review again' && await page.textContent('#sample-status') === 'in_review',
      'the undo reopened it too, and says so: ' + await page.textContent('#save-msg'));
    bobView = await viewOf(bob);
    check(bobView.status === 'in_review' && lastOf(bobView).reason === 'reopened: two rows were merged' && lastOf(bobView).annotator === 'ann' &&
      JSON.stringify(await rowsOf(base, bob)) === bobBefore, 'bob sees it in review, reopened by ann\'s undo, his rows unchanged');

    // ---- discarded by bob: ann's merge is refused, saying why; her save reopens it ----
    check((await status(bob, { status: 'discarded', reason: 'noise' })).status === 200, 'bob discards the sample');
    // the page has not seen it yet: redoing the split is refused with the server's reason,
    // and the step is kept for when the sample is back in review
    await page.evaluate(() => { document.activeElement.blur(); document.getElementById('save-msg').textContent = ''; });
    await page.keyboard.press('Control+y');
    await said('^not redone');
    check(await page.textContent('#save-msg') === 'not redone: the sample is discarded: rows are not split or merged in a discarded sample; set it back to in review first' &&
      (await rowsOf(base, ann)).length === 9, 'Ctrl+Y on the discarded sample does not split again and says why: ' + await page.textContent('#save-msg'));
    await page.reload();
    await page.waitForFunction(() => document.getElementById('sample-status').textContent === 'discarded', null, { timeout: 10000 });
    await page.click('#rows tbody tr[data-index="2"] td:nth-child(3)');
    await page.evaluate(() => document.getElementById('player').pause());
    await page.click('#merge-btn');
    await said('the sample is discarded');
    check((await rowsOf(base, ann)).length === 9 && await page.textContent('#sample-status') === 'discarded',
      'on the discarded sample ann\'s merge is refused: ' + await page.textContent('#save-msg'));
    const tone2 = await page.inputValue('#fields [data-path="tone_of_voice"]');
    await page.fill('#fields [data-path="tone_of_voice"]', tone2 + ', tired');
    await page.keyboard.press('Control+s');
    await page.waitForFunction(() => document.getElementById('sample-status').textContent === 'in_review', null, { timeout: 10000 });
    await said('in review again');
    const hist = await viewOf(ann);
    check(hist.status === 'in_review' && lastOf(hist).annotator === 'ann' && lastOf(hist).reason === 'reopened: a row was saved' && hist.rows[1].row.tone_of_voice === tone2 + ', tired',
      'ann\'s save reopened it to in review, in its history under ann (' + JSON.stringify(hist.history.map((h) => [h.status, h.annotator, h.reason])) + ')');
    check(/^saved \(version \d+\); the sample was discarded and is in review again$/.test(await page.textContent('#save-msg')) &&
      (await page.textContent('#history')).includes('ann: in_review (reopened: a row was saved)'), 'the page says so and its history shows it: ' + await page.textContent('#save-msg'));

    // ---- a boundary dragged on a sample bob marked reviewed: new times are a save, so the
    // drag reopens it too, and the time line's note says so ----
    check((await status(bob, { status: 'reviewed' })).status === 200, 'bob marks the sample reviewed once more');
    await page.reload();
    await page.waitForFunction(() => document.getElementById('sample-status').textContent === 'reviewed', null, { timeout: 10000 });
    await page.waitForFunction(() => !!document.getElementById('timeline-canvas').dataset.geometry);
    const beforeDrag = await rowsOf(base, ann);
    const pd = await at(page, 21.05, 2), td = await at(page, 22, 2);
    await page.evaluate(() => { document.getElementById('timeline-note').textContent = ''; });
    await page.mouse.move(pd.x, pd.y);
    await page.mouse.down();
    await page.mouse.move((pd.x + td.x) / 2, pd.y);
    await page.mouse.move(td.x, pd.y);
    await page.mouse.up();
    await page.waitForFunction(() => /boundary moved|not saved/.test(document.getElementById('timeline-note').textContent), null, { timeout: 10000 });
    rows = await rowsOf(base, ann);
    check(rows[3][4] !== 21.05 && rows[4][3] === rows[3][4] && await page.textContent('#sample-status') === 'in_review' &&
      /; the sample was reviewed and is in review again$/.test(await page.textContent('#timeline-note')) && lastOf(await viewOf(bob)).reason === 'reopened: a row was saved',
      'the drag on the reviewed sample moved the boundary to ' + rows[3][4] + ' and reopened it: ' + await page.textContent('#timeline-note'));
    await page.evaluate(() => { document.activeElement.blur(); document.getElementById('save-msg').textContent = ''; });
    await page.keyboard.press('Control+z');
    await undoMsg();
    check(JSON.stringify((await rowsOf(base, ann)).map((r) => r.slice(3))) === JSON.stringify(beforeDrag.map((r) => r.slice(3))), 'Ctrl+Z puts the boundary back');

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

    // ---- a row's end and start set to the playhead (] and the button), undone, redone ----
    const t5 = await rowsOf(base, ann), end5 = t5[4][4];
    await page.click('#rows tbody tr[data-index="5"] td:nth-child(3)');
    const cut = await playAt(23.6);
    await page.evaluate(() => { document.getElementById('save-msg').textContent = ''; });
    await page.keyboard.press(']');
    await page.waitForFunction((e) => Number(document.querySelector('#rows tbody tr[data-index="5"]').children[1].textContent.split('–')[1]) !== e, end5, { timeout: 10000 });
    rows = await rowsOf(base, ann);
    check(Math.abs(rows[4][4] - cut) < 0.002 && rows[4][1] === t5[4][1], '] sets row 5\'s end to the playhead (' + rows[4][4] + ', playhead ' + cut + ')');
    await page.keyboard.press('Control+z');
    await undoMsg();
    rows = await rowsOf(base, ann);
    check(rows[4][4] === end5 && rows[4][1] === t5[4][1], 'Ctrl+Z gives row 5 its end back (' + rows[4][4] + '; ' + await page.textContent('#save-msg') + ')');
    await page.evaluate(() => { document.getElementById('save-msg').textContent = ''; });
    await page.keyboard.press('Control+y');
    await undoMsg();
    rows = await rowsOf(base, ann);
    check(Math.abs(rows[4][4] - cut) < 0.002, 'Ctrl+Y sets it again (' + rows[4][4] + ')');
    const start5 = rows[4][3], from = await playAt(22.4);
    await page.evaluate(() => { document.getElementById('save-msg').textContent = ''; });
    await page.click('#set-start');
    await page.waitForFunction((s) => Number(document.querySelector('#rows tbody tr[data-index="5"]').children[1].textContent.split('–')[0]) !== s, start5, { timeout: 10000 });
    rows = await rowsOf(base, ann);
    check(Math.abs(rows[4][3] - from) < 0.002, 'Start = playhead sets row 5\'s start to ' + rows[4][3] + ' (playhead ' + from + ')');
    await page.evaluate(() => { document.getElementById('save-msg').textContent = ''; });
    await page.keyboard.press('Control+z');
    await undoMsg();
    await page.evaluate(() => { document.getElementById('save-msg').textContent = ''; });
    await page.keyboard.press('Control+z');
    await undoMsg();
    rows = await rowsOf(base, ann);
    check(rows[4][3] === start5 && rows[4][4] === end5 && rows[3][4] === start5, 'two undos give row 5 its start and end back (' + rows[4][3] + '–' + rows[4][4] + ')');
    check(JSON.stringify(await rowsOf(base, bob)) === bobBefore, "bob's view is unchanged by ann's drags, merge, times and undos");

    // ---- the preloaded next row: kept while the sample view is open, let go when it is left ----
    await page.click('#rows tbody tr[data-index="2"] td:nth-child(3)');
    await page.waitForFunction(() => { const v = document.querySelector('video.preload'); return v && v.dataset.path && v.readyState >= 2; }, null, { timeout: 10000 });
    const spare = await page.evaluate(() => { const v = document.querySelector('video.preload'); return { at: Number(v.dataset.at), t: v.currentTime, paused: v.paused }; });
    check(spare.paused && spare.at === 9.86 && Math.abs(spare.t - 9.86) < 0.001, 'while row 2 plays, a paused spare holds row 3 at its start (' + JSON.stringify(spare) + ')');
    // a row selected without playing it (a click on the time line), not followed by row 3
    await page.evaluate(() => document.getElementById('player').pause());
    const q7 = await at(page, 41, 0);
    await page.mouse.click(q7.x, q7.y);
    await page.waitForFunction(() => !document.querySelector('video.preload').getAttribute('src'), null, { timeout: 10000 }).catch(() => {});
    check(await page.evaluate(() => !document.querySelector('video.preload').getAttribute('src')), 'selecting another row without playing it lets the spare go');
    await page.click('#rows tbody tr[data-index="2"] td:nth-child(3)');
    await page.waitForFunction(() => !!document.querySelector('video.preload').getAttribute('src'), null, { timeout: 10000 });
    await page.click('#nav-work');
    await page.waitForSelector('#view-work:not([hidden])');
    check(await page.evaluate(() => { const v = document.querySelector('video.preload'); return !v.getAttribute('src') && v.networkState === HTMLMediaElement.NETWORK_EMPTY; }),
      'leaving the sample view lets the preloaded next row go (no source, nothing loading)');
    await page.goto(base + '/#/sample/' + SAMPLE);
    await page.waitForFunction((id) => document.getElementById('sample-title').textContent === id, SAMPLE);

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

    // ---- a sample linked to the whole file (no segment.mp4) plays its review copy ----
    await page.goto(base + '/#/sample/' + OTHER);
    await page.waitForFunction((id) => document.getElementById('sample-title').textContent === id, OTHER);
    const otherView = await (await fetch(base + '/api/samples/' + OTHER, { headers: { Authorization: 'Bearer ' + ann } })).json();
    const om = otherView.rows[2].media;
    check(!fs.existsSync(path.join(assets, OTHER, 'segment.mp4')) && om && om.kind === 'review' && /review\.mp4/.test(om.path),
      'a sample linked to the whole file has no segment.mp4 and its rows play the review copy (' + JSON.stringify(om && om.kind) + ')');
    await page.click('#rows tbody tr[data-index="3"] td:nth-child(3)');
    await page.waitForFunction(() => { const v = document.getElementById('player'); return !v.paused && v.currentTime > 9.8; }, null, { timeout: 20000 });
    const op = await page.evaluate(() => { const v = document.getElementById('player'); v.pause(); return { src: v.currentSrc, t: v.currentTime }; });
    check(/review\.mp4/.test(op.src) && op.t >= 9.86 - 0.1 && op.t <= 14.2 + 0.05, 'its row 3 plays from the review copy inside 9.86-14.2 s (at ' + op.t.toFixed(2) + ')');

    // ---- go to a row, resume, the row filter (OTHER: nothing of ann's yet) ----
    const selectedRow = () => page.evaluate(() => Number(document.querySelector('#rows tbody tr.selected').dataset.index));
    await page.evaluate(() => document.activeElement.blur());
    await page.keyboard.press('g');
    await page.keyboard.type('7');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('#rows tbody tr.selected[data-index="7"]'));
    check(await page.evaluate(() => document.activeElement.id !== 'goto-row'), 'g 7 Enter goes to row 7 and leaves the number field');
    await page.evaluate(() => document.getElementById('player').pause());
    await page.keyboard.press('u');
    await page.waitForFunction(() => document.querySelector('#rows tbody tr.selected[data-index="1"]'));
    await page.keyboard.press('Enter'); // accept row 1: the next unreviewed row, 2, plays
    await page.waitForFunction(() => document.querySelector('#rows tbody tr.selected[data-index="2"]'));
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('#rows tbody tr.selected[data-index="3"]'));
    await page.evaluate(() => document.getElementById('player').pause());
    await page.keyboard.press('g');
    await page.keyboard.type('1');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('#rows tbody tr.selected[data-index="1"]'));
    await page.keyboard.press('u');
    await page.waitForFunction(() => document.querySelector('#rows tbody tr.selected[data-index="3"]'));
    check(await selectedRow() === 3, 'u resumes at row 3, the first row ann has not reviewed (rows 1 and 2 accepted)');
    await page.evaluate(() => document.getElementById('player').pause());
    const shown = () => page.evaluate(() => [...document.querySelectorAll('#rows tbody tr')].map((tr) => Number(tr.dataset.index)));
    const ov = (await (await fetch(base + '/api/samples/' + OTHER, { headers: { Authorization: 'Bearer ' + ann } })).json()).rows;
    const want = (f) => JSON.stringify(ov.filter(f).map((r) => r.index));
    await page.selectOption('#filter-speaker', 'Daniel');
    check(JSON.stringify(await shown()) === want((r) => r.row.primary_speaker === 'Daniel'), 'the speaker filter shows Daniel\'s rows: ' + (await shown()).join(' '));
    await page.selectOption('#filter-speaker', '');
    await page.keyboard.press('/');
    await page.keyboard.type('fight');
    check(JSON.stringify(await shown()) === want((r) => /fight/i.test(r.row.dialogue_cleaned)) && (await shown()).length > 0, 'the text filter (/) shows the rows saying "fight": ' + (await shown()).join(' '));
    await page.fill('#filter-text', '');
    await page.dispatchEvent('#filter-text', 'input');
    await page.check('#filter-lint');
    const lintShown = await shown(), marks = await page.evaluate(() => [...document.querySelectorAll('#rows tbody tr')].map((tr) => tr.lastElementChild.textContent.includes('✗')));
    check(lintShown.length > 0 && lintShown.length < ov.length && marks.every(Boolean), 'the lint filter shows only rows with lint errors: ' + lintShown.join(' '));
    await page.uncheck('#filter-lint');
    await page.check('#filter-todo');
    check(JSON.stringify(await shown()) === want((r) => !r.mine) && !(await shown()).includes(1) && !(await shown()).includes(2), 'the not-reviewed filter leaves out rows 1 and 2: ' + (await shown()).join(' '));
    await page.uncheck('#filter-todo');
    check((await shown()).length === ov.length, 'without a filter every row shows again');

    // ---- empty lists fold into one "add" line; adding one unfolds it, undo folds it again ----
    const foldedKeys = () => page.evaluate(() => [...document.querySelectorAll('#fields .field.folded button[data-add]')].map((b) => b.dataset.add));
    const f0 = await foldedKeys(), emptyLists = ov[2].row ? Object.keys(ov[2].row).filter((k) => Array.isArray(ov[2].row[k]) && !ov[2].row[k].length) : [];
    check(f0.length > 0 && f0.every((k) => emptyLists.includes(k)) && await page.evaluate((ks) => ks.every((k) => !document.querySelector('#fields .field[data-key="' + k + '"]')), f0),
      'row 3\'s empty lists are one "add" line (' + f0.join(', ') + '), not fields');
    await page.click('#fields .field.folded button[data-add="' + f0[0] + '"]');
    check(!!(await page.$('#fields .field[data-key="' + f0[0] + '"]')) && !(await foldedKeys()).includes(f0[0]), 'its add button unfolds ' + f0[0] + ' into a field');
    await page.evaluate(() => document.activeElement.blur());
    await page.keyboard.press('Control+z');
    await page.waitForFunction((k) => [...document.querySelectorAll('#fields .field.folded button[data-add]')].some((b) => b.dataset.add === k), f0[0]);
    check(true, 'Ctrl+Z folds it again');

    // ---- drafts are per annotator: bob on the same browser neither sees nor clears ann's ----
    const annKeys = (p) => p.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('rescue.drafts.ann|')).length);
    const b2 = await page.context().newPage(); // a new tab of the same browser: it signs in again
    await b2.goto(base + '/');
    await b2.fill('#token', bob);
    await b2.click('#signin-btn');
    await b2.waitForSelector('#nav:not([hidden])');
    await b2.goto(base + '/#/sample/' + SAMPLE);
    await b2.waitForFunction((id) => document.getElementById('sample-title').textContent === id, SAMPLE);
    await b2.click('#rows tbody tr[data-index="3"] td:nth-child(3)');
    await b2.evaluate(() => document.getElementById('player').pause());
    check(await b2.evaluate(() => document.getElementById('draft-count').hidden) &&
      (await b2.inputValue('#fields [data-path="tone_of_voice"]')) !== 'left as a draft', 'bob, signed in on the same browser, does not get ann\'s draft of row 3');
    await b2.click('#signout');
    await b2.waitForSelector('#view-signin:not([hidden])');
    check(await annKeys(b2) === 1, 'bob\'s sign-out leaves ann\'s draft in the browser');
    await b2.fill('#token', ann);
    await b2.click('#signin-btn');
    await b2.waitForSelector('#nav:not([hidden])');
    await b2.goto(base + '/#/sample/' + SAMPLE);
    // (the title is still there from bob's visit: wait for the draft itself)
    await b2.waitForFunction(() => !document.getElementById('draft-count').hidden, null, { timeout: 10000 }).catch(() => {});
    check(await b2.evaluate(() => !document.getElementById('draft-count').hidden), 'ann, signed in again, finds her draft');
    await b2.click('#signout');
    await b2.waitForSelector('#view-signin:not([hidden])');
    check(await annKeys(b2) === 0, 'ann\'s sign-out clears her drafts');
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
