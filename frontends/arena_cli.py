"""``arena``: matches, round-robin Elo ladders and accuracy against perfect play.

Usage::

    arena PLAYER_A PLAYER_B --game connect4 --games 20 [--seed 0] [--json] [--out games.json]
    arena --ladder random uct:sims=1000 alphabeta:depth=3 solver --game connect4 --games 10
    arena accuracy PLAYER --game connect4 [--set middle_easy ...] [--limit N] [--json]
    arena accuracy PLAYER --game connect4 --set pons   (Pons' six sets; or --set pons-end-easy ...)
    arena accuracy PLAYER --game connect4 --set pons-begin-hard --chosen-moves [--workers 2]
    arena accuracy PLAYER --game pig --exact   (its policy against optimal play, exactly, each seat)
    arena accuracy PLAYER --against OTHER --game pig   (both on the same positions, McNemar's test)
    arena expected-value A.json B.json [--json]     # poker policies, exactly: frontends/policy_compare_cli.py

Players are specs (``arena.specs``): ``random``, ``minimax``, ``alphabeta:depth=5``,
``uct:sims=1000``, ``solver``, ``mcts:model=PATH,sims=200``, ``policy:model=PATH``, ``human``.
Each player's seed is spawned from ``--seed`` unless its spec sets ``seed=``; the random openings
use their own stream from the same seed, so a command line reproduces its games exactly.

Exit status: 0 on success, 2 for a usage error (bad spec, game, option or model file).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

import games
from arena.accuracy import (
    chosen_move_rate,
    exact_policy_match,
    expected_random_mistake_rate,
    greedy_policy_fn,
    labelled_sets,
    mistake_rate,
    network_actions,
    player_actions,
    player_policy_fn,
)
from arena.elo import mcnemar_test
from arena.match import run_ladder, run_match
from arena.players import HumanPlayer, HumanQuit, MCTSPlayer
from arena.positions import position_sets
from arena.positions.exhaustive import every_position_labelled_set
from arena.specs import build_player, parse_spec
from frontends.game_text import state_after
from frontends.policy_compare_cli import main as compare_main
from games.atomic import atomic_write_text
from games.checks import int_argument
from games.exhaustive import MAX_EXHAUSTIVE_PLIES
from networks.loading import resolve_model
from networks.onnx_evaluator import read_sidecar

DEFAULT_GAMES = 20
SPEC_HELP = """player specs (every kind also takes seed=INT):
  random                     uniformly random legal moves
  minimax                    exhaustive minimax (tic-tac-toe)
  alphabeta:depth=5          alpha-beta to 5 plies; alphabeta:time=1.0 for 1 s per move
  alphabeta:depth=4,model=PATH  the hybrid: alpha-beta with the network's value and policy
  uct:sims=1000              UCT with random rollouts (c=1.4 by default)
  solver                     perfect play (Connect Four: Pons' solver and opening book, about 15 s a game)
  mcts:model=PATH,sims=200   network + PUCT search (PATH: export folder or .pt file; batch=N leaves per call: 1, 8 with time=)
  mcts:model=PATH,search=gumbel  network + another search of mcts/registry.py (gumbel, uct)
  policy:model=PATH          the network's policy alone
  human                      moves typed on stdin"""


def _console(stream):
    from rich.console import Console  # heavy dependency (rich): imported where it is used

    return Console(file=stream, width=110, highlight=False, soft_wrap=True)


def _format_elo(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.1f}"


def _write_json_atomic(path: str, payload: dict) -> None:
    """``payload`` as JSON (infinite Elo as ``Infinity``) at ``path``, atomically (games/atomic.py)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, json.dumps(payload, indent=1) + "\n")


def _common_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game", default=None, type=games.game_name_argument,
        help="game id (default: the game of the first model=PATH player, else connect4)",
    )
    parser.add_argument(
        "--seed", type=int_argument(0), default=0, help="seed of openings and players (default 0)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")


def _spec_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """A parser whose help ends with the grammar of player specs (``SPEC_HELP``), kept as written."""
    return argparse.ArgumentParser(
        prog=prog, description=description, epilog=SPEC_HELP, formatter_class=argparse.RawDescriptionHelpFormatter
    )


