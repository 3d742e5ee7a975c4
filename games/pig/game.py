"""Two-player Pig, the dice game of Neller & Presser, "Optimal Play of the Dice Game Pig", *The
UMAP Journal* 25(1), 2004, batched, with chance states.

Rules. On a turn the player to move rolls a die as often as they like. A 1 loses the turn total
and ends the turn; any other face adds to the turn total. Holding banks the turn total into the
player's score and ends the turn. The first player whose banked score reaches ``goal`` wins.
OpenSpiel's ``pig`` has the same rules, action numbers and chance outcomes (``diceoutcomes`` is
our ``die``, ``winscore`` our ``goal``, ``horizon`` our ``horizon``), so the two can be compared
state for state.

* Actions: ``ROLL`` (0) and ``HOLD`` (1). Holding is always legal (with a turn total of 0 it
  passes the turn, as in the paper's equations and in OpenSpiel); rolling is legal until the
  score plus the turn total reaches the goal, where only holding (which wins) is, as in OpenSpiel.
* Chance: rolling leads to a chance state with ``die`` outcomes of probability ``1 / die``;
  outcome ``k`` is the face ``k + 1``.
* Horizon: after ``horizon`` decisions (both players together) an unfinished game ends as a draw,
  as OpenSpiel's ``horizon`` does, so every game is finite. The exact solver
  (``games.pig.solver``) ignores the horizon: under any sensible play a game of goal 100 is over
  long before 1,000 decisions.

State row (``int64``, ``S = 8``): ``[ply, decisions, to_play, score_0, score_1, turn_total,
chance, status]``. ``ply`` counts every event (decisions and chance outcomes), ``chance`` is 1
at a chance state (whose ``to_play`` is the player who rolled), ``status`` is ``ONGOING``,
``FIRST_PLAYER_WON``, ``SECOND_PLAYER_WON`` or ``DRAW`` (the horizon).

Move strings list events in play order: ``r`` (roll), ``h`` (hold) and the die faces ``1``-``9``;
``"r4r1r6h"`` is: player 0 rolls a 4, rolls a 1 (turn over), player 1 rolls a 6 and holds.
"""

from __future__ import annotations

import numpy as np

from games.base import NO_WINNER, Game, check_batch, check_not_chance

ROLL, HOLD = 0, 1
PLY, DECISIONS, TO_PLAY, SCORE_0, SCORE_1, TURN_TOTAL, CHANCE, STATUS = range(8)
ONGOING, FIRST_PLAYER_WON, SECOND_PLAYER_WON, DRAW = 0, 1, 2, 3
ACTION_LETTERS = "rh"
DEFAULT_GOAL = 100
DEFAULT_DIE = 6
DEFAULT_HORIZON = 1000
#: largest die: faces are written as single digits in move strings
MAX_DIE = 9


