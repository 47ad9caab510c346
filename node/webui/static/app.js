// The web view's entry point: API access, shared state, the event stream
// and the hash router (#network, #discover, #invoke).
import { networkView } from './network.js';
import { discoverView } from './discover.js';
import { invokeView } from './invoke.js';
import { state, refresh, onState, readOnly } from './state.js';

// The event stream: every card or peer change refreshes the state.
function follow() {
  const live = document.getElementById('live');
  const es = new EventSource('/v1/events');
  es.onopen = () => { live.textContent = 'live'; live.className = 'live on'; refresh(); };
  es.onerror = () => { live.textContent = 'reconnecting'; live.className = 'live'; };
  es.onmessage = (m) => {
    let ev;
    try { ev = JSON.parse(m.data); } catch { return; }
    state.events.unshift(ev);
    state.events.length = Math.min(state.events.length, 50);
    refresh();
  };
}

const views = { network: networkView, discover: discoverView, invoke: invokeView };
if (readOnly) { // a public server: nothing to invoke, no event stream
  delete views.invoke;
  document.querySelector('nav a[data-view="invoke"]').remove();
}
let unmount = null;

function route() {
  const [name, arg] = location.hash.slice(1).split('/');
  const view = views[name] ? name : 'network';
  for (const a of document.querySelectorAll('nav a')) {
    if (a.dataset.view === view) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  if (unmount) unmount();
  const main = document.getElementById('main');
  main.replaceChildren();
  main.dataset.view = view;
  unmount = views[view](main, arg ? decodeURIComponent(arg) : '') || null;
}

onState((s) => {
  const self = document.getElementById('self');
  self.textContent = s.status ? (s.status.name + (s.status.directory ? ' · directory peer' : '')) : '';
});

window.addEventListener('hashchange', route);
document.getElementById('card-close').addEventListener('click', () => document.getElementById('card-dialog').close());
document.body.dataset.ready = 'false';
route();
refresh().then(() => { document.body.dataset.ready = 'true'; });
if (readOnly) {
  const live = document.getElementById('live');
  live.textContent = 'read-only';
  setInterval(refresh, 30000);
} else {
  follow();
}
