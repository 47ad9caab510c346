#!/usr/bin/env bash
# Installs the official MCP TypeScript SDK (pinned in package-lock.json) for
# the interop test TestMCPTypeScriptClient in cmd/adpnode, which runs
# client.mjs against `adpnode mcp`. Node.js >= 18 and npm.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
