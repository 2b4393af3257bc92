#!/usr/bin/env bash
# runtime_checks on a machine with a real accelerator, as one command: install the linter's own
# dependencies from wheels carried in .whl/ (the machine has torch but nothing to download from),
# then run every fixture on cpu, cuda and the simulated meta device, and write the reports to
# $OUT (or ./device-report when OUT is unset).
#
# Prepare the wheels on a machine with pip (the device runs Python 3.12; see the project README):
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#       --implementation cp --platform manylinux_2_28_x86_64 -d .whl \
#       libcst==1.9.0 pathspec==1.1.1 flake8==7.5.0 pyflakes==4.1.0 pycodestyle==2.15.0 mccabe==0.7.0
set -u -o pipefail
out="${OUT:-device-report}"
mkdir -p "$out"

python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH="$PWD/src:/tmp/site" PYTHONUNBUFFERED=1

{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
    python3 -c 'import sys, torch; print("python", sys.version.split()[0]); print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.is_available(), torch.cuda.get_device_name() if torch.cuda.is_available() else "")'
} 2>&1 | tee "$out/machine.txt"

# The main run: the fork server (children fork before any CUDA context exists, so each one
# initialises CUDA itself).
python3 -m runtime_checks --device cpu,cuda,meta \
    --json "$out/runtime.json" --markdown "$out/runtime.md" 2>&1 | tee "$out/runtime.txt"
main_status=$?

# Which operations take a 0-dim CPU tensor as a scalar on this device (knowledge/api.py).
python3 scripts/probe_zero_dim.py --device cuda --json "$out/zero_dim_cuda.json" > "$out/zero_dim_cuda.txt" 2>&1

# The reference start method, a fresh interpreter per run, on cuda alone, when SPAWN_SECONDS is
# set: a cross-check that the fork server's results are no artefact of forking. It needs more than
# 200 s on an H200 machine (a fresh interpreter imports torch for each of ~500 runs).
if [ "${SPAWN_SECONDS:-0}" -gt 0 ]; then
    timeout "$SPAWN_SECONDS" python3 -m runtime_checks --device cuda --start-method spawn \
        --json "$out/runtime-spawn.json" 2>&1 | tail -n 5 | tee "$out/runtime-spawn.txt"
fi

exit "$main_status"
