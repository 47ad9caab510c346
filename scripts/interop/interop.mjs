// Independent check of adpnode Agent Card signatures (ADP 3.2): JCS by the
// `canonicalize` package (by the authors of RFC 8785) and Ed25519 by
// node:crypto, with agent:// ids decoded here from first principles; and of
// A2A 1.0 Agent Card signatures (A2A 1.0, Section 8.4: a JWS with a
// detached payload, the JCS form of the card without signatures) by the
// `jose` package.
//
//   node interop.mjs verify        verify adp/testdata/golden/*.json (signed
//                                  by adpnode) and the A2A card
//                                  adp/bridge/testdata/golden/card.a2a.signed.json,
//                                  and reject tampered copies
//   node interop.mjs sign          write adp/testdata/interop/node-signed.json
//                                  (and a tampered copy) with the key in
//                                  adp/testdata/interop/node-key.seed, and
//                                  adp/bridge/testdata/interop/node-signed-a2a.json
//                                  (and a tampered copy) signed by jose
//   node interop.mjs sign --check  sign again and require the committed files
//                                  to be byte-identical (Ed25519 is
//                                  deterministic)
//
// Exits non-zero on any failure.
import canonicalize from 'canonicalize';
import * as jose from 'jose';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const testdata = path.join(here, '..', '..', 'adp', 'testdata');
const bridgeTestdata = path.join(here, '..', '..', 'adp', 'bridge', 'testdata');

const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
const B36 = '0123456789abcdefghijklmnopqrstuvwxyz';

function base36Decode(s) {
  let n = 0n;
  for (const ch of s.toLowerCase()) {
    const d = B36.indexOf(ch);
    if (d < 0) throw new Error(`bad base36 digit ${ch}`);
    n = n * 36n + BigInt(d);
  }
  const hex = n.toString(16);
  return Buffer.from(hex.length % 2 ? '0' + hex : hex, 'hex');
}

function base36Encode(buf) {
  let n = BigInt('0x' + buf.toString('hex'));
  let out = '';
  while (n > 0n) {
    out = B36[Number(n % 36n)] + out;
    n /= 36n;
  }
  return out;
}

function readVarint(buf, pos) {
  let v = 0, shift = 0;
  for (;;) {
    const b = buf[pos++];
    v |= (b & 0x7f) << shift;
    if (!(b & 0x80)) return [v, pos];
    shift += 7;
  }
}

// agent://k51... -> 32-octet Ed25519 public key. The id is a multibase
// base36 CIDv1 (codec libp2p-key 0x72) of an identity multihash of the
// libp2p PublicKey protobuf {Type: Ed25519 (1), Data: key}.
function publicKeyFromAgentID(id) {
  if (!id.startsWith('agent://k')) throw new Error(`not a base36 agent id: ${id}`);
  const cid = base36Decode(id.slice('agent://k'.length));
  let pos = 0, version, codec, mhCode, mhLen;
  [version, pos] = readVarint(cid, pos);
  [codec, pos] = readVarint(cid, pos);
  [mhCode, pos] = readVarint(cid, pos);
  [mhLen, pos] = readVarint(cid, pos);
  if (version !== 1 || codec !== 0x72 || mhCode !== 0x00) throw new Error(`unexpected CID ${cid.toString('hex')}`);
  const pb = cid.subarray(pos, pos + mhLen);
  const want = Buffer.from('080112', 'hex');
  if (pb.length !== 36 || !pb.subarray(0, 3).equals(want) || pb[3] !== 0x20) throw new Error('not an Ed25519 libp2p key');
  return pb.subarray(4);
}

function agentIDFromPublicKey(raw) {
  const pb = Buffer.concat([Buffer.from('08011220', 'hex'), raw]);
  const cid = Buffer.concat([Buffer.from([0x01, 0x72, 0x00, pb.length]), pb]);
  return 'agent://k' + base36Encode(cid);
}

// verifyCard returns null when the card text verifies, or the reason.
function verifyCard(text) {
  let card;
  try {
    card = JSON.parse(text);
  } catch (e) {
    return `not JSON: ${e.message}`;
  }
  if (typeof card.signature !== 'string') return 'unsigned';
  const sig = Buffer.from(card.signature, 'base64url');
  if (sig.length !== 64) return 'signature is not 64 octets';
  delete card.signature;
  let key;
  try {
    key = crypto.createPublicKey({ key: Buffer.concat([SPKI_ED25519, publicKeyFromAgentID(card.id)]), format: 'der', type: 'spki' });
  } catch (e) {
    return `bad id: ${e.message}`;
  }
  const msg = Buffer.from(canonicalize(card), 'utf8');
  return crypto.verify(null, msg, key, sig) ? null : 'signature does not verify';
}

