// The card dialog: one held card, its signature status and its forms in
// ADP, A2A, AgentCard and OASF (converted by the node).
import { h } from './dom.js';
import { api } from './state.js';

const formats = [['adp', 'ADP'], ['a2a', 'A2A'], ['agentcard', 'AgentCard'], ['oasf', 'OASF']];

// showCard opens the dialog on the card of agent id.
export async function showCard(id) {
  const dlg = document.getElementById('card-dialog');
  const body = document.getElementById('card-body');
  document.getElementById('card-title').textContent = 'Card';
  body.replaceChildren(h('p', { class: 'muted', text: 'loading…' }));
  if (!dlg.open) dlg.showModal();
  let v;
  try { v = await api('/v1/cards/' + encodeURIComponent(id)); } catch (e) {
    body.replaceChildren(h('p', { class: 'error', text: String(e.message || e) }));
    return;
  }
  document.getElementById('card-title').textContent = v.name;
  const ok = v.signature === 'valid';
  const pre = h('pre', { class: 'doc', tabindex: '0', 'aria-label': 'card document' });
  const tabs = h('div', { class: 'tabs', role: 'tablist' });
  const select = async (f, btn) => {
    for (const b of tabs.children) b.setAttribute('aria-selected', String(b === btn));
    pre.textContent = 'loading…';
    try {
      const doc = await api('/v1/cards/' + encodeURIComponent(id) + '?format=' + f);
      pre.textContent = JSON.stringify(doc, null, 2);
    } catch (e) { pre.textContent = String(e.message || e); }
  };
  for (const [f, label] of formats) {
    const b = h('button', { type: 'button', role: 'tab', 'data-format': f, text: label });
    b.addEventListener('click', () => select(f, b));
    tabs.append(b);
  }
  body.replaceChildren(
    h('dl', { class: 'facts' },
      h('dt', { text: 'Agent' }), h('dd', { class: 'mono', text: v.id }),
      h('dt', { text: 'Signature' }), h('dd', { class: ok ? 'good' : 'bad', 'data-signature': v.signature, text: ok ? '✔ valid Ed25519 signature' : '✘ ' + v.signature }),
      h('dt', { text: 'Source' }), h('dd', { text: v.source + (v.origin ? ' via ' + v.origin : '') }),
      h('dt', { text: 'Received' }), h('dd', { text: v.received_at }),
      h('dt', { text: 'Expires' }), h('dd', { text: v.expires_at || '—' }),
      h('dt', { text: 'Fresh' }), h('dd', { text: v.stale ? 'stale' : 'fresh' })),
    tabs, pre);
  select('adp', tabs.children[0]);
}