def _match_parser() -> argparse.ArgumentParser:
    parser = _spec_parser(
        "arena",
        "Play a match or a round-robin ladder between player specs; "
        "'arena accuracy PLAYER' measures mistakes against perfect play (options: 'arena accuracy --help').",
    )
    parser.add_argument("players", nargs="*", metavar="PLAYER", help="two player specs (A then B)")
    parser.add_argument("--ladder", nargs="+", metavar="PLAYER", help="round robin between these specs")
    parser.add_argument(
        "--games",
        type=int_argument(1),
        default=DEFAULT_GAMES,
        help=f"games per match, colours alternated (default {DEFAULT_GAMES})",
    )
    parser.add_argument(
        "--opening-plies",
        type=int_argument(0),
        default=None,
        help="seeded random plies opening each pair of games (default 1 for tictactoe, 2 for connect4)",
    )
    parser.add_argument("--start", default="", metavar="MOVES", help="move string every game starts from")
    parser.add_argument("--confidence", type=float, default=0.95, help="interval level (default 0.95)")
    parser.add_argument(
        "--prior-draws",
        type=float,
        default=1.0,
        help="ladder: virtual draws per pair (BayesElo-style prior, default 1)",
    )
    parser.add_argument("--out", metavar="FILE", help="write the summary and every game's move string (JSON)")
    _common_options(parser)
    return parser


def _accuracy_parser() -> argparse.ArgumentParser:
    parser = _spec_parser(
        "arena accuracy",
        "Share of solver-labelled positions where PLAYER's move is a mistake "
        "(another move has a strictly better outcome: win > draw > loss).",
    )
    parser.add_argument("player", metavar="PLAYER", help="player spec")
    parser.add_argument(
        "--set",
        dest="sets",
        action="append",
        metavar="NAME",
        help="labelled set (repeatable; default: the game's own sets; tic-tac-toe and any game of at "
        f"most {MAX_EXHAUSTIVE_PLIES} plies, such as one of your own: 'all', every position labelled by "
        "exhaustive search). Connect "
        "Four also has Pascal Pons' six test sets, measured only when named: pons-end-easy, "
        "pons-middle-easy, pons-middle-medium, pons-begin-easy, pons-begin-medium, pons-begin-hard, "
        "or 'pons' for all six (read from ../shared/data/connect4/ or $TABULA_PONS_DIR; label them "
        "first with scripts/label_pons_sets.py)",
    )
    parser.add_argument(
        "--set-file",
        dest="set_files",
        action="append",
        metavar="PATH",
        help="a file of labelled positions in the game's format (Connect Four: arena/positions/connect4; repeatable)",
    )
    parser.add_argument("--limit", type=int_argument(1), help="use the first N positions of each set")
    parser.add_argument(
        "--chosen-moves",
        action="store_true",
        help="Pons' sets only: measure every line, solving just the move PLAYER chose where the set's "
        "labels lack it (one null-window solve a move, cached; for pons-begin-hard, whose full labels "
        "cost 23 CPU s a position). The random player's rate is not reported.",
    )
    parser.add_argument(
        "--workers", type=int_argument(1), default=1, help="with --chosen-moves: processes solving at once"
    )
    parser.add_argument(
        "--against",
        metavar="OTHER",
        help="a second player spec measured on the same positions: each set then also gets OTHER's "
        "mistakes and McNemar's exact test on the positions where exactly one of the two erred "
        "(arena.elo.mcnemar_test; p below 0.05 says the two differ)",
    )
    parser.add_argument(
        "--exact",
        action="store_true",
        help="Pig: the exact win probability of PLAYER's policy (a network's greedy policy alone, any "
        "other player asked once per state) against the optimal player from each seat, by solving "
        "the Markov chain the two policies make",
    )
    _common_options(parser)
    return parser


def _players(specs: list[str], game, seed: int):
    parsed = [parse_spec(s) for s in specs]
    sequence = np.random.SeedSequence(seed)
    opening_seed, *player_seeds = sequence.spawn(len(parsed) + 1)
    players = [
        build_player(spec, game, seed=int(child.generate_state(1)[0]))
        for spec, child in zip(parsed, player_seeds)
    ]
    return parsed, players, np.random.default_rng(opening_seed)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``arena``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)

    if argv and argv[0] == "expected-value":  # poker policies, exactly: frontends/policy_compare_cli.py

        return compare_main(argv[1:])
    try:
        if argv and argv[0] == "accuracy":
            args = _accuracy_parser().parse_args(argv[1:])
            args.game = args.game or _game_of_models([args.player])
            return _accuracy(args)
        parser = _match_parser()
        args = parser.parse_args(argv)
        args.game = args.game or _game_of_models(list(args.ladder or []) + list(args.players))
        if args.opening_plies is None:
            # tic-tac-toe 1, Connect Four 2; none before a human, who would not see them played
            human = any(parse_spec(spec).kind == "human" for spec in args.players)
            args.opening_plies = 0 if human else games.knowledge(games.make(args.game)).default_opening_plies
        if not 0.0 < args.confidence < 1.0:
            parser.error(f"--confidence: expected a level in (0, 1), got {args.confidence}")
        if not args.prior_draws >= 0.0:
            parser.error(f"--prior-draws: expected a number >= 0, got {args.prior_draws}")
        if args.ladder:
            if args.players:
                parser.error("give either two players or --ladder P1 P2 ..., not both")
            return _ladder(args)
        if len(args.players) != 2:
            parser.error(f"expected two player specs (A and B), got {len(args.players)}")
        return _match(args)
    except (ValueError, FileNotFoundError) as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return 2
    except HumanQuit:
        print("arena: stopped by the human player", file=sys.stderr)
        return 1


