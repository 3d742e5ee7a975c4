#!/usr/bin/env bash
# Set up (scripts/setup.sh) and run the whole test suite, slow tests included.
# Extra arguments go to pytest, e.g. `scripts/test.sh -m "not slow"` for the quick subset.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest "$@"
