// api.js: the client of the server's JSON API: one call that sends the CSRF token on
// writes, always yields {status, data}, and returns to sign-in on a 401.

import { state } from './state.js';
import { show } from './views.js';

export async function api(method, path, body) {
  const opt = { method, headers: {}, credentials: 'same-origin' };
  if (body !== undefined) {
    opt.headers['Content-Type'] = 'application/json';
    opt.body = JSON.stringify(body);
  }
  if (method !== 'GET' && state.me) opt.headers['X-CSRF-Token'] = state.me.csrf;
  const r = await fetch(path, opt);
  let data = null;
  try { data = await r.json(); } catch (e) { data = { error: 'the server sent no JSON' }; }
  if (r.status === 401 && path !== '/api/login') { state.me = null; show('signin'); }
  return { status: r.status, data };
}
