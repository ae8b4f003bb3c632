#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The file -> file call edges inside one folder of a build (nm: an undefined
# symbol of a.o that b.o defines), then the #include "..." lines of its
# sources other than the folder's own header (xch_<folder>.h), for the
# record (#34: host/device/ before and after; scripts/check-layers --cycles
# names the circles).
# usage: tests/scripts/file-edges.sh BUILD FOLDER   e.g. ... build host/device
B=$1; F=$2; T=$(mktemp); trap 'rm -f "$T"' EXIT
for o in "$B"/obj/"$F"/*.o; do
  nm --defined-only -g "$o" | awk -v f="$(basename "$o" .o)" '{print $NF, f}'
done | sort > "$T"
for o in "$B"/obj/"$F"/*.o; do
  nm -u "$o" | awk -v f="$(basename "$o" .o)" '{print $NF, f}'
done | sort | join - "$T" | awk '$2 != $3 {print "call", $2".c ->", $3".c :", $1}' |
  sort -k2,4 | awk '{k=$2" "$3" "$4; if (k!=p) {if (p!="") print l; l="call "k" "$6; p=k} else l=l","$6} END {if (p!="") print l}'
grep -Ho '^#include "[^"]*"' "$F"/*.c "$F"/*.h 2>/dev/null | sed 's|.*/\([^/:]*\):#include "\(.*\)"|include \1 -> \2|' | grep -v "xch_$(basename "$F").h\$" | grep -E -- '-> [a-z_]+\.[ch]$' || true
