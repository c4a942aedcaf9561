#!/usr/bin/env bash
# Installs the npm tools the tests use beyond axe-core, at the versions
# pinned here, into .deps/npm (git-ignored): the TypeScript compiler and
# Node's types for sdk/node, and Redocly CLI, which lints the OpenAPI
# documents. Says nothing when every pinned version is there. Tests find
# them under .deps/npm/node_modules (GATEWAY_SDK_NPM for the SDK runners).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tools=(
	typescript@5.9.3
	@types/node@20.9.5
	@redocly/cli@2.77.0
)
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/.deps/npm"
have() {
	local name=${1%@*} version=${1##*@}
	grep -q "\"version\": \"$version\"" "$dir/node_modules/$name/package.json" 2>/dev/null
}
want=()
for t in "${tools[@]}"; do have "$t" || want+=("$t"); done
[ ${#want[@]} -eq 0 ] && exit 0
command -v npm >/dev/null 2>&1 || die "npm is needed to install ${want[*]} (Debian: apt-get install npm)"
mkdir -p "$dir"
log "installing ${want[*]} into .deps/npm"
npm install --silent --no-audit --no-fund --prefix "$dir" "${tools[@]}" >/dev/null ||
	die "could not install ${tools[*]}"
