// Drives `adpnode mcp` with the official MCP TypeScript SDK client to reach
// the MCP reference server (server-everything) run behind another node:
// discovers it by skill tag, calls its echo tool, then its long-running
// operation with a progress token. Prints one JSON summary line; exits 1
// on any failure.
//
// usage: node everything.mjs '<server command JSON: {"command", "args", "env"}>' <tag> <agent id> <echo message>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

function fail(msg) {
  console.error(`mcp-interop: ${msg}`);
  process.exit(1);
}

const [spec, tag, agent, message] = process.argv.slice(2);
if (!spec || !tag || !agent || !message) fail("usage: node everything.mjs '<server JSON>' <tag> <agent id> <echo message>");
const server = JSON.parse(spec);

const transport = new StdioClientTransport({
  command: server.command,
  args: server.args,
  env: { ...process.env, ...(server.env || {}) },
  stderr: "inherit",
});
const client = new Client({ name: "adpnode-ts-interop", version: "1.0.0" });
await client.connect(transport);
const summary = { server: client.getServerVersion() };

const found = await client.callTool({ name: "discover_agents", arguments: { tags: [tag], scope: "local" } });
if (found.isError) fail(`discover_agents: ${JSON.stringify(found.content)}`);
const candidate = found.structuredContent.candidates.find((c) => c.agent_id === agent);
if (!candidate) fail(`discover_agents did not find ${agent}: ${JSON.stringify(found.structuredContent)}`);
summary.discovered = { agent_id: candidate.agent_id, tools: candidate.tools.map((t) => t.name) };

const text = (result) => (result?.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");

const echo = await client.callTool({ name: "invoke_agent", arguments: { agent, tool: "echo", arguments: { message } } });
if (echo.isError) fail(`invoke_agent echo: ${JSON.stringify(echo.content)}`);
summary.echo = text(echo.structuredContent.result);

// Progress notifications are counted as the transport delivers them (the
// SDK's onprogress callback may miss those read together with the result).
const progress = [];
const wire = [];
const deliver = transport.onmessage;
transport.onmessage = (msg, extra) => {
  if (msg.method === "notifications/progress") wire.push(msg.params);
  deliver(msg, extra);
};
const long = await client.callTool(
  { name: "invoke_agent", arguments: { agent, tool: "trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } } },
  undefined,
  { onprogress: (p) => progress.push(p) },
);
if (long.isError) fail(`invoke_agent trigger-long-running-operation: ${JSON.stringify(long.content)}`);
summary.long_running = {
  chunks: long.structuredContent.chunks.length,
  result: text(long.structuredContent.result),
  progress: progress.length,
  wire_progress: wire.map((p) => ({ token: p.progressToken, progress: p.progress, message: p.message })),
};

await client.close();
console.log(JSON.stringify(summary));
