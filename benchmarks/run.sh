#!/usr/bin/env bash
# Compares infergate with github.com/openai/openai-go and github.com/sashabaranov/go-openai on the
# same workloads, in one run, and prints one markdown table per Go toolchain (stdout) ready for the
# README; progress goes to stderr. Works from a clean clone: modules and the newer toolchain come
# through the Go module proxy.
#
#   benchmarks/run.sh                          # about 12 minutes on 2 cores
#   ROUNDS=3 benchmarks/run.sh                 # fewer rounds, quicker, noisier
#   TOOLCHAINS=local benchmarks/run.sh         # the installed Go only
#   KEEP=dir benchmarks/run.sh                 # keep the raw benchmark output and binaries in dir
#   CHARTS=docs benchmarks/run.sh              # also draw each toolchain's times as an SVG bar chart,
#                                              # docs/performance-<go version>.svg
#
# The rounds interleave the contenders and the toolchains, so that a noisy neighbour slows them all
# alike, and each table shows each figure's median over the rounds. The time to first delta is
# measured with the contenders in a new random order for every sample.
set -euo pipefail
charts=${CHARTS:+$(mkdir -p "$CHARTS" && cd "$CHARTS" && pwd)}
cd "$(dirname "$0")"

rounds=${ROUNDS:-5}
toolchains=${TOOLCHAINS:-local go1.27.4}
work=${KEEP:-$(mktemp -d)}
mkdir -p "$work"
[ -z "${KEEP:-}" ] && trap 'rm -rf "$work"' EXIT
log() { echo "run.sh: $*" >&2; }

log "$(nproc) cores; toolchains: $toolchains; work in $work"
go mod download
for tc in $toolchains; do
  log "building with $(GOTOOLCHAIN=$tc go version)"
  GOTOOLCHAIN=$tc go test -c -o "$work/bench-$tc.test" .
  : >"$work/bench-$tc.txt"
done
run() {
  local tc=$1
  shift
  "$work/bench-$tc.test" -test.run '^$' -test.benchmem "$@" >>"$work/bench-$tc.txt"
}

for round in $(seq "$rounds"); do
  for tc in $toolchains; do
    log "round $round of $rounds, $tc: streams, completion, catalogue, encoding, first delta"
    run "$tc" -test.bench '^Benchmark(TextStream|ToolStream|ToolStreamPlaceholder|Completion|ToolCompletion|Models|Encode)$' -test.benchtime 1s
    run "$tc" -test.bench '^BenchmarkFirstDelta$' -test.benchtime 100x
    log "round $round of $rounds, $tc: typed answers against their plain calls"
    run "$tc" -test.bench '^BenchmarkObject$' -test.benchtime 1s
  done
done
for tc in $toolchains; do
  log "uploads of 200 MiB, $tc"
  run "$tc" -test.bench '^BenchmarkUpload$' -test.benchtime 3x -test.count 2
done

for tc in $toolchains; do
  log "footprint of a minimal streaming program, $tc"
  sizes="$work/sizes-$tc.txt"
  : >"$sizes"
  for dir in footprint/*/; do
    name=$(basename "$dir")
    GOTOOLCHAIN=$tc go build -trimpath -ldflags="-s -w" -o "$work/footprint-$name-$tc" "./$dir"
    echo "$name $(wc -c <"$work/footprint-$name-$tc")" >>"$sizes"
  done
done

for tc in $toolchains; do
  version=$(GOTOOLCHAIN=$tc go version | cut -d' ' -f3-)
  echo "### $version"
  echo
  chart=()
  if [ -n "$charts" ]; then
    chart=(-svg "$charts/performance-${version%% *}.svg" -title "Time per operation, $version, $(nproc) cores (shorter is better)")
    log "chart: $charts/performance-${version%% *}.svg"
  fi
  go run ./cmd/benchtable -bench "$work/bench-$tc.txt" -sizes "$work/sizes-$tc.txt" ${chart[@]+"${chart[@]}"}
  echo
  echo "_${version}, $(nproc) cores; median of $rounds rounds; ratio = infergate ÷ the other, below 1× is better for infergate._"
  echo
done
