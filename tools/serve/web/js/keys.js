// keys.js: the keyboard shortcuts of the sample view (j/k and the arrows, Ctrl+S, r,
// space), as listed on the page.

import { $ } from './dom.js';
import { playRow } from './player.js';
import { selectRow } from './rows.js';
import { saveRow } from './save.js';
import { state } from './state.js';

document.addEventListener('keydown', (ev) => {
  if ($('view-sample').hidden) return;
  const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement && document.activeElement.tagName);
  if ((ev.ctrlKey || ev.metaKey) && ev.key.toLowerCase() === 's') { ev.preventDefault(); saveRow(); return; }
  if (typing || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.key === 'j' || ev.key === 'ArrowDown') { ev.preventDefault(); selectRow(state.sel + 1, true); }
  else if (ev.key === 'k' || ev.key === 'ArrowUp') { ev.preventDefault(); selectRow(state.sel - 1, true); }
  else if (ev.key === 'r') { ev.preventDefault(); playRow(); }
  else if (ev.key === ' ') {
    ev.preventDefault();
    const p = $('player');
    if (p.paused) { const pr = p.play(); if (pr && pr.catch) pr.catch(() => {}); } else p.pause();
  }
});
