#!/usr/bin/env bash
# Installs axe-core, the accessibility checker the browser tests inject into
# every payer page (internal/browser.CheckA11y), from the npm registry into
# .deps/axe (git-ignored), at the version pinned here. Says nothing when that
# version is there already. The tests find it through AXE_CORE_JS, else at
# .deps/axe/node_modules/axe-core/axe.min.js under the repository's root.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

version=4.10.3
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/.deps/axe"
pkg="$dir/node_modules/axe-core/package.json"
if [ -f "$pkg" ] && grep -q "\"version\": \"$version\"" "$pkg"; then
	exit 0
fi
command -v npm >/dev/null 2>&1 || die "npm is needed to install axe-core (Debian: apt-get install npm)"
mkdir -p "$dir"
log "installing axe-core@$version into .deps/axe"
npm install --silent --no-audit --no-fund --prefix "$dir" "axe-core@$version" >/dev/null ||
	die "could not install axe-core@$version"
