#!/usr/bin/env bash
# The one script for the GPU machine (see docs/development.md). From the repo
# root, with .gpu carried along:
#   source .gpu/env.sh && bash benchmarks/device.sh [tests|tests-split] [bench NAME...]
# tests-split needs two GPUs (nvidia-h100-x2): half the suite on each.
# Logs go to $OUT (the device tool brings them back) or /tmp/gpuml-out.
set -uo pipefail
out=${OUT:-/tmp/gpuml-out}
mkdir -p "$out"
status=0
python3 -c "import gpuml; gpuml.show_versions()" 2>&1 | tee "$out/versions.log"
while [[ $# -gt 0 ]]; do
  case $1 in
    tests)
      shift
      python3 -m pytest -q -p no:cacheprovider tests 2>&1 | tee "$out/pytest.log" | tail -60
      status=$(( status | PIPESTATUS[0] ))
      ;;
    tests-split)
      # Two GPUs: two pytest processes, one per GPU, each over half the suite.
      shift
      half_a=(tests/model_selection tests/manifold tests/neighbors)
      half_b=(tests/feature_extraction tests/linear_model tests/metrics tests/preprocessing
              tests/test_*.py)
      CUDA_VISIBLE_DEVICES=0 python3 -m pytest -q -p no:cacheprovider "${half_a[@]}" \
        >"$out/pytest-a.log" 2>&1 &
      pid_a=$!
      CUDA_VISIBLE_DEVICES=1 python3 -m pytest -q -p no:cacheprovider "${half_b[@]}" \
        >"$out/pytest-b.log" 2>&1
      status=$(( status | $? ))
      wait $pid_a
      status=$(( status | $? ))
      tail -n 25 "$out/pytest-a.log" "$out/pytest-b.log"
      ;;
    bench)
      shift
      names=()
      while [[ $# -gt 0 && $1 != tests* ]]; do names+=("$1"); shift; done
      python3 -m benchmarks.run "${names[@]}" 2>&1 | tee "$out/bench.log"
      status=$(( status | PIPESTATUS[0] ))
      ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
exit $status
