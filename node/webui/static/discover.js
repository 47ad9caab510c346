// The Discover view: a ranked search whose every result shows its score
// as the weighted components that make it up.
import { h, short, ago, highlight } from './dom.js';
import { api, readOnly } from './state.js';
import { showCard } from './card.js';

export const factors = ['tag', 'context', 'example', 'reputation', 'availability', 'rating', 'freshness'];
const tags = (s) => s.split(/[\s,]+/).map(t => t.trim()).filter(Boolean);
let last = { query: '', tags: '', required: '', excluded: '', scope: 'local', limit: '10', min: '0.1' };

export function discoverView(main) {
  const field = (label, name, props) => h('label', { class: 'field' }, h('span', { text: label }), h('input', { name, value: last[name], ...props }));
  const form = h('form', { class: 'panel search', role: 'search', 'aria-label': 'Discover agents' },
    h('div', { class: 'row' },
      field('Query', 'query', { type: 'search', placeholder: 'e.g. translate a contract into English', autofocus: true }),
      h('button', { type: 'submit', text: 'Discover' })),
    h('div', { class: 'row filters' },
      field('Tags', 'tags', { placeholder: 'nlp/translation, legal' }),
      field('Required tags', 'required', {}),
      field('Excluded tags', 'excluded', {}),
      readOnly ? null : h('label', { class: 'field' }, h('span', { text: 'Scope' }),
        h('select', { name: 'scope' }, ['local', 'network'].map(v => h('option', { value: v, selected: v === last.scope, text: v })))),
      field('Limit', 'limit', { type: 'number', min: 1, max: 100 }),
      field('Min score', 'min', { type: 'number', min: 0, max: 1, step: 0.05 })));
  const out = h('section', { class: 'results', 'aria-live': 'polite', 'aria-label': 'Results' });
  main.append(form, out);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const f = new FormData(form);
    for (const k of Object.keys(last)) last[k] = String(f.get(k) ?? '');
    const req = { query: last.query, include_evidence: true, detail: 'full', limit: Number(last.limit) || 10, min_score: Number(last.min) || 0 };
    if (tags(last.tags).length) req.tags = tags(last.tags);
    if (tags(last.required).length) req.required_tags = tags(last.required);
    if (tags(last.excluded).length) req.excluded_tags = tags(last.excluded);
    out.replaceChildren(h('p', { class: 'muted', text: 'searching…' }));
    try {
      const resp = readOnly ? await api('/v1/discover?' + discoverQuery(req)) : await api('/v1/discover?scope=' + encodeURIComponent(last.scope), req);
      drawResults(out, resp, last.query);
    } catch (err) { out.replaceChildren(h('p', { class: 'error', text: String(err.message || err) })); }
  });
  if (last.query || last.tags) form.requestSubmit();
}

// discoverQuery is req as the query of the read-only page's GET discover.
function discoverQuery(req) {
  const q = new URLSearchParams({ q: req.query, limit: String(req.limit), min_score: String(req.min_score) });
  for (const [k, v] of [['tag', req.tags], ['required', req.required_tags], ['excluded', req.excluded_tags]]) for (const t of v || []) q.append(k, t);
  return q.toString();
}

function drawResults(out, resp, query) {
  const rs = resp.results || [];
  out.replaceChildren(h('h2', { text: `${rs.length} result${rs.length === 1 ? '' : 's'}` }));
  for (const w of resp.warnings || []) out.append(h('p', { class: 'warn', text: w }));
  if (!rs.length) return;
  out.append(h('ol', { class: 'ranked' }, rs.map((r, i) => result(r, i + 1, query))), legend());
}

function legend() {
  return h('p', { class: 'legend small' }, factors.map(f => [h('span', { class: 'swatch f-' + f }), ' ' + f + ' ']));
}

function result(r, rank, query) {
  const comps = r.score_components || {}, weights = r.weights || {};
  const parts = factors.map(f => ({ f, c: comps[f] || 0, w: weights[f] || 0 })).map(p => ({ ...p, v: p.c * p.w }));
  const stacked = h('div', { class: 'stack', role: 'img', 'aria-label': `score ${r.score.toFixed(3)} of 1` },
    parts.filter(p => p.v > 0).map(p => h('span', { class: 'seg f-' + p.f, style: { width: `${(p.v * 100).toFixed(3)}%` }, title: `${p.f} ${p.v.toFixed(3)}` })));
  const table = h('table', { class: 'factors small' },
    h('thead', {}, h('tr', {}, ['factor', 'weight × value', 'adds'].map(t => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, parts.map(p => h('tr', { class: 'factor', 'data-factor': p.f, 'data-contrib': String(p.v) },
      h('th', { scope: 'row' }, h('span', { class: 'swatch f-' + p.f }), ' ' + p.f),
      h('td', { text: `${p.w.toFixed(2)} × ${p.c.toFixed(3)}` }),
      h('td', {}, h('span', { class: 'bar' }, h('span', { class: 'seg f-' + p.f, style: { width: `${(p.v * 100).toFixed(3)}%` } })), ' ' + p.v.toFixed(3))))));
  const fresh = r.freshness || {};
  return h('li', { class: 'result', 'data-agent': r.id, 'data-score': String(r.score) },
    h('div', { class: 'result-head' },
      h('span', { class: 'rank', text: '#' + rank }),
      h('button', { type: 'button', class: 'link name', onclick: () => showCard(r.id) }, highlight(r.name, query)),
      h('span', { class: 'score', text: r.score.toFixed(3) }),
      readOnly ? null : h('a', { href: '#invoke/' + encodeURIComponent(r.id), class: 'small', text: 'invoke →' })),
    r.description ? h('p', { class: 'desc' }, highlight(r.description, query)) : null,
    stacked,
    h('div', { class: 'tags' },
      (r.matched_tags || []).map(t => h('span', { class: 'chip match', title: 'matched tag', text: t })),
      (r.expanded_tags || []).map(t => h('span', { class: 'chip expanded', title: 'matched through alias, parent or prefix', text: t }))),
    (r.matched_examples || []).length ? h('ul', { class: 'examples small', 'aria-label': 'matched examples' },
      r.matched_examples.map(x => h('li', {}, h('span', { class: 'muted', text: x.score.toFixed(2) + ' ' }), highlight(x.text || x.id, query)))) : null,
    h('details', { open: rank === 1 }, h('summary', { text: 'Score components' }), table),
    h('p', { class: 'prov small muted' },
      'status: ', h('b', { text: r.status || 'unknown' }),
      ' · indexed ', fresh.indexed_at ? ago(fresh.indexed_at) : '—',
      fresh.stale ? ' · stale' : ' · fresh',
      r.origin_service ? ' · via ' + short(r.origin_service) : ' · held here',
      r.received_at ? ' · received ' + ago(r.received_at) : ''));
}
