#!/usr/bin/env bash
# The one script for the GPU machine (see docs/development.md). From the repo
# root, with .gpu carried along:
#   source .gpu/env.sh && bash benchmarks/device.sh [tests] [bench NAME...]
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
    bench)
      shift
      names=()
      while [[ $# -gt 0 && $1 != tests ]]; do names+=("$1"); shift; done
      python3 -m benchmarks.run "${names[@]}" 2>&1 | tee "$out/bench.log"
      status=$(( status | PIPESTATUS[0] ))
      ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
exit $status
