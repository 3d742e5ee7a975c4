"""Sample Connect Four positions and label every legal move with its exact score.

Usage::

    python scripts/make_connect4_sets.py                          # the shipped sets, seed 0
    python scripts/make_connect4_sets.py --size 100 --size-begin-hard 5 --output-dir /tmp/sets

Positions are bucketed as in Pascal Pons' test protocol ("Solving Connect 4", part 2): by plies
played, begin 1-14, middle 15-28, end 29-42, and by difficulty, the plies left until the game
ends under perfect play, easy < 14, medium 14-27, hard >= 28. That gives Pons' six sets:
``end_easy`` (his Test_L3_R1), ``middle_easy`` (L2_R1), ``middle_medium`` (L2_R2),
``begin_easy`` (L1_R1), ``begin_medium`` (L1_R2), ``begin_hard`` (L1_R3).

Games come from two sources, alternating, and each set takes at most half its positions from one
source while the other can still supply it:

* ``random``: every move uniform over the legal columns (seeded ``numpy.random.Generator``).
* ``strong``: from ply ``--perfect-from`` (default 16) on, perfect play: the first move, in a
  random order of the columns, that the solver proves keeps the position's exact value; before it, where exact analysis costs seconds per move,
  a one-ply tactical player: win at once if possible, else block the opponent's immediate win,
  never play directly below an opponent's winning cell, and prefer the move creating most
  winning cells (centre first on ties); with probability 0.25 a uniform non-losing move instead.

From each game one ply per ply range is drawn uniformly (if the game got that far), the position
is solved, and it is kept if its bucket still needs positions (begin positions are drawn from
plies ``--begin-min-ply`` (default 8) to 14 only: earlier positions are nearly all hard and take
seconds to minutes each to solve and label here, where Pons' begin sets start at ply 1 or 4); duplicates (the same position by
another move order) are skipped. Each kept position is labelled with ``Solver.analyze``: the exact
score of every column. Output: ``<output-dir>/<set>.txt`` in the format of
``arena/positions/connect4/__init__.py``, written atomically; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root

import numpy as np

from arena.positions.connect4 import POSITIONS_DIR, SET_NAMES
from games.connect4.layout import move_bit, top_mask
from games.connect4.solver import (
    BOARD_MASK,
    BOTTOM_MASK,
    NUM_CELLS,
    WIDTH,
    Solver,
    _winning_cells,
    has_four,
    parse_moves,
)

PLY_RANGES = {"begin": (1, 14), "middle": (15, 28), "end": (29, 41)}
CENTRE_FIRST = (3, 2, 4, 1, 5, 0, 6)


def plies_left(ply: int, score: int) -> int:
    """Plies until the end of the game under perfect play from a position at ``ply`` scored ``score``."""
    if score > 0:  # the side to move, holding ply // 2 stones, wins with its (22 - score)-th stone
        return 2 * (22 - score - ply // 2) - 1
    if score < 0:  # the opponent, holding (ply + 1) // 2 stones, wins with its (22 + score)-th stone
        return 2 * (22 + score - (ply + 1) // 2)
    return NUM_CELLS - ply


def difficulty(ply: int, score: int) -> str:
    left = plies_left(ply, score)
    return "easy" if left < 14 else "medium" if left < 28 else "hard"


def bucket(ply: int, score: int) -> str | None:
    """Set name of a position, or None for a bucket Pons' protocol does not have."""
    for name, (lo, hi) in PLY_RANGES.items():
        if lo <= ply <= hi:
            set_name = f"{name}_{difficulty(ply, score)}"
            return set_name if set_name in SET_NAMES else None
    return None


class Board:
    """Python-int bitboard (same encoding as the solver) for playing games."""

    def __init__(self):
        self.position = 0
        self.mask = 0
        self.moves = ""

    def legal(self) -> list[int]:
        return [c for c in range(WIDTH) if not self.mask & top_mask(c)]

    def move_bit(self, col: int) -> int:
        return move_bit(self.mask, col)

    def wins(self, col: int) -> bool:
        return has_four(self.position | self.move_bit(col))

    def play(self, col: int) -> None:
        move = self.move_bit(col)
        self.position ^= self.mask
        self.mask |= move
        self.moves += str(col + 1)


def tactical_move(board: Board, rng: np.random.Generator) -> int:
    legal = board.legal()
    for c in legal:
        if board.wins(c):
            return c
    opponent = board.position ^ board.mask
    opponent_win = int(_winning_cells(opponent, board.mask))
    possible = (board.mask + BOTTOM_MASK) & BOARD_MASK
    forced = [c for c in legal if board.move_bit(c) & opponent_win & possible]
    if forced:
        return forced[0]
    safe = [c for c in legal if not (board.move_bit(c) << 1) & opponent_win] or legal
    if rng.random() < 0.25:
        return int(rng.choice(safe))

    def threats(c: int) -> int:
        return int(_winning_cells(board.position | board.move_bit(c), board.mask)).bit_count()

    best = max(threats(c) for c in safe)
    return next(c for c in CENTRE_FIRST if c in safe and threats(c) == best)


