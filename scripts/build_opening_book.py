"""Build the Connect Four opening book: exact scores of every position with at most ``--depth`` plies.

Usage::

    python scripts/build_opening_book.py --depth 3            # writes games/connect4/book/opening_book.npz
    python scripts/build_opening_book.py --depth 4 --progress /tmp/book4.txt   # resumable

Method: enumerate every position reachable in exactly ``depth`` plies, one per mirror pair
(canonical key ``min(key, mirror(key))``), in move-string order so that consecutive positions
share subtrees in the solver's transposition table, and solve each exactly (Pons' solver in
``games.connect4.solver``, without a book). Then back the scores up ply by ply to the empty board
with negamax over the children (an immediate win at ply ``p`` scores ``(43 - p) // 2``). Only
the deepest layer costs search time. Each solved position is appended to the ``--progress``
file (``KEY SCORE`` per line) so an interrupted run resumes where it stopped. A progress line
goes to stderr every ``--report-every`` positions with the rate and an estimate of the time left.

The output (format in ``games/connect4/book/__init__.py``) is written atomically.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root

import numpy as np

from games.atomic import atomic_write
from games.connect4.book import BOOK_PATH
from games.connect4.layout import mirror_bits, move_bit, top_mask
from games.connect4.solver import (
    MIN_SCORE,
    NUM_CELLS,
    WIDTH,
    Position,
    Solver,
    has_four,
    parse_moves,
)


def canonical_key(position: int, mask: int) -> int:
    """``min(key, mirror(key))`` for ``key = position + mask`` (Python ints)."""
    key = position + mask
    return min(key, int(mirror_bits(key)))


def children(p: Position):
    """Yield ``(column, won, child)`` for each playable column of ``p`` (0-based column)."""
    for col in range(WIDTH):
        if p.mask & top_mask(col):
            continue
        move = move_bit(p.mask, col)
        won = has_four(p.position | move)
        yield col, won, Position(p.position ^ p.mask, p.mask | move, p.num_moves + 1)


def layers(depth: int, root: str = "") -> list[dict[int, tuple[str, Position]]]:
    """Unique (mod mirror) unfinished positions per ply ``len(root)..depth`` below ``root``.

    Returns one dict per ply, canonical key -> (moves, position).
    """
    p = parse_moves(root, allow_empty=True)
    out = [{canonical_key(p.position, p.mask): (root, p)}]
    for _ in range(depth - len(root)):
        nxt: dict[int, tuple[str, Position]] = {}
        for moves, p in sorted(out[-1].values()):
            for col, won, child in children(p):
                if won or child.num_moves >= NUM_CELLS:
                    continue
                nxt.setdefault(canonical_key(child.position, child.mask), (moves + str(col + 1), child))
        out.append(nxt)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=3, help="deepest ply stored (default 3)")
    parser.add_argument(
        "--root", default="", help="build only the subtree below this position (for tests and partial books)"
    )
    parser.add_argument("--output", type=Path, default=BOOK_PATH, help="output .npz")
    parser.add_argument(
        "--progress", type=Path, default=None, help="resumable KEY SCORE log of the deepest layer"
    )
    parser.add_argument(
        "--tt-size",
        type=int,
        default=67108859,
        help="transposition-table entries (odd, default the prime 2**26 - 5: 320 MiB)",
    )
    parser.add_argument(
        "--shard",
        default=None,
        help="K/N: solve only every N-th deepest position from the K-th (0-based) and write no book; "
        "run N shards with their own --progress files, concatenate them and run once more without --shard",
    )
    parser.add_argument("--report-every", type=int, default=10, help="positions between progress lines")
    args = parser.parse_args(argv)
    try:
        root = parse_moves(args.root, allow_empty=True)
    except ValueError as error:
        parser.error(f"--root: {error}")
    if not root.num_moves <= args.depth <= root.num_moves + 12 or args.depth >= NUM_CELLS:
        parser.error(
            f"--depth must be in {root.num_moves}..{min(root.num_moves + 12, NUM_CELLS - 1)}, got {args.depth}"
        )

    levels = layers(args.depth, args.root)
    print(f"positions per ply (one per mirror pair): {[len(x) for x in levels]}", file=sys.stderr)
    deepest = levels[-1]
    scores: dict[int, int] = {}
    if args.progress is not None and args.progress.is_file():
        for line in args.progress.read_text().splitlines():
            if line.strip():
                k, s = line.split()
                scores[int(k)] = int(s)
        print(f"resumed {len(scores)} solved positions from {args.progress}", file=sys.stderr)
    solver = Solver(tt_size=args.tt_size, use_book=False)
    todo = sorted((moves, key, p) for key, (moves, p) in deepest.items())
    if args.shard is not None:
        try:
            k, n = (int(x) for x in args.shard.split("/"))
        except ValueError:
            parser.error(f"--shard must be K/N, got {args.shard!r}")
        if not 0 <= k < n:
            parser.error(f"--shard K/N needs 0 <= K < N, got {args.shard!r}")
        todo = todo[k::n]  # split the whole layer, so shards never depend on what is solved
    todo = [t for t in todo if t[1] not in scores]
    start = time.perf_counter()
    nodes = 0
    for i, (moves, key, p) in enumerate(todo, 1):
        score, node_counts = solver.solve_parsed([p])
        scores[key] = int(score[0])
        nodes += int(node_counts[0])
        if args.progress is not None:
            with open(args.progress, "a") as log:
                log.write(f"{key} {scores[key]}\n")
        if i % args.report_every == 0 or i == len(todo):
            elapsed = time.perf_counter() - start
            left = elapsed / i * (len(todo) - i)
            print(
                f"ply {args.depth}: {i}/{len(todo)} solved, {elapsed:.0f} s, {nodes / elapsed:.3g} nodes/s, "
                f"about {left:.0f} s left (last {moves!r} = {scores[key]})",
                file=sys.stderr,
                flush=True,
            )

    if args.shard is not None:
        print(f"shard {args.shard} done; no book written", file=sys.stderr)
        return 0

    # back up to the root, ply by ply
    for index in range(len(levels) - 2, -1, -1):
        for key, (_, p) in levels[index].items():
            best = None
            for _, won, child in children(p):
                if won:
                    s = (NUM_CELLS + 1 - p.num_moves) // 2
                elif child.num_moves == NUM_CELLS:
                    s = 0  # the last move filled the board without four in a row
                else:
                    s = -scores[canonical_key(child.position, child.mask)]
                best = s if best is None else max(best, s)
            scores[key] = best
        print(f"ply {root.num_moves + index}: {len(levels[index])} positions backed up", file=sys.stderr)

    keys = np.array(sorted(k for level in levels for k in level), dtype=np.int64)
    values = np.array([scores[int(k)] - MIN_SCORE + 1 for k in keys], dtype=np.int8)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(
        args.output, lambda handle: np.savez_compressed(handle, keys=keys, values=values, depth=np.int64(args.depth))
    )
    print(
        f"wrote {len(keys)} positions (plies {root.num_moves}..{args.depth}) to {args.output}, "
        f"{args.output.stat().st_size} bytes; root {args.root!r} scores {scores[canonical_key(root.position, root.mask)]}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
