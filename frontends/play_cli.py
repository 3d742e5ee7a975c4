"""``play``: a human against an exported model in the terminal, the text engine protocol
(``frontends/engine.py``) and the web page (``frontends/web/``).

Usage::

    play --model RUN/best [--game connect4] [--sims 200] [--human-first | --human-second]
    play --model RUN/best --opponent alphabeta:depth=4      # the model against any player spec
    play --engine --model RUN/best [--sims 200]             # docs/engine_protocol.md
    play --game kuhn|leduc --policy FILE [--hands 10]        # poker against a policy: frontends/poker_play.py
    play --web [--model RUN/best] [--host 127.0.0.1] [--port 8000]  # in a browser, every game: docs/web.md

The model is an export folder (``model.onnx`` + ``model.json``, evaluated with ONNX Runtime, no
torch) or a ``.pt`` model file or training checkpoint (torch). Trainer code is never imported.
The model plays with PUCT search (``--search`` names another of ``mcts.registry``; ``--sims``
simulations, one leaf per network call, no noise, most visited move); ``--sims 0`` plays the network's policy alone. The network is averaged over the
game's symmetries at every evaluation unless ``--no-symmetries`` is given
(``mcts.evaluators.symmetry_averaged``).

During a game the human types a move in the game's notation (Connect Four: a column 1-7;
tic-tac-toe: a cell 1-9, row by row from the top left), or ``undo`` (take back your last move and
the reply), ``hint`` (the model's choice for you) or ``quit``. Before each of your moves the board,
the model's policy (priors and visit counts per legal move) and its evaluation are shown; the
evaluation always names its side ("for you (O)") and says who is ahead ("X is winning"). A
malformed or illegal move re-prompts with the legal moves. A finished game prints the result and
its move string.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import games
from arena.model_player import load_model, make_model_player, played_search
from arena.players import Analysis, parse_move_token
from arena.specs import build_player, parse_spec
from frontends.engine import MAX_SIMULATIONS, Engine
from frontends.game_text import (
    PLAYER_SYMBOLS,
    event_players,
    result_text,
    state_after,
    verdict,
    write_text,
)
from frontends.poker_play import exit_status, wants_poker
from frontends.poker_play import main as poker_main
from frontends.web.catalogue import WebOptions, build_catalogue, served_models
from frontends.web.server import bind, is_loopback, serve
from mcts import names as search_names
from mcts.evaluators import symmetry_averaged
from networks.loading import model_summary, resolve_model
from networks.shipped import shipped_names

DEFAULT_SIMULATIONS = 200
#: most simulations the web page's budget slider reaches (``--sims`` raises it when larger)
WEB_MAX_SIMULATIONS = 3200


#: the end of ``play --help``: the poker mode, whose options are its own (frontends/poker_play.py)
POKER_HELP = """poker (imperfect information, no model): a human against a CFR policy, hands dealt at random
  play --game kuhn --policy FILE [--hands 10] [--seed 0] [--human-first | --human-second]
  play --game leduc --policy FILE   (FILE: a policy JSON written by `cfr --game leduc ...`, or 'uniform')
  play --game kuhn --help           the poker mode's own options"""


class UsageError(ValueError):
    """A bad command line; ``main`` prints it and returns 2."""


def evaluation_line(analysis: Analysis, side: int, side_label: str) -> str:
    """One line with the model's evaluation from the view of ``side`` (0 = X), naming that side.

    Example: ``evaluation for you (O): search -1.000, network -0.120; X is winning``.
    """
    search = round(analysis.value_for(side), 3) + 0.0  # + 0.0: never print "-0.000"
    network = round(analysis.network_value if side == analysis.to_move else -analysis.network_value, 3) + 0.0
    value_x = analysis.value_for(0)
    searched = int(analysis.visit_counts.sum()) > 0
    parts = f"search {search:+.3f}, network {network:+.3f}" if searched else f"network {network:+.3f}"
    return f"evaluation for {side_label} ({PLAYER_SYMBOLS[side]}): {parts}; {verdict(value_x)}"


