#!/usr/bin/env bash
# What `npm install` needs to build lmdb's addon with LMDB's fix (scripts/build-lmdb.mjs, run as
# postinstall): a C/C++ compiler, make, Python 3 (node-gyp) and this Node's headers. Installs the
# missing ones from Debian; idempotent.
set -euo pipefail

missing=()
command -v g++ >/dev/null || missing+=(g++)
command -v make >/dev/null || missing+=(make)
command -v python3 >/dev/null || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
  apt-get install -y --no-install-recommends "${missing[@]}" >&2
fi
headers="$(dirname "$(dirname "$(command -v node)")")/include/node/node_api.h"
if [ ! -e "$headers" ]; then
  echo "install-build-tools: $headers is missing: node-gyp would download the headers" >&2
  exit 1
fi
