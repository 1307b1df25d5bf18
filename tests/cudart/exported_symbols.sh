#!/usr/bin/env bash
# Every entry point NVIDIA's libcudart.so.13 exports must exist in gpuarch's (implemented, or a stub that stops the
# program naming itself), under the same version node, so that any program built with -cudart shared loads.
# usage: exported_symbols.sh GPUARCH_LIBCUDART NVIDIA_LIBCUDART
set -euo pipefail
ours=$1 theirs=$2
if [ ! -e "$theirs" ]; then echo "skipped: no NVIDIA runtime at $theirs to compare with"; exit 77; fi
symbols() { nm -D --defined-only "$1" | awk '$2 ~ /^[TW]$/ {print $3}' | sed 's/@.*//' | sort -u; }
missing=$(comm -23 <(symbols "$theirs") <(symbols "$ours"))
if [ -n "$missing" ]; then echo "missing from $ours:"; echo "$missing"; exit 1; fi
soname=$(readelf -d "$ours" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libcudart.so.13" ] || { echo "soname is '$soname'"; exit 1; }
extra=$(symbols "$ours" | grep -v '^cuda\|^__cuda' || true)
unversioned=$(nm -D --defined-only "$ours" | awk '$2 ~ /^[TW]$/ {print $3}' | grep -v '@@libcudart.so.13$' || true)
[ -z "$unversioned" ] || { echo "exported without the libcudart.so.13 version node:"; echo "$unversioned"; exit 1; }
[ -z "$extra" ] || { echo "exports beyond the runtime's entry points:"; echo "$extra"; exit 1; }
echo "all $(symbols "$theirs" | wc -l) entry points of $theirs are exported, soname libcudart.so.13"
