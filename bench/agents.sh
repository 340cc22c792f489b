#!/usr/bin/env bash
# Many agents (issue 45), one thread each: 256 agents' policy (8 -> 64 ->
# 64 -> 2, tanh) a frame through a Batcher (each agent's rows made once)
# against 256 separate batch-1 calls and against one direct 256-row
# call_into of ours; the 60 Hz frame loop's p99 over its p50, beside the
# same ratio for plain C++ frames of the same length (this machine's
# jitter, the floor); and a fine-tuning thread's steps a second beside the
# frame loop over its rate alone, the same thread settings. All from
# examples/agents (agents_example --bench), about 50 s; the throughputs take
# turns, 200 ms each over 9 rounds (medians), the fine-tuning rates twice.
#
#   bench/agents.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -x build/default/bin/agents_example ]] || scripts/build default >/dev/null
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'); $(nproc) cores; 1 thread each"
build/default/bin/agents_example examples/agents --bench
