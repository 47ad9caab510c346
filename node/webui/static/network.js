// The Network view: this node, its peers, a live graph of the
// connections and the cards held with their freshness.
import { h, svg, short, ago, until } from './dom.js';
import { state, onState } from './state.js';
import { showCard } from './card.js';

const W = 640, H = 400, maxGraph = 80;
const pos = new Map(); // agent id -> {x, y}, kept across redraws

// relayed reports whether every address of a peer goes through a relay.
const relayed = (p) => (p.conns || []).length > 0 ? p.conns.every(c => c === 'relayed') : p.addrs.length > 0 && p.addrs.every(a => a.includes('/p2p-circuit'));

export function networkView(main) {
  const self = h('section', { class: 'panel', 'aria-labelledby': 'h-self' });
  const graph = h('section', { class: 'panel graph', 'aria-labelledby': 'h-graph' });
  const peers = h('section', { class: 'panel', 'aria-labelledby': 'h-peers' });
  const cards = h('section', { class: 'panel wide', 'aria-labelledby': 'h-cards' });
  const log = h('section', { class: 'panel', 'aria-labelledby': 'h-events' });
  main.append(h('div', { class: 'grid' }, self, graph, peers, log, cards));
  const draw = (s) => {
    drawSelf(self, s); drawGraph(graph, s); drawPeers(peers, s); drawCards(cards, s); drawEvents(log, s);
  };
  draw(state);
  return onState(draw);
}

function names(s) {
  const m = new Map();
  for (const c of s.cards) m.set(c.id, c.name);
  return m;
}

function drawSelf(el, s) {
  const st = s.status;
  el.replaceChildren(h('h2', { id: 'h-self', text: 'This node' }));
  if (s.error) el.append(h('p', { class: 'error', text: s.error }));
  if (!st) return;
  el.append(h('dl', { class: 'facts' },
    h('dt', { text: 'Name' }), h('dd', { text: st.name }),
    h('dt', { text: 'Agent' }), h('dd', { class: 'mono', text: st.agent_id }),
    h('dt', { text: 'Peer' }), h('dd', { class: 'mono', text: st.peer_id }),
    h('dt', { text: 'Role' }), h('dd', { text: st.directory ? 'directory peer' : 'agent node' }),
    h('dt', { text: 'Peers' }), h('dd', { 'data-count': 'peers', text: String(st.peers) }),
    h('dt', { text: 'Cards' }), h('dd', { 'data-count': 'cards', text: String(st.cards) }),
    h('dt', { text: 'Card seq' }), h('dd', { text: String(st.seq) })),
  h('details', {}, h('summary', { text: 'Listen addresses' }), h('ul', { class: 'mono small' }, st.addrs.map(a => h('li', { text: a })))));
}

// layout runs a small force simulation: nodes repel, edges pull, the
// node itself stays in the middle.
function layout(ids, edges, selfID) {
  for (const [i, id] of ids.entries()) {
    if (!pos.has(id)) {
      const a = (i / ids.length) * 2 * Math.PI;
      pos.set(id, { x: W / 2 + 150 * Math.cos(a), y: H / 2 + 120 * Math.sin(a) });
    }
  }
  const ps = ids.map(id => pos.get(id));
  const idx = new Map(ids.map((id, i) => [id, i]));
  for (let it = 0; it < 120; it++) {
    const f = ps.map(() => ({ x: 0, y: 0 }));
    for (let i = 0; i < ps.length; i++) {
      for (let j = i + 1; j < ps.length; j++) {
        let dx = ps[i].x - ps[j].x, dy = ps[i].y - ps[j].y;
        const d2 = Math.max(dx * dx + dy * dy, 25), k = 4000 / d2, d = Math.sqrt(d2);
        dx /= d; dy /= d;
        f[i].x += dx * k; f[i].y += dy * k; f[j].x -= dx * k; f[j].y -= dy * k;
      }
    }
    for (const [a, b] of edges) {
      const i = idx.get(a), j = idx.get(b);
      if (i === undefined || j === undefined) continue;
      const dx = ps[j].x - ps[i].x, dy = ps[j].y - ps[i].y, d = Math.max(Math.hypot(dx, dy), 1), k = (d - 120) * 0.05;
      f[i].x += dx / d * k; f[i].y += dy / d * k; f[j].x -= dx / d * k; f[j].y -= dy / d * k;
    }
    for (let i = 0; i < ps.length; i++) {
      f[i].x += (W / 2 - ps[i].x) * 0.01; f[i].y += (H / 2 - ps[i].y) * 0.01;
      const step = Math.min(Math.hypot(f[i].x, f[i].y), 10) / (Math.hypot(f[i].x, f[i].y) || 1);
      ps[i].x = Math.min(W - 30, Math.max(30, ps[i].x + f[i].x * step));
      ps[i].y = Math.min(H - 20, Math.max(20, ps[i].y + f[i].y * step));
    }
  }
  const me = pos.get(selfID);
  if (me) { me.x = W / 2; me.y = H / 2; }
}

