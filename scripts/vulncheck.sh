#!/usr/bin/env bash
# vulncheck.sh [PACKAGES...]: fails when our code (default ./...) reaches a
# known vulnerability of a module we use or of the Go standard library of the
# toolchain in use. govulncheck scans offline against a database built from a
# pinned golang.org/x/vulndb, so the result changes only when we bump a
# version below, never because the live database moved under a commit.
# Vulnerabilities in packages we import or modules we require whose code ours
# never calls are listed (with -show verbose) but do not fail the check.
#
# Everything lands in .deps/ (git-ignored) and is reused: govulncheck in
# .deps/govulncheck-VERSION-GOVERSION/, the database in .deps/vulndb-VERSION/.
# Only the Go module proxy is needed (the vulndb module carries the OSV
# reports in data/osv; cmd/indexdb turns them into govulncheck's layout).
set -euo pipefail
scripts=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$scripts/lib.sh"
cd "$scripts/.."
root=$(pwd)
GO=${GO:-go}

# To bump: govulncheck_version to a newer golang.org/x/vuln release
# (`go list -m -versions golang.org/x/vuln`); vulndb_version to the newest
# golang.org/x/vulndb, which has no tags (`go list -m golang.org/x/vulndb@latest`
# prints its newest pseudo-version). Then `make vulncheck`, and fix what it
# reports in the same commit.
govulncheck_version=v1.9.0
vulndb_version=v0.0.0-20261105234957-e22db6528018

# govulncheck type-checks the standard library of the toolchain that scans,
# so it is built by that same toolchain (an older go/types refuses newer
# sources): the one the go command picks here (GOTOOLCHAIN, else go.mod).
gover=$("$GO" env GOVERSION)
bindir="$root/.deps/govulncheck-$govulncheck_version-$gover"
govulncheck="$bindir/govulncheck"
if [ ! -x "$govulncheck" ]; then
	log "installing govulncheck@$govulncheck_version ($gover) into ${bindir#"$root/"}"
	GOBIN="$bindir" GOTOOLCHAIN="$gover" "$GO" install "golang.org/x/vuln/cmd/govulncheck@$govulncheck_version" ||
		die "could not install govulncheck@$govulncheck_version"
fi

db="$root/.deps/vulndb-$vulndb_version"
if [ ! -f "$db/index/db.json" ]; then
	log "building the vulnerability database of golang.org/x/vulndb@$vulndb_version into ${db#"$root/"}"
	src=$("$GO" mod download -json "golang.org/x/vulndb@$vulndb_version" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
	[ -n "$src" ] || die "go mod download gave no directory for golang.org/x/vulndb@$vulndb_version"
	compgen -G "$src/data/osv/GO-*.json" >/dev/null ||
		die "golang.org/x/vulndb@$vulndb_version has no OSV reports in data/osv"
	# Built aside and renamed into place, so an interrupted build is never
	# taken for a database.
	mkdir -p "$root/.deps"
	tmp=$(mktemp -d "$root/.deps/vulndb-tmp.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	"$GO" run "golang.org/x/vulndb/cmd/indexdb@$vulndb_version" -vulns "$src/data/osv" -out "$tmp/db" ||
		die "cmd/indexdb of golang.org/x/vulndb@$vulndb_version failed"
	rm -rf "$db"
	mv "$tmp/db" "$db"
fi

[ $# -gt 0 ] || set -- ./...
log "govulncheck@$govulncheck_version, $gover, golang.org/x/vulndb@$vulndb_version: $*"
rc=0
"$govulncheck" -db "file://$db" "$@" || rc=$?
case $rc in
0) ;;
3) die "our code reaches the vulnerabilities above: upgrade the module (go get MODULE@FIXED) or the toolchain (GOTOOLCHAIN in Makefile, .ci/run, go.mod's toolchain line, Dockerfile)" ;;
*) die "govulncheck failed (exit $rc)" ;;
esac
