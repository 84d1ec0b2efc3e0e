#!/usr/bin/env bash
# The one script for the GPU machine (see docs/development.md). From the repo
# root, with .gpu carried along:
#   source .gpu/env.sh && bash benchmarks/device.sh [tests|tests-split|tests-gpu [N] [PATH...]|sklearn-gpu [PATH...]|tests-in PATH...] [bench NAME...]
# tests-split needs two or four GPUs (nvidia-h100-x2, -x4): a share of the
# suite on each.
# Logs go to $OUT (the device tool brings them back) or /tmp/gpuml-out.
set -uo pipefail
out=${OUT:-/tmp/gpuml-out}
mkdir -p "$out"
status=0
is_mode() { [[ $1 =~ ^(tests|tests-split|tests-gpu|sklearn-gpu|tests-in|bench)$ ]]; }
python3 -c "import gpuml; gpuml.show_versions()" 2>&1 | tee "$out/versions.log"
while [[ $# -gt 0 ]]; do
  case $1 in
    tests)
      shift
      python3 -m pytest -q -p no:cacheprovider tests 2>&1 | tee "$out/pytest.log" | tail -60
      status=$(( status | PIPESTATUS[0] ))
      ;;
    tests-split)
      # One pytest process per GPU (2 or 4), each over a share of the suite.
      shift
      n_gpus=$(nvidia-smi -L | wc -l)
      if (( n_gpus >= 4 )); then
        groups=("tests/model_selection tests/svm"
                "tests/manifold tests/neighbors tests/feature_extraction tests/preprocessing tests/cluster"
                "tests/linear_model tests/metrics tests/naive_bayes"
                "tests/decomposition tests/impute tests/compose $(echo tests/test_*.py)")
      else
        groups=("tests/model_selection tests/manifold tests/neighbors tests/svm tests/cluster"
                "tests/feature_extraction tests/linear_model tests/metrics tests/preprocessing tests/naive_bayes tests/decomposition tests/impute tests/compose $(echo tests/test_*.py)")
      fi
      # Every test folder is in a group (a new family must be added above).
      for dir in tests/*/; do
        [[ $dir == *__pycache__* || " ${groups[*]} " == *" ${dir%/} "* ]] || echo "tests-split: ${dir%/} is in no group" >&2
      done
      pids=()
      for i in "${!groups[@]}"; do
        # shellcheck disable=SC2086 # each group is a list of paths
        CUDA_VISIBLE_DEVICES=$i python3 -m pytest -q -p no:cacheprovider ${groups[$i]} \
          >"$out/pytest-$i.log" 2>&1 &
        pids+=($!)
      done
      for pid in "${pids[@]}"; do
        wait "$pid"
        status=$(( status | $? ))
      done
      for i in "${!groups[@]}"; do tail -n 25 "$out/pytest-$i.log"; done
      ;;
    tests-gpu)
      # tests-gpu [N] [PATH...]: the GPU tests alone (the numpy-cpu ones run
      # in CI) under PATHs (default: tests), in N pytest-xdist processes
      # sharing the visible GPUs (pytest-xdist comes in .gpu: prepare.sh
      # pytest-xdist execnet).
      shift
      n=8
      if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then n=$1; shift; fi
      paths=()
      while [[ $# -gt 0 ]] && ! is_mode "$1"; do paths+=("$1"); shift; done
      [[ ${#paths[@]} -gt 0 ]] || paths=(tests)
      # each process on one of the GPUs (tests/conftest.py), tests handed
      # out as processes free up (worksteal: a slow file does not hold up
      # the rest), the slowest listed at the end of the log;
      # GPUML_TESTS_DEADLINE=S interrupts the run after S seconds, which
      # still reports its failures and durations
      GPUML_TEST_GPUS=$(nvidia-smi -L | wc -l) timeout -s INT "${GPUML_TESTS_DEADLINE:-0}" \
        python3 -m pytest -v -p no:cacheprovider -p no:benchmark -m gpu -n "$n" --dist worksteal \
        --durations=40 "${paths[@]}" >"$out/pytest-gpu.log" 2>&1
      status=$(( status | $? ))
      grep -E "^(FAILED|ERROR) |(FAILED|ERROR) tests/" "$out/pytest-gpu.log" | sort -u | head -300
      grep -A 42 "slowest 40 durations" "$out/pytest-gpu.log" | cut -c1-160
      tail -n 3 "$out/pytest-gpu.log"
      ;;
    sklearn-gpu)
      # sklearn-gpu [PATH...]: scikit-learn's own test files on the GPU (CI
      # runs them on the CPU, where their known failures were measured): a
      # failure not known there fails its test; the JUnit reports come back
      # in suites.tar.gz. PATHs: some of the suite tests (default: all).
      shift
      paths=()
      while [[ $# -gt 0 ]] && ! is_mode "$1"; do paths+=("$1"); shift; done
      [[ ${#paths[@]} -gt 0 ]] || paths=(tests/*/test_sklearn_*suite*.py)
      GPUML_SUITE_DEVICE=gpu GPUML_SUITE_WORKERS=3 GPUML_SUITE_REPORTS=/tmp/gpuml-suites \
        python3 -m pytest -q -p no:cacheprovider -p no:benchmark -n 10 --dist load \
        "${paths[@]}" >"$out/sklearn-gpu.log" 2>&1
      status=$(( status | $? ))
      tar -czf "$out/suites.tar.gz" -C /tmp gpuml-suites 2>/dev/null
      grep -E "^(FAILED|ERROR) " "$out/sklearn-gpu.log" | cut -c1-400
      tail -n 2 "$out/sklearn-gpu.log"
      ;;
    tests-in)
      # tests-in PATH...: the tests under those paths only.
      shift
      paths=()
      while [[ $# -gt 0 ]] && ! is_mode "$1"; do paths+=("$1"); shift; done
      python3 -m pytest -q -p no:cacheprovider "${paths[@]}" 2>&1 | tee "$out/pytest-in.log" | tail -60
      status=$(( status | PIPESTATUS[0] ))
      ;;
    bench)
      shift
      names=()
      while [[ $# -gt 0 ]] && ! is_mode "$1"; do names+=("$1"); shift; done
      python3 -m benchmarks.run "${names[@]}" 2>&1 | tee "$out/bench.log"
      status=$(( status | PIPESTATUS[0] ))
      ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
exit $status