def _game_of_models(specs: list[str]) -> str:
    """The game of the first ``model=PATH`` in ``specs`` (export folder or weights file), else
    ``connect4``."""
    for spec in specs:
        for option in spec.partition(":")[2].split(","):
            key, _, value = option.partition("=")
            if key.strip() != "model" or not value:
                continue
            path, _ = resolve_model(value)  # a run folder's best/, a shipped model's name
            if path.is_dir() or path.name in ("model.json", "model.onnx"):
                return str(read_sidecar(path)["game"]["name"])
            if path.is_file():
                # heavy dependency (torch): imported where it is used
                from networks.checkpoint import load_model

                return load_model(path)[1].game_name
    return "connect4"


def _match(args) -> int:
    game = games.make(args.game)
    _, (player_a, player_b), rng = _players(args.players, game, args.seed)

    humans = [player for player in (player_a, player_b) if isinstance(player, HumanPlayer)]
    if humans and args.opening_plies:
        print(f"each game starts with {args.opening_plies} random move(s), shown on the first board "
              "(--opening-plies 0: from the start)", file=sys.stdout)

    def progress(record) -> None:  # only for a person watching a terminal
        for human in humans:  # a human sees how the game ended
            human_first = record.a_first == (human is player_a)
            human.game_over(game, state_after(game, game.parse_moves(record.moves)), 0 if human_first else 1)
        if sys.stderr.isatty():
            first = "A" if record.a_first else "B"
            print(
                f"game {record.index + 1}/{args.games}: {record.outcome_for_a} for A ({first} first) "
                f"{record.moves}",
                file=sys.stderr,
            )

    result = run_match(
        game, player_a, player_b, args.games, rng, args.opening_plies, args.start, on_game=progress
    )
    summary = result.to_dict(args.confidence)
    summary.update(seed=args.seed, opening_plies=args.opening_plies, start=args.start)
    if args.out:
        _write_json_atomic(
            args.out,
            result.to_dict(args.confidence, include_games=True)
            | {"seed": args.seed, "opening_plies": args.opening_plies, "start": args.start},
        )
    if args.json:
        print(json.dumps(summary))
        return 0
    _print_match(result, args)
    return 0


def _print_match(result, args) -> None:
    from rich.table import Table  # heavy dependency (rich): imported where it is used

    stats = result.statistics(args.confidence)
    console = _console(sys.stdout)
    console.print(
        f"{result.player_a} (A) vs {result.player_b} (B): {result.game}, {result.num_games} games, "
        f"seed {args.seed}, {args.opening_plies} random opening plies"
    )
    table = Table("A's record", "wins", "draws", "losses", box=None)
    for label, record in (("overall", stats), ("A first", result.as_first), ("A second", result.as_second)):
        table.add_row(label, str(record.wins), str(record.draws), str(record.losses))
    console.print(table)
    level = f"{100 * args.confidence:g}%"
    console.print(f"score {stats.score:.3f} ({level} CI {stats.score_ci[0]:.3f} to {stats.score_ci[1]:.3f})")
    console.print(
        f"Elo {_format_elo(stats.elo)} ({level} CI {_format_elo(stats.elo_ci[0])} "
        f"to {_format_elo(stats.elo_ci[1])})"
    )
    console.print(f"distinct games {result.distinct_games}/{result.num_games}")


