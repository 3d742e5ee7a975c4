#!/usr/bin/env bash
# Build (or rebuild) the shipped model of one game: networks/shipped/GAME/.
#
#   bash scripts/build_shipped_model.sh GAME MINUTES [TRAIN OVERRIDES...]
#   bash scripts/build_shipped_model.sh tictactoe 3
#   bash scripts/build_shipped_model.sh connect4 60
#
# Trains `train game=GAME run.max_minutes=MINUTES` (niced) into outputs/shipped/GAME/DATE,
# exports its best model with export-model (model.onnx, model.safetensors and model.json, whose
# provenance records the commit, the config and the run's counts), measures it with
# `arena accuracy` at play's default search when the game has labelled sets, and writes
# PROVENANCE.md beside it with this exact command. Commit from a clean tree first: the commit is
# recorded, and a dirty tree is marked as such.
set -euo pipefail

if [ "$#" -lt 2 ]; then
    echo "usage: bash scripts/build_shipped_model.sh GAME MINUTES [TRAIN OVERRIDES...]" >&2
    exit 2
fi
game=$1
minutes=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
python=${PYTHON:-$root/.venv/bin/python}
run_dir=outputs/shipped/$game/$(date -u +%Y-%m-%d_%H-%M-%S)
out=networks/shipped/$game
command="bash scripts/build_shipped_model.sh $game $minutes${*:+ $*}"

# the code that trains: recorded before anything is written (the export replaces tracked files)
commit=$(git rev-parse HEAD)
dirty=$(git status --porcelain --untracked-files=no | grep -q . && echo " (with uncommitted changes)" || true)

nice -n 5 "$python" -m trainer.cli "game=$game" "run.max_minutes=$minutes" run.live_status=false \
    "hydra.run.dir=$run_dir" "$@"
rm -rf "$out"
"$python" -m networks.export_cli "$run_dir/best/model.pt" "$out" --game "$game"
if nice -n 5 "$python" -m frontends.arena_cli accuracy "mcts:model=$out,sims=200" --game "$game" --json \
        > "$run_dir/accuracy.json" 2> "$run_dir/accuracy.err"; then
    accuracy=$(cat "$run_dir/accuracy.json")
else
    accuracy="not measured: $(tr '\n' ' ' < "$run_dir/accuracy.err")"
fi
if nice -n 5 "$python" -m frontends.arena_cli accuracy "policy:model=$out" --game "$game" --json \
        > "$run_dir/policy_accuracy.json" 2>/dev/null; then
    policy_accuracy=$(cat "$run_dir/policy_accuracy.json")
else
    policy_accuracy="not measured"
fi
summary=$("$python" -c "import json, sys; from networks.provenance import provenance_summary; print(provenance_summary(json.load(open(sys.argv[1]))))" "$out/model.json")
{
    echo "# Shipped model: $game"
    echo
    echo "Rebuild with one command, from the repository root after \`bash scripts/setup.sh\`:"
    echo
    echo '```bash'
    echo "$command"
    echo '```'
    echo
    echo "- code: commit $commit$dirty"
    echo "- trained: \`train game=$game run.max_minutes=$minutes${*:+ $*}\` ($(date -u +%Y-%m-%d) UTC)"
    echo "- model.json: $summary"
    echo "- strength, \`arena accuracy mcts:model=$game,sims=200 --game $game --json\`: $accuracy"
    echo "- the network alone, \`arena accuracy policy:model=$game --game $game --json\`: $policy_accuracy"
    echo "- files: $(cd "$out" && ls -l model.onnx model.safetensors model.json | awk '{printf "%s %s bytes; ", $9, $5}')"
} > "$out/PROVENANCE.md"
cat "$out/PROVENANCE.md"
