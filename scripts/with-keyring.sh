#!/usr/bin/env bash
# Run a command with a real Secret Service: gnome-keyring in a private D-Bus session, with a
# throwaway keyring directory so the unlock password is always the one given here.
# Usage: scripts/with-keyring.sh npx vitest run tests/integration/credentials.test.ts
set -euo pipefail
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
XDG_DATA_HOME=$T dbus-run-session -- bash -c 'echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; "$@"' _ "$@"
