#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets (Sources/GeoQueryFuzz, with AddressSanitizer) and
# runs each for FUZZ_SECONDS (default 600) from seed corpora (scripts/fuzz_seeds.py). A crash,
# a sanitizer report or a hang (over 10 s for one input) is kept as a regression input under
# Tests/Regressions/fuzz/<target>/, which `make test` replays. Prints executions and findings.
# FUZZ_TARGETS picks targets (space-separated; default all).
set -uo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-600}"
work=.build/fuzz
mkdir -p "$work"
echo "building the fuzz targets (-sanitize=fuzzer,address) …"
GEOQUERY_FUZZ=1 swift build -c release --scratch-path .build-fuzz --product geoquery-fuzz \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing -Xswiftc -parse-as-library 2>&1 \
  | grep -v "Cannot export local symbol" | tail -3
binary=.build-fuzz/release/geoquery-fuzz
[ -x "$binary" ] || { echo "the fuzz build failed"; exit 1; }
rm -rf "$work/seeds" && python3 scripts/fuzz_seeds.py "$work/seeds"
targets="${FUZZ_TARGETS:-$(ls "$work/seeds")}"
printf '%-16s %12s %10s %9s\n' target executions exec/s findings > "$work/summary.txt"
for target in $targets; do
  corpus="$work/corpus/$target" findings="Tests/Regressions/fuzz/$target"
  mkdir -p "$corpus" "$findings"
  before=$(ls "$findings" | wc -l)
  echo "fuzzing $target for ${seconds} s …"
  FUZZ_TARGET="$target" FUZZ_SCRATCH="$work" SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 \
    "$binary" "$corpus" "$work/seeds/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
    -max_len=65536 -artifact_prefix="$findings/" -print_final_stats=1 -fork=0 > "$work/$target.log" 2>&1
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$target.log" | grep -o '[0-9]*$' | tail -1)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$work/$target.log" | grep -o '[0-9]*$' | tail -1)
  after=$(ls "$findings" | wc -l)
  printf '%-16s %12s %10s %9s\n' "$target" "${runs:-?}" "${rate:-?}" "$((after - before))" >> "$work/summary.txt"
  rmdir "$findings" 2>/dev/null || true
done
echo
cat "$work/summary.txt"
echo "(logs in $work/<target>.log; findings under Tests/Regressions/fuzz/<target>/)"
