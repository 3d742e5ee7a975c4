"""The text engine protocol of ``play --engine`` (docs/engine_protocol.md).

One command per input line, one answer line: ``position [MOVES]``, ``go [sims N]``,
``analyze [sims N]``, ``isready``, ``quit``. The model searches with a registered search
(``mcts.registry``) and no root noise, ties going to the lowest move index, so the same position
gives the same answer (``arena.model_player.make_model_player``).
"""

from __future__ import annotations

import numpy as np

from arena.model_player import make_model_player
from arena.players import Analysis
from frontends.game_text import PLAYER_SYMBOLS, parse_position, result_text, state_after, write_text

#: most simulations the engine accepts for one search (bounds memory and time)
MAX_SIMULATIONS = 100_000


class Engine:
    """The text engine protocol (docs/engine_protocol.md): one command per line, one answer line.

    Commands: ``position [MOVES]``, ``go [sims N]``, ``analyze [sims N]``, ``isready``, ``quit``.
    Every failure answers ``error: ...`` and the engine keeps reading.
    """

    COMMANDS = ("position", "go", "analyze", "isready", "quit")

    #: consecutive undecodable input lines after which the engine stops (the stream is not text)
    MAX_DECODE_ERRORS = 100

    def __init__(
        self,
        game,
        evaluate_fn,
        num_simulations: int,
        seed: int,
        stdout,
        max_simulations: int = MAX_SIMULATIONS,
        search: str = "puct",
        search_settings: dict | None = None,
    ):
        self.search = search
        self.search_settings = search_settings or {}
        self.game = game
        self.evaluate_fn = evaluate_fn
        self.num_simulations = num_simulations
        self.max_simulations = max_simulations
        self.rng = np.random.default_rng(seed)
        self.stdout = stdout
        self.moves: list[int] = []

    def say(self, text: str) -> None:
        write_text(self.stdout, text + "\n")

    def handle(self, line: str) -> bool:
        """Answer one line; returns False after ``quit``."""
        tokens = line.split()
        if not tokens:
            return True
        command, arguments = tokens[0], tokens[1:]
        try:
            if command == "quit":
                return False
            if command == "isready":
                self._no_arguments(command, arguments)
                self.say("readyok")
            elif command == "position":
                self._position(arguments)
            elif command in ("go", "analyze"):
                analysis = self._search(command, arguments)
                if command == "go":
                    self.say(f"bestmove {self.game.action_to_string(analysis.best_action)}")
                else:
                    self.say(self._info(analysis))
            else:
                self.say(
                    f"error: unknown command {command[:40]!r}; expected one of {', '.join(self.COMMANDS)}"
                )
        except Exception as error:  # noqa: BLE001 - the protocol answers every failure with a line
            message = " ".join(str(error).split()) or type(error).__name__
            self.say(f"error: {message}")
        return True

    @staticmethod
    def _no_arguments(command: str, arguments: list[str]) -> None:
        if arguments:
            raise ValueError(f"{command} takes no arguments, got {' '.join(arguments)[:40]!r}")

    def _position(self, arguments: list[str]) -> None:
        if len(arguments) > 1:
            raise ValueError("expected 'position' or 'position MOVES' (one move string, no spaces)")
        self.moves = parse_position(self.game, arguments[0] if arguments else "")

    def _search(self, command: str, arguments: list[str]) -> Analysis:
        simulations = self.num_simulations
        if arguments:
            if len(arguments) != 2 or arguments[0] != "sims":
                raise ValueError(f"expected '{command}' or '{command} sims N'")
            try:
                simulations = int(arguments[1])
            except ValueError:
                raise ValueError(f"sims: expected an integer, got {arguments[1][:20]!r}") from None
            if not 0 <= simulations <= self.max_simulations:
                raise ValueError(f"sims: expected 0..{self.max_simulations}, got {simulations}")
        state = state_after(self.game, self.moves)
        if self.game.terminal_test(state):
            raise ValueError(f"the game is over ({result_text(self.game, state)}); send a new position")
        # the same position gives the same answer: ties go to the lowest move index
        player = make_model_player(self.evaluate_fn, simulations, 0, break_ties=False, search=self.search,
                                   search_settings=self.search_settings)
        player.rng = self.rng
        return player.analyze(self.game, state)

    def _info(self, analysis: Analysis) -> str:
        policy = " ".join(f"{p:.4f}" for p in analysis.priors)
        visits = " ".join(str(int(v)) for v in analysis.visit_counts)
        value, network_value = (round(v, 4) + 0.0 for v in (analysis.value, analysis.network_value))
        return (
            f"info tomove {PLAYER_SYMBOLS[analysis.to_move]} value {value:+.4f} "
            f"netvalue {network_value:+.4f} bestmove {self.game.action_to_string(analysis.best_action)} "
            f"policy {policy} visits {visits}"
        )

    def run(self, stdin) -> int:
        """Answer lines from ``stdin`` until ``quit`` or end of input; returns 0 (1 if the input is
        not text: ``MAX_DECODE_ERRORS`` undecodable reads in a row)."""
        decode_errors = 0
        while True:
            try:
                line = stdin.readline()
            except UnicodeDecodeError as error:
                decode_errors += 1
                self.say(f"error: input is not valid text ({error.reason})")
                if decode_errors >= self.MAX_DECODE_ERRORS:
                    return 1
                continue
            decode_errors = 0
            if not line:
                return 0
            if not self.handle(line):
                return 0
