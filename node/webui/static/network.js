// The Network view: this node, its peers, a live graph of the
// connections (of every node on a testnet, of this node elsewhere), how
// each card travelled on a testnet, and the cards held with their
// freshness.
import { h, svg, short, ago, until } from './dom.js';
import { state, onState, refresh } from './state.js';
import { showCard } from './card.js';

const W = 640, H = 400, maxGraph = 80;
// pollMS: how often a testnet's view is read again. This node's events
// say when its own peers or cards change, not when another node's do.
const pollMS = 5000;
const pos = new Map(); // agent id -> {x, y}, kept across redraws

// relayed reports whether every address of a peer goes through a relay.
const relayed = (p) => (p.conns || []).length > 0 ? p.conns.every(c => c === 'relayed') : p.addrs.length > 0 && p.addrs.every(a => a.includes('/p2p-circuit'));

export function networkView(main) {
  const self = h('section', { class: 'panel', 'aria-labelledby': 'h-self' });
  const graph = h('section', { class: 'panel graph', 'aria-labelledby': 'h-graph' });
  const peers = h('section', { class: 'panel', 'aria-labelledby': 'h-peers' });
  const cards = h('section', { class: 'panel wide', 'aria-labelledby': 'h-cards' });
  const log = h('section', { class: 'panel', 'aria-labelledby': 'h-events' });
  const travel = h('section', { class: 'panel wide', 'aria-labelledby': 'h-travel', hidden: true });
  main.append(h('div', { class: 'grid' }, self, graph, peers, log, travel, cards));
  const draw = (s) => {
    drawSelf(self, s); drawGraph(graph, s); drawPeers(peers, s); drawTravel(travel, s); drawCards(cards, s); drawEvents(log, s);
  };
  draw(state);
  const off = onState(draw);
  const poll = setInterval(() => { if (state.network && state.network.scope === 'testnet') refresh(); }, pollMS);
  return () => { off(); clearInterval(poll); };
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

// network returns the nodes, links and scope to draw: the node's
// GET /v1/network, or, where the API does not serve it, this node's own
// connections.
function network(s) {
  if (s.network) return s.network;
  const me = s.status.agent_id;
  return { scope: 'local', nodes: [{ agent_id: me, name: s.status.name, directory: s.status.directory }],
    links: s.peers.map(p => ({ a: me, b: p.agent_id, reported_by: [me], relayed: relayed(p) })), travel: [] };
}

// circle places the nodes of a testnet, often all connected to each
// other, on a circle in node order, this node first.
function circle(ids) {
  const r = Math.min(W, H) / 2 - 40;
  for (const [i, id] of ids.entries()) {
    const a = -Math.PI / 2 + (i / ids.length) * 2 * Math.PI;
    pos.set(id, { x: W / 2 + r * 1.4 * Math.cos(a), y: H / 2 + r * Math.sin(a) });
  }
}

function drawGraph(el, s) {
  el.replaceChildren(h('h2', { id: 'h-graph', text: 'Connections' }));
  if (!s.status) return;
  const selfID = s.status.agent_id, nw = network(s), testnet = nw.scope === 'testnet';
  const label = names(s);
  const read = new Map(nw.nodes.filter(n => !n.error).map(n => [n.agent_id, n]));
  for (const n of read.values()) if (n.name) label.set(n.agent_id, n.name);
  const peerOf = new Map(s.peers.map(p => [p.agent_id, p]));
  const ids = [selfID];
  const add = (id) => { if (!ids.includes(id)) ids.push(id); };
  for (const id of read.keys()) add(id);
  for (const l of nw.links) { add(l.a); add(l.b); }
  if (!testnet) for (const c of s.cards) if (ids.length < maxGraph) add(c.id);
  if (testnet) circle(ids); else layout(ids, nw.links.map(l => [l.a, l.b]), selfID);
  const g = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'data-scope': nw.scope,
    'aria-label': `${nw.links.length} connections among ${ids.length} agents` });
  for (const l of nw.links) {
    const p = pos.get(l.a), q = pos.get(l.b);
    // One end's word only, though the other end was read too.
    const oneSided = testnet && l.reported_by.length < 2 && read.has(l.a) && read.has(l.b);
    g.append(svg('line', { class: 'edge' + (l.relayed ? ' relayed' : '') + (oneSided ? ' one-sided' : ''),
      'data-a': l.a, 'data-b': l.b, x1: p.x, y1: p.y, x2: q.x, y2: q.y },
    svg('title', { text: (label.get(l.a) || short(l.a)) + ' — ' + (label.get(l.b) || short(l.b)) + (oneSided ? ' (reported by one end only)' : '') })));
  }
  for (const id of ids) {
    const p = pos.get(id), peer = peerOf.get(id), node = read.get(id);
    const dir = (peer && peer.directory) || (node && node.directory);
    const cls = id === selfID ? 'self' : (peer || node || testnet) ? (dir ? 'peer directory' : 'peer') : 'held';
    const name = label.get(id) || short(id);
    g.append(svg('g', { class: 'node ' + cls, 'data-agent': id, transform: `translate(${p.x.toFixed(1)},${p.y.toFixed(1)})` },
      svg('title', { text: name + ' — ' + id }),
      svg('circle', { r: id === selfID ? 11 : 8 }),
      svg('text', { y: 22, 'text-anchor': 'middle', text: name.length > 24 ? name.slice(0, 23) + '…' : name })));
  }
  const down = nw.nodes.filter(n => n.error);
  el.append(g, h('p', { class: 'legend small' },
    h('span', { class: 'dot self' }), ' this node ', h('span', { class: 'dot peer' }), testnet ? ' node ' : ' connected ',
    h('span', { class: 'dot directory' }), ' directory peer ', testnet ? '' : [h('span', { class: 'dot held' }), ' card held, not connected '],
    '· dashed: relayed', testnet ? ' · dotted: reported by one end only' : ''),
  h('p', { class: 'small muted', id: 'graph-scope', text: testnet
    ? `Every node of this testnet, read through its local API: ${read.size} nodes, ${nw.links.length} connections.`
    : 'Only this node\'s own connections: peers do not tell each other whom they are connected to.' }),
  h('ul', { class: 'small error', hidden: !down.length }, down.map(n => h('li', { text: `${n.api || 'a node'}: ${n.error}` }))));
}

