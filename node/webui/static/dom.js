// DOM helpers. Every string becomes a text node or an attribute value:
// nothing here parses markup, so card text can never run as code.

// h builds an element: props are attributes ("class", "text", "on<event>"
// handled apart), kids are nodes or strings (as text).
export function h(tag, props, ...kids) {
  const e = tag.includes(':') ? document.createElementNS('http://www.w3.org/2000/svg', tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v == null || v === false) continue;
    if (k === 'class') e.setAttribute('class', v);
    else if (k === 'text') e.textContent = String(v);
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'style') Object.assign(e.style, v); // CSSOM: the CSP allows no inline style attribute
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of kids.flat(Infinity)) {
    if (c == null || c === false) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

// svg builds an SVG element.
export const svg = (tag, props, ...kids) => h('svg:' + tag, props, ...kids);

// short abbreviates a long id for display.
export function short(id) {
  const s = String(id || '');
  return s.length > 22 ? s.slice(0, 12) + '…' + s.slice(-6) : s;
}

// ago says how long ago an RFC 3339 time was.
export function ago(t) {
  const ms = Date.now() - Date.parse(t);
  if (!isFinite(ms)) return '';
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return s + ' s ago';
  if (s < 3600) return Math.round(s / 60) + ' min ago';
  if (s < 86400) return Math.round(s / 3600) + ' h ago';
  return Math.round(s / 86400) + ' d ago';
}

// until says how long until an RFC 3339 time.
export function until(t) {
  const ms = Date.parse(t) - Date.now();
  if (!isFinite(ms)) return '';
  if (ms <= 0) return 'expired';
  const m = Math.round(ms / 60000);
  return m < 120 ? 'in ' + m + ' min' : 'in ' + Math.round(m / 60) + ' h';
}

// highlight returns text as nodes, the words of query in <mark>.
export function highlight(text, query) {
  const words = String(query || '').toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(w => w.length > 1);
  const s = String(text || '');
  if (!words.length) return [s];
  const out = [];
  const lower = s.toLowerCase();
  let i = 0;
  while (i < s.length) {
    let best = -1, len = 0;
    for (const w of words) {
      const j = lower.indexOf(w, i);
      if (j >= 0 && (best < 0 || j < best)) { best = j; len = w.length; }
    }
    if (best < 0) break;
    if (best > i) out.push(s.slice(i, best));
    out.push(h('mark', { text: s.slice(best, best + len) }));
    i = best + len;
  }
  if (i < s.length) out.push(s.slice(i));
  return out;
}
