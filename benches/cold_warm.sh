#!/bin/bash
# Cold and warm start of the showcase, side by side: each round empties f3d's shader cache,
# runs the showcase (cold: every shader compiled and written), then runs it again (warm:
# every compiled form read back). Prints the medians and each round, then the last pair's
# `shader cache:` lines.
#
#   cargo build --release -p f3d_examples --example showcase
#   benches/cold_warm.sh BACKEND SIZE ROUNDS [mesa-off]
#
# `mesa-off` also turns off Mesa's own shader cache (MESA_SHADER_CACHE_DISABLE), so lavapipe
# compiles with LLVM in every run. SHOWCASE overrides the binary (default: the release build
# under CARGO_TARGET_DIR, else target/).
set -eu
backend=$1 size=$2 rounds=$3 mesa=${4:-}
bin=${SHOWCASE:-${CARGO_TARGET_DIR:-target}/release/examples/showcase}
[ "$mesa" = mesa-off ] && export MESA_SHADER_CACHE_DISABLE=true
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ms() { local s e; s=$(date +%s%N); F3D_CACHE_DIR=$dir/cache "$bin" --backend "$backend" --size "$size" --out "$dir/frame.png" > "$dir/$1.txt" 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
cold=() warm=()
for _ in $(seq "$rounds"); do
  rm -rf "$dir/cache"
  cold+=("$(ms cold)")
  warm+=("$(ms warm)")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
echo "$backend $size ${mesa:-} cold median $(median "${cold[@]}") ms, warm median $(median "${warm[@]}") ms (cold: ${cold[*]}; warm: ${warm[*]})"
grep -h "shader cache" "$dir/cold.txt" "$dir/warm.txt"
