#!/usr/bin/env bash
# screenshots.sh SRC DST: copies the screenshots that DST/LIST names (one
# page name per line, # comments) from SRC, where the browser tests wrote
# them (internal/browser: <name>-<width>.png), into DST at both widths, and
# removes the PNGs in DST that LIST no longer names. `make screenshots` runs
# it; DST (docs/screenshots) is committed for the README.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
[ $# -eq 2 ] || die "usage: screenshots.sh SRC DST"
src=$1 dst=$2
[ -f "$dst/LIST" ] || die "$dst/LIST not found"

widths=(360 1280)
wanted=()
while IFS= read -r line || [ -n "$line" ]; do
	name=${line%%#*}
	name=${name//[[:space:]]/}
	[ -n "$name" ] || continue
	[[ $name =~ ^[A-Za-z0-9._-]+$ ]] || die "$dst/LIST: bad name '$name'"
	for w in "${widths[@]}"; do
		wanted+=("$name-$w.png")
	done
done <"$dst/LIST"

missing=()
for f in "${wanted[@]}"; do
	[ -f "$src/$f" ] || missing+=("$f")
done
[ ${#missing[@]} -eq 0 ] || die "no screenshot in $src for: ${missing[*]} (does a browser test take it?)"

for f in "${wanted[@]}"; do
	cp "$src/$f" "$dst/$f"
done
shopt -s nullglob
for f in "$dst"/*.png; do
	case " ${wanted[*]} " in *" ${f##*/} "*) ;; *) rm -- "$f" && log "removed $f (not in LIST)" ;; esac
done
log "copied ${#wanted[@]} screenshots into $dst"
