// Drives `adpnode mcp` with the official MCP TypeScript SDK client:
// discovers an agent by skill tag and calls its streaming demo tool with a
// progress token. Prints one JSON summary line; exits 1 on any failure.
//
// usage: node client.mjs '<server command JSON: {"command", "args", "env"}>' <tag> <agent id>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

function fail(msg) {
  console.error(`mcp-interop: ${msg}`);
  process.exit(1);
}

const [spec, tag, agent] = process.argv.slice(2);
if (!spec || !tag || !agent) fail("usage: node client.mjs '<server JSON>' <tag> <agent id>");
const server = JSON.parse(spec);

const transport = new StdioClientTransport({
  command: server.command,
  args: server.args,
  env: { ...process.env, ...(server.env || {}) },
  stderr: "inherit",
});
const client = new Client({ name: "adpnode-ts-interop", version: "1.0.0" });
await client.connect(transport);

const summary = { server: client.getServerVersion(), protocol: transport.protocolVersion ?? null };

const { tools } = await client.listTools();
summary.tools = tools.map((t) => t.name).sort();
for (const t of tools) {
  if (!t.inputSchema || !t.outputSchema) fail(`tool ${t.name} lacks an input or output schema`);
}

// Discovery may need a moment for the agent's card to reach the node.
let candidate;
for (let i = 0; i < 100 && !candidate; i++) {
  const res = await client.callTool({ name: "discover_agents", arguments: { tags: [tag], scope: "local" } });
  if (res.isError) fail(`discover_agents: ${JSON.stringify(res.content)}`);
  candidate = res.structuredContent.candidates.find((c) => c.agent_id === agent);
  if (!candidate) await new Promise((r) => setTimeout(r, 100));
}
if (!candidate) fail(`discover_agents never found ${agent}`);
summary.discovered = { agent_id: candidate.agent_id, score: candidate.score, tools: candidate.tools.map((t) => t.name) };

// The SDK hands a progress notification to onprogress a microtask after
// reading it and drops it when the result was in the same read, so the
// notifications are also counted as the transport delivers them.
const progress = [];
const wire = [];
const deliver = transport.onmessage;
transport.onmessage = (msg, extra) => {
  if (msg.method === "notifications/progress") wire.push(msg.params);
  deliver(msg, extra);
};
const res = await client.callTool(
  { name: "invoke_agent", arguments: { agent, tool: "reverse", arguments: { text: "find agents" } } },
  undefined,
  { onprogress: (p) => progress.push(p) },
);
if (res.isError) fail(`invoke_agent: ${JSON.stringify(res.content)}`);
summary.chunks = res.structuredContent.chunks;
summary.progress = progress.map((p) => ({ progress: p.progress, message: p.message }));
summary.wire_progress = wire.map((p) => ({ token: p.progressToken, progress: p.progress, message: p.message }));

const bad = await client.callTool({ name: "invoke_agent", arguments: { agent } });
summary.bad_argument = { isError: bad.isError === true, text: bad.content.map((c) => c.text).join("") };

await client.close();
console.log(JSON.stringify(summary));
