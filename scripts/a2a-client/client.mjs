// Drives an adpnode's A2A server with the A2A JavaScript SDK's client
// (@a2a-js/sdk, pinned in package-lock.json): resolves the agent card
// from <base>/.well-known/agent-card.json, sends a text message to a
// skill (blocking, then streamed), reads the task back, and does the same
// over A2A 0.3 with the SDK's v0.3 compatibility transport. Prints one
// JSON summary on stdout. Run by TestA2AJavaScriptClient in package node.
//
// Usage: node client.mjs <api base URL> <skill id> <text>
import { randomUUID } from "node:crypto";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { Role, taskStateToJSON } from "@a2a-js/sdk";

const [base, skill, text] = process.argv.slice(2);
if (!base || !skill || text === undefined) {
  console.error("usage: node client.mjs <base URL> <skill id> <text>");
  process.exit(2);
}

function part(p) {
  switch (p.content?.$case) {
    case "text":
      return { text: p.content.value };
    case "data":
      return { data: p.content.value };
    default:
      return { other: p.content?.$case ?? null };
  }
}

function statusOf(s) {
  return {
    state: taskStateToJSON(s?.state ?? 0),
    message: s?.message ? s.message.parts.map(part) : undefined,
  };
}

function task(t) {
  return {
    id: t.id,
    contextId: t.contextId,
    status: statusOf(t.status),
    artifacts: (t.artifacts ?? []).map((a) => ({ artifactId: a.artifactId, parts: a.parts.map(part) })),
    history: (t.history ?? []).length,
  };
}

function event(ev) {
  const { $case, value } = ev.payload ?? {};
  switch ($case) {
    case "task":
      return { kind: "task", task: task(value) };
    case "statusUpdate":
      return { kind: "statusUpdate", taskId: value.taskId, status: statusOf(value.status) };
    case "artifactUpdate":
      return { kind: "artifactUpdate", taskId: value.taskId, append: value.append, parts: value.artifact.parts.map(part) };
    case "message":
      return { kind: "message", parts: value.parts.map(part) };
    default:
      return { kind: String($case) };
  }
}

function request() {
  return {
    tenant: "",
    message: {
      messageId: randomUUID(),
      contextId: "",
      taskId: "",
      role: Role.ROLE_USER,
      parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
      metadata: { skillId: skill },
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  };
}

// exercise sends, streams and reads back one task through client.
async function exercise(client) {
  const sent = await client.sendMessage(request());
  if (!("status" in sent)) throw new Error("SendMessage answered a Message, want a Task");
  const stream = [];
  for await (const ev of client.sendMessageStream(request())) stream.push(event(ev));
  const got = await client.getTask({ tenant: "", id: sent.id, historyLength: undefined });
  return { protocolVersion: client.protocolVersion, send: task(sent), stream, get: task(got) };
}

const factory = new ClientFactory();
const client = await factory.createFromUrl(base);
const card = await client.getAgentCard();
const v10 = await exercise(client);

// The same agent over A2A 0.3: the card's 0.3 JSON-RPC interface, through
// the SDK's v0.3 compatibility transport.
const legacyFactory = new ClientFactory(
  ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ legacyCompat: { enabled: true } })],
  }),
);
const legacy = await legacyFactory.createFromAgentCard({
  ...card,
  supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolBinding === "JSONRPC" && i.protocolVersion === "0.3"),
});
const v03 = await exercise(legacy);

console.log(
  JSON.stringify({
    card: {
      name: card.name,
      streaming: card.capabilities?.streaming ?? false,
      skills: card.skills.map((s) => s.id),
      interfaces: card.supportedInterfaces.map((i) => ({ url: i.url, binding: i.protocolBinding, version: i.protocolVersion })),
    },
    v10,
    v03,
  }),
);
