#!/usr/bin/env bash
# The GPU check (issue #38), one command for a machine with a CUDA GPU, Python, torch, CuPy and
# transformers (no spaCy, no package index): run from the repository root with the bundle that
# scripts/gpu_bundle.sh made here (.gpucheck/).
#
#   scripts/gpu_check.sh [OUT]          # OUT: where results go (default: $OUT or ./gpu_check)
#
# OUT gets four files (the device tool brings back at most eight): summary.txt, results.jsonl,
# cli_curve.jsonl and logs.tgz (each step's log).
#
# 1. installs the bundled spaCy stack into /tmp/site and builds the Cython decoders in place;
# 2. runs the gpu-marked tests (tests/gpu: each component trains on the GPU and parses as on the CPU);
# 3. trains en_lal_ewt's recipe (configs/lal_ewt_cpu.cfg) on the GPU for a fixed number of steps
#    and times them (scripts/gpu_check.py train: 150 steps after 20 untimed);
# 4. parses EWT dev's texts with that pipeline on the GPU and on the CPU, timed, and compares the
#    two parses (scripts/gpu_check.py parse / compare);
# 5. times the same recipe's training on this machine's CPU (40 steps after 5: a rate, not a race);
# 6. runs the command users run, `python -m spacy_lal train ... --gpu-id 0`, for 40 steps with
#    two evaluations.
# Every step runs even if one before it failed; the summary at the end says which did.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-${OUT:-gpu_check}}
BUNDLE=${BUNDLE:-.gpucheck}
WORK=/tmp/gpu_check
LOGS=$WORK/logs
mkdir -p "$OUT" "$LOGS" /tmp/site
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
status=()
step() {  # step NAME COMMAND...: run, log to $LOGS/NAME.log, remember the exit status
  local name=$1
  shift
  echo "== $name: $*"
  local began=$SECONDS
  "$@" 2>&1 | tee "$LOGS/$name.log"
  local rc=${PIPESTATUS[0]}
  status+=("$name=$rc ($((SECONDS - began)) s)")
}

step install tar xzf "$BUNDLE/site.tgz" -C /tmp/site
step build python3 setup.py -q build_ext --inplace -j "$(nproc)"
step egg_info python3 setup.py -q egg_info  # entry points (spaCy finds our factories by them)
step versions python3 -c "import sys, spacy, thinc, torch, cupy, numpy; print(sys.version.split()[0], 'spacy', spacy.__version__, 'thinc', thinc.__version__, 'torch', torch.__version__, 'cupy', cupy.__version__, 'numpy', numpy.__version__); print(torch.cuda.get_device_name(0), torch.get_num_threads(), 'CPU threads')"
step tests python3 -m pytest -q -m gpu tests/gpu -p no:cacheprovider --no-header
step train_gpu python3 scripts/gpu_check.py train --device gpu --warmup 20 --steps 150 --model "$WORK/model"
step parse_gpu python3 scripts/gpu_check.py parse --device gpu --model "$WORK/model" --output "$WORK/gpu.jsonl"
step parse_cpu python3 scripts/gpu_check.py parse --device cpu --model "$WORK/model" --output "$WORK/cpu.jsonl"
step compare python3 scripts/gpu_check.py compare "$WORK/gpu.jsonl" "$WORK/cpu.jsonl"
step train_cpu python3 scripts/gpu_check.py train --device cpu --warmup 5 --steps 40
step cli_train python3 -m spacy_lal train configs/lal_ewt_cpu.cfg --output "$WORK/cli" --gpu-id 0 \
  --paths.train "$BUNDLE/train.spacy" --paths.dev "$BUNDLE/dev.spacy" --paths.vectors "$BUNDLE/vectors" \
  --training.max_steps 40 --training.eval_frequency 20 --corpora.dev.limit 200 \
  --training.logger.path "$OUT/cli_curve.jsonl"
echo "== summary (exit status, seconds)"
printf '%s\n' "${status[@]}" | tee "$OUT/summary.txt"
grep -h '^{"phase"' "$LOGS"/train_*.log "$LOGS"/parse_*.log "$LOGS"/compare.log | tee "$OUT/results.jsonl"
tar czf "$OUT/logs.tgz" -C "$LOGS" .
