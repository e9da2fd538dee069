#!/usr/bin/env bash
# Compares infergate with github.com/openai/openai-go and github.com/sashabaranov/go-openai on the
# same workloads, in one run, and prints one markdown table (stdout) ready for the README; progress
# goes to stderr. Works from a clean clone: modules come through the Go module proxy.
#
#   benchmarks/run.sh                 # about 6 minutes on 2 cores
#   ROUNDS=3 benchmarks/run.sh        # fewer rounds, quicker, noisier
#   KEEP=dir benchmarks/run.sh        # keep the raw benchmark output and binaries in dir
#
# The rounds interleave the contenders, so that a noisy neighbour slows them all alike, and the
# table shows each figure's median over the rounds.
set -euo pipefail
cd "$(dirname "$0")"

rounds=${ROUNDS:-5}
work=${KEEP:-$(mktemp -d)}
mkdir -p "$work"
[ -z "${KEEP:-}" ] && trap 'rm -rf "$work"' EXIT
log() { echo "run.sh: $*" >&2; }

log "$(go version), $(nproc) cores; work in $work"
go mod download
go test -c -o "$work/bench.test" .
bench="$work/bench.txt"
: >"$bench"
run() { "$work/bench.test" -test.run '^$' -test.benchmem "$@" >>"$bench"; }

for round in $(seq "$rounds"); do
  log "round $round of $rounds: streams, completion, catalogue, first delta"
  run -test.bench '^Benchmark(TextStream|ToolStream|ToolStreamPlaceholder|Completion|Models)$' -test.benchtime 1s
  run -test.bench '^BenchmarkFirstDelta$' -test.benchtime 300x
done
log "uploads of 200 MiB"
run -test.bench '^BenchmarkUpload$' -test.benchtime 3x -test.count 2

log "footprint of a minimal streaming program"
sizes="$work/sizes.txt"
: >"$sizes"
for dir in footprint/*/; do
  name=$(basename "$dir")
  go build -trimpath -ldflags="-s -w" -o "$work/footprint-$name" "./$dir"
  echo "$name $(wc -c <"$work/footprint-$name")" >>"$sizes"
done

go run ./cmd/benchtable -bench "$bench" -sizes "$sizes"
echo
echo "_$(go version | cut -d' ' -f3-), $(nproc) cores; median of $rounds rounds; ratio = infergate ÷ the other, below 1× is better for infergate._"
