// A stock js-libp2p peer on the cards topic (docs/protocol.md §8.2):
// libp2p over loopback TCP with Noise, Yamux and identify, and GossipSub
// at its defaults (StrictSign, the default message ID), pinned in
// package-lock.json. It dials an adpnode node, publishes a card once the
// node is among the topic's peers and again every second (an owner's
// re-broadcast), and prints one JSON line per event on stdout:
//
//   {"event":"ready","peer":<own peer id>}
//   {"event":"published","recipients":[...]}              each publication
//   {"event":"message","from":<publisher>,"via":<peer>,"id":<card id>}
//   {"event":"mesh","mesh":[...],"subscribers":[...]}     every second
//   {"event":"forwarded","to":<peer>,"from":<publisher>}  after "forward"
//   {"event":"ihave","to":<peer>,"ids":<count>}            after "ihave"
//
// It reads commands on stdin, one a line: "forward" sends the last message
// it received back to the peer it came from, in a GossipSub RPC of the
// router's own, as a router forwards a message it got from a third peer
// to its publisher; "ihave" sends the node an IHAVE of every message ID
// in the router's gossip window, with the IDs the router itself computed,
// as its heartbeat gossips to topic peers outside its mesh. It exits on
// SIGTERM, SIGINT or stdin close. Run by TestStockJSLibp2pPeer in package
// node.
//
// Usage: node peer.mjs <private key: libp2p protobuf, base64> <card file> <node multiaddr>
import "./node20.mjs";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { createLibp2p } from "libp2p";
import { tcp } from "@libp2p/tcp";
import { noise } from "@chainsafe/libp2p-noise";
import { yamux } from "@chainsafe/libp2p-yamux";
import { identify } from "@libp2p/identify";
import { gossipsub } from "@libp2p/gossipsub";
import { privateKeyFromProtobuf } from "@libp2p/crypto/keys";
import { multiaddr } from "@multiformats/multiaddr";

const TOPIC = "/adp/cards/1.0.0";

const [keyB64, cardFile, nodeAddr] = process.argv.slice(2);
if (!keyB64 || !cardFile || !nodeAddr) {
  console.error("usage: node peer.mjs <private key base64> <card file> <node multiaddr>");
  process.exit(2);
}
const card = readFileSync(cardFile);
const emit = (event, fields) => console.log(JSON.stringify({ event, ...fields }));

const node = await createLibp2p({
  privateKey: privateKeyFromProtobuf(Buffer.from(keyB64, "base64")),
  addresses: { listen: ["/ip4/127.0.0.1/tcp/0"] },
  transports: [tcp()],
  connectionEncrypters: [noise()],
  streamMuxers: [yamux()],
  services: { identify: identify(), pubsub: gossipsub() },
});
const ps = node.services.pubsub;

let last = null; // the last message received: { raw, via, from }
ps.addEventListener("gossipsub:message", ({ detail }) => {
  const { msg, msgId, propagationSource } = detail;
  if (msg.topic !== TOPIC) return;
  let id = null;
  try {
    id = JSON.parse(new TextDecoder().decode(msg.data)).id ?? null;
  } catch {}
  // The router put the message in its cache before this event.
  const raw = ps.mcache.msgs.get(msgId)?.message;
  last = { raw, via: propagationSource.toString(), from: msg.from?.toString() ?? null };
  emit("message", { from: last.from, via: last.via, id });
});
ps.subscribe(TOPIC);

let tick = null;
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  clearInterval(tick);
  await node.stop();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line.trim() === "forward") forward();
  if (line.trim() === "ihave") ihave();
});
lines.on("close", stop);
emit("ready", { peer: node.peerId.toString() });

const targetPeer = nodeAddr.split("/p2p/").pop();
try {
  await node.dial(multiaddr(nodeAddr));
} catch (err) {
  if (!stopping) throw err; // else stopping aborted the dial
}

// Publish once the node is a topic peer (before that there is no one to
// send to), then every second.
const publish = async () => {
  const peers = ps.getSubscribers(TOPIC).map(String);
  if (!peers.includes(targetPeer)) return;
  try {
    const { recipients } = await ps.publish(TOPIC, card);
    emit("published", { recipients: recipients.map(String) });
  } catch (err) {
    console.error(`publish: ${err.message}`);
  }
};
if (!stopping) tick = setInterval(() => {
  emit("mesh", { mesh: ps.getMeshPeers(TOPIC), subscribers: ps.getSubscribers(TOPIC).map(String) });
  publish();
}, 1000);

// forward sends the last received message, as the router cached it, back
// to the peer it came from, on the router's own RPC path (see the header).
const forward = () => {
  if (!last?.raw) {
    console.error("forward: no message received");
    return;
  }
  const sent = ps.sendRpc(last.via, { subscriptions: [], messages: [last.raw] });
  if (sent) emit("forwarded", { to: last.via, from: last.from });
  else console.error(`forward: no stream to ${last.via}`);
};

// ihave sends the node an IHAVE of the router's gossip window (the IDs of
// its message cache, as its own message-ID function made them), on the
// router's own RPC path, as its heartbeat does for a topic peer outside
// its mesh.
const ihave = () => {
  const ids = ps.mcache.getGossipIDs(new Set([TOPIC])).get(TOPIC) ?? [];
  if (ids.length === 0) {
    console.error("ihave: no message in the gossip window");
    return;
  }
  const sent = ps.sendRpc(targetPeer, {
    subscriptions: [],
    messages: [],
    control: { graft: [], prune: [], ihave: [{ topicID: TOPIC, messageIDs: ids }], iwant: [], idontwant: [] },
  });
  if (sent) emit("ihave", { to: targetPeer, ids: ids.length });
  else console.error(`ihave: no stream to ${targetPeer}`);
};
