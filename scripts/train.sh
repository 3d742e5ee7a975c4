#!/usr/bin/env bash
# Set up (scripts/setup.sh) and start a training run. With no arguments: Connect Four with the
# CPU defaults for 60 minutes. Arguments are Hydra overrides, e.g.
#   scripts/train.sh game=tictactoe run.max_minutes=5
#   scripts/train.sh experiment=gpu
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/train "$@"
