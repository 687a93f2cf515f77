#!/usr/bin/env bash
# Build better-sqlite3 for Electron's ABI into native/electron/, leaving the Node build in
# node_modules untouched (tests and the CLI keep using it). Needs Electron's headers, so it
# needs the internet.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(node -p "require('electron/package.json').version")
work=$(mktemp -d)
cp -r node_modules/better-sqlite3 "$work/"
(cd "$work/better-sqlite3" && npx --yes node-gyp rebuild --release --runtime=electron --target="$version" --dist-url=https://electronjs.org/headers)
mkdir -p native/electron
cp "$work/better-sqlite3/build/Release/better_sqlite3.node" native/electron/
rm -rf "$work"
echo "native/electron/better_sqlite3.node built for Electron $version"
