"""Any two-player, zero-sum, sequential, perfect-information, deterministic OpenSpiel game as a
``games.base.Game`` (Lanctot et al. 2019, "OpenSpiel: A Framework for Reinforcement Learning in
Games", arXiv:1908.09453).

The game id is ``openspiel:SPEC`` with SPEC an OpenSpiel game string, e.g.
``games.make("openspiel:breakthrough(rows=5,columns=5)")``; ``train`` takes
``game=openspiel game.openspiel="SPEC"``. ``open_spiel`` is an optional dependency
(``pip install -e .[openspiel]``); this module imports it only when a game is made.

**State rows.** OpenSpiel states are C++ objects, not arrays, so a row is the game's history:
``[ply, to_play, status, a_0, a_1, ..., a_{L-1}]`` (``int64``, ``L = max_game_length``, unplayed
plies ``-1``). ``to_play`` is OpenSpiel's current player, and for a finished game the player who
did not make the last move; ``status`` is that of ``games.bitboard`` (``ONGOING``,
``FIRST_PLAYER_WON``, ``SECOND_PLAYER_WON``, ``DRAW``; the winner is the player with the positive
return). Each adapter keeps an LRU cache of OpenSpiel state objects by row, so stepping a row
that was just produced clones its cached state instead of replaying the history; a row missing
from the cache is replayed from the start. One OpenSpiel call per row makes the adapter much
slower than the native Numba games (``scripts/bench_openspiel.py`` measures how much).

**Observation.** OpenSpiel's ``observation_tensor(player to move)``, reshaped to ``(C, H, W)``
(a flat tensor of ``N`` values is ``(N, 1, 1)``, a 2-D one ``(1, H, W)``), with one more plane
that is 1.0 when player 1 is to move, since OpenSpiel tensors need not say whose turn it is.

**Move strings.** Tokens separated by spaces, each OpenSpiel's action string in the position where
it is played (``"x(1,1) o(0,0)"``, ``"a5b4"``), or the action id; ``format_moves`` writes the
action strings (the id where a string holds a space or is not unique among the legal moves).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

import games.bitboard as bb
from games.base import Game, check_batch
from games.knowledge import Knowledge

#: registry prefix of adapter games: ``openspiel:SPEC``
PREFIX = "openspiel:"
#: how to get open_spiel; the error without it says this
INSTALL_HINT = "pip install -e .[openspiel]  (or: pip install open_spiel)"
#: OpenSpiel states kept per adapter (an LRU cache keyed by state row)
DEFAULT_CACHE_SIZE = 50_000

PLY, TO_PLAY, STATUS, HISTORY = 0, 1, 2, 3


def import_pyspiel():
    """``pyspiel``, or a ValueError that says how to install it.

    Raises:
        ValueError: if ``open_spiel`` is not installed.
    """
    try:
        import pyspiel  # optional dependency (pyspiel): imported where it is used
    except ImportError:
        raise ValueError(f"OpenSpiel games need the open_spiel package: {INSTALL_HINT}") from None
    return pyspiel


def check_game_type(spec: str, game) -> None:
    """Refuse what this project's search and training cannot play.

    Raises:
        ValueError: naming every property the game lacks, with what is required.
    """
    import pyspiel  # optional dependency (pyspiel): imported where it is used

    kind = game.get_type()
    problems = []
    if game.num_players() != 2:
        problems.append(f"{game.num_players()} players (expected 2)")
    if kind.utility != pyspiel.GameType.Utility.ZERO_SUM:
        problems.append(f"utility {kind.utility.name} (expected ZERO_SUM)")
    if kind.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        problems.append(f"dynamics {kind.dynamics.name} (expected SEQUENTIAL: players move in turn)")
    if kind.information != pyspiel.GameType.Information.PERFECT_INFORMATION:
        problems.append(f"information {kind.information.name} (expected PERFECT_INFORMATION)")
    if kind.chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC:
        problems.append(f"chance mode {kind.chance_mode.name} (expected DETERMINISTIC: no chance nodes yet)")
    if not kind.provides_observation_tensor:
        problems.append("no observation tensor (the network needs one)")
    if problems:
        raise ValueError(
            f"OpenSpiel game {spec!r} cannot be played here: " + "; ".join(problems)
            + ". Supported: two-player, zero-sum, sequential, perfect-information, deterministic games."
        )


class OpenSpielGame(Game):
    """An OpenSpiel game behind the batched ``Game`` API (see the module docstring).

    Args:
        spec: an OpenSpiel game string, ``"tic_tac_toe"`` or ``"breakthrough(rows=5,columns=5)"``.
        cache_size: OpenSpiel state objects kept (LRU), >= 1.

    Raises:
        ValueError: without open_spiel (saying how to install it), for a spec OpenSpiel cannot
            load, or for a game of a kind ``check_game_type`` refuses.
    """

    version = 1

    def __init__(self, spec: str, cache_size: int = DEFAULT_CACHE_SIZE) -> None:
        pyspiel = import_pyspiel()
        spec = spec.strip()
        if not spec:
            raise ValueError("expected an OpenSpiel game string after 'openspiel:', e.g. openspiel:tic_tac_toe")
        if cache_size < 1:
            raise ValueError(f"cache_size must be >= 1, got {cache_size}")
        try:
            game = pyspiel.load_game(spec)
        except pyspiel.SpielError as exc:
            first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ValueError(f"OpenSpiel cannot load {spec!r}: {first_line}") from None
        check_game_type(spec, game)
        self.spec = spec
        self.name = PREFIX + spec
        self.openspiel_game = game
        self.num_actions = int(game.num_distinct_actions())
        self.max_game_length = int(game.max_game_length())
        self.state_size = HISTORY + self.max_game_length
        shape = tuple(int(v) for v in game.observation_tensor_shape())
        if len(shape) == 3:
            planes = shape
        elif len(shape) == 2:
            planes = (1, *shape)
        else:
            planes = (int(np.prod(shape)), 1, 1)
        self._tensor_shape = planes
        self.observation_shape = (planes[0] + 1, planes[1], planes[2])
        self._cache: OrderedDict[bytes, object] = OrderedDict()
        self._cache_size = int(cache_size)
        self._root = game.new_initial_state()

    # ------------------------------------------------------------------ OpenSpiel states
    def openspiel_state(self, row: np.ndarray):
        """The OpenSpiel state of one row ``[S]`` int64 (cached; do not mutate it)."""
        key = row.tobytes()
        state = self._cache.get(key)
        if state is not None:
            self._cache.move_to_end(key)
            return state
        state = self._root.clone()
        for action in row[HISTORY : HISTORY + int(row[PLY])]:
            state.apply_action(int(action))
        self._remember(key, state)
        return state

    def _remember(self, key: bytes, state) -> None:
        self._cache[key] = state
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    def _row_of(self, parent_row: np.ndarray, action: int, child) -> np.ndarray:
        row = parent_row.copy()
        ply = int(parent_row[PLY])
        row[HISTORY + ply] = action
        row[PLY] = ply + 1
        if child.is_terminal():
            returns = child.returns()
            row[STATUS] = bb.DRAW if returns[0] == returns[1] else (
                bb.FIRST_PLAYER_WON if returns[0] > returns[1] else bb.SECOND_PLAYER_WON
            )
            row[TO_PLAY] = 1 - int(parent_row[TO_PLAY])
        else:
            row[STATUS] = bb.ONGOING
            row[TO_PLAY] = int(child.current_player())
        return row

    # ----------------------------------------------------------------- batched API
    def initial_states(self, batch_size: int) -> np.ndarray:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        row = np.full(self.state_size, -1, dtype=np.int64)
        row[PLY], row[TO_PLAY], row[STATUS] = 0, int(self._root.current_player()), bb.ONGOING
        return np.tile(row, (batch_size, 1))

    def legal_mask(self, states: np.ndarray) -> np.ndarray:
        check_batch(self, states)
        out = np.zeros((states.shape[0], self.num_actions), dtype=np.bool_)
        for b in range(states.shape[0]):
            if states[b, STATUS] == bb.ONGOING:
                out[b, self.openspiel_state(states[b]).legal_actions()] = True
        return out

    def step(self, states: np.ndarray, actions: np.ndarray) -> np.ndarray:
        actions = np.asarray(actions, dtype=np.int64)
        check_batch(self, states, actions)
        out = np.empty_like(states)
        for b in range(states.shape[0]):
            if states[b, STATUS] != bb.ONGOING:
                raise ValueError(f"{self.name}: row {b} is a finished game; no action is legal")
            state = self.openspiel_state(states[b])
            action = int(actions[b])
            legal = state.legal_actions()
            if action not in legal:
                raise ValueError(f"{self.name}: row {b}: illegal action {action}; expected one of {legal}")
            child = state.child(action)
            out[b] = self._row_of(states[b], action, child)
            self._remember(out[b].tobytes(), child)
        return out

    def terminal(self, states: np.ndarray) -> np.ndarray:
        check_batch(self, states)
        return states[:, STATUS] != bb.ONGOING

    def to_play(self, states: np.ndarray) -> np.ndarray:
        check_batch(self, states)
        return states[:, TO_PLAY].astype(np.int8)

    def winner(self, states: np.ndarray) -> np.ndarray:
        check_batch(self, states)
        status = states[:, STATUS]
        out = np.full(status.shape, -1, dtype=np.int8)
        out[status == bb.FIRST_PLAYER_WON] = 0
        out[status == bb.SECOND_PLAYER_WON] = 1
        return out

    def ply(self, states: np.ndarray) -> np.ndarray:
        check_batch(self, states)
        return states[:, PLY].copy()

    def observation(self, states: np.ndarray) -> np.ndarray:
        check_batch(self, states)
        out = np.zeros((states.shape[0], *self.observation_shape), dtype=np.float32)
        for b in range(states.shape[0]):
            player = int(states[b, TO_PLAY])
            tensor = self.openspiel_state(states[b]).observation_tensor(player)
            out[b, :-1] = np.asarray(tensor, dtype=np.float32).reshape(self._tensor_shape)
            out[b, -1] = float(player)
        return out

    # ----------------------------------------------------------------- move strings
    def _move_strings(self, state) -> dict[int, str]:
        """Legal action -> its token: OpenSpiel's string, or the id where that is ambiguous."""
        player = state.current_player()
        strings = {a: state.action_to_string(player, a) for a in state.legal_actions()}
        counts: dict[str, int] = {}
        for text in strings.values():
            counts[text] = counts.get(text, 0) + 1
        return {
            a: text if counts[text] == 1 and text and not any(c.isspace() for c in text) and not text.isdigit()
            else str(a)
            for a, text in strings.items()
        }

    def action_to_string(self, action: int) -> str:
        """OpenSpiel's name of the action as the first player would write it (``x(1,1)`` in
        tic-tac-toe, whoever plays it; OpenSpiel names actions by player and action alone), or
        the action id where OpenSpiel has no single whitespace-free name for it."""
        action = int(action)
        try:
            text = self._root.action_to_string(0, action)
        except Exception:  # noqa: BLE001 (pyspiel raises its own error types for ids it cannot name)
            return str(action)
        if not text or text.isdigit() or any(c.isspace() for c in text):
            return str(action)
        return text

    def format_moves(self, actions) -> str:
        tokens, state = [], self._root.clone()
        for action in actions:
            action = int(action)
            if state is not None and not state.is_terminal() and action in state.legal_actions():
                tokens.append(self._move_strings(state)[action])
                state.apply_action(action)
            else:  # not a legal game: the ids, so that parse_moves names the bad move
                tokens.append(str(action))
                state = None
        return " ".join(tokens)

    def parse_moves(self, text: str) -> list[int]:
        """Parse space-separated tokens (action strings or ids) played from the start.

        Raises:
            ValueError: ``move N: ...`` for a token that is neither a legal move's string nor an
                id, an illegal id, or a move after the end.
        """
        actions: list[int] = []
        state = self._root.clone()
        for index, token in enumerate(text.split()):
            if state.is_terminal():
                raise ValueError(f"move {index + 1}: the game is already over")
            strings = self._move_strings(state)
            by_string = {s: a for a, s in strings.items()}
            if token in by_string:
                action = by_string[token]
            elif token.isdigit():
                action = int(token)
                if action not in strings:
                    raise ValueError(f"move {index + 1}: action {action} is illegal; legal: {sorted(strings)}")
            else:
                raise ValueError(
                    f"move {index + 1}: expected a legal move ({' '.join(sorted(by_string))}) or an action id, "
                    f"got {token!r}"
                )
            state.apply_action(action)
            actions.append(action)
        return actions

    def render(self, state) -> str:
        row = np.asarray(state, dtype=np.int64)
        return str(self.openspiel_state(row))


class OpenSpielKnowledge(Knowledge):
    """The generic knowledge, with a network fitted to the shape of the game's observation."""

    def default_network(self, gpu: bool = False) -> dict:
        """A ResNet (the ``Knowledge`` default) for a board-shaped observation, else an MLP of two
        hidden layers (128 units on a CPU, 512 on a GPU) for a flat one."""
        shape = self.game.observation_shape
        if shape[1] * shape[2] > 1:
            return super().default_network(gpu)
        width = 512 if gpu else 128
        return {"kind": "mlp", "mlp_hidden": (width, width), "value_hidden": 64}
