// dom.js: DOM helpers every part of the page uses: $ (an element by id), el (an HTML
// element with attributes, listeners and children), sv (an SVG element), encPath (a
// sample id as a URL path), clipUrl (a clip's signed URL) and fmt (seconds with two
// decimals).

export const $ = (id) => document.getElementById(id);
export function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v === true) e.setAttribute(k, '');
    else if (v !== false && v != null) e.setAttribute(k, v);
  }
  for (const k of kids) if (k != null) e.append(k);
  return e;
}
const SVG = 'http://www.w3.org/2000/svg';
export function sv(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text != null) e.textContent = text;
  return e;
}
export const encPath = (p) => p.split('/').map(encodeURIComponent).join('/');
// a clip as the server names it ("<path>?exp=...&sig=...": signed for this session)
export function clipUrl(c) {
  const q = c.indexOf('?');
  return '/clips/' + (q < 0 ? encPath(c) : encPath(c.slice(0, q)) + c.slice(q));
}
export const fmt = (t) => (typeof t === 'number' ? t.toFixed(2) : '');