// Tamperings that must each break the signature.
const tamperings = {
  name: (c) => { c.name = c.name + 'x'; },
  seq: (c) => { c.seq = (c.seq ?? 0) + 1; },
  addField: (c) => { c['x-added'] = true; },
  dropTools: (c) => { delete c.tools; c.tools = [{ name: 'evil' }]; },
  extension: (c) => { c.extensions = { ...(c.extensions ?? {}), 'evil.ns': { a: 1 } }; },
};

// A2A 1.0 Agent Card signatures (Section 8.4). The payload is the JCS form
// of the card without its signatures; adpnode writes signed cards without
// members at their default value, so no pruning is needed here (a card
// that had them would not verify, which the check would report).
function a2aPayload(card) {
  const { signatures, ...rest } = card;
  return jose.base64url.encode(canonicalize(rest));
}

// verifyA2A returns null when one of the card's signatures verifies with
// jose (flattened JWS, detached payload, EdDSA, the key in its kid), or the
// reasons.
async function verifyA2A(text) {
  let card;
  try {
    card = JSON.parse(text);
  } catch (e) {
    return `not JSON: ${e.message}`;
  }
  if (!Array.isArray(card.signatures) || card.signatures.length === 0) return 'unsigned';
  const reasons = [];
  for (const sig of card.signatures) {
    try {
      const header = jose.decodeProtectedHeader(sig);
      if (header.alg !== 'EdDSA' || header.typ !== 'JOSE') throw new Error(`header ${JSON.stringify(header)}`);
      const x = jose.base64url.encode(publicKeyFromAgentID(header.kid));
      const key = await jose.importJWK({ kty: 'OKP', crv: 'Ed25519', x }, 'EdDSA');
      await jose.flattenedVerify({ protected: sig.protected, signature: sig.signature, payload: a2aPayload(card) }, key, { algorithms: ['EdDSA'] });
      return null;
    } catch (e) {
      reasons.push(e.message);
    }
  }
  return reasons.join('; ');
}

const a2aTamperings = {
  name: (c) => { c.name = c.name + 'x'; },
  addField: (c) => { c['x-added'] = true; },
  skillTag: (c) => { c.skills[0].tags.push('evil'); },
  interfaceURL: (c) => { c.supportedInterfaces[0].url = 'https://evil.example.com/'; },
  signature: (c) => { const s = c.signatures[0].signature; c.signatures[0].signature = (s[0] === 'A' ? 'B' : 'A') + s.slice(1); },
  otherKid: (c) => {
    const h = JSON.parse(Buffer.from(c.signatures[0].protected, 'base64url'));
    h.kid = agentIDFromPublicKey(Buffer.alloc(32, 1));
    c.signatures[0].protected = Buffer.from(JSON.stringify(h)).toString('base64url');
  },
};

async function verifyGoldenA2A() {
  const f = path.join(bridgeTestdata, 'golden', 'card.a2a.signed.json');
  const text = fs.readFileSync(f, 'utf8');
  const reason = await verifyA2A(text);
  if (reason) {
    fail(`card.a2a.signed.json: ${reason}`);
    return;
  }
  for (const [name, mutate] of Object.entries(a2aTamperings)) {
    const c = JSON.parse(text);
    mutate(c);
    if (!(await verifyA2A(JSON.stringify(c)))) fail(`card.a2a.signed.json: tampered (${name}) copy verifies`);
  }
  console.log('ok card.a2a.signed.json verifies with jose; tampered copies rejected');
}