def _ladder(args) -> int:
    from rich.table import Table  # heavy dependency (rich): imported where it is used

    game = games.make(args.game)
    specs, players, rng = _players(args.ladder, game, args.seed)
    anchors = [i for i, spec in enumerate(specs) if spec.kind == "random"]
    anchor = anchors[0] if anchors else 0
    console = _console(sys.stderr if args.json else sys.stdout)

    def progress(i, j, match):
        console.print(
            f"{match.player_a} vs {match.player_b}: {match.player_a} +{match.wins} ={match.draws} -{match.losses}"
        )

    ladder = run_ladder(
        game,
        players,
        args.games,
        rng,
        anchor,
        args.opening_plies,
        args.start,
        args.prior_draws,
        args.confidence,
        on_match=progress,
    )
    summary = ladder.to_dict() | {"game": game.name, "seed": args.seed, "games_per_pair": args.games}
    if args.out:
        payload = dict(summary)
        payload["matches"] = [m.to_dict(args.confidence, include_games=True) for m in ladder.matches.values()]
        _write_json_atomic(args.out, payload)
    if args.json:
        print(json.dumps(summary))
        return 0
    points, played = ladder.points_and_games()
    level = f"{100 * args.confidence:g}%"
    table = Table(
        "rank",
        "player",
        "Elo",
        f"{level} interval",
        "games",
        "score",
        title=f"Bradley-Terry ratings, {game.name}, anchor {ladder.names[anchor]} = 0",
    )
    ratings = ladder.ratings
    for rank, i in enumerate(np.argsort(-ratings.ratings), 1):
        table.add_row(
            str(rank),
            ladder.names[i],
            f"{ratings.ratings[i]:+.0f}",
            f"{ratings.intervals[i, 0]:+.0f} to {ratings.intervals[i, 1]:+.0f}",
            str(int(played[i].sum())),
            f"{points[i].sum() / played[i].sum():.3f}",
        )
    console.print(table)
    return 0


def _accuracy(args) -> int:
    from rich.table import Table  # heavy dependency (rich): imported where it is used

    game = games.make(args.game)
    if args.against is not None and (args.exact or args.chosen_moves):
        raise ValueError("--against: expected the labelled sets' mistakes, without --exact and --chosen-moves")
    specs = [args.player] if args.against is None else [args.player, args.against]
    _, players, _ = _players(specs, game, args.seed)
    player = players[0]

    def choose(positions, player=player):
        if isinstance(player, MCTSPlayer):  # a network: one batched search per set (as training does)
            return network_actions(game, player.evaluate_fn, player.config, positions, rng=player.rng)
        return player_actions(game, player, positions)

    if args.exact:
        return _exact_accuracy(args, game, player)
    if args.chosen_moves:
        return _chosen_move_accuracy(args, game, choose)
    wanted: list | None = list(args.sets) if args.sets else None
    if args.set_files:
        wanted = (wanted or []) + [position_sets(game).read_labelled_set(path) for path in args.set_files]
    sets = every_position_sets(game, wanted)
    if sets is None:
        sets = labelled_sets(game, wanted)
    if not sets:
        raise ValueError(
            f"no labelled position sets for {game.name}, and its games ({game.max_game_length} plies) are too long "
            f"for the exhaustive solver (at most {MAX_EXHAUSTIVE_PLIES}); measure it on a labelled set given as "
            "a LabelledSet (arena.accuracy.labelled_sets) or register the game's sets in arena/positions"
        )
    rows = {}
    for name, labelled in sets.items():
        if args.limit is not None and args.limit < len(labelled):
            labelled = labelled.head(args.limit)
        actions = choose(labelled)
        rows[name] = _accuracy_row(labelled, actions)
        rows[name]["random_expected_rate"] = expected_random_mistake_rate(labelled)
        if args.against is not None:
            other = choose(labelled, players[1])
            rows[name]["against"] = _accuracy_row(labelled, other)
            rows[name]["mcnemar"] = mcnemar_test(_mistakes_of(labelled, actions), _mistakes_of(labelled, other)).to_dict()
    if args.json:
        out = {"player": args.player, "game": game.name, "sets": rows}
        if args.against is not None:
            out["against"] = args.against
        print(json.dumps(out))
        return 0
    table = Table(
        "set",
        "positions",
        "mistakes",
        "mistake rate",
        "random player",
        title=f"{args.player}: mistakes against perfect play ({game.name})",
    )
    with_values = any("mean_win_probability_loss" in row for row in rows.values())
    if with_values:
        table.add_column("mean win-probability loss")
    for name, row in rows.items():
        cells = [
            name,
            str(row["positions"]),
            str(row["mistakes"]),
            f"{row['mistake_rate']:.4%}",
            f"{row['random_expected_rate']:.2%}",
        ]
        if with_values:
            cells.append(f"{row.get('mean_win_probability_loss', 0.0):.6f}")
        table.add_row(*cells)
    _console(sys.stdout).print(table)
    if args.against is not None:
        paired = Table(
            "set", "positions", "PLAYER mistakes", "OTHER mistakes", "only PLAYER", "only OTHER", "McNemar p",
            title=f"{args.player} (PLAYER) against {args.against} (OTHER), on the same positions",
        )
        for name, row in rows.items():
            test = row["mcnemar"]
            paired.add_row(
                name, str(test["positions"]), str(test["mistakes_a"]), str(test["mistakes_b"]),
                str(test["only_a"]), str(test["only_b"]), f"{test['p_value']:.3g}",
            )
        _console(sys.stdout).print(paired)
    return 0


