// The node's API on this origin and the state the views draw.

// readOnly is the API base of the read-only page a public server serves
// (its meta tag adpnode-read-only), '' on the node's own API.
const meta = document.querySelector('meta[name="adpnode-read-only"]');
export const readOnly = meta ? meta.content : '';

// api calls the node's JSON API on this origin; body (if any) is POSTed.
export async function api(path, body) {
  const opt = body === undefined ? {} : { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
  const r = await fetch(readOnly + path, opt);
  const t = await r.text();
  let j = null;
  try { j = t ? JSON.parse(t) : null; } catch { j = t; }
  if (!r.ok) throw new Error((j && j.message) || (r.status + ' ' + r.statusText));
  return j;
}

// state is what the views draw: this node, its peers, the held cards and
// what the node knows of the network (GET /v1/network; null where the
// API does not serve it).
export const state = { status: null, peers: [], cards: [], network: null, events: [] };
const listeners = new Set();

// onState registers fn to run after every state change; it returns the
// function that unregisters it.
export function onState(fn) { listeners.add(fn); return () => listeners.delete(fn); }
function changed() { for (const fn of listeners) fn(state); }

// readNetwork reads GET /v1/network, or null where the API does not
// serve it: never asked of a public server's read-only API (package
// node/publichttp serves no network view), where the browser would log
// the 404 as an error.
function readNetwork() {
  return readOnly ? Promise.resolve(null) : api('/v1/network').catch(() => null);
}

let refreshing = null, again = false;
// refresh reads status, peers, cards and network again (coalescing
// bursts).
export async function refresh() {
  if (refreshing) { again = true; return refreshing; }
  refreshing = (async () => {
    do {
      again = false;
      try {
        const [st, peers, cards, network] = await Promise.all([api('/v1/status'), api('/v1/peers'), api('/v1/cards'),
          readNetwork()]);
        state.status = st; state.peers = peers.peers || []; state.cards = cards.cards || []; state.network = network;
        state.error = null;
      } catch (e) { state.error = String(e.message || e); }
      changed();
    } while (again);
    refreshing = null;
  })();
  return refreshing;
}