// signA2A signs an A2A 1.0 card with jose (FlattenedSign over the detached
// payload) and returns the signed card and a tampered copy, pretty-printed.
async function signA2A(sk, pub) {
  const id = agentIDFromPublicKey(pub);
  const card = {
    name: 'node-signed-a2a',
    description: 'Signed by the Node.js interop script with jose. \u00e9\ud83d\ude00 <&>',
    version: '1.0.0',
    supportedInterfaces: [
      { url: 'https://node.example.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: id, protocolBinding: 'AITP', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: false, extensions: [{ uri: 'urn:example:ext', params: { n: [1e21, 0.1, -0] } }] },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['application/json'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['interop', 'jose'], examples: ['echo hello'] }],
  };
  const jws = await new jose.FlattenedSign(Buffer.from(canonicalize(card), 'utf8'))
    .setProtectedHeader({ alg: 'EdDSA', kid: id, typ: 'JOSE' })
    .sign(sk);
  const signed = JSON.stringify({ ...card, signatures: [{ protected: jws.protected, signature: jws.signature }] }, null, 2) + '\n';
  const t = JSON.parse(signed);
  t.skills[0].description = 'Echoes text twice';
  const tampered = JSON.stringify(t, null, 2) + '\n';
  if (await verifyA2A(signed)) fail('node-signed A2A card does not verify in node');
  if (!(await verifyA2A(tampered))) fail('tampered node-signed A2A card verifies in node');
  return { signed, tampered };
}

let failures = 0;
function fail(msg) {
  console.error('FAIL', msg);
  failures++;
}

function verifyGolden() {
  const dir = path.join(testdata, 'golden');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  if (files.length === 0) fail(`no golden cards in ${dir}`);
  for (const f of files) {
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    const reason = verifyCard(text);
    if (reason) {
      fail(`${f}: ${reason}`);
      continue;
    }
    // adpnode writes signed cards in canonical form: check that too.
    const card = JSON.parse(text);
    if (canonicalize(card) !== text) fail(`${f}: not in JCS form`);
    for (const [name, mutate] of Object.entries(tamperings)) {
      const c = JSON.parse(text);
      mutate(c);
      if (!verifyCard(JSON.stringify(c))) fail(`${f}: tampered (${name}) copy verifies`);
    }
    console.log('ok', f, 'verifies; tampered copies rejected');
  }
}

async function signNode(check) {
  const seed = Buffer.from(fs.readFileSync(path.join(testdata, 'interop', 'node-key.seed'), 'utf8').trim(), 'hex');
  if (seed.length !== 32) throw new Error('node-key.seed must hold 32 octets in hex');
  const sk = crypto.createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
  const pub = crypto.createPublicKey(sk).export({ format: 'der', type: 'spki' }).subarray(SPKI_ED25519.length);
  const id = agentIDFromPublicKey(pub);
  const card = {
    id,
    name: 'node-signed',
    description: 'Signed by the Node.js interop script: JCS by canonicalize, Ed25519 by node:crypto. \u00e9\u2028\ud83d\ude00 <&>',
    version: '1.0.0',
    status: 'testing',
    skills: ['interop/jcs', 'interop/ed25519'],
    tools: [{ name: 'echo', input_schema: { type: 'object', properties: { text: { type: 'string', maxLength: 1e3 } } }, idempotent: true }],
    endpoints: [{ protocol: 'aitp', uri: id }, { protocol: 'x-unknown-protocol', uri: 'x://y', priority: -1 }],
    metadata: { created_at: '2026-03-24T12:00:00Z', updated_at: '2026-03-24T12:00:00Z', ttl: 600 },
    extensions: { 'interop.node': { numbers: [1e21, 1e-7, 0.1, -0, 333333333.33333329, 9007199254740991], nested: { z: 1, a: [null, true, false] } } },
    examples: [{ id: 'e1', text: 'echo hello', tags: ['interop/jcs'] }],
    seq: 3,
    'x-node-field': 'unknown fields are signed too',
  };
  const sig = crypto.sign(null, Buffer.from(canonicalize(card), 'utf8'), sk).toString('base64url');
  // Written pretty-printed and not in JCS order, so that adpnode has to
  // canonicalize what it received.
  const signed = JSON.stringify({ ...card, signature: sig }, null, 2) + '\n';
  const tamperedCard = JSON.parse(signed);
  tamperedCard.description = tamperedCard.description.replace('Signed', 'Signet');
  const tampered = JSON.stringify(tamperedCard, null, 2) + '\n';
  if (verifyCard(signed)) fail('node-signed card does not verify in node');
  if (!verifyCard(tampered)) fail('tampered node-signed card verifies in node');
  const a2a = await signA2A(sk, pub);
  const outputs = {
    [path.join(testdata, 'interop', 'node-signed.json')]: signed,
    [path.join(testdata, 'interop', 'node-signed-tampered.json')]: tampered,
    [path.join(bridgeTestdata, 'interop', 'node-signed-a2a.json')]: a2a.signed,
    [path.join(bridgeTestdata, 'interop', 'node-signed-a2a-tampered.json')]: a2a.tampered,
  };
  for (const [file, text] of Object.entries(outputs)) {
    const name = path.basename(file);
    if (check) {
      const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      if (committed !== text) fail(`${name}: committed file differs from a fresh signature (run: node interop.mjs sign)`);
      else console.log('ok', name, 'matches a fresh signature');
    } else {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
      console.log('wrote', file);
    }
  }
}

const [mode, flag] = process.argv.slice(2);
switch (mode) {
  case 'verify':
    verifyGolden();
    await verifyGoldenA2A();
    break;
  case 'sign':
    await signNode(flag === '--check');
    break;
  default:
    console.error('usage: node interop.mjs verify | sign [--check]');
    process.exit(2);
}
if (failures > 0) {
  console.error(`${failures} failure(s)`);
  process.exit(1);
}