def _mistakes_of(labelled, actions) -> np.ndarray:
    """``[N]`` bool: True where ``actions`` is a mistake (``mistake_rate`` checks the actions first)."""
    mistake_rate(labelled, actions)
    return labelled.mistake_mask[np.arange(len(labelled)), np.asarray(actions)]


def _accuracy_row(labelled, actions) -> dict:
    """``{"positions", "mistakes", "mistake_rate"}`` of ``actions`` on ``labelled``, and in a game
    with chance ``"mean_win_probability_loss"`` (how much win probability is given away)."""
    rate = mistake_rate(labelled, actions)
    row = {"positions": len(labelled), "mistakes": round(rate * len(labelled)), "mistake_rate": rate}
    if labelled.values is not None:
        row["mean_win_probability_loss"] = float(labelled.value_losses(actions).mean()) if len(labelled) else 0.0
    return row


def every_position_sets(game, wanted: list | None) -> dict | None:
    """``{"all": every position labelled by exhaustive search}`` for a game that ships no labelled
    set of that name but that ``games.exhaustive`` solves (a game of at most
    ``MAX_EXHAUSTIVE_PLIES`` plies, such as one defined outside this repository), when ``wanted``
    is None (the game's own sets: it has none) or ``["all"]``; None otherwise (the named sets)."""
    own = position_sets(game).labelled_set_names()
    if game.max_game_length > MAX_EXHAUSTIVE_PLIES or "all" in own:
        return None
    if (wanted is None and not own) or wanted == ["all"]:
        return {"all": every_position_labelled_set(game)}
    return None


def _exact_accuracy(args, game, player) -> int:
    """``arena accuracy --exact``: the player's policy against optimal play, exactly, from each seat."""
    from rich.table import Table  # heavy dependency (rich): imported where it is used

    evaluate_fn = getattr(player, "evaluate_fn", None)
    policy_fn = greedy_policy_fn(game, evaluate_fn) if evaluate_fn is not None else player_policy_fn(game, player)
    result = exact_policy_match(game, policy_fn)
    if args.json:
        print(json.dumps({"player": args.player, "game": game.name, "policy": "greedy" if evaluate_fn else "player",
                          "exact": result}))
        return 0
    table = Table("seat", "win", "loss", "unfinished", title=f"{args.player}: exact results against optimal play ({game.name})")
    for seat in ("as_first", "as_second"):
        row = result[seat]
        table.add_row(seat.replace("_", " "), f"{row['win']:.6f}", f"{row['loss']:.6f}", f"{row['unfinished']:.2e}")
    table.add_row("mean", f"{result['mean_win']:.6f}", "", "")
    _console(sys.stdout).print(table)
    return 0


def _chosen_move_accuracy(args, game, choose) -> int:
    """``arena accuracy --chosen-moves``: every line of the named sets, only the chosen moves solved."""
    from rich.table import Table  # heavy dependency (rich): imported where it is used

    known = position_sets(game).chosen_move_set_names()
    if not known or args.set_files:
        raise ValueError(
            f"--chosen-moves measures the sets a game lists for it (Connect Four: Pons' sets, --set pons-...; "
            f"not --set-file); {game.name} has {known or 'none'}"
        )
    groups = position_sets(game).labelled_set_groups()
    names: list[str] = []
    for item in args.sets or list(groups):
        members = groups.get(item, [item])
        unknown = [name for name in members if name not in known]
        if unknown:
            raise ValueError(f"--chosen-moves: unknown set {unknown[0]!r}; expected one of {known + list(groups)}")
        names.extend(members)
    rows = {name: chosen_move_rate(game, name, choose, limit=args.limit, workers=args.workers) for name in names}
    for row in rows.values():
        del row["mistake_mask"]  # the counts are the report
    if args.json:
        print(json.dumps({"player": args.player, "game": game.name, "chosen_moves": True, "sets": rows}))
        return 0
    table = Table(
        "set", "positions", "mistakes", "mistake rate", "moves solved now", title=f"{args.player}: mistakes against perfect play"
    )
    for name, row in rows.items():
        table.add_row(
            name, str(row["positions"]), str(row["mistakes"]), f"{row['mistake_rate']:.4%}", str(row["solved"])
        )
    _console(sys.stdout).print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
