#!/usr/bin/env bash
# Create .venv (if missing) and install the project with its dev and openspiel extras. Safe to run repeatedly:
# it reinstalls only when pyproject.toml or the constraints change.
# Without an NVIDIA driver (no nvidia-smi) torch is pinned to the CPU build in
# scripts/constraints-cpu.txt; on a GPU box pip picks the CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
constraints=()
if ! command -v nvidia-smi >/dev/null 2>&1; then
  constraints=(-c scripts/constraints-cpu.txt)
fi
stamp=.venv/.setup-stamp
want=$(cat pyproject.toml scripts/constraints-cpu.txt | sha256sum | cut -c1-16)-${#constraints[@]}
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  # the openspiel extra too: the test suite cross-checks the adapter and native games against it
  # (a binary wheel, about 1.5 minutes into a fresh venv; its tests skip where it is absent)
  .venv/bin/python -m pip install --quiet "${constraints[@]}" -e ".[dev,openspiel]"
  echo "$want" > "$stamp"
fi