function drawGraph(el, s) {
  el.replaceChildren(h('h2', { id: 'h-graph', text: 'Connections' }));
  if (!s.status) return;
  const selfID = s.status.agent_id;
  const label = names(s);
  const ids = [selfID];
  const peerOf = new Map(s.peers.map(p => [p.agent_id, p]));
  for (const p of s.peers) if (!ids.includes(p.agent_id)) ids.push(p.agent_id);
  for (const c of s.cards) if (ids.length < maxGraph && !ids.includes(c.id)) ids.push(c.id);
  const edges = s.peers.map(p => [selfID, p.agent_id]);
  layout(ids, edges, selfID);
  const g = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `${s.peers.length} connections among ${ids.length} agents` });
  for (const [a, b] of edges) {
    const p = pos.get(a), q = pos.get(b), peer = peerOf.get(b);
    g.append(svg('line', { class: 'edge' + (relayed(peer) ? ' relayed' : ''), 'data-peer': peer.peer_id, x1: p.x, y1: p.y, x2: q.x, y2: q.y }));
  }
  for (const id of ids) {
    const p = pos.get(id), peer = peerOf.get(id);
    const cls = id === selfID ? 'self' : peer ? (peer.directory ? 'peer directory' : 'peer') : 'held';
    const name = label.get(id) || short(id);
    g.append(svg('g', { class: 'node ' + cls, 'data-agent': id, transform: `translate(${p.x.toFixed(1)},${p.y.toFixed(1)})` },
      svg('title', { text: name + ' — ' + id }),
      svg('circle', { r: id === selfID ? 11 : 8 }),
      svg('text', { y: 22, 'text-anchor': 'middle', text: name.length > 24 ? name.slice(0, 23) + '…' : name })));
  }
  el.append(g, h('p', { class: 'legend small' },
    h('span', { class: 'dot self' }), ' this node ', h('span', { class: 'dot peer' }), ' connected ',
    h('span', { class: 'dot directory' }), ' directory peer ', h('span', { class: 'dot held' }), ' card held, not connected · dashed: relayed'));
}

function drawPeers(el, s) {
  const label = names(s);
  el.replaceChildren(h('h2', { id: 'h-peers', text: `Peers (${s.peers.length})` }));
  if (!s.peers.length) { el.append(h('p', { class: 'muted', text: 'No peer connected.' })); return; }
  el.append(h('div', { class: 'scroll' }, h('table', {},
    h('thead', {}, h('tr', {}, ['Agent', 'Peer', 'Link', 'Role'].map(t => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, s.peers.map(p => h('tr', { 'data-peer': p.peer_id },
      h('td', { text: label.get(p.agent_id) || short(p.agent_id) }),
      h('td', { class: 'mono', title: p.addrs.join('\n'), text: short(p.peer_id) }),
      h('td', { text: relayed(p) ? 'relayed' : 'direct' }),
      h('td', { text: p.directory ? 'directory' : '' })))))));
}

function drawCards(el, s) {
  el.replaceChildren(h('h2', { id: 'h-cards', text: `Cards held (${s.cards.length})` }));
  el.append(h('div', { class: 'scroll' }, h('table', { id: 'cards' },
    h('thead', {}, h('tr', {}, ['Name', 'Agent', 'Source', 'Received', 'Expires', 'Freshness'].map(t => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, s.cards.map(c => h('tr', { 'data-agent': c.id },
      h('td', {}, h('button', { type: 'button', class: 'link', onclick: () => showCard(c.id), text: c.name })),
      h('td', { class: 'mono', title: c.id, text: short(c.id) }),
      h('td', { text: c.source + (c.origin ? ' · ' + short(c.origin) : '') }),
      h('td', { title: c.received_at, text: ago(c.received_at) }),
      h('td', { title: c.expires_at || '', text: c.expires_at ? until(c.expires_at) : '—' }),
      h('td', {}, h('span', { class: 'badge ' + (c.stale ? 'bad' : 'good'), text: c.stale ? 'stale' : 'fresh' }))))))));
}

function drawEvents(el, s) {
  el.replaceChildren(h('h2', { id: 'h-events', text: 'Live events' }));
  if (!s.events.length) { el.append(h('p', { class: 'muted', text: 'Waiting for card and peer changes…' })); return; }
  el.append(h('ul', { class: 'events small' }, s.events.slice(0, 12).map(e =>
    h('li', {}, h('time', { text: new Date(e.at).toLocaleTimeString() }), ' ', h('b', { text: e.kind }), ' ', e.name || short(e.agent)))));
}
