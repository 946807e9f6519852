// api.js: the client of the server's JSON API: one call that sends the session's CSRF
// token (kept in sessionStorage: sign-in alone hands it out) on every request, always
// yields {status, data}, and returns to sign-in on a 401.

import { state } from './state.js';
import { show } from './views.js';

const CSRF = 'rescue.csrf';
export const csrf = {
  get: () => sessionStorage.getItem(CSRF),
  set: (v) => sessionStorage.setItem(CSRF, v),
  clear: () => sessionStorage.removeItem(CSRF),
};

export async function api(method, path, body) {
  const opt = { method, headers: {}, credentials: 'same-origin' };
  if (body !== undefined) {
    opt.headers['Content-Type'] = 'application/json';
    opt.body = JSON.stringify(body);
  }
  const token = csrf.get();
  if (token && path !== '/api/login') opt.headers['X-CSRF-Token'] = token;
  const r = await fetch(path, opt);
  let data = null;
  try { data = await r.json(); } catch (e) { data = { error: 'the server sent no JSON' }; }
  if (r.status === 401 && path !== '/api/login') { state.me = null; csrf.clear(); show('signin'); }
  return { status: r.status, data };
}
