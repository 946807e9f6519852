// serve_test.js: browser tests of `rescue serve` in headless Debian chromium driven by
// playwright-core: the page's modules (each served as JavaScript with the CSP, each loaded
// without a console error or CSP violation), sign in, open a sample, play a row's clip (an
// H.264 segment made with ffmpeg, 10 s GOP), edit and save, reload, a conflicting save from
// a second browser context, a lint error blocking a save, a split, merges while another
// context reviews, keyboard navigation, and
// screenshots of the sample view and the dashboard. Exit 0 pass, 1 fail, 77 skipped (no
// browser).
//
// Environment: RESCUE_BIN (the rescue binary), RESCUE_SOURCE_DIR, RESCUE_SCREENSHOTS (where
// the screenshots go; default next to the rescue binary), RESCUE_REQUIRE_FIXTURES (when set,
// a missing browser fails instead of skipping).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const util = require('./util');
const { CHROMIUM, src, shots, check, fail, finish, rescue, tokenOf, startServer, stopServer } = util;

const SAMPLE = 'maya_and_daniel/001_s01e01_segment01';
const CLIPS = 'maya_and_daniel/whole_session';
const chromium = util.chromium();

async function signIn(page, base, token) {
  await page.goto(base + '/');
  await page.fill('#token', token);
  await page.click('#signin-btn');
  await page.waitForSelector('#nav:not([hidden])');
}

async function openSample(page, base) {
  await page.goto(base + '/#/sample/' + SAMPLE);
  await page.waitForSelector('#rows tbody tr');
}

