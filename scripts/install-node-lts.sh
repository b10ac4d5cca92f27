#!/usr/bin/env bash
# Node 26 (the active LTS line) for `npm run test:lts`; prints the directory holding its `node`.
set -euo pipefail
exec bash "$(dirname "$0")/install-node.sh" 26
