#!/usr/bin/env bash
# Compile time and memory against the count of layers: examples/tinylm with
# L = 2, 8 and 32 transformer blocks, as a stack (`blocks: [L] Block`, one
# scan whose body compiles once) and written out (L members, the loop
# unrolled), each built ahead of time (`shapescript build`: check, lower,
# differentiate, plan and JIT-compile every graph) in a fresh process with
# an empty code cache. The peer is the program written out, measured in the
# same run: stacked over flat (lower is better for the stack).
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -x build/default/bin/shapescript ]] || scripts/build default >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"${PYTHON:-python3}" bench/scan_programs.py "$work" 2 8 32
measure() {  # best of three: seconds and peak KB
  local best=""
  for _ in 1 2 3; do
    HOME="$work/home" /usr/bin/time -f "%e %M" -o "$work/t" \
      build/default/bin/shapescript build "$work/$1.ss" -o "$work/$1.so" >/dev/null 2>&1
    rm -rf "$work/home"
    read -r s kb <"$work/t"
    if [[ -z $best ]] || awk "BEGIN { exit !($s < ${best% *}) }"; then best="$s $kb"; fi
  done
  echo "$best"
}
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p')"
printf '%-4s %12s %12s %9s %12s %12s\n' "L" "stacked (s)" "flat (s)" "st/flat" "stacked MB" "flat MB"
for layers in 2 8 32; do
  read -r s1 k1 < <(measure "stacked_$layers")
  read -r s2 k2 < <(measure "flat_$layers")
  printf '%-4s %12s %12s %9s %12s %12s\n' "$layers" "$s1" "$s2" \
    "$(awk "BEGIN { printf \"%.2f\", $s1 / $s2 }")" "$((k1 / 1024))" "$((k2 / 1024))"
done