def policy_table(game, state: tuple, analysis: Analysis) -> str:
    """The model's priors (and visit counts, after a search) for each legal move, as text."""
    from rich.console import Console  # heavy dependency (rich): imported where it is used
    from rich.table import Table

    legal = game.actions(state)
    table = Table(box=None, show_header=True, pad_edge=False)
    table.add_column("move")
    for action in legal:
        table.add_column(game.action_to_string(action), justify="right")
    table.add_row("policy", *[f"{analysis.priors[a]:.2f}" for a in legal])
    if int(analysis.visit_counts.sum()) > 0:
        table.add_row("visits", *[str(int(analysis.visit_counts[a])) for a in legal])
    console = Console(width=120, file=_NullWriter(), highlight=False)
    with console.capture() as capture:
        console.print(table)
    return capture.get().rstrip("\n")


class _NullWriter:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


# ----------------------------------------------------------------------------- human session
class HumanSession:
    """A human against the model (or the model against an opponent player), text in and out."""

    def __init__(
        self, game, model, human_side: int, start: list[int], stdin, stdout, opponent=None, show_analysis=True,
        dice=None,
    ):
        self.game = game
        # games with chance: the dice, a seeded generator (no player, human or model, rolls them)
        self.dice = dice if dice is not None else np.random.default_rng(0)
        self.show_analysis = show_analysis  # the model's policy and evaluation around each move
        self.model = model
        self.human_side = human_side
        self.moves = list(start)
        self.start_length = len(start)
        self.stdin = stdin
        self.stdout = stdout
        self.opponent = opponent

    def say(self, text: str = "") -> None:
        write_text(self.stdout, text + "\n")

    def finish(self, state: tuple | None, abandoned: bool = False) -> None:
        moves = self.game.format_moves(self.moves) or "(none)"
        if abandoned:
            self.say(f"game abandoned; moves: {moves}")
        else:
            self.say(self.game.render(state))
            self.say(f"result: {result_text(self.game, state)}")
            self.say(f"moves: {moves}")

    def run(self) -> int:
        game = self.game
        label = "you" if self.opponent is None else self.opponent.name
        self.say(
            f"{game.name}: {label} ({PLAYER_SYMBOLS[self.human_side]}) against {self.model.name} "
            f"({PLAYER_SYMBOLS[1 - self.human_side]})"
        )
        while True:
            state = state_after(game, self.moves)
            if game.terminal_test(state):
                self.finish(state)
                return 0
            if game.is_chance_state(state):
                outcome = int(game.sample_chance(np.asarray([state], dtype=np.int64), self.dice)[0])
                self.moves.append(outcome)
                self.say(f"the dice: {game.chance_outcome_to_string(outcome)}")
                continue
            to_move = game.player(state)
            if to_move != self.human_side:
                analysis = self.model.analyze(game, state)
                self.moves.append(analysis.best_action)
                played = f"model plays {game.action_to_string(analysis.best_action)}"
                if self.show_analysis:
                    played += f" ({evaluation_line(analysis, to_move, 'the model')})"
                self.say(played)
                continue
            if self.opponent is not None:
                action = self.opponent.select_action(game, state)
                self.say(f"{self.opponent.name} plays {game.action_to_string(action)}")
                self.moves.append(int(action))
                continue
            if not self._human_turn(state):
                self.finish(None, abandoned=True)
                return 0

    def _human_turn(self, state: tuple) -> bool:
        """Read lines until the human moves (True) or quits (False)."""
        game = self.game
        analysis = self.model.analyze(game, state) if self.show_analysis else None  # else on `hint`
        legal_text = " ".join(game.action_to_string(a) for a in game.actions(state))
        self.say(game.render(state))
        self.say(
            f"{PLAYER_SYMBOLS[self.human_side]} to move (you); moves so far: "
            f"{game.format_moves(self.moves) or '(none)'}"
        )
        if analysis is not None:
            self.say(policy_table(game, state, analysis))
            self.say(evaluation_line(analysis, self.human_side, "you"))
        while True:
            write_text(self.stdout, f"your move ({legal_text}; undo, hint, quit): ")
            line = self.stdin.readline()
            if not line:
                return False
            try:
                outcome = self._command(state, analysis, line.strip(), legal_text)
            except Exception as error:  # noqa: BLE001 - a bad line must never end the session with a traceback
                self.say(f"error: {error}")
                continue
            if outcome is not None:
                return outcome

    def _command(self, state, analysis, text: str, legal_text: str) -> bool | None:
        game = self.game
        if text == "quit":
            return False
        if text == "hint":
            if analysis is None:
                analysis = self.model.analyze(game, state)
            self.say(f"hint: the model would play {game.action_to_string(analysis.best_action)}")
            return None
        if text == "undo":
            # chance outcomes have no player (-1): undo never stops at one, so taking a move back
            # never rolls the dice again
            players = event_players(game, self.moves)
            human_moves = [i for i in range(self.start_length, len(self.moves)) if players[i] == self.human_side]
            if not human_moves:
                self.say("nothing to undo")
                return None
            del self.moves[human_moves[-1] :]
            self.say(f"took back your last move; moves: {game.format_moves(self.moves) or '(none)'}")
            return True  # the position changed: show it again
        action = parse_move_token(game, state, text)
        if action is None:
            self.say(f"illegal or malformed move {text[:40]!r}; legal moves: {legal_text}")
            return None
        self.moves.append(action)
        return True


