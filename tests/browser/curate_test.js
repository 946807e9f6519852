// curate_test.js: issue 23's curation page in headless Debian chromium driven by
// playwright-core. Three coders (ann, bob, cat) annotate a real sample of the fixtures
// (rescue-bench/couple-first3.jsonl, its first sample), differing on several values; cat
// splits a row. The lead lea settles the sample by keyboard only: opens it from the queue,
// chooses cat's segmentation, takes values (1..9), edits one in place, decides one part of
// an internal_emotion item, sees a refused decision's reason next to its cell, undoes a
// decision, meets a conflict (409: the row reloaded), reloads the page half way (progress
// kept), until no value is undecided. Then: gold equals the decisions with their provenance
// (the API and the dataset card), `rescue lint --view gold` exits 0, and an annotator gets
// no Curate view (403 from the API). Prints the keys and milliseconds per disagreement
// (measured, not asserted) and writes screenshots at 1366x768 and 1920x1080.
// Exit 0 pass, 1 fail, 77 skipped (no browser, or no fixtures outside CI).
//
// Environment: RESCUE_BIN, RESCUE_SOURCE_DIR, RESCUE_FIXTURES (default
// <source>/../shared/fixtures), RESCUE_SCREENSHOTS, RESCUE_REQUIRE_FIXTURES.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { CHROMIUM, src, shots, skip, chromium: launcher, check, fail, finish, rescue, tokenOf, startServer, stopServer } = require('./util');

const fixtures = process.env.RESCUE_FIXTURES || path.resolve(src, '../shared/fixtures');
const FIXTURE = path.join(fixtures, 'rescue-bench/couple-first3.jsonl');
const chromium = launcher();
if (!fs.existsSync(FIXTURE)) skip(FIXTURE + ' is missing (the real fixtures)');
const enc = (id) => id.split('/').map(encodeURIComponent).join('/');

