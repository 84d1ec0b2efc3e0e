#!/usr/bin/env bash
# Jupyter's kernel machinery and matplotlib for the GPU machine, whose image
# lacks them, so that notebooks/ can be executed there at full size
# (benchmarks/run_notebooks.py). Here, from the project root, once:
#     benchmarks/notebook_wheels.sh
# It fills the git-ignored .gpu/nb/ with the wheels and writes .gpu/nb-env.sh;
# on the GPU machine, after `source .gpu/env.sh`: `source .gpu/nb-env.sh`.
# The wheels go to /tmp/nb-site, added *after* the image's site-packages (a
# .pth file), so nothing the image has (NumPy, CuPy, ...) is shadowed.
set -euo pipefail
root=$(git rev-parse --show-toplevel); cd "$root"
grep -qx "/.gpu/" .git/info/exclude 2>/dev/null || echo "/.gpu/" >> .git/info/exclude
rm -rf .gpu/nb && mkdir -p .gpu/nb
python3 -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  --platform manylinux_2_5_x86_64 --platform manylinux1_x86_64 -d .gpu/nb \
  nbclient nbformat ipykernel matplotlib 2>&1 | grep -vi warning || true
rm -f .gpu/nb/numpy-*.whl  # the image's NumPy is the one CuPy was built for
cat > .gpu/nb-env.sh <<'ENV'
# source .gpu/nb-env.sh  (on the GPU machine, after .gpu/env.sh)
if [ ! -f /tmp/nb-site/.ready ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
    --target /tmp/nb-site .gpu/nb/*.whl && touch /tmp/nb-site/.ready
fi
python3 -c "import sysconfig; open(sysconfig.get_paths()['purelib'] + '/zz-gpuml-nb.pth', 'w').write('/tmp/nb-site\n')"
ENV
du -sh .gpu/nb
