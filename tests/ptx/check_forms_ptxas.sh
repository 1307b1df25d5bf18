#!/usr/bin/env bash
# Has ptxas accept every opcode form tests/ptx/coverage_test.cpp claims: test_ptx writes them, as one sm_80 kernel,
# to a scratch file (GPUARCH_WRITE_FORMS), and ptxas -arch=sm_80 must compile it. Exit 77 (skipped) without ptxas.
# usage: check_forms_ptxas.sh TEST_PTX_BINARY
set -euo pipefail
test_ptx="$1"
ptxas="${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}"
if [ ! -x "$ptxas" ]; then
    echo "check_forms_ptxas: no ptxas; skipped" >&2
    exit 77
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
GPUARCH_WRITE_FORMS="$scratch/forms.ptx" "$test_ptx" -tc='every claimed opcode form*' > "$scratch/log" 2>&1 || {
    cat "$scratch/log" >&2
    exit 1
}
"$ptxas" -arch=sm_80 "$scratch/forms.ptx" -o "$scratch/forms.cubin"
echo "check_forms_ptxas: ptxas accepted $(grep -c ';' "$scratch/forms.ptx") statements"
