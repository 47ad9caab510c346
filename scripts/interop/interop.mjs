// Independent check of adpnode Agent Card signatures (ADP 3.2): JCS by the
// `canonicalize` package (by the authors of RFC 8785) and Ed25519 by
// node:crypto, with agent:// ids decoded here from first principles.
//
//   node interop.mjs verify        verify adp/testdata/golden/*.json (signed
//                                  by adpnode) and reject tampered copies
//   node interop.mjs sign          write adp/testdata/interop/node-signed.json
//                                  (and a tampered copy) with the key in
//                                  adp/testdata/interop/node-key.seed
//   node interop.mjs sign --check  sign again and require the committed files
//                                  to be byte-identical (Ed25519 is
//                                  deterministic)
//
// Exits non-zero on any failure.
import canonicalize from 'canonicalize';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const testdata = path.join(here, '..', '..', 'adp', 'testdata');

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

function signNode(check) {
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
  const outputs = { 'node-signed.json': signed, 'node-signed-tampered.json': tampered };
  for (const [name, text] of Object.entries(outputs)) {
    const file = path.join(testdata, 'interop', name);
    if (check) {
      const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      if (committed !== text) fail(`${name}: committed file differs from a fresh signature (run: node interop.mjs sign)`);
      else console.log('ok', name, 'matches a fresh signature');
    } else {
      fs.writeFileSync(file, text);
      console.log('wrote', file);
    }
  }
}

const [mode, flag] = process.argv.slice(2);
switch (mode) {
  case 'verify':
    verifyGolden();
    break;
  case 'sign':
    signNode(flag === '--check');
    break;
  default:
    console.error('usage: node interop.mjs verify | sign [--check]');
    process.exit(2);
}
if (failures > 0) {
  console.error(`${failures} failure(s)`);
  process.exit(1);
}
