// util.js: what the browser tests (serve_test.js, flow_test.js, timeline_test.js, ...) and
// tools/bench/bench_page.js share: where the rescue binary, the source tree and the
// screenshots are, playwright-core's chromium (or a skip), the ok/FAIL tally and its
// summary, running the CLI, and a review server on a port of its own.
//
// Environment: RESCUE_BIN (the rescue binary), RESCUE_SOURCE_DIR, RESCUE_SCREENSHOTS (where
// the screenshots go; default browser-screenshots next to the rescue binary, in the build
// directory), RESCUE_REQUIRE_FIXTURES (when set, a missing browser fails instead of
// skipping).
'use strict';
const fs = require('fs');
const path = require('path');
const { spawn, execFileSync } = require('child_process');

const CHROMIUM = '/usr/bin/chromium';
const bin = process.env.RESCUE_BIN || path.resolve(__dirname, '../../build/rescue');
const src = process.env.RESCUE_SOURCE_DIR || path.resolve(__dirname, '../..');
const shots = process.env.RESCUE_SCREENSHOTS || path.join(path.dirname(bin), 'browser-screenshots');

// Leave the test out (exit 77), or fail it (exit 1) under RESCUE_REQUIRE_FIXTURES.
function skip(why) {
  if (process.env.RESCUE_REQUIRE_FIXTURES) {
    console.error('browser tests cannot run: ' + why);
    process.exit(1);
  }
  console.log('SKIPPED: ' + why);
  process.exit(77);
}

// playwright-core's chromium launcher; skips when it or /usr/bin/chromium is missing.
function chromium() {
  let pw;
  try {
    pw = require('playwright-core');
  } catch (e) {
    skip('playwright-core is not installed (npm ci in tests/browser)');
  }
  if (!fs.existsSync(CHROMIUM)) skip(CHROMIUM + ' is missing (apt-get install chromium)');
  return pw.chromium;
}

const tally = { failures: 0, passes: 0 };
function check(cond, what) {
  if (cond) { tally.passes++; console.log('ok - ' + what); }
  else { tally.failures++; console.log('FAIL - ' + what); }
}
// An exception that ended the test early counts as a failure.
function fail(e) {
  tally.failures++;
  console.log('FAIL - ' + (e && e.stack ? e.stack : e));
}
// Print the tally and exit: 0 when nothing failed, else 1.
function finish() {
  console.log(tally.passes + ' passed, ' + tally.failures + ' failed');
  process.exit(tally.failures ? 1 : 0);
}

// Run the CLI; its standard output (throws when it exits non-zero).
const rescue = (...args) => execFileSync(bin, args, { encoding: 'utf8' });
const tokenOf = (out) => /sign-in token: ([0-9a-f]{64})/.exec(out)[1];

// `rescue serve db` on a port of its own: {p, port} once it says where it listens.
async function startServer(db, assets) {
  const p = spawn(bin, ['serve', db, '--listen', '127.0.0.1:0', '--assets', assets], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const port = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('server did not start: ' + out)), 15000);
    p.stdout.on('data', (d) => {
      out += d;
      const m = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) { clearTimeout(t); resolve(Number(m[1])); }
    });
    p.stderr.on('data', (d) => { out += d; });
    p.on('exit', (c) => reject(new Error('server exited ' + c + ': ' + out)));
  });
  return { p, port };
}

// Stop a server startServer gave (SIGINT) and wait until it has exited; null: nothing.
async function stopServer(server) {
  if (!server) return;
  server.p.kill('SIGINT');
  await new Promise((res) => server.p.on('exit', res));
}

module.exports = { CHROMIUM, bin, src, shots, skip, chromium, check, fail, finish, rescue, tokenOf, startServer, stopServer };
