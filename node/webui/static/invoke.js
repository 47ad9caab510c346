// The Invoke view: pick an agent's tool, fill a form generated from its
// input schema, see the reply, or the streamed chunks as they arrive.
import { h, short } from './dom.js';
import { api, state, onState } from './state.js';

const toolsOf = (c) => (c.agent_card && Array.isArray(c.agent_card.tools)) ? c.agent_card.tools : [];

export function invokeView(main, preselect) {
  let agent = preselect || '', tool = '';
  const agentSel = h('select', { name: 'agent', id: 'inv-agent' });
  const toolSel = h('select', { name: 'tool', id: 'inv-tool' });
  const fields = h('fieldset', { class: 'fields' });
  const stream = h('input', { type: 'checkbox', name: 'stream', id: 'inv-stream' });
  const out = h('section', { class: 'panel reply', 'aria-live': 'polite', 'aria-labelledby': 'h-reply' }, h('h2', { id: 'h-reply', text: 'Reply' }));
  const form = h('form', { class: 'panel invoke', 'aria-label': 'Invoke a tool' },
    h('div', { class: 'row' },
      h('label', { class: 'field', for: 'inv-agent' }, h('span', { text: 'Agent' }), agentSel),
      h('label', { class: 'field', for: 'inv-tool' }, h('span', { text: 'Tool' }), toolSel)),
    h('p', { class: 'muted small', id: 'inv-desc' }),
    fields,
    h('div', { class: 'row' }, h('label', { class: 'check' }, stream, ' stream the reply'), h('button', { type: 'submit', text: 'Invoke' })));
  main.append(form, out);

  const candidates = () => state.cards.filter(c => toolsOf(c).length && (!state.status || c.id !== state.status.agent_id));
  const drawAgents = () => {
    const cs = candidates();
    if (!agent && cs.length) agent = cs[0].id;
    agentSel.replaceChildren(...cs.map(c => h('option', { value: c.id, selected: c.id === agent, text: `${c.name} (${short(c.id)})` })));
    drawTools();
  };
  const drawTools = () => {
    const c = state.cards.find(c => c.id === agent);
    const ts = c ? toolsOf(c) : [];
    if (!ts.some(t => t.name === tool)) tool = ts.length ? ts[0].name : '';
    toolSel.replaceChildren(...ts.map(t => h('option', { value: t.name, selected: t.name === tool, text: t.name })));
    const t = ts.find(t => t.name === tool);
    form.querySelector('#inv-desc').textContent = t ? (t.description || '') : 'No agent with tools is known yet.';
    stream.checked = !!(t && t.streaming);
    fields.replaceChildren(h('legend', { text: 'Input' }), ...schemaFields(t ? t.input_schema : null));
  };
  agentSel.addEventListener('change', () => { agent = agentSel.value; tool = ''; drawTools(); });
  toolSel.addEventListener('change', () => { tool = toolSel.value; drawTools(); });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    let body;
    try { body = readFields(fields); } catch (err) { showError(out, err); return; }
    await call(out, { agent, method: tool, body, stream: stream.checked });
  });
  drawAgents();
  let known = candidates().map(c => c.id).join();
  return onState(() => {
    const now = candidates().map(c => c.id).join();
    if (now !== known) { known = now; drawAgents(); }
  });
}

