#!/usr/bin/env bash
# A GPU machine's check (scripts/gpu_check.py): CPU and CUDA losses and gradients agree (rtol 1e-4),
# the tiny loop trains on CUDA with bf16, and self-play positions/s. Skips cleanly without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
[ -x "$PYTHON" ] || PYTHON=python3
exec timeout 480 "$PYTHON" scripts/gpu_check.py "$@"
