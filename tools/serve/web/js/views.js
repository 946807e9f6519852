// views.js: which view is on screen (sign-in, my work, a sample, the dashboard) and the
// header that goes with it (navigation, who is signed in, sign-out).

import { $ } from './dom.js';
import { state } from './state.js';

export function show(name) {
  for (const v of document.querySelectorAll('.view')) v.hidden = v.id !== 'view-' + name;
  const signed = !!state.me;
  $('nav').hidden = !signed;
  $('signout').hidden = !signed;
  $('who').textContent = signed ? state.me.name + ' (' + state.me.role + ')' : '';
  $('nav-dashboard').hidden = !(signed && state.me.role === 'lead');
}