// A signed-in API client for one person (its own session, as a second browser would be).
async function client(base, token) {
  const r = await fetch(base + '/api/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token }) });
  const j = await r.json(), cookie = r.headers.get('set-cookie').split(';')[0];
  return async (method, url, body) => {
    const q = await fetch(base + url, { method, headers: { 'Content-Type': 'application/json', Cookie: cookie, 'X-CSRF-Token': j.csrf },
      body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: q.status, data: await q.json() };
  };
}

async function signIn(page, base, token) {
  await page.goto(base + '/');
  await page.fill('#token', token);
  await page.click('#signin-btn');
  await page.waitForSelector('#nav:not([hidden])');
}

// The coders' versions: the fixture's first sample with a few values changed each.
const CHANGES = {
  ann: (r) => { r[0].internal_emotion[0].intensity = 7; r[1].tone_of_voice = 'bitter'; },
  bob: (r) => { r[0].internal_emotion[0].intensity = 6; r[1].utterance_type = 'defense'; r[5].utterance_type = 'accusation'; },
  cat: (r) => { r[1].utterance_type = 'withdrawal'; r[5].viewpoints_attitudes[0].attitude = 'defensive'; },
};

(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rescue-curate-'));
  const db = path.join(dir, 'c.db'), assets = path.join(dir, 'assets');
  let server = null, browser = null;
  const errors = [];
  try {
    // ---- the corpus: the draft, three coders, cat splits row 6, bob comments on row 2 ----
    const line = JSON.parse(fs.readFileSync(FIXTURE, 'utf8').split('\n')[0]);
    const SAMPLE = line.sample_id, rows = line.rows;
    fs.writeFileSync(path.join(dir, 'draft.jsonl'), JSON.stringify(line) + '\n');
    rescue('init', db);
    rescue('import', db, path.join(dir, 'draft.jsonl'));
    const tok = {};
    for (const n of ['ann', 'bob', 'cat']) tok[n] = tokenOf(rescue('annotator', 'add', db, n));
    tok.lea = tokenOf(rescue('annotator', 'add', db, 'lea', '--role', 'lead'));
    for (const [n, change] of Object.entries(CHANGES)) {
      const l = JSON.parse(JSON.stringify(line));
      change(l.rows);
      fs.writeFileSync(path.join(dir, n + '.jsonl'), JSON.stringify(l) + '\n');
      rescue('import', db, path.join(dir, n + '.jsonl'), '--annotator', n);
    }
    const T = Math.ceil(rows[rows.length - 1].end_time) + 2;
    fs.mkdirSync(path.join(assets, SAMPLE), { recursive: true });
    execFileSync('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x180:rate=10:duration=' + T,
      '-f', 'lavfi', '-i', 'sine=frequency=440:duration=' + T, '-c:v', 'libx264', '-preset', 'ultrafast',
      '-g', '100', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', '-movflags', '+faststart',
      path.join(assets, SAMPLE, 'segment.mp4')]);
    server = await startServer(db, assets);
    const base = 'http://127.0.0.1:' + server.port;
    const cat = await client(base, tok.cat), bob = await client(base, tok.bob);
    const cs = await cat('GET', '/api/samples/' + enc(SAMPLE));
    const r6 = cs.data.rows[5];
    const split = await cat('POST', '/api/samples/' + enc(SAMPLE) + '/segmentation',
      { op: 'split', row: 6, at: (r6.row.start_time + r6.row.end_time) / 2, base_version: r6.version });
    check(split.status === 200, 'cat splits row 6 (' + split.status + ')');
    const cm = await bob('POST', '/api/samples/' + enc(SAMPLE) + '/comments', { row: 2, text: 'defense, not accusation: she attacks first' });
    check(cm.status === 200, 'bob comments on row 2');

    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true,
      args: ['--autoplay-policy=no-user-gesture-required', '--no-sandbox', '--mute-audio'] });
    fs.mkdirSync(shots, { recursive: true });

    // ---- an annotator gets no Curate view ----
    const ctxA = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    const a = await ctxA.newPage();
    await signIn(a, base, tok.ann);
    check(await a.isHidden('#nav-curate'), 'an annotator has no Curate link');
    await a.goto(base + '/#/curate');
    await a.waitForSelector('#view-work:not([hidden])');
    check(await a.isHidden('#view-curate'), 'an annotator opening #/curate gets their work, not the Curate view');
    const denied = await a.evaluate(async () => (await fetch('/api/curate', { headers: { 'X-CSRF-Token': sessionStorage.getItem('rescue.csrf') } })).status);
    check(denied === 403, 'the API answers an annotator 403 (' + denied + ')');
    await ctxA.close();

    // ---- the lead: the queue ----
    const ctx = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    const page = await ctx.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error' && !/status of (401|400|409)/.test(m.text())) errors.push(m.text()); });
    await signIn(page, base, tok.lea);
    check(await page.isVisible('#nav-curate'), 'a lead has the Curate link');
    await page.goto(base + '/#/curate');
    await page.waitForSelector('#cq tbody tr[data-sample]');
    const qrow = await page.textContent('#cq tbody tr[data-sample="' + SAMPLE + '"]');
    check(/ann, bob, cat, draft/.test(qrow), 'the queue lists the sample with its coders: ' + qrow.replace(/\s+/g, ' '));
    await page.fill('#cq-text', 'no such sample');
    check(await page.locator('#cq tbody tr[data-sample]').count() === 0, 'the queue filters by text');
    await page.fill('#cq-text', '');
    await page.selectOption('#cq-status', 'done');
    check(await page.locator('#cq tbody tr[data-sample]').count() === 0, 'the queue filters by state (nothing settled yet)');
    await page.selectOption('#cq-status', 'open');
    await page.locator('#cq-status').blur();
    await page.screenshot({ path: path.join(shots, 'curate-queue-1366.png') });
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.screenshot({ path: path.join(shots, 'curate-queue-1920.png') });
    await page.setViewportSize({ width: 1366, height: 768 });

    const keys = { take: 0, edit: 0, typed: 0, move: 0, other: 0 };
    const press = async (k, kind) => { keys[kind]++; await page.keyboard.press(k); };
    const t0 = Date.now();
    await press('Enter', 'other');
    await page.waitForSelector('#cur-seg:not([hidden]) #cur-lanes-svg');

    // ---- the segmentation step ----
    const lanes = await page.$$eval('.cur-lane', (gs) => gs.map((g) => ({ coder: g.dataset.coder, rows: g.querySelectorAll('rect.seg-row').length, gold: g.classList.contains('gold') })));
    check(lanes.length === 4 && lanes.map((l) => l.coder).join() === 'ann,bob,cat,draft', 'one lane per coder and the draft: ' + JSON.stringify(lanes));
    check(lanes[2].rows === rows.length + 1 && lanes[0].rows === rows.length, "cat's lane has the split row (" + lanes[2].rows + ' rows, the others ' + lanes[0].rows + ')');
    check(lanes[0].gold && !lanes[2].gold, "the draft's row set is marked gold before the choice");
    await page.screenshot({ path: path.join(shots, 'curate-seg-1366.png') });
    await press('3', 'other');
    await page.waitForSelector('#cur-grid:not([hidden]) #cur-table tr.focus');
    const st0 = await (await client(base, tok.lea))('GET', '/api/curate/' + enc(SAMPLE));
    check(st0.data.rows.length === rows.length + 1, "3 made cat's row set gold (" + st0.data.rows.length + ' gold rows)');
    const D0 = st0.data.rows.reduce((n, r) => n + r.undecided, 0);
    // row 1's intensity, row 2's tone and utterance type, and on row 6 (the first half of
    // cat's split) bob's utterance type and cat's attitude: the row ann, bob and the draft
    // kept whole aligns with that half (equal overlaps: the earlier), as adjudication aligns
    // it; the second half is cat's alone; the rows after the split are no disagreement
    // (row_index and evidence rows compare as gold positions)
    const g6 = st0.data.rows[5], bobAt6 = (g6.aligned || []).find((x) => x.coder === 'bob');
    check(bobAt6 && Math.abs(bobAt6.start_time - rows[5].start_time) < 0.01 && Math.abs(bobAt6.end_time - rows[5].end_time) < 0.01 &&
      !(st0.data.rows[6].aligned || []).some((x) => x.coder === 'bob'),
      "the state names bob's whole row 6 (its id and times) on gold row 6 and not on row 7: " + JSON.stringify(g6.aligned));
    check(D0 === 5, D0 + ' values undecided when the grid opens');

    // the row's media plays as on the review page
    await page.waitForFunction(() => { const p = document.getElementById('player'); return p.readyState >= 2 && !p.paused; }, null, { timeout: 20000 }).catch(() => {});
    const played = await page.evaluate(() => { const p = document.getElementById('player'); return { src: p.currentSrc, t: p.currentTime, paused: p.paused }; });
    check(/segment\.mp4/.test(played.src) && played.t >= rows[0].start_time - 0.05 && played.t <= rows[0].end_time + 0.3,
      'the first row plays from the sample\'s media (' + played.src.replace(/\?.*$/, '').replace(/^.*\//, '') + ' at ' + played.t.toFixed(2) + ' s)');
    await page.evaluate(() => document.getElementById('player').pause());
    // n and p move between disagreements
    const focused = async () => page.evaluate(() => {
      const tr = document.querySelector('#cur-table tr.focus');
      return { row: Number(document.querySelector('.cur-rowbtn.on').textContent), path: tr.dataset.path, undecided: tr.classList.contains('undecided'),
        cells: [...tr.querySelectorAll('td.coder-val')].map((td) => td.textContent) };
    });
    const f0 = await focused();
    await press('n', 'move');
    const f1 = await focused();
    await press('p', 'move');
    const f2 = await focused();
    check(f0.path !== f1.path && f2.path === f0.path && f2.row === f0.row, 'n moves to the next disagreement, p back (' + f0.row + ' ' + f0.path + ' -> ' + f1.row + ' ' + f1.path + ')');
    const marks = await page.evaluate(() => [...document.querySelectorAll('#cur-table tbody tr')].map((tr) =>
      ({ path: tr.dataset.path, differ: tr.classList.contains('differ'), off: tr.querySelectorAll('td.coder-val.off').length })));
    const im = marks.find((m) => m.path === '/internal_emotion/Alan/intensity'), desc = marks.find((m) => m.path === '/internal_emotion/Alan/emotion_description');
    check(im && im.differ && im.off === 4 && desc && !desc.differ && desc.off === 0 && marks.length > 15,
      'row 1: one line per value, the intensity part highlighted in every coder, its agreed description not');
    await page.screenshot({ path: path.join(shots, 'curate-grid-1366.png') });
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.screenshot({ path: path.join(shots, 'curate-grid-1920.png') });
    await page.setViewportSize({ width: 1366, height: 768 });

    // ---- settle every undecided value by keyboard ----
    const undecidedLeft = async () => Number(await page.getAttribute('#cur-progress', 'data-undecided'));
    const settle = async () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
    // a key that sends a decision: wait for its answer and the redraw
    const decideKey = async (k, kind) => {
      const resp = page.waitForResponse((r) => r.request().method() === 'PUT' && r.url().includes('/api/curate/'));
      await press(k, kind);
      const r = await resp;
      await page.waitForFunction(() => !document.getElementById('cur-grid').dataset.busy);
      await settle();
      return r.status();
    };
    const editTo = async (text) => {
      await press('Enter', 'edit');
      await page.waitForSelector('input.cur-edit');
      for (const ch of text) { keys.typed++; await page.keyboard.type(ch); }
      return decideKey('Enter', 'edit');
    };
    const lea2 = await client(base, tok.lea);
    const done = { refused: 0, undo: 0, edit: 0, part: 0, conflict: 0, reload: 0, aligned: 0 };
    let guard = 0;
    while ((await undecidedLeft()) > 0 && guard++ < 120) {
      const f = await focused();
      if (!f.undecided) { await press('n', 'move'); continue; }
      if (f.row === 1 && f.path === '/internal_emotion/Alan/intensity' && !done.refused) {
        // a value out of range is refused, its reason next to the cell
        const s = await editTo('42');
        const why = await page.textContent('#cur-table tr.focus .cur-refusal').catch(() => '');
        check(s === 400 && /R09/.test(why) && /outside/.test(why), 'intensity 42 is refused with the rule\'s reason next to the cell: ' + why);
        await page.screenshot({ path: path.join(shots, 'curate-refused-1366.png') });
        done.refused = 1;
        // one part of the item: ann's intensity, then undone, then bob's
        check(await decideKey('1', 'take') === 200, "1 takes ann's intensity (one part of Alan's internal_emotion)");
        const after = await undecidedLeft();
        check(await decideKey('u', 'other') === 200, 'u undoes it');
        const back = await focused();
        check(back.row === 1 && back.path === f.path && back.undecided && (await undecidedLeft()) === after + 1, 'undo: the value is undecided again and focused');
        check(await decideKey('2', 'take') === 200, "2 takes bob's intensity");
        done.undo = done.part = 1;
        continue;
      }
      if (f.row === 2 && f.path === '/utterance_type' && !done.conflict) {
        // another session of the lead decides it first: the page's decision meets a 409
        const r2 = (await lea2('GET', '/api/curate/' + enc(SAMPLE))).data.rows[1];
        const other = await lea2('PUT', '/api/curate/' + enc(SAMPLE) + '/rows/2', { base_version: r2.version, field: '/utterance_type', take: 'bob' });
        check(other.status === 200, 'a second session takes bob\'s utterance_type on row 2');
        const s = await decideKey('3', 'take');
        const msg = await page.textContent('#cur-msg');
        const now = await focused();
        check(s === 409 && /reloaded/.test(msg) && !now.undecided, '409: the row is reloaded and the page says so: ' + msg);
        done.conflict = 1;
        // the coders' comments on the row, as the curation state carries them
        const shown = await page.textContent('#cur-comments');
        check(await page.isVisible('#cur-comments') && /she attacks first/.test(shown) && /bob/.test(shown), "bob's comment is shown with row 2: " + shown.replace(/\s+/g, ' ').trim());
        continue;
      }
      if (f.row === 2 && f.path === '/tone_of_voice' && !done.edit) {
        check(await editTo('bitter, defensive') === 200, 'Enter edits the tone of voice in place');
        done.edit = 1;
        // a reload keeps the progress
        const left = await undecidedLeft();
        await page.reload();
        await page.waitForSelector('#cur-seg:not([hidden]) #cur-lanes-svg');
        await press('Enter', 'other');
        await page.waitForSelector('#cur-grid:not([hidden]) #cur-table tr.focus');
        check((await undecidedLeft()) === left, 'a reload keeps the progress (' + left + ' undecided)');
        done.reload = 1;
        continue;
      }
      if (f.row === 6 && f.path === '/utterance_type' && !done.aligned) {
        // bob kept row 6 whole, cat split it: his value shows on the half it aligns with,
        // his column names his row, and 2 takes it with one key
        const heads = await page.$$eval('#cur-table thead th.coder.aligned', (ths) => ths.map((th) => th.textContent.replace(/\s+/g, ' ').trim()));
        const head = heads.find((h) => /^2 bob/.test(h)) || heads.join(' | ');
        check(/accusation/.test(f.cells[1]) && /^2 bob/.test(head) && /their row/.test(head),
          "row 6: bob's utterance type from his whole row (" + f.cells[1] + '), his column marked: ' + head);
        check(await decideKey('2', 'take') === 200, "2 takes bob's utterance type on row 6");
        done.aligned = 1;
        continue;
      }
      // the rest follow cat, whose row set is gold (row_index, evidence rows), else the draft
      const k = f.cells[2] && !/^\((no row|none)\)$/.test(f.cells[2]) ? '3' : '4';
      const s = await decideKey(k, 'take');
      if (s !== 200) { check(false, 'take ' + k + ' at row ' + f.row + ' ' + f.path + ': ' + s + ' ' + (await page.textContent('#cur-msg'))); break; }
    }
    const ms = Date.now() - t0;
    check((await undecidedLeft()) === 0, 'no undecided value left');
    check(done.refused && done.undo && done.edit && done.part && done.conflict && done.reload, 'every step was exercised: ' + JSON.stringify(done));
    const prog = await page.textContent('#cur-progress-text');
    check(/ 0 undecided/.test(prog), 'the progress bar: ' + prog);
    await page.screenshot({ path: path.join(shots, 'curate-done-1366.png') });
    const total = keys.take + keys.edit + keys.typed + keys.move + keys.other;
    console.log('# keys: ' + total + ' for ' + D0 + ' disagreements (' + (total / D0).toFixed(2) + ' per disagreement): ' + keys.take + ' takes, ' +
      keys.edit + ' edit keys and ' + keys.typed + ' typed characters, ' + keys.move + ' moves (n/p), ' + keys.other + ' other (open, segmentation, undo, Enter after the reload)');
    console.log('# time: ' + ms + ' ms for ' + D0 + ' disagreements (' + Math.round(ms / D0) + ' ms per disagreement, a reload and the conflict included)');

    // ---- gold: the decisions, their provenance, lint-clean ----
    const fin = (await lea2('GET', '/api/curate/' + enc(SAMPLE))).data;
    const decided = (r) => r.values.some((v) => v.provenance.how === 'taken' || v.provenance.how === 'edited');
    check(fin.rows.every((r) => r.undecided === 0 && (!decided(r) || r.gold_version)), 'every row with a decision has a gold version');
    const asDecided = () => {
      const val = (row, p) => fin.rows[row - 1].values.find((v) => v.path === p);
      const inten = val(1, '/internal_emotion/Alan/intensity'), tone = val(2, '/tone_of_voice'), ut = val(2, '/utterance_type');
      check(inten.gold === 6 && inten.provenance.how === 'taken' && inten.provenance.from === 'bob' && inten.provenance.by === 'lea', 'row 1 intensity: 6 taken from bob by lea ' + JSON.stringify(inten.provenance));
      check(val(1, '/internal_emotion/Alan/emotion_description').provenance.how === 'agreed', "row 1: Alan's emotion description stays agreed (a part decided alone)");
      check(tone.gold === 'bitter, defensive' && tone.provenance.how === 'edited' && tone.provenance.by === 'lea', 'row 2 tone: edited by lea ' + JSON.stringify(tone.provenance));
      check(ut.gold === 'defense' && ut.provenance.from === 'bob', 'row 2 utterance_type: bob\'s, decided by the second session');
      const ut6 = val(6, '/utterance_type');
      check(ut6.gold === 'accusation' && ut6.provenance.how === 'taken' && ut6.provenance.from === 'bob', "row 6 utterance_type: bob's, from his whole row " + JSON.stringify(ut6.provenance));
    };
    asDecided();
    // the rows nobody disagreed on got their gold from the page (no policy run)
    check(fin.rows.every((r) => r.gold_version), 'every gold row has a gold version without adjudicate (' +
      fin.rows.filter((r) => !r.gold_version).map((r) => r.position).join(', ') + ' without)');
    try { rescue('lint', db, '--view', 'gold'); check(true, 'rescue lint --view gold exits 0'); }
    catch (e) { check(false, 'rescue lint --view gold exits ' + e.status + ': ' + e.stdout); }
    rescue('export', db, '--format', 'tasks', '--view', 'gold', '--out', path.join(dir, 'tasks'));
    const card = fs.readFileSync(path.join(dir, 'tasks', 'README.md'), 'utf8');
    check(/decided by lead lea/.test(card), 'the dataset card names the lead\'s decisions: ' + (card.match(/.*decided by lead.*/) || ['none'])[0].trim());
    check(errors.length === 0, 'no page error' + (errors.length ? ': ' + errors.join(' | ') : ''));
    await ctx.close();
  } catch (e) {
    fail((e.stack || e) + (errors.length ? '\npage errors: ' + errors.join(' | ') : ''));
  } finally {
    if (browser) await browser.close();
    await stopServer(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  finish();
})();
