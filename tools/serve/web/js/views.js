// views.js: which view is on screen (sign-in, my work, a sample, the dashboard, curation)
// and the header that goes with it (navigation, who is signed in, sign-out). The player
// moves into the shown view's .player-dock (the sample view's, the curation grid's); a view
// without one lets the player's preloaded next row go.

import { $ } from './dom.js';
import { releaseSpare } from './player.js';
import { state } from './state.js';

export function show(name) {
  for (const v of document.querySelectorAll('.view')) v.hidden = v.id !== 'view-' + name;
  const signed = !!state.me;
  $('nav').hidden = !signed;
  $('signout').hidden = !signed;
  $('who').textContent = signed ? state.me.name + ' (' + state.me.role + ')' : '';
  $('nav-dashboard').hidden = !(signed && state.me.role === 'lead');
  $('nav-curate').hidden = !(signed && state.me.role === 'lead');
  const dock = document.querySelector('#view-' + name + ' .player-dock');
  if (!dock) releaseSpare();
  if (dock && !dock.contains($('player'))) dock.prepend($('player'), $('player-tools'), $('no-media'), $('cues'));
}
