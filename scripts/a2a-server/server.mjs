// An A2A 1.0 agent built on the A2A JavaScript SDK's server side
// (@a2a-js/sdk: DefaultRequestHandler, InMemoryTaskStore, the Express
// JSON-RPC handler). It serves one tool, "upper", which upper-cases the
// "text" argument; "fail" ends its task failed. A call names the tool in
// a data part {"tool": ..., "arguments": {...}} or by the skill id in the
// message metadata (skillId), as adpnode's A2A client sends it. The SDK's
// v0.3 compatibility layer is on, so 0.3 clients (message/send) are
// served too. The same agent answers the HTTP+JSON (REST) binding under
// /rest.
//
// Usage: node server.mjs   (listens on 127.0.0.1, a free port)
// It prints one line "A2A_SERVER_URL=<JSON-RPC endpoint URL>" once it
// listens, and runs until its standard input closes or it is killed.
import express from 'express';
import { randomUUID } from 'node:crypto';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import { Role, TaskState } from '@a2a-js/sdk';

const textPart = (text) => ({ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' });

function agentMessage(ctx, text) {
  return {
    messageId: randomUUID(), contextId: ctx.contextId, taskId: ctx.taskId, role: Role.ROLE_AGENT,
    parts: [textPart(text)], metadata: undefined, extensions: [], referenceTaskIds: [],
  };
}

function status(ctx, state, message) {
  return AgentEvent.statusUpdate({
    taskId: ctx.taskId, contextId: ctx.contextId, metadata: undefined,
    status: { state, message, timestamp: new Date().toISOString() },
  });
}

// call reads the tool and its arguments from the user message.
function call(message) {
  for (const p of message.parts ?? []) {
    if (p.content?.$case === 'data' && typeof p.content.value?.tool === 'string') {
      return { tool: p.content.value.tool, args: p.content.value.arguments ?? {} };
    }
  }
  return { tool: message.metadata?.skillId, args: {} };
}

const executor = {
  async execute(ctx, bus) {
    const { tool, args } = call(ctx.userMessage);
    bus.publish(AgentEvent.task({
      id: ctx.taskId, contextId: ctx.contextId, metadata: undefined, artifacts: [],
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
      history: [ctx.userMessage],
    }));
    bus.publish(status(ctx, TaskState.TASK_STATE_WORKING, undefined));
    if (tool !== 'upper') {
      bus.publish(status(ctx, TaskState.TASK_STATE_FAILED, agentMessage(ctx, `unknown tool ${tool}`)));
      bus.finished();
      return;
    }
    const words = String(args.text ?? '').split(' ');
    // One artifact update per word, so that a streamed call sees chunks.
    words.forEach((w, i) => bus.publish(AgentEvent.artifactUpdate({
      taskId: ctx.taskId, contextId: ctx.contextId, metadata: undefined, append: i > 0, lastChunk: i === words.length - 1,
      artifact: { artifactId: 'result', name: 'result', description: '', parts: [textPart(w.toUpperCase())], metadata: undefined, extensions: [] },
    })));
    bus.publish(status(ctx, TaskState.TASK_STATE_COMPLETED, undefined));
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    bus.finished();
  },
};

const app = express();
const server = app.listen(0, '127.0.0.1', () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  const card = {
    name: 'Upper', description: 'Upper-cases text', version: '1.0.0',
    supportedInterfaces: [
      { url: `${base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
      { url: `${base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' },
      { url: `${base}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: '' },
    ],
    provider: undefined, capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {}, securityRequirements: [], defaultInputModes: ['application/json'], defaultOutputModes: ['text/plain'],
    skills: [{ id: 'upper', name: 'upper', description: 'Upper-cases the text argument', tags: ['text'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a', express.json(), jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  app.use('/rest', express.json(), restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  process.stdout.write(`A2A_SERVER_URL=${base}/a2a\n`);
});
process.stdin.on('end', () => server.close(() => process.exit(0)));
process.stdin.resume();