// drawTravel shows, on a testnet, how long each node's card took from
// its publication to each node.
function drawTravel(el, s) {
  const nw = s.network;
  el.hidden = !(nw && nw.scope === 'testnet');
  if (el.hidden) { el.replaceChildren(); return; }
  const nodes = nw.nodes.filter(n => !n.error);
  const max = Math.max(1, ...nw.travel.flatMap(c => c.arrivals.map(a => a.after_ms || 0)));
  el.replaceChildren(h('h2', { id: 'h-travel', text: 'Card travel' }),
    h('p', { class: 'small muted', text: 'Time from a card\'s publication (its owner\'s record of when it signed and sent that seq) to its first arrival at each node (each node\'s record). All nodes of a testnet run on this machine and share its clock; a node that started after a publication counts from the publication.' }),
    h('div', { class: 'scroll' }, h('table', { id: 'travel' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'Card' }),
        nodes.map(n => h('th', { scope: 'col', title: n.agent_id, text: n.name || short(n.agent_id) })))),
      h('tbody', {}, nw.travel.map(c => {
        const at = new Map(c.arrivals.map(a => [a.node, a]));
        return h('tr', { 'data-agent': c.agent, 'data-seq': String(c.seq) },
          h('th', { scope: 'row', title: c.agent }, c.name || short(c.agent), h('span', { class: 'muted small', text: ' seq ' + c.seq })),
          nodes.map(n => travelCell(c, at.get(n.agent_id), n.agent_id, max)));
      })))));
}

function travelCell(c, a, node, max) {
  if (!a) return h('td', { class: 'muted', 'data-node': node, text: '—', title: 'not arrived yet' });
  const title = `${a.source} at ${a.at}`;
  if (a.after_ms == null) return h('td', { 'data-node': node, title, text: 'held (no publication record)' });
  if (node === c.agent) return h('td', { class: 'origin', 'data-node': node, 'data-ms': '0', title, text: 'published' });
  const ms = a.after_ms;
  return h('td', { 'data-node': node, 'data-ms': String(ms), title },
    h('span', { class: 'bar' }, h('span', { class: 'seg f-tag', style: { width: (100 * Math.max(0, ms) / max).toFixed(1) + '%' } })),
    ' ' + (ms < 0 ? 'before this run' : ms < 1000 ? ms.toFixed(0) + ' ms' : (ms / 1000).toFixed(2) + ' s'));
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
