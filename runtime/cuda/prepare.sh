#!/usr/bin/env bash
# Compiles every configuration of variants.tsv at every size (1 KiB to 1 GiB in powers of 4) for
# a CUDA target into OUT/programs/EXAMPLE/VARIANT/SIZE/, and copies the runner's sources and
# run-on-device.sh beside them: OUT is everything a GPU machine needs (it has no Node).
#   runtime/cuda/prepare.sh [OUT] [TARGET] [TABLE]   (defaults: .dev, h100, variants.tsv; from the repo root)
# TARGET may be a target file (a 2-GPU h200 for variants-peer.tsv). SIZES (env) overrides the sizes.
# A table's optional fourth column says how a size becomes a define: `total` (the default) or
# NAME/N (-D NAME=SIZE/N B, e.g. chunk/2 for a 2-rank all-gather whose buffer is SIZE bytes).
# A table's first column names an example (examples/NAME.dmac) or, ending in .dmac, a schedule file
# (relative to the repo root). APPEND=1 (env) adds to OUT's program list instead of starting it anew.
set -euo pipefail
out=${1:-.dev}
target=${2:-h100}
table=${3:-$(dirname "$0")/variants.tsv}
here=$(dirname "$0")
dmac="node bin/dmac.js"
sizes=${SIZES:-"1024 4096 16384 65536 262144 1048576 4194304 16777216 67108864 268435456 1073741824"}
mkdir -p "$out/programs" "$out/runtime"
cp "$here/runner.cu" "$here/byte-check.cuh" "$here/byte-check.h" "$here/pattern.h" "$here/sha256.h" "$here/dmac_runtime.h" "$here/dmac_runtime.cu" "$here/program.h" "$here/program.cc" "$here/Makefile" "$here/run-on-device.sh" "$here/results.py" \
  "$here/sm-check.sh" "$table" "$out/runtime/"
list="$out/programs/list.tsv"
[ "${APPEND:-}" = 1 ] || : >"$list"
grep -v '^#' "$table" | while IFS=$'\t' read -r example variant opts sizedef; do
  name=${sizedef:-total}
  div=1
  if [ "${name#*/}" != "$name" ]; then div=${name#*/} name=${name%%/*}; fi
  file="examples/$example.dmac"
  case $example in *.dmac) file=$example example=$(basename "$example" .dmac) ;; esac
  for size in $sizes; do
    dir="$out/programs/$example/$variant/$size"
    rm -rf "$dir"
    # shellcheck disable=SC2086 # opts is a list of options
    $dmac compile "$file" --target "$target" $opts -D "$name=$((size / div))B" -o "$dir" >/dev/null
    printf '%s\t%s\t%s\t%s\n' "$example" "$variant" "$size" "$example/$variant/$size" >>"$list"
  done
done
echo "prepared $(wc -l <"$list") programs in $out/programs"
