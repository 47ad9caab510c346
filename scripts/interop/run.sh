#!/usr/bin/env bash
# Interop check of Agent Card signing against an independent JCS + Ed25519
# implementation (Node.js >= 18, npm). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
node interop.mjs verify
node interop.mjs sign --check
