#!/usr/bin/env bash
# Build better-sqlite3 for Electron's ABI into native/electron/, with @electron/rebuild (it comes
# with electron-builder), on a copy: the Node build in node_modules stays as it is, so tests and
# the CLI keep working. main loads native/electron/better_sqlite3.node (packaged:
# resources/native/) through better-sqlite3's nativeBinding option. Needs Electron's headers
# (or a prebuilt binary) from the internet.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(node -p "require('electron/package.json').version")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/app/node_modules"
cp -r node_modules/better-sqlite3 "$work/app/node_modules/"
rm -rf "$work/app/node_modules/better-sqlite3/build"
printf '{"name":"tagsmith-electron-sqlite","version":"1.0.0","private":true,"dependencies":{"better-sqlite3":"*"}}\n' > "$work/app/package.json"
npx --no-install electron-rebuild --version "$version" --module-dir "$work/app" --only better-sqlite3 --force
built="$work/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node"
# @electron/rebuild has been seen to report success and leave nothing: check.
test -s "$built" || { echo "build-electron-sqlite: no $built was made" >&2; exit 1; }
mkdir -p native/electron
cp "$built" native/electron/
echo "native/electron/better_sqlite3.node built for Electron $version"