class Pig(Game):
    """Two-player Pig to ``goal`` points with a ``die``-sided die.

    Observation ``(3, 1, goal)`` float32 from the view of the player to move: thermometer planes
    of the player's banked score, the opponent's banked score and the turn total (capped at
    ``goal - 1``): cell ``c`` of a plane is 1 when the number is greater than ``c``. Unlike a
    one-hot plane, nearby numbers share cells, so what is learned at one score carries to its
    neighbours (``docs/pig.md``: on the same replay buffer, the value error of an MLP against
    the exact solver falls from 0.40 to 0.15). No symmetries.

    Args:
        goal: points to win, >= 1 (100 in the paper; 10 for quick checks).
        die: faces of the die, 2 to 9 (6; OpenSpiel's ``diceoutcomes``).
        horizon: decisions after which an unfinished game is a draw, >= 1.

    Raises:
        ValueError: for a parameter out of range (expected and actual named).
    """

    name = "pig"
    version = 2  # 2: thermometer observation planes (1: one-hot)
    num_actions = 2
    state_size = 8

    def __init__(self, goal: int = DEFAULT_GOAL, die: int = DEFAULT_DIE, horizon: int = DEFAULT_HORIZON) -> None:
        for label, value, low, high in (("goal", goal, 1, None), ("die", die, 2, MAX_DIE), ("horizon", horizon, 1, None)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise ValueError(f"pig: {label} must be an integer, got {value!r}")
            if value < low or (high is not None and value > high):
                expected = f">= {low}" if high is None else f"in [{low}, {high}]"
                raise ValueError(f"pig: {label} must be {expected}, got {value}")
        self.goal = int(goal)
        self.die = int(die)
        self.horizon = int(horizon)
        self.num_chance_outcomes = self.die
        self.observation_shape = (3, 1, self.goal)
        self.max_game_length = 2 * self.horizon  # each decision is followed by at most one roll

    def __repr__(self) -> str:
        return f"Pig(goal={self.goal}, die={self.die}, horizon={self.horizon})"

    # ----------------------------------------------------------------- batched API
    def initial_states(self, batch_size: int) -> np.ndarray:
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise ValueError(f"batch_size must be an integer >= 1, got {batch_size!r}")
        return np.zeros((int(batch_size), self.state_size), dtype=np.int64)

    def states_at(self, own: np.ndarray, opponent: np.ndarray, turn_total: np.ndarray, to_play=0) -> np.ndarray:
        """Decision states from (own score, opponent's score, turn total) of the player to move.

        Args:
            own, opponent, turn_total: ``[B]`` int, the solver's ``(i, j, k)``.
            to_play: player to move, 0 or 1 (scalar or ``[B]``).

        Returns:
            ``[B, 8]`` int64 decision states (``ply`` and ``decisions`` 0).

        Raises:
            ValueError: if ``own`` or ``opponent`` is outside ``[0, goal)`` or ``turn_total`` < 0.
        """
        own, opponent, turn_total = (np.atleast_1d(np.asarray(x, dtype=np.int64)) for x in (own, opponent, turn_total))
        for label, x in (("own score", own), ("opponent's score", opponent)):
            if np.any((x < 0) | (x >= self.goal)):
                raise ValueError(f"pig: {label} must be in [0, {self.goal}), got {x.tolist()}")
        if np.any(turn_total < 0):
            raise ValueError(f"pig: turn total must be >= 0, got {turn_total.tolist()}")
        player = np.broadcast_to(np.asarray(to_play, dtype=np.int64), own.shape)
        states = np.zeros((own.shape[0], self.state_size), dtype=np.int64)
        states[:, TO_PLAY] = player
        states[np.arange(len(own)), SCORE_0 + player] = own
        states[np.arange(len(own)), SCORE_1 - player] = opponent
        states[:, TURN_TOTAL] = turn_total
        return states

    def legal_mask(self, states: np.ndarray) -> np.ndarray:
        check_batch(self, states)
        decision = (states[:, STATUS] == ONGOING) & (states[:, CHANCE] == 0)
        mask = np.repeat(decision[:, None], 2, axis=1)
        own = states[np.arange(states.shape[0]), SCORE_0 + states[:, TO_PLAY]]
        mask[:, ROLL] &= own + states[:, TURN_TOTAL] < self.goal
        return mask

    def is_chance(self, states: np.ndarray) -> np.ndarray:
        check_batch(self, states)
        return (states[:, CHANCE] == 1) & (states[:, STATUS] == ONGOING)

    def _chance_table(self, states: np.ndarray) -> np.ndarray:
        table = np.zeros((states.shape[0], self.die), dtype=np.float64)
        table[self.is_chance(states)] = 1.0 / self.die
        return table

    def step(self, states: np.ndarray, actions: np.ndarray) -> np.ndarray:
        actions = np.asarray(actions)
        check_batch(self, states, actions)
        finished = states[:, STATUS] != ONGOING
        if finished.any():
            raise ValueError(f"pig: row {int(np.flatnonzero(finished)[0])} is a finished game; no action is legal")
        check_not_chance(self, states)
        rows = np.arange(states.shape[0])
        mask = self.legal_mask(states)
        bad = (actions != ROLL) & (actions != HOLD)
        bad[~bad] = ~mask[rows[~bad], actions[~bad]]
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            legal = np.flatnonzero(mask[row]).tolist()
            raise ValueError(f"pig: row {row}: illegal action {int(actions[row])}; expected one of {legal} (0 roll, 1 hold)")
        out = states.copy()
        out[:, PLY] += 1
        out[:, DECISIONS] += 1
        roll = actions == ROLL
        out[roll, CHANCE] = 1
        hold = ~roll
        player = states[:, TO_PLAY]
        banked = states[rows, SCORE_0 + player] + states[:, TURN_TOTAL]
        out[rows[hold], SCORE_0 + player[hold]] = banked[hold]
        won = hold & (banked >= self.goal)
        out[won, STATUS] = FIRST_PLAYER_WON + player[won]
        out[hold, TURN_TOTAL] = 0
        out[hold, TO_PLAY] = 1 - player[hold]
        horizon = (out[:, STATUS] == ONGOING) & (out[:, DECISIONS] >= self.horizon)
        out[horizon, STATUS] = DRAW
        out[horizon, CHANCE] = 0
        return out

    def _apply_chance(self, states: np.ndarray, outcomes: np.ndarray) -> np.ndarray:
        out = states.copy()
        out[:, PLY] += 1
        out[:, CHANCE] = 0
        face = outcomes + 1
        bust = face == 1
        out[bust, TURN_TOTAL] = 0
        out[bust, TO_PLAY] = 1 - states[bust, TO_PLAY]
        out[~bust, TURN_TOTAL] += face[~bust]
        return out

    def terminal(self, states: np.ndarray) -> np.ndarray:
        check_batch(self, states)
        return states[:, STATUS] != ONGOING

    def to_play(self, states: np.ndarray) -> np.ndarray:
        check_batch(self, states)
        return states[:, TO_PLAY].astype(np.int8)

    def winner(self, states: np.ndarray) -> np.ndarray:
        check_batch(self, states)
        status = states[:, STATUS]
        won = (status == FIRST_PLAYER_WON) | (status == SECOND_PLAYER_WON)
        return np.where(won, status - FIRST_PLAYER_WON, NO_WINNER).astype(np.int8)

    def ply(self, states: np.ndarray) -> np.ndarray:
        check_batch(self, states)
        return states[:, PLY].copy()

    def observation(self, states: np.ndarray) -> np.ndarray:
        check_batch(self, states)
        rows = np.arange(states.shape[0])
        player = states[:, TO_PLAY]
        top = self.goal - 1
        numbers = np.stack(
            (states[rows, SCORE_0 + player], states[rows, SCORE_1 - player], states[:, TURN_TOTAL]), axis=1
        )
        cells = np.arange(self.goal)
        out = cells[None, None, :] < np.clip(numbers, 0, top)[:, :, None]
        return out.astype(np.float32).reshape(states.shape[0], 3, 1, self.goal)

    # ----------------------------------------------------------------- move strings
    def parse_moves(self, text: str) -> list[int]:
        """Events of a move string (``r``/``h`` decisions and die faces) in play order.

        Returns:
            the events: 0/1 for roll/hold, outcome indices (face - 1) for rolls.

        Raises:
            ValueError: ``move N: expected ...`` for a character that is not legal where it stands
                (a face where a player decides, ``r``/``h`` where the die rolls, a face larger than
                the die, anything after the end of the game).
        """
        events: list[int] = []
        state = self.initial_state()
        faces = "".join(str(f) for f in range(1, self.die + 1))
        for index, char in enumerate(text.strip()):
            if self.terminal_test(state):
                raise ValueError(f"move {index + 1}: the game is already over")
            if self.is_chance_state(state):
                if char not in faces:
                    raise ValueError(f"move {index + 1}: expected a die face 1-{self.die} after a roll, got {char!r}")
                event = int(char) - 1
                state = self.chance_result(state, event)
            else:
                if char not in ACTION_LETTERS:
                    raise ValueError(f"move {index + 1}: expected 'r' (roll) or 'h' (hold), got {char!r}")
                event = ACTION_LETTERS.index(char)
                if event not in self.actions(state):
                    raise ValueError(f"move {index + 1}: expected 'h' (hold): the goal is reached, rolling is illegal")
                state = self.result(state, event)
            events.append(event)
        return events

    def format_moves(self, actions) -> str:
        """Inverse of ``parse_moves``: events replayed from the start (decisions ``r``/``h``,
        chance outcomes as faces)."""
        state = self.initial_state()
        out = []
        for event in actions:
            event = int(event)
            if self.is_chance_state(state):
                out.append(str(event + 1))
                state = self.chance_result(state, event)
            else:
                out.append(ACTION_LETTERS[event] if event in (ROLL, HOLD) else "?")
                if event not in (ROLL, HOLD):
                    break
                state = self.result(state, event)
        return "".join(out)

    def action_to_string(self, action: int) -> str:
        return ACTION_LETTERS[int(action)] if int(action) in (ROLL, HOLD) else f"?{action}"

    def render(self, state) -> str:
        row = [int(v) for v in state]
        player = row[TO_PLAY]
        lines = [
            f"goal {self.goal}, die d{self.die}",
            f"player 0: {row[SCORE_0]}   player 1: {row[SCORE_1]}",
        ]
        status = row[STATUS]
        if status == DRAW:
            lines.append(f"draw: the horizon of {self.horizon} decisions is reached")
        elif status != ONGOING:
            lines.append(f"player {status - FIRST_PLAYER_WON} wins")
        elif row[CHANCE]:
            lines.append(f"player {player} rolls (turn total {row[TURN_TOTAL]})")
        else:
            lines.append(f"player {player} to move, turn total {row[TURN_TOTAL]}")
        return "\n".join(lines)

    def scores(self, state: tuple) -> tuple[int, int, int]:
        """``(own, opponent, turn_total)`` of the player to move in ``state``: the solver's ``(i, j, k)``."""
        player = state[TO_PLAY]
        return state[SCORE_0 + player], state[SCORE_1 - player], state[TURN_TOTAL]

    # ---------------------------------- the six single-state functions, pure Python for classical search
    def player(self, state: tuple) -> int:
        return state[TO_PLAY]

    def terminal_test(self, state: tuple) -> bool:
        return state[STATUS] != ONGOING

    def actions(self, state: tuple) -> list[int]:
        if state[STATUS] != ONGOING or state[CHANCE]:
            return []
        if state[SCORE_0 + state[TO_PLAY]] + state[TURN_TOTAL] >= self.goal:
            return [HOLD]
        return [ROLL, HOLD]

    def is_chance_state(self, state: tuple) -> bool:
        return state[CHANCE] == 1 and state[STATUS] == ONGOING

    def chance_outcomes(self, state: tuple) -> list[tuple[int, float]]:
        if not self.is_chance_state(state):
            raise ValueError(f"pig: expected a chance state, got a decision or finished state {state}")
        return [(k, 1.0 / self.die) for k in range(self.die)]

    def result(self, state: tuple, action: int) -> tuple:
        ply, decisions, player, score_0, score_1, turn, chance, status = state
        if status != ONGOING:
            raise ValueError("pig: the game is over: no action is legal")
        if chance:
            raise ValueError(
                "pig: a chance state: no player acts there; play a chance outcome with chance_result"
            )
        legal = self.actions(state)
        if action not in legal:
            raise ValueError(f"pig: illegal action {action!r}; expected one of {legal} (0 roll, 1 hold)")
        decisions += 1
        if action == ROLL:
            chance = 1
        else:
            if player == 0:
                score_0 += turn
                status = FIRST_PLAYER_WON if score_0 >= self.goal else ONGOING
            else:
                score_1 += turn
                status = SECOND_PLAYER_WON if score_1 >= self.goal else ONGOING
            turn, player = 0, 1 - player
        if status == ONGOING and decisions >= self.horizon:
            status, chance = DRAW, 0
        return (ply + 1, decisions, player, score_0, score_1, turn, chance, status)

    def chance_result(self, state: tuple, outcome: int) -> tuple:
        ply, decisions, player, score_0, score_1, turn, chance, status = state
        if not (chance and status == ONGOING):
            raise ValueError(f"pig: expected a chance state, got a decision or finished state {state}")
        if isinstance(outcome, bool) or not isinstance(outcome, (int, np.integer)) or not 0 <= outcome < self.die:
            raise ValueError(f"pig: impossible chance outcome {outcome!r}; expected one of {list(range(self.die))}")
        if outcome == 0:
            return (ply + 1, decisions, 1 - player, score_0, score_1, 0, 0, status)
        return (ply + 1, decisions, player, score_0, score_1, turn + int(outcome) + 1, 0, status)

    def utility(self, state: tuple, player: int) -> float:
        status = state[STATUS]
        if status in (ONGOING, DRAW):
            return 0.0
        return 1.0 if status - FIRST_PLAYER_WON == player else -1.0

    # ------------------------------------------------------------------ evaluation
    def banked_score_difference(self, state: tuple) -> float:
        """Banked score of the player to move minus the opponent's, in points (turn total not
        counted): the evaluation of OpenSpiel's expectiminimax test on Pig, ``score(0) - score(1)``
        from player 0's view. Both banked scores of an unfinished game are below ``goal``, so
        ``|value| < goal``: search it with ``bound=goal``."""
        player = state[TO_PLAY]
        return float(state[SCORE_0 + player] - state[SCORE_1 - player])