# ----------------------------------------------------------------------------- command line
def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="play",
        description="Play against an exported model, or run it as a text engine.",
        epilog=POKER_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--model",
        metavar="PATH|NAME",
        help="export folder, .pt model/checkpoint, a training run folder (its best/ is used), or a "
        f"shipped model's name ({', '.join(shipped_names()) or 'none shipped'}); default: the "
        "shipped model of --game (of connect4 without --game, else the first shipped); --web: every "
        "game is served, each with its shipped model, and --model for its own game",
    )
    parser.add_argument("--game", type=games.game_name_argument, help="game id (default: the model's)")
    parser.add_argument(
        "--sims",
        type=int,
        default=DEFAULT_SIMULATIONS,
        help=f"simulations per move (default {DEFAULT_SIMULATIONS}; 0: policy alone)",
    )
    parser.add_argument(
        "--search",
        choices=search_names(),
        default=None,
        help="the model's search, a name of mcts/registry.py (default: the one its model.json "
        "records to play with, else puct)",
    )
    side = parser.add_mutually_exclusive_group()
    side.add_argument(
        "--human-first", dest="human_side", action="store_const", const=0, help="you play X (default)"
    )
    side.add_argument("--human-second", dest="human_side", action="store_const", const=1, help="you play O")
    parser.add_argument("--opponent", metavar="SPEC", help="let a player spec take the human's seat")
    parser.add_argument("--position", default="", metavar="MOVES", help="start from this move string")
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the model's and the opponent's generators"
    )
    parser.add_argument(
        "--threads", type=int, default=None,
        help="the network's CPU threads (default 1, without spinning: the fastest measured for the "
        "project's networks, docs/results.md)",
    )
    parser.add_argument(
        "--no-analysis",
        dest="show_analysis",
        action="store_false",
        help="hide the model's policy and evaluation (\"hint\" still answers)",
    )
    parser.add_argument(
        "--symmetries",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="average the network over the game's symmetries at every evaluation (default; Connect "
        "Four: the position and its mirror image, twice the network's work per simulation; fewer "
        "mistakes on every model measured, docs/results/learning_efficiency.md); --no-symmetries: the network alone",
    )
    parser.add_argument(
        "--engine", action="store_true", help="speak the text engine protocol on stdin/stdout"
    )
    parser.add_argument(
        "--web", action="store_true", help="serve the game as a web page (docs/web.md) instead"
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="--web: address to listen on (default 127.0.0.1, this machine only)"
    )
    parser.add_argument(
        "--port", type=int, default=8000, help="--web: TCP port (default 8000; 0: any free port)"
    )
    return parser


