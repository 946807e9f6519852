// main.js: the page's entry module: sign-in and sign-out, and the routing from the URL's
// hash to a view. Importing the other modules wires their controls.

import { api, csrf } from './api.js';
import { openCurate, showQueue } from './curate.js';
import { showDashboard } from './dashboard.js';
import { $ } from './dom.js';
import { clearDrafts } from './drafts.js';
import './keys.js';
import { leadControls, openSample } from './sample.js';
import './save.js';
import './segment.js';
import './timeline.js';
import { state } from './state.js';
import { show } from './views.js';
import { showWork } from './work.js';

$('signin-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  $('signin-error').textContent = '';
  const r = await api('POST', '/api/login', { token: $('token').value.trim() });
  if (r.status !== 200) { $('signin-error').textContent = r.data.error || 'sign-in failed'; return; }
  csrf.set(r.data.csrf);
  state.me = { name: r.data.name, role: r.data.role };
  $('token').value = '';
  route();
});

$('signout').addEventListener('click', async () => {
  // annotators share machines: their unsaved drafts do not outlive the session
  if (state.me) clearDrafts(state.me.name);
  await api('POST', '/api/logout');
  csrf.clear();
  state.me = null;
  // whose view was open (and compared) goes too: the next person signing in here opens
  // their own
  state.viewName = state.compareName = state.people = state.other = state.sample = null;
  location.hash = '#/';
  show('signin');
});

async function route() {
  if (!state.me) {
    // a session without this tab's CSRF token (a new tab) signs in again
    const r = await api('GET', '/api/me');
    if (r.status !== 200 || !csrf.get()) { show('signin'); return; }
    state.me = r.data;
  }
  if (!state.scheme) state.scheme = (await api('GET', '/api/scheme')).data;
  const h = location.hash.replace(/^#/, '');
  if (h.startsWith('/sample/')) {
    const id = h.slice(8).split('/').map(decodeURIComponent).join('/');
    await leadControls();
    if (!state.viewName) state.viewName = state.me.name;
    await openSample(id, state.sample && state.sample.sample_id === id);
  } else if (h === '/curate' || h.startsWith('/curate/')) {
    if (h === '/curate') await showQueue();
    else await openCurate(h.slice(8).split('/').map(decodeURIComponent).join('/'));
  } else if (h === '/dashboard') {
    await showDashboard();
  } else {
    state.sample = null;
    await showWork();
  }
}
window.addEventListener('hashchange', route);
route();
