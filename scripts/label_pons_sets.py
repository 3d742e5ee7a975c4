"""Label every move of Pascal Pons' Connect Four test sets with its win/draw/loss, into the cache.

Usage::

    python scripts/label_pons_sets.py                                  # all six sets, every line
    python scripts/label_pons_sets.py --set pons-begin-hard --limit 50 # the first 50 lines
    python scripts/label_pons_sets.py --minutes 30                     # stop starting new positions after 30 min

The sets are read from ``../shared/data/connect4/`` beside the checkout (or ``$TABULA_PONS_DIR``)
and the labels go to the cache of ``arena.positions.pons`` (outside the repository); lines already
cached are skipped, so a second run is instant and a stopped run resumes. Each labelled position is
checked: its best move's outcome must equal the sign of the file's score.

Prints one JSON object: ``{"sets": [{"set", "file", "positions" (cached now), "new" (this run),
"seconds" (CPU seconds this run), "seconds_per_position"}, ...], "cache": folder}``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.positions import pons  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--set", dest="sets", action="append", choices=[*pons.SETS, pons.GROUP],
        help="set to label (repeatable; default: all six, 'pons')",
    )
    parser.add_argument("--limit", type=int, help="label the first N lines of each set (default: all)")
    parser.add_argument("--minutes", type=float, help="start no new position after this many minutes")
    args = parser.parse_args(argv)
    names = []
    for item in args.sets or [pons.GROUP]:
        for name in list(pons.SETS) if item == pons.GROUP else [item]:
            if name not in names:
                names.append(name)
    deadline = time.monotonic() + 60 * args.minutes if args.minutes else None
    from games.connect4.solver import Solver

    solver = Solver()
    rows = []
    for name in names:
        rows.append(pons.label_set(name, args.limit, solver, deadline=deadline))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(json.dumps({"sets": rows, "cache": str(pons.cache_dir())}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
