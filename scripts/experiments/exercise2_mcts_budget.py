"""Seed exercise 2: how many simulations do UCT and PUCT with random rollouts need against perfect play?

Two searches play tic-tac-toe against perfect minimax (``arena.players.MinimaxPlayer``: exhaustive
negamax, AIMA section 5.2; uniform choice among the optimal moves with its seeded generator):

* **UCT**: UCB1 selection on ``[0, 1]``-scaled results with ``c = 1.4`` and one uniformly random
  playout per new leaf (Kocsis & Szepesvari 2006, "Bandit based Monte-Carlo Planning";
  ``mcts.run_search`` with ``mcts.UCTConfig``);
* **PUCT**: the AlphaZero selection rule ``Q + c_puct * P * sqrt(N) / (1 + N_a)`` with
  ``c_puct = 1.25`` (Silver et al. 2018, supplementary pseudocode; ``mcts.run_search`` with ``mcts.PUCTConfig``), given a
  state evaluator with uniform priors over the legal moves and the value of one random playout
  (``mcts.random_rollout_evaluator``); no root noise.

Both play the most visited root action, the lowest action index on ties (the robust child, Browne et al. 2012, sec. 3.3.3). For each
simulation budget (simulations per move: 1, 2, 4, ... doubling) each search plays ``--games``
games as X (first player) and as many as O against minimax. All games of one search and budget
advance together: minimax moves game by game, then one batched search over every game where the
search is to move. Each search's budgets double until it loses no game, then ``--extra-points``
more doublings check that it stays at zero (never above ``--max-budget``). Perfect play never
loses, so every game is a loss or a draw for the search; the loss rate is losses / games (both
colours).

Outputs: one JSON object on stdout (and in ``--json`` if given); a markdown table in
``docs/results/exercise2.md``; the loss rate against the budget (log x axis) as a hand-written SVG in
``docs/results/exercise2.svg`` (no plotting library needed).

Runtime: CPU time grows linearly with the budget, so the largest budgets dominate: about three
minutes of CPU time on one core with the defaults (200 games per colour, budgets up to 16384;
11 minutes wall-clock on a busy shared 2-core machine). Smaller: ``--extra-points 0`` (stop at the
first zero-loss budget), ``--games 50 --max-budget 1024`` (under half a minute); a check that it
runs: ``--games 2 --max-budget 4``. Larger: ``--algorithms puct --min-budget 32768 --max-budget
32768 --markdown - --svg -`` adds one budget to an earlier sweep (same seed, same games).

Usage: ``python scripts/experiments/exercise2_mcts_budget.py [--games 200] [--seed 0] [--algorithms uct puct]
[--min-budget 1] [--max-budget 16384] [--extra-points 2] [--json PATH] [--markdown PATH]
[--svg PATH]`` (``-`` for a path: do not write).
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT))

import games
from arena.players import MinimaxPlayer
from games.base import NO_WINNER
from games.checks import int_argument
from mcts import DEFAULT_UCT_C, PUCTConfig, UCTConfig, random_rollout_evaluator, run_search

ALGORITHMS = ("uct", "puct")
LABELS = {
    "uct": f"UCT (c = {DEFAULT_UCT_C}), random rollouts",
    "puct": "PUCT (c_puct = 1.25), uniform priors, rollout values",
}
COLOURS = {"uct": "#1f77b4", "puct": "#d62728"}
PUCT_C = 1.25
DOCS = REPO_ROOT / "docs" / "results"


#: Approximate bytes per tree node for tic-tac-toe (``mcts.tree.empty_tree``: 58 per node, 9 per
#: edge, 9 actions), and the most tree memory one batched search may take; larger batches are
#: searched in chunks of rows.
TREE_BYTES_PER_NODE = 58 + 9 * 9
MAX_TREE_BYTES = 256 * 2**20


def search_actions(
    algorithm: str, game, states: np.ndarray, budget: int, rng: np.random.Generator
) -> np.ndarray:
    """The searches' moves for ``states`` (``[G, S]`` int64, non-terminal): ``[G]`` int64.

    ``budget`` simulations per state; the most visited root action, lowest index on ties. Rows are
    searched in chunks so that one tree stays under ``MAX_TREE_BYTES``.
    """
    chunk = max(1, MAX_TREE_BYTES // (TREE_BYTES_PER_NODE * (budget + 1)))
    actions = np.empty(states.shape[0], dtype=np.int64)
    for first in range(0, states.shape[0], chunk):
        rows = states[first : first + chunk]
        if algorithm == "uct":
            output = run_search(game, rows, None, UCTConfig(num_simulations=budget, c=DEFAULT_UCT_C), rng)
        else:
            config = PUCTConfig(num_simulations=budget, c_puct=PUCT_C)
            output = run_search(game, rows, random_rollout_evaluator(game, rng), config, rng)
        actions[first : first + chunk] = output.actions
    return actions


def play_budget(algorithm: str, budget: int, games_per_colour: int, seed: int) -> dict:
    """Play ``games_per_colour`` games with the search as X and as many as O against minimax.

    Randomness: the search's playouts from ``default_rng([seed, algorithm index, budget, 0])``,
    minimax's tie-breaks from ``default_rng([seed, algorithm index, budget, 1])``.

    Returns:
        ``{"budget", "games", "losses", "draws", "wins", "losses_as_x", "losses_as_o",
        "loss_rate", "seconds"}`` (wins must be 0 against perfect play; seconds are wall-clock).
    """
    game = games.make("tictactoe")
    index = ALGORITHMS.index(algorithm)
    search_rng = np.random.default_rng([seed, index, budget, 0])
    minimax = MinimaxPlayer(np.random.default_rng([seed, index, budget, 1]))
    num_games = 2 * games_per_colour
    search_player = np.repeat(np.array([0, 1], dtype=np.int8), games_per_colour)  # X games, then O
    states = game.initial_states(num_games)
    start = time.perf_counter()
    # Each round: minimax moves wherever it is to move, then one batched search over every game
    # where the search is to move (X games and O games together).
    for _ in range(game.max_game_length + 1):
        live = ~game.terminal(states)
        for row in np.flatnonzero(live & (game.to_play(states) != search_player)):
            action = minimax.select_action(game, tuple(int(v) for v in states[row]))
            states[row] = game.step(states[row : row + 1], np.array([action], dtype=np.int64))[0]
        searching = np.flatnonzero(~game.terminal(states) & (game.to_play(states) == search_player))
        if searching.size == 0:
            break
        actions = search_actions(algorithm, game, states[searching], budget, search_rng)
        states[searching] = game.step(states[searching], actions)
    winner = game.winner(states)
    lost = (winner != NO_WINNER) & (winner != search_player)
    won = winner == search_player
    losses = int(lost.sum())
    return {
        "budget": budget,
        "games": num_games,
        "losses": losses,
        "draws": int((winner == NO_WINNER).sum()),
        "wins": int(won.sum()),
        "losses_as_x": int(lost[search_player == 0].sum()),
        "losses_as_o": int(lost[search_player == 1].sum()),
        "loss_rate": losses / num_games,
        "seconds": round(time.perf_counter() - start, 2),
    }


def smallest_zero_budgets(results: list[dict]) -> dict:
    """``first``: the smallest budget with no loss; ``stable``: the smallest budget from which every
    larger tested budget also has no loss (None when the largest budget still lost games)."""
    first = next((r["budget"] for r in results if r["losses"] == 0), None)
    stable = None
    for r in reversed(results):
        if r["losses"]:
            break
        stable = r["budget"]
    return {"first": first, "stable": stable}


def run_sweep(
    algorithms,
    games_per_colour: int,
    seed: int,
    min_budget: int,
    max_budget: int,
    extra_points: int,
    log=None,
) -> dict:
    """Budgets ``min_budget``, twice that, ... for each search in ``algorithms`` until
    ``extra_points`` doublings after its first budget without a loss, never above ``max_budget``.
    Returns ``{algorithm: [play_budget results]}``. A budget's games depend only on ``seed``, the
    search and the budget, so a sweep can be extended with a larger ``min_budget``.

    Raises:
        RuntimeError: if a search wins a game (the perfect referee would be broken).
    """
    results: dict[str, list[dict]] = {name: [] for name in algorithms}
    for name in algorithms:
        budget, remaining = min_budget, None
        while budget <= max_budget and remaining != 0:
            result = play_budget(name, budget, games_per_colour, seed)
            if result["wins"]:
                raise RuntimeError(f"{name} beat perfect minimax at budget {budget}: the referee is broken")
            results[name].append(result)
            if log is not None:
                print(json.dumps({"algorithm": name, **result}), file=log, flush=True)
            if remaining is not None:
                remaining -= 1
            elif result["losses"] == 0:
                remaining = extra_points
            budget *= 2
    return results


# ----------------------------------------------------------------------------------- outputs
def markdown(report: dict) -> str:
    """The page docs/results/exercise2.md: settings, the table, and the smallest zero-loss budgets."""
    settings = report["settings"]
    results = report["results"]
    lines = [
        "# Seed exercise 2: simulation budget against perfect play",
        "",
        "Tic-tac-toe, each search against perfect minimax (`arena.players.MinimaxPlayer`, random",
        f"choice among optimal moves), {settings['games_per_colour']} games with the search as X and",
        f"{settings['games_per_colour']} as O per budget, seed {settings['seed']}. Generated by",
        "`scripts/experiments/exercise2_mcts_budget.py`; loss rate = losses / games, both colours. A budget is",
        "the number of simulations per move.",
        "",
        f"* **UCT**: {LABELS['uct']} (Kocsis & Szepesvari 2006).",
        f"* **PUCT**: {LABELS['puct']} (Silver et al. 2018); no root noise.",
        "",
        "Both play the most visited root move (lowest index on ties).",
        "",
        "![Loss rate against simulation budget](exercise2.svg)",
        "",
        "| budget | "
        + " | ".join(f"{name.upper()} loss rate | {name.upper()} losses as X / as O" for name in results)
        + " |",
        "|---:|" + "---:|---:|" * len(results),
    ]
    by_budget = {name: {r["budget"]: r for r in results[name]} for name in results}
    for budget in sorted(set().union(*by_budget.values())):
        cells = []
        for name in results:
            row = by_budget[name].get(budget)
            if row is None:
                cells += ["not run", ""]
            else:
                cells += [f"{row['loss_rate']:.1%}", f"{row['losses_as_x']} / {row['losses_as_o']}"]
        lines.append(f"| {budget} | " + " | ".join(cells) + " |")
    lines += ["", "Smallest budget with zero losses:", ""]
    for name in results:
        zero = report["smallest_zero_loss_budget"][name]
        largest = results[name][-1]["budget"]
        if zero["first"] is None:
            text = f"none up to {largest} simulations per move"
        elif zero["stable"] == zero["first"]:
            text = f"**{zero['first']}** simulations per move (and no loss at any larger budget tested)"
        elif zero["stable"] is None:
            text = (
                f"**{zero['first']}** simulations per move, but losses again at larger budgets "
                f"(up to {largest})"
            )
        else:
            text = (
                f"**{zero['first']}** simulations per move first; no loss at any tested budget "
                f"from **{zero['stable']}** on"
            )
        lines.append(f"* {name.upper()}: {text}.")
    lines += [
        "",
        (
            f"With {2 * settings['games_per_colour']} games per budget, zero losses bounds the true loss "
            f"rate below about {3 / (2 * settings['games_per_colour']):.1%} (95%, rule of three)."
        ),
        (
            f"Runtime: {report['seconds']:.0f} s wall-clock, {report['cpu_seconds']:.0f} s of CPU time "
            f"(one core), on {report['machine']}."
        ),
        "",
    ]
    return "\n".join(lines)


def svg_plot(report: dict, width: int = 640, height: int = 400) -> str:
    """Loss rate (y, linear) against budget (x, log2 axis), one polyline with markers per search."""
    results = report["results"]
    names = list(results)
    budgets = sorted({r["budget"] for name in names for r in results[name]})
    left, right, top, bottom = 70, 20, 40, 60
    plot_w, plot_h = width - left - right, height - top - bottom
    x_min = math.log2(budgets[0])
    x_span = max(math.log2(budgets[-1]) - x_min, 1.0)
    rates = [r["loss_rate"] for name in names for r in results[name]]
    y_max = max(0.1, math.ceil(max(rates) * 10) / 10)

    def x(budget: float) -> float:
        return left + plot_w * (math.log2(budget) - x_min) / x_span

    def y(rate: float) -> float:
        return top + plot_h * (1 - rate / y_max)

    out = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">'
        ),
        f'<rect width="{width}" height="{height}" fill="white"/>',
        (
            f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="14">'
            "Tic-tac-toe against perfect minimax: loss rate vs simulations per move</text>"
        ),
    ]
    steps = 5
    for i in range(steps + 1):  # y grid and labels
        rate = y_max * i / steps
        out.append(
            f'<line x1="{left}" y1="{y(rate):.1f}" x2="{left + plot_w}" y2="{y(rate):.1f}" stroke="#ddd"/>'
        )
        out.append(f'<text x="{left - 6}" y="{y(rate) + 4:.1f}" text-anchor="end">{rate:.0%}</text>')
    for budget in budgets:  # x ticks at the tested budgets (powers of two)
        out.append(
            f'<line x1="{x(budget):.1f}" y1="{top}" x2="{x(budget):.1f}" y2="{top + plot_h}" stroke="#eee"/>'
        )
        out.append(f'<text x="{x(budget):.1f}" y="{top + plot_h + 16}" text-anchor="middle">{budget}</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="black"/>')
    out.append(
        f'<text x="{left + plot_w / 2}" y="{height - 18}" text-anchor="middle">'
        "simulations per move (log scale)</text>"
    )
    out.append(
        f'<text x="18" y="{top + plot_h / 2}" text-anchor="middle" '
        f'transform="rotate(-90 18 {top + plot_h / 2})">loss rate</text>'
    )
    # The legend goes top right when the curves are low there (large budgets), else lower left.
    legend_w, legend_h = 350, 18 * len(names) + 8
    right_rates = [
        r["loss_rate"]
        for name in names
        for r in results[name]
        if x(r["budget"]) > left + plot_w - legend_w - 20
    ]
    if max(right_rates, default=0.0) < 0.6 * y_max:
        legend_x, legend_y0 = left + plot_w - legend_w - 6, top + 10
    else:
        legend_x, legend_y0 = left + 12, top + plot_h - 12 - 18 * len(names)
    out.append(
        f'<rect x="{legend_x - 6}" y="{legend_y0 - 4}" width="{legend_w}" height="{legend_h}" '
        'fill="white" stroke="#999"/>'
    )
    for k, name in enumerate(names):
        points = " ".join(f"{x(r['budget']):.1f},{y(r['loss_rate']):.1f}" for r in results[name])
        colour = COLOURS[name]
        out.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for r in results[name]:
            out.append(
                f'<circle cx="{x(r["budget"]):.1f}" cy="{y(r["loss_rate"]):.1f}" r="3.5" fill="{colour}"/>'
            )
        legend_y = legend_y0 + 14 + 18 * k
        out.append(
            f'<line x1="{legend_x}" y1="{legend_y - 4}" x2="{legend_x + 24}" y2="{legend_y - 4}" '
            f'stroke="{colour}" stroke-width="2"/>'
        )
        out.append(f'<text x="{legend_x + 30}" y="{legend_y}">{LABELS[name]}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------- CLI
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games",
        type=int_argument(1),
        default=200,
        help="games per colour per budget and search (default 200)",
    )
    parser.add_argument("--seed", type=int_argument(0), default=0)
    parser.add_argument(
        "--algorithms", nargs="+", choices=ALGORITHMS, default=list(ALGORITHMS), help="searches to run"
    )
    parser.add_argument("--min-budget", type=int_argument(1), default=1,
                        help="first budget of the sweep (default 1); with a larger one, the sweep extends an earlier run")
    parser.add_argument("--max-budget", type=int_argument(1), default=16384,
                        help="largest budget tried, simulations per move (default 16384)")
    parser.add_argument("--extra-points", type=int_argument(0), default=2,
                        help="doublings played after a search first loses no game (default 2)")
    parser.add_argument(
        "--json", type=Path, default=None, help="also write the JSON to this file (default: stdout only)"
    )
    parser.add_argument("--markdown", type=Path, default=DOCS / "exercise2.md")
    parser.add_argument("--svg", type=Path, default=DOCS / "exercise2.svg")
    return parser.parse_args(argv)


def _write(path: Path, text: str) -> None:
    if str(path) != "-":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    start, cpu_start = time.perf_counter(), time.process_time()
    if args.min_budget > args.max_budget:
        raise SystemExit(f"exercise2: --min-budget {args.min_budget} is above --max-budget {args.max_budget}")
    results = run_sweep(
        args.algorithms,
        args.games,
        args.seed,
        args.min_budget,
        args.max_budget,
        args.extra_points,
        sys.stderr,
    )
    report = {
        "settings": {
            "game": "tictactoe",
            "opponent": "minimax (perfect, random tie-break)",
            "games_per_colour": args.games,
            "seed": args.seed,
            "uct_c": DEFAULT_UCT_C,
            "puct_c": PUCT_C,
            "rollouts_per_leaf": 1,
            "algorithms": args.algorithms,
            "min_budget": args.min_budget,
            "max_budget": args.max_budget,
            "extra_points": args.extra_points,
        },
        "results": results,
        "smallest_zero_loss_budget": {name: smallest_zero_budgets(rows) for name, rows in results.items()},
        "seconds": round(time.perf_counter() - start, 1),
        "cpu_seconds": round(time.process_time() - cpu_start, 1),
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
    }
    text = json.dumps(report, indent=2)
    print(text)
    if args.json is not None:
        _write(args.json, text + "\n")
    _write(args.markdown, markdown(report))
    _write(args.svg, svg_plot(report))
    return report


if __name__ == "__main__":
    main()