def optimal_move(board: Board, solver: Solver, rng: np.random.Generator) -> int:
    """A move that keeps the exact value: the first such move in a random order of the columns."""
    legal = board.legal()
    order = [legal[i] for i in rng.permutation(len(legal))]
    for c in order:
        if board.wins(c):
            return c
    value = solver.solve(board.moves)
    for c in order[:-1]:
        if -solver.solve(board.moves + str(c + 1)) == value:
            return c
    return order[-1]


def play_game(source: str, solver: Solver, rng: np.random.Generator, perfect_from: int) -> str:
    """Play one game to its end; return its move string (the finished position is not a candidate)."""
    board = Board()
    while len(board.moves) < NUM_CELLS:
        legal = board.legal()
        if source == "random":
            col = int(rng.choice(legal))
        elif len(board.moves) >= perfect_from:
            col = optimal_move(board, solver, rng)
        else:
            col = tactical_move(board, rng)
        won = board.wins(col)
        board.play(col)
        if won:
            break
    return board.moves


def write_set(path: Path, rows: list[tuple[str, list[int | None]]], header: list[str]) -> None:
    from games.atomic import atomic_write_text

    text = "".join(f"# {line}\n" for line in header) + "".join(
        moves + " " + " ".join("-" if s is None else str(s) for s in scores) + "\n" for moves, scores in rows
    )
    atomic_write_text(path, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=200, help="positions per set (default 200)")
    parser.add_argument("--size-begin-medium", type=int, default=None, help="override for begin_medium")
    parser.add_argument(
        "--size-begin-hard", type=int, default=10, help="positions in begin_hard (default 10)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--perfect-from", type=int, default=16, help="first ply of perfect play in strong games"
    )
    parser.add_argument("--begin-min-ply", type=int, default=8, help="first ply drawn for begin sets")
    parser.add_argument("--max-games", type=int, default=200000)
    parser.add_argument("--time-budget", type=float, default=3600.0, help="seconds; stop sampling after it")
    parser.add_argument("--output-dir", type=Path, default=POSITIONS_DIR)
    args = parser.parse_args(argv)

    targets = {name: args.size for name in SET_NAMES}
    targets["begin_hard"] = args.size_begin_hard
    if args.size_begin_medium is not None:
        targets["begin_medium"] = args.size_begin_medium
    rng = np.random.default_rng(args.seed)
    solver = Solver(use_book=True)
    kept: dict[str, list[str]] = {name: [] for name in SET_NAMES}
    by_source: dict[str, dict[str, int]] = {name: {"random": 0, "strong": 0} for name in SET_NAMES}
    seen: set[int] = set()
    start = time.perf_counter()
    games = 0
    last_report = start
    while games < args.max_games and any(len(kept[n]) < targets[n] for n in SET_NAMES):
        if time.perf_counter() - start > args.time_budget:
            print("time budget spent; writing what was sampled", file=sys.stderr)
            break
        source = ("random", "strong")[games % 2]
        relaxed = games >= args.max_games // 2  # after half the games, a set takes from either source
        game = play_game(source, solver, rng, args.perfect_from)
        games += 1
        for range_name, (lo, hi) in PLY_RANGES.items():
            if range_name == "begin":
                lo = args.begin_min_ply  # earlier positions take seconds to minutes each to solve
            last = min(hi, len(game) - 1)  # the final (finished) position is never a candidate
            if last < lo:
                continue
            ply = int(rng.integers(lo, last + 1))
            moves = game[:ply]
            key = parse_moves(moves).key
            if key in seen:
                continue
            open_sets = [
                n
                for n in SET_NAMES
                if n.startswith(range_name)
                and len(kept[n]) < targets[n]
                and (relaxed or by_source[n][source] < (targets[n] + 1) // 2)
            ]
            if not open_sets:
                continue
            score = solver.solve(moves)
            name = bucket(ply, score)
            if name in open_sets:
                seen.add(key)
                kept[name].append(moves)
                by_source[name][source] += 1
        now = time.perf_counter()
        if now - last_report > 10:
            last_report = now
            counts = ", ".join(f"{n} {len(kept[n])}/{targets[n]}" for n in SET_NAMES)
            print(f"{games} games, {now - start:.0f} s: {counts}", file=sys.stderr, flush=True)

    args.output_dir.mkdir(parents=True, exist_ok=True)
    for name in SET_NAMES:
        rows = []
        t0 = time.perf_counter()
        for i, moves in enumerate(kept[name], 1):
            rows.append((moves, solver.analyze(moves)))
            if i % 50 == 0:
                print(
                    f"{name}: labelled {i}/{len(kept[name])} ({time.perf_counter() - t0:.0f} s)",
                    file=sys.stderr,
                    flush=True,
                )
        header = [
            (
                f"{name}: {len(rows)} positions ({by_source[name]['random']} from random games, "
                f"{by_source[name]['strong']} from strong games); generated by scripts/make_connect4_sets.py "
                f"--seed {args.seed} --perfect-from {args.perfect_from} --begin-min-ply {args.begin_min_ply}"
            ),
            "format: MOVES s1 .. s7 = exact score (Pons' convention, side to move) of each column, '-' full",
        ]
        write_set(args.output_dir / f"{name}.txt", rows, header)
        print(
            f"wrote {args.output_dir / (name + '.txt')}: {len(rows)} positions", file=sys.stderr, flush=True
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
