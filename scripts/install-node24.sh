#!/usr/bin/env bash
# Node 24 (the current LTS) for `npm run test:node24`; prints the directory holding its `node`.
set -euo pipefail
exec bash "$(dirname "$0")/install-node.sh" 24