def serve_web(args, stdout) -> int:
    """``play --web``: serve the page and its API until Ctrl-C (docs/web.md): every registered game,
    with the shipped model named after it, ``--model`` for its own game (the default one), and
    opponents without a model (``frontends.web.catalogue``)."""
    # heavy dependency (fastapi, starlette): imported where it is used
    from frontends.web.app import create_app

    opponent = args.opponent if args.opponent is not None and parse_spec(args.opponent).kind != "human" else None
    models, default_game, notes = served_models(args.model, args.game)
    for line in notes + [f"{name}: {model_summary(path) or path}" for name, path in sorted(models.items())]:
        write_text(sys.stderr, f"play: {line}\n")
    options = WebOptions(
        simulations=args.sims,
        max_simulations=max(WEB_MAX_SIMULATIONS, args.sims),
        seed=args.seed,
        symmetries=args.symmetries,
        show_analysis=args.show_analysis,
        opponent=opponent,
        position=args.position,
        human_side=0 if args.human_side is None else args.human_side,
        build_player=lambda spec, game, seed: build_player(spec, game, seed=seed),
    )
    service = build_catalogue(models, default_game, options)
    sock = bind(args.host, args.port)
    if not is_loopback(args.host):
        print(
            f"play: warning: listening on {args.host}: anyone who can reach this address can play "
            "(there is no login)",
            file=sys.stderr,
        )
    serve(create_app(service), sock, stdout, on_stop=service.stopping.set)
    return 0


def main(argv: list[str] | None = None, stdin=None, stdout=None) -> int:
    """Entry point of ``play``; returns the exit status (0 done, 2 usage error, 130 interrupted)."""
    if stdin is None:
        stdin = sys.stdin
        if hasattr(stdin, "reconfigure"):
            stdin.reconfigure(errors="replace")
    stdout = stdout if stdout is not None else sys.stdout

    if wants_poker(sys.argv[1:] if argv is None else argv):  # Kuhn, Leduc: frontends/poker_play.py

        return poker_main(argv, stdin, stdout)
    args = _parser().parse_args(argv)
    return exit_status(lambda: _play(args, stdin, stdout))


def _play(args: argparse.Namespace, stdin, stdout) -> int:
    if not 0 <= args.sims <= MAX_SIMULATIONS:
        raise UsageError(f"--sims: expected 0..{MAX_SIMULATIONS}, got {args.sims}")
    if args.seed < 0:
        raise UsageError(f"--seed: expected an integer >= 0, got {args.seed}")
    if args.web and args.engine:
        raise UsageError("--web and --engine: expected one of them, got both")
    if args.threads is not None and args.threads < 1:
        raise UsageError(f"--threads: expected an integer >= 1, got {args.threads}")
    if args.web:
        return serve_web(args, stdout)
    model_path, note = resolve_model(args.model, args.game)
    for line in (note, model_summary(model_path)):  # on stderr: stdout is the game (or the protocol)
        if line:
            write_text(sys.stderr, f"play: {line}\n")
    args.model = str(model_path)
    game, evaluate_fn = load_model(args.model, args.game, num_threads=args.threads)
    search, search_settings = played_search(model_path, args.search)
    if args.symmetries:
        evaluate_fn = symmetry_averaged(game, evaluate_fn)
    if args.engine:
        return Engine(game, evaluate_fn, args.sims, args.seed, stdout, search=search,
                      search_settings=search_settings).run(stdin)
    start = game.parse_moves(args.position) if args.position else []
    seeds = np.random.SeedSequence(args.seed).spawn(2)
    model = make_model_player(evaluate_fn, args.sims, int(seeds[0].generate_state(1)[0]), search=search,
                              search_settings=search_settings)
    opponent = None
    if args.opponent is not None:
        spec = parse_spec(args.opponent)
        if spec.kind != "human":
            opponent = build_player(spec, game, seed=int(seeds[1].generate_state(1)[0]))
    human_side = 0 if args.human_side is None else args.human_side
    dice = np.random.default_rng([args.seed, 1]) if game.num_chance_outcomes else None
    session = HumanSession(game, model, human_side, start, stdin, stdout, opponent, args.show_analysis, dice)
    return session.run()


if __name__ == "__main__":
    sys.exit(main())
