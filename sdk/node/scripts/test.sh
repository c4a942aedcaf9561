#!/bin/sh
# Compiles the SDK and its tests with the pinned TypeScript (strict) into
# dist/, then runs the compiled tests with node:test. The pinned tools come
# from GATEWAY_SDK_NPM (make test-sdk sets it), else the repository's
# .deps/npm/node_modules (scripts/npm-tools.sh); nothing is installed here.
set -eu
cd "$(dirname "$0")/.."
npm_dir=${GATEWAY_SDK_NPM:-$(cd ../.. && pwd)/.deps/npm/node_modules}
if [ ! -x "$npm_dir/.bin/tsc" ]; then
	echo "no pinned tsc in $npm_dir (run scripts/npm-tools.sh)" >&2
	exit 1
fi
# tsc finds @types/node through node_modules: link the pinned tools in
# unless a developer installed their own.
if [ ! -e node_modules ] || [ -L node_modules ]; then
	ln -sfn "$npm_dir" node_modules
fi
rm -rf dist
"$npm_dir/.bin/tsc" -p tsconfig.json
node --test dist/test/*.test.js
