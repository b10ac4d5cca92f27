#!/usr/bin/env bash
# Installs redis-server (and redis-cli) from Debian when missing; the Redis tests start their own.
set -euo pipefail

if command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1; then
  exit 0
fi

sudo=''
if [ "$(id -u)" -ne 0 ]; then sudo='sudo'; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends redis-server >/dev/null
# Debian's package starts a system service on 6379; the tests never use it, and it is left as is.
command -v redis-server >/dev/null