// schemaFields returns one labelled control per property of a JSON
// Schema object, or one JSON text area when it declares none.
function schemaFields(schema) {
  const props = schema && schema.properties && typeof schema.properties === 'object' ? schema.properties : null;
  if (!props || !Object.keys(props).length) {
    return [h('label', { class: 'field' }, h('span', { text: 'JSON body' }),
      h('textarea', { 'data-kind': 'json', 'data-name': '', rows: 4, text: '{}' }))];
  }
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(props).map(([name, p]) => {
    p = p || {};
    const id = 'f-' + name.replace(/[^A-Za-z0-9_-]/g, '_');
    const common = { id, 'data-name': name, required: required.has(name), 'aria-describedby': p.description ? id + '-d' : null };
    let ctl, kind = p.type || 'json';
    if (Array.isArray(p.enum)) {
      kind = 'enum';
      ctl = h('select', common, required.has(name) ? null : h('option', { value: '', text: '—' }), p.enum.map(v => h('option', { value: JSON.stringify(v), text: String(v) })));
    } else if (kind === 'string') {
      ctl = name === 'text' || (p.maxLength || 0) > 200 ? h('textarea', { ...common, rows: 3 }) : h('input', { ...common, type: 'text' });
    } else if (kind === 'number' || kind === 'integer') {
      ctl = h('input', { ...common, type: 'number', step: kind === 'integer' ? 1 : 'any' });
    } else if (kind === 'boolean') {
      ctl = h('input', { ...common, type: 'checkbox', required: false });
    } else if (kind === 'array' && p.items && p.items.type === 'string') {
      kind = 'lines';
      ctl = h('textarea', { ...common, rows: 2, placeholder: 'one per line' });
    } else {
      kind = 'json';
      ctl = h('textarea', { ...common, rows: 2, placeholder: 'JSON' });
    }
    ctl.dataset.kind = kind;
    return h('label', { class: 'field', for: id },
      h('span', {}, name, required.has(name) ? h('abbr', { title: 'required', text: ' *' }) : null),
      ctl, p.description ? h('small', { id: id + '-d', class: 'muted', text: p.description }) : null);
  });
}

// readFields builds the request body from the generated controls.
function readFields(fields) {
  const body = {};
  for (const el of fields.querySelectorAll('[data-kind]')) {
    const name = el.dataset.name, kind = el.dataset.kind, v = el.type === 'checkbox' ? el.checked : el.value;
    if (name === '') return JSON.parse(v || '{}');
    if (v === '' && !el.required) continue;
    if (kind === 'number' || kind === 'integer') body[name] = Number(v);
    else if (kind === 'boolean') body[name] = v;
    else if (kind === 'enum') { if (v !== '') body[name] = JSON.parse(v); }
    else if (kind === 'lines') body[name] = v.split('\n').map(s => s.trim()).filter(Boolean);
    else if (kind === 'json') body[name] = JSON.parse(v);
    else body[name] = v;
  }
  return body;
}

function showError(out, err) {
  out.replaceChildren(h('h2', { id: 'h-reply', text: 'Reply' }), h('p', { class: 'error', text: String(err.message || err) }));
}

// call invokes the tool; a streamed reply is shown chunk by chunk.
async function call(out, req) {
  out.replaceChildren(h('h2', { id: 'h-reply', text: 'Reply' }), h('p', { class: 'muted', text: 'calling…' }));
  if (!req.stream) {
    try {
      const r = await api('/v1/invoke', req);
      out.replaceChildren(h('h2', { id: 'h-reply', text: 'Reply' }),
        h('p', { class: 'muted small', text: `${r.method} on ${short(r.agent)} · ${r.latency_ms.toFixed(1)} ms` }),
        h('pre', { class: 'doc', id: 'inv-result', tabindex: '0', text: JSON.stringify(r.body, null, 2) }));
    } catch (err) { showError(out, err); }
    return;
  }
  const list = h('ol', { class: 'chunks', id: 'inv-chunks' });
  try {
    const r = await fetch('/v1/invoke', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(req) });
    if (!r.ok) { const j = await r.json().catch(() => ({})); throw new Error(j.message || r.statusText); }
    out.replaceChildren(h('h2', { id: 'h-reply', text: 'Streamed reply' }), list);
    const reader = r.body.getReader(), dec = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (value) buf += dec.decode(value, { stream: true });
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i).trim(); buf = buf.slice(i + 1);
        if (!line) continue;
        const v = JSON.parse(line);
        if (v && v.error && Object.keys(v).length === 1) throw new Error(v.error.message || v.error.code);
        list.append(h('li', {}, h('code', { text: JSON.stringify(v) })));
      }
      if (done) break;
    }
    out.append(h('p', { class: 'muted small', text: `${list.children.length} chunk(s), done` }));
  } catch (err) { out.append(h('p', { class: 'error', text: String(err.message || err) })); }
}