// Select row `index` and let it play: {src, t} where t is the second of the sample the
// player shows (the clip's start from its manifest, written by `rescue clip`, plus the
// player's time), or null when the page plays nothing for the row.
async function playAt(page, assets, sample, index) {
  await selectRow(page, index);
  await page.waitForFunction(() => {
    const p = document.getElementById('player');
    return !document.getElementById('no-media').hidden || (p.readyState >= 2 && !p.seeking && !p.paused);
  }, null, { timeout: 20000 });
  await page.waitForTimeout(400);
  const st = await page.evaluate(() => {
    const p = document.getElementById('player');
    return { none: !document.getElementById('no-media').hidden, paused: p.paused, src: p.currentSrc, t: p.currentTime };
  });
  await page.evaluate(() => document.getElementById('player').pause());
  st.src = st.src.replace(/\?.*$/, ''); // media URLs carry the session's signature
  if (st.none) return st.paused ? null : { src: st.src, t: NaN };
  const m = /\/clips\/(\d+)\.mp4$/.exec(st.src);
  let base = 0;
  if (m) {
    const man = JSON.parse(fs.readFileSync(path.join(assets, sample, 'manifest.json'), 'utf8'));
    const e = man.rows.find((x) => x.index === Number(m[1]));
    base = e ? e.clip_start : NaN;
  }
  return { src: st.src, t: base + st.t };
}
const inside = (p, a, b) => p && p.t >= a - 0.05 && p.t <= b + 0.3;
const said = (p) => (p ? p.src.replace(/^.*\/clips\//, '') + ' at ' + p.t.toFixed(2) + ' s' : 'nothing');

async function selectRow(page, index) {
  await page.click('#rows tbody tr[data-index="' + index + '"] td:nth-child(3)');
  await page.waitForSelector('#rows tbody tr.selected[data-index="' + index + '"]');
}

(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rescue-browser-'));
  const db = path.join(dir, 'c.db'), assets = path.join(dir, 'assets');
  let server = null, browser = null;
  try {
    // ---- a corpus with a draft, a second coder, assignments and subtitles ----
    rescue('init', db);
    rescue('import', db, path.join(src, 'tools/demo/couple.jsonl'));
    const ann = tokenOf(rescue('annotator', 'add', db, 'ann'));
    const lead = tokenOf(rescue('annotator', 'add', db, 'lea', '--role', 'lead'));
    const bob = tokenOf(rescue('annotator', 'add', db, 'bob'));
    const line = JSON.parse(fs.readFileSync(path.join(src, 'tools/demo/couple.jsonl'), 'utf8').split('\n')[0]);
    line.rows[1].utterance_type = 'withdrawal';
    line.rows[4].utterance_type = 'disclosure';
    line.rows[0].internal_emotion[0].intensity = 4;
    fs.writeFileSync(path.join(dir, 'bob.jsonl'), JSON.stringify(line) + '\n');
    rescue('import', db, path.join(dir, 'bob.jsonl'), '--annotator', 'bob');
    rescue('assign', db, '--annotators', 'ann,bob', '--overlap', '1', '--seed', '1');
    fs.writeFileSync(path.join(dir, 'sub.srt'),
      '1\n00:00:00,000 --> 00:00:05,400\nMAYA: Every time I bring up the budget he just goes quiet.\n\n' +
      '2\n00:00:05,400 --> 00:00:09,860\nDANIEL: I go quiet because it always turns into a fight.\n\n' +
      '3\n00:00:09,860 --> 00:00:14,200\nMAYA: It turns into a fight because you won\'t talk.\n');
    rescue('import', db, path.join(dir, 'sub.srt'), '--sample', SAMPLE);
    // 50 s of H.264 with a 10 s GOP, like the release's segment clips
    fs.mkdirSync(path.join(assets, SAMPLE), { recursive: true });
    execFileSync('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x180:rate=10:duration=50',
      '-f', 'lavfi', '-i', 'sine=frequency=440:duration=50', '-c:v', 'libx264', '-preset', 'ultrafast',
      '-g', '100', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', '-movflags', '+faststart',
      path.join(assets, SAMPLE, 'segment.mp4')]);

    // a sample with per-row clips and no segment: 40 s, 10 s GOPs, five 8 s rows, cut by
    // `rescue clip` (stream copy with edit lists)
    const spk = (i) => (i % 2 ? 'DANIEL' : 'MAYA');
    fs.writeFileSync(path.join(dir, 'clips.jsonl'), JSON.stringify({ sample_id: CLIPS, rows: [0, 1, 2, 3, 4].map((i) => ({
      start_time: i * 8, end_time: i * 8 + 8, primary_speaker: spk(i), target: [spk(i + 1)], row_index: i + 1 })) }) + '\n');
    rescue('import', db, path.join(dir, 'clips.jsonl'));
    execFileSync('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x180:rate=10:duration=40',
      '-f', 'lavfi', '-i', 'sine=frequency=440:duration=40', '-c:v', 'libx264', '-preset', 'ultrafast',
      '-g', '100', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', path.join(dir, 'whole.mp4')]);
    rescue('media', 'add', db, path.join(dir, 'whole.mp4'), '--sample', CLIPS);
    rescue('clip', db, '--out', assets, '--samples', CLIPS);

    server = await startServer(db, assets);
    const base = 'http://127.0.0.1:' + server.port;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true,
      args: ['--autoplay-policy=no-user-gesture-required', '--no-sandbox', '--mute-audio'] });

    // ---- the page's modules: each served as JavaScript with the CSP, each loaded ----
    const moduleDir = path.join(src, 'tools/serve/web/js');
    const modules = fs.readdirSync(moduleDir).filter((f) => f.endsWith('.js')).sort();
    check(modules.includes('main.js') && modules.length > 1, 'the page is split into modules: ' + modules.join(' '));
    for (const name of modules) {
      const res = await fetch(base + '/js/' + name);
      const body = await res.text();
      check(res.status === 200 && res.headers.get('content-type') === 'text/javascript; charset=utf-8' &&
        /script-src 'self';/.test(res.headers.get('content-security-policy') || '') &&
        res.headers.get('x-content-type-options') === 'nosniff' &&
        body === fs.readFileSync(path.join(moduleDir, name), 'utf8'),
      '/js/' + name + ' is served whole as JavaScript with the CSP');
    }
    check((await fetch(base + '/js/x.js')).status === 404, 'an unknown module path is 404');
    const ctxM = await browser.newContext();
    const m = await ctxM.newPage();
    const served = new Map(), moduleErrors = [];
    m.on('response', (r) => { const u = new URL(r.url()); if (u.pathname.startsWith('/js/')) served.set(u.pathname.slice(4), r.status()); });
    m.on('pageerror', (e) => moduleErrors.push(String(e)));
    // the signed-out page's GET /api/me answers 401, which chromium logs; anything else counts
    m.on('console', (msg) => { if (msg.type() === 'error' && !/status of 401/.test(msg.text())) moduleErrors.push(msg.text()); });
    await m.addInitScript(() => {
      window.cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
    });
    await m.goto(base + '/');
    await m.waitForSelector('#view-signin:not([hidden])');
    const notLoaded = modules.filter((name) => served.get(name) !== 200);
    check(notLoaded.length === 0, 'the page loads every module' + (notLoaded.length ? ': not ' + notLoaded.join(' ') : ''));
    check(moduleErrors.length === 0, 'no console error while the modules load' + (moduleErrors.length ? ': ' + moduleErrors.join(' | ') : ''));
    const violations = await m.evaluate(() => window.cspViolations);
    check(violations.length === 0, 'no CSP violation reported' + (violations.length ? ': ' + violations.join(' | ') : ''));
    await ctxM.close();

    // ---- sign in, my work, open a sample ----
    const ctxA = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const a = await ctxA.newPage();
    const pageErrors = [];
    a.on('pageerror', (e) => pageErrors.push(String(e)));
    // HTTP errors the test provokes (401, 409, 400) are logged too; keep script errors and CSP refusals
    a.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) pageErrors.push(m.text()); });
    await a.goto(base + '/');
    await a.waitForSelector('#view-signin:not([hidden])');
    await a.fill('#token', 'not-a-token');
    await a.click('#signin-btn');
    await a.waitForFunction(() => document.getElementById('signin-error').textContent.length > 0);
    check((await a.textContent('#signin-error')).includes('unknown token'), 'a wrong token is refused');
    await a.fill('#token', ann);
    await a.click('#signin-btn');
    await a.waitForSelector('#samples tbody tr');
    check((await a.textContent('#who')).includes('ann'), 'signed in as ann');
    check((await a.textContent('#samples tbody')).includes(SAMPLE), 'my work lists the assigned sample');
    const cookies = await ctxA.cookies();
    const sc = cookies.find((c) => /^rescue_[0-9a-f]{16}$/.test(c.name));
    check(sc && sc.httpOnly && sc.sameSite === 'Strict', 'session cookie (named for this server) is HttpOnly and SameSite=Strict');
    check(/^[0-9a-f]{64}$/.test(await a.evaluate(() => sessionStorage.getItem('rescue.csrf')) || ''),
      'the CSRF token from sign-in is kept in sessionStorage');
    await a.click('#samples tbody a');
    await a.waitForSelector('#rows tbody tr');
    check((await a.$$('#rows tbody tr')).length === 9, 'the sample shows its 9 rows');
    check((await a.textContent('#rows tbody tr[data-index="7"] td:last-child')).includes('✗'), 'row 7 carries a lint mark');

    // ---- play a row's clip: the player lands inside the row's span ----
    await selectRow(a, 3);
    await a.waitForFunction(() => {
      const p = document.getElementById('player');
      return p.readyState >= 2 && p.currentTime > 9.9;
    }, null, { timeout: 20000 });
    await a.waitForTimeout(600);
    const t = await a.evaluate(() => document.getElementById('player').currentTime);
    check(t >= 9.86 - 0.05 && t <= 14.2 + 0.3, 'playing row 3 puts the player inside 9.86-14.2 s (at ' + t.toFixed(2) + ')');
    check((await a.textContent('#cues')).includes("It turns into a fight"), 'the subtitle cue of the row is shown');
    await a.evaluate(() => document.getElementById('player').pause());

    // ---- edit a field, save, reload, see it ----
    await a.fill('#fields [data-path="tone_of_voice"]', 'sharp, rising');
    await a.click('#save-btn');
    await a.waitForFunction(() => /saved \(version/.test(document.getElementById('save-msg').textContent));
    check(true, 'saving an edit reports the new version');
    await a.reload();
    await a.waitForSelector('#rows tbody tr');
    await selectRow(a, 3);
    check((await a.inputValue('#fields [data-path="tone_of_voice"]')) === 'sharp, rising', 'after a reload the saved value is there');
    check((await a.textContent('#rows tbody tr[data-index="3"] td.state')) === 'saved', 'the row shows as saved by me');

    // ---- a conflicting save from a second browser context ----
    const ctxB = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const b = await ctxB.newPage();
    await signIn(b, base, ann);
    await openSample(b, base);
    await selectRow(b, 3);
    await b.fill('#fields [data-path="tone_of_voice"]', 'from the second tab');
    await b.click('#save-btn');
    await b.waitForFunction(() => /saved \(version/.test(document.getElementById('save-msg').textContent));
    await a.fill('#fields [data-path="tone_of_voice"]', 'from the first tab');
    await a.click('#save-btn');
    await a.waitForSelector('#conflict:not([hidden])');
    const mine = await a.textContent('#conflict-rows .mine-value');
    const theirs = await a.textContent('#conflict-rows .theirs-value');
    check(mine.includes('from the first tab') && theirs.includes('from the second tab'), 'a conflicting save shows both versions');
    await a.click('#keep-mine');
    await a.waitForFunction(() => /saved \(version/.test(document.getElementById('save-msg').textContent));
    check(true, 'keeping mine after the conflict saves over the newer version');

    // ---- a lint error blocks the save ----
    await selectRow(a, 2);
    await a.check('#fields [data-path="target"] input[value="Daniel"]');
    await a.click('#save-btn');
    await a.waitForFunction(() => /not saved/.test(document.getElementById('save-msg').textContent));
    check((await a.textContent('#save-msg')).includes('R05'), 'a target containing the speaker is refused with R05');
    check((await a.$$('#fields .field[data-key="target"].has-error .lint-msg')).length > 0, 'the reason shows next to the field');
    await a.reload();
    await a.waitForSelector('#rows tbody tr');
    check(!(await a.textContent('#rows tbody tr[data-index="2"] td:nth-child(4)')).includes('Daniel'), 'the refused edit was not stored');

    // ---- a participant the draft does not name yet can be added to a target ----
    await selectRow(a, 6);
    a.once('dialog', (d) => d.accept('Ben'));
    await a.click('#fields [data-path="target"] .add-entity');
    check(await a.isChecked('#fields [data-path="target"] input[value="Ben"]'), 'another participant can be added to a target');

    // ---- keyboard navigation ----
    await selectRow(a, 4);
    await a.focus('#rows');
    await a.evaluate(() => document.activeElement.blur());
    await a.keyboard.press('j');
    check(await a.$('#rows tbody tr.selected[data-index="5"]') !== null, 'j selects the next row');
    await a.keyboard.press('ArrowDown');
    check(await a.$('#rows tbody tr.selected[data-index="6"]') !== null, 'arrow down selects the next row');
    await a.keyboard.press('k');
    check(await a.$('#rows tbody tr.selected[data-index="5"]') !== null, 'k selects the previous row');
    await a.fill('#fields [data-path="tone_of_voice"]', 'flat, tired');
    await a.keyboard.press('Control+s');
    await a.waitForFunction(() => /saved \(version/.test(document.getElementById('save-msg').textContent));
    check(true, 'Ctrl+S saves the row');

    // ---- a comment on a row, and the sample's status ----
    await selectRow(a, 5);
    await a.fill('#comment-text', 'the sigh here matters');
    await a.click('#comment-btn');
    await a.waitForFunction(() => document.getElementById('comments').textContent.includes('the sigh here matters'));
    check((await a.textContent('#comments')).includes('row 5'), 'a row comment is listed with its row');

    // ---- the lead's dashboard ----
    const ctxL = await browser.newContext({ viewport: { width: 1400, height: 1100 } });
    const l = await ctxL.newPage();
    await signIn(l, base, lead);
    await l.click('#nav-dashboard');
    await l.waitForSelector('#dash-agree svg');
    check((await l.$$('#dash-labels svg')).length >= 2, 'the dashboard draws label distributions');
    check((await l.$$('#dash-trans svg')).length >= 1, 'the dashboard draws the transition matrix');
    check((await l.textContent('#dash-people')).includes('ann'), 'progress per annotator lists ann');
    await l.screenshot({ path: path.join(shots, 'dashboard.png'), fullPage: true });
    // a lead opens ann's view read-only, compared with bob's
    await l.goto(base + '/#/sample/' + SAMPLE);
    await l.waitForSelector('#rows tbody tr');
    await l.selectOption('#view-select', 'ann');
    await l.waitForFunction(() => document.getElementById('sample-view-note').textContent.includes('read-only'));
    await l.selectOption('#compare-select', 'bob');
    await l.waitForSelector('#rows tbody tr.differs');
    check(true, 'a lead sees where ann\'s and bob\'s views differ');
    check(await l.$eval('#save-btn', (x) => x.disabled), 'another annotator\'s view is read-only');
    await l.screenshot({ path: path.join(shots, 'compare.png'), fullPage: false });

    // ---- split a row at the playhead ----
    await selectRow(a, 1);
    await a.evaluate(() => document.getElementById('player').pause());
    await a.evaluate(() => new Promise((res) => {
      const p = document.getElementById('player');
      p.addEventListener('seeked', () => res(), { once: true });
      p.currentTime = 2.0;
    }));
    await a.click('#split-btn');
    await a.waitForFunction(() => document.querySelectorAll('#rows tbody tr').length === 10);
    const times = await a.$$eval('#rows tbody tr', (trs) => trs.slice(0, 2).map((tr) => tr.children[1].textContent));
    check(times[0] === '0.00–2.00' && times[1] === '2.00–5.40', 'split at 2.0 s gives rows 0-2 and 2-5.4 (' + times.join(', ') + ')');
    // the halves and the next row play their own times in the segment
    for (const [i, from, to] of [[1, 0, 2], [2, 2, 5.4], [3, 5.4, 9.86]]) {
      const pl = await playAt(a, assets, SAMPLE, i);
      check(inside(pl, from, to), 'after the split row ' + i + ' plays ' + from + '-' + to + ' s of the segment (' + said(pl) + ')');
    }
    await a.click('#rows tbody tr[data-index="3"] td:nth-child(3)');
    await a.evaluate(() => document.getElementById('player').pause());
    await a.waitForTimeout(300);
    fs.mkdirSync(shots, { recursive: true });
    await a.screenshot({ path: path.join(shots, 'sample.png'), fullPage: false });

    // ---- clips follow spans: per-row clips, a split in one context while bob reviews ----
    const ctxR = await browser.newContext();
    const rv = await ctxR.newPage();
    await signIn(rv, base, bob);
    for (const pg of [a, rv]) {
      await pg.goto(base + '/#/sample/' + CLIPS);
      await pg.waitForSelector('#rows tbody tr[data-index="5"]');
    }
    let pl = await playAt(a, assets, CLIPS, 3);
    check(inside(pl, 16, 24) && /003\.mp4$/.test(pl.src), 'row 3 plays its clip, 16-24 s (' + said(pl) + ')');
    pl = await playAt(a, assets, CLIPS, 2);
    await a.evaluate(() => new Promise((res) => {
      const p = document.getElementById('player');
      p.addEventListener('seeked', () => res(), { once: true });
      p.currentTime = 4.0;
    }));
    await a.click('#split-btn');
    await a.waitForFunction(() => document.querySelectorAll('#rows tbody tr').length === 6);
    const ct = await a.$$eval('#rows tbody tr', (trs) => trs.map((tr) => tr.children[1].textContent));
    check(ct[1] === '8.00–12.00' && ct[2] === '12.00–16.00' && ct[3] === '16.00–24.00',
      'split at the playhead inside clip 002 gives 8-12 and 12-16 (' + ct.join(', ') + ')');
    // before any re-clip: each row plays its own times, or nothing; never another row's clip
    const spans = [[1, 0, 8], [2, 8, 12], [3, 12, 16], [4, 16, 24], [5, 24, 32], [6, 32, 40]];
    for (const [i, from, to] of spans) {
      pl = await playAt(a, assets, CLIPS, i);
      check(pl === null || inside(pl, from, to), 'before a re-clip row ' + i + ' (' + from + '-' + to + ' s) plays its span or nothing (' + said(pl) + ')');
    }
    await rv.reload();
    await rv.waitForSelector('#rows tbody tr');
    const bt = await rv.$$eval('#rows tbody tr', (trs) => trs.map((tr) => tr.children[1].textContent.split('–').map(Number)));
    for (let i = 0; i < bt.length; i++) {
      pl = await playAt(rv, assets, CLIPS, i + 1);
      check(pl === null || inside(pl, bt[i][0], bt[i][1]), "in bob's view row " + (i + 1) + ' (' + bt[i].join('-') + ' s) plays its span or nothing (' + said(pl) + ')');
    }
    // `rescue clip` recuts the stale clips; now every row plays a clip holding its span
    rescue('clip', db, '--out', assets, '--samples', CLIPS);
    await a.reload();
    await a.waitForSelector('#rows tbody tr[data-index="6"]');
    for (const [i, from, to] of spans) {
      pl = await playAt(a, assets, CLIPS, i);
      check(pl !== null && /clips\/\d+\.mp4$/.test(pl.src) && inside(pl, from, to), 'after a re-clip row ' + i + ' plays a clip at ' + from + '-' + to + ' s (' + said(pl) + ')');
    }
    // ---- merges in one context while the other reviews: the halves back into one row,
    // then two rows into one; each row plays its own span or nothing; bob sees what he saw ----
    const rowTimes = (pg) => pg.$$eval('#rows tbody tr', (trs) => trs.map((tr) => tr.children[1].textContent));
    await rv.reload();
    await rv.waitForSelector('#rows tbody tr');
    const bobBefore = await rowTimes(rv);
    await selectRow(a, 2);
    await a.click('#merge-btn');
    await a.waitForFunction(() => document.querySelectorAll('#rows tbody tr').length === 5);
    let mt = await rowTimes(a);
    check(mt[1] === '8.00–16.00' && mt[2] === '16.00–24.00',
      'merging the halves back gives row 2 at 8-16 again (' + mt.join(', ') + ')');
    await selectRow(a, 3);
    await a.click('#merge-btn');
    await a.waitForFunction(() => document.querySelectorAll('#rows tbody tr').length === 4);
    mt = await rowTimes(a);
    check(mt[1] === '8.00–16.00' && mt[2] === '16.00–32.00' && mt[3] === '32.00–40.00',
      'merging rows 3 and 4 gives one row at 16-32 (' + mt.join(', ') + ')');
    for (const [i, from, to] of [[1, 0, 8], [2, 8, 16], [3, 16, 32], [4, 32, 40]]) {
      pl = await playAt(a, assets, CLIPS, i);
      check(pl === null || inside(pl, from, to), 'after the merges row ' + i + ' (' + from + '-' + to + ' s) plays its span or nothing (' + said(pl) + ')');
    }
    await rv.reload();
    await rv.waitForSelector('#rows tbody tr');
    const bobAfter = await rowTimes(rv);
    check(JSON.stringify(bobAfter) === JSON.stringify(bobBefore),
      "bob's rows are as before ann's merges (" + bobAfter.join(', ') + ')');
    for (let i = 0; i < bobAfter.length; i++) {
      const [from, to] = bobAfter[i].split('–').map(Number);
      pl = await playAt(rv, assets, CLIPS, i + 1);
      check(pl === null || inside(pl, from, to), "after ann's merges bob's row " + (i + 1) + ' (' + from + '-' + to + ' s) plays its span or nothing (' + said(pl) + ')');
    }
    await ctxR.close();

    check(pageErrors.length === 0, 'no script errors or CSP violations on the page' + (pageErrors.length ? ': ' + pageErrors.join(' | ') : ''));
  } catch (e) {
    fail(e);
  } finally {
    if (browser) await browser.close();
    await stopServer(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  finish();
})();
