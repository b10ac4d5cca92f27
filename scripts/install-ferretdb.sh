#!/usr/bin/env bash
# Installs FerretDB v1 (a MongoDB wire-protocol server, SQLite backend) for the MongoDB tests.
# Skips when a working mongod or ferretdb is already there; safe to run again.
#
# Why not `go install ...@v1.24.2`: its deprecation check asks the module proxy for the version
# list, which answers 403 here. Why build from a copy: the module zip lacks the generated
# build/version/version.txt, and a binary built straight from the module cache panics at start-up.
set -euo pipefail

VERSION=v1.24.2
MODULE=github.com/FerretDB/FerretDB
export DO_NOT_TRACK=1

if ! command -v go >/dev/null 2>&1; then
  if command -v mongod >/dev/null 2>&1 || command -v ferretdb >/dev/null 2>&1; then exit 0; fi
  echo "install-ferretdb: Go is not installed; install Go or put mongod on the PATH" >&2
  exit 1
fi
BIN_DIR="$(go env GOPATH)/bin"

works() { [ -x "$1" ] && "$1" --version >/dev/null 2>&1; }

for candidate in "$(command -v mongod || true)" "$BIN_DIR/mongod"; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then
    echo "install-ferretdb: mongod found at $candidate; nothing to do"
    exit 0
  fi
done
for candidate in "$(command -v ferretdb || true)" "$BIN_DIR/ferretdb"; do
  if [ -n "$candidate" ] && works "$candidate"; then
    echo "install-ferretdb: ferretdb found at $candidate; nothing to do"
    exit 0
  fi
done

work="$(mktemp -d)"
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

cd "$work"
go mod init ferretbuild >/dev/null 2>&1
go get "$MODULE/cmd/ferretdb@$VERSION"
cp -R "$(go list -m -f '{{.Dir}}' "$MODULE")" "$work/src"
chmod -R u+w "$work/src"
echo "$VERSION" >"$work/src/build/version/version.txt"

cd "$work/src"
mkdir -p "$BIN_DIR"
go build -buildvcs=false -o "$BIN_DIR/ferretdb.tmp" ./cmd/ferretdb
mv -f "$BIN_DIR/ferretdb.tmp" "$BIN_DIR/ferretdb"
"$BIN_DIR/ferretdb" --version >/dev/null
echo "install-ferretdb: installed $BIN_DIR/ferretdb ($VERSION)"
