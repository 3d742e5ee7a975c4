"""Self-play of K games at once with a batched search (no Ray here; see selfplay.worker).

Each call of ``SelfPlayRunner.play_moves`` runs one batched search over the K live games per ply
(one network call per simulation step for all of them), chooses the moves, steps the K games, and
restarts finished ones. Positions are recorded into preallocated ``[K, max_game_length, ...]``
arrays, so recording costs one vectorised write per ply. Finished games are handed over whole as
``GameRecord``s (copies: a later change to a live board changes nothing handed over).

The search is any registered one (``mcts.registry``; PUCT, Gumbel, ...), held as its frozen
settings and run by ``mcts.run_search`` with root noise on for full searches, the move sampled at
a temperature for the first ``temperature_plies`` plies and greedy afterwards (Silver et al. 2017,
Methods, "Self-play"; greedy ties go to the run's seeded generator), and the search's policy
target recorded (visit counts, or Gumbel's completed-Q improved policy). The move-choice rule,
proofs of the MCTS-solver included, is ``mcts.registry``'s.

Playout cap randomisation (Wu 2019, "Accelerating Self-Play Learning in Go", sec. 5): with
``full_search_probability`` p < 1, each ply is a full search (``num_simulations``, root noise on,
policy target weight 1) with probability p, else a cheap one (``cheap_simulations``, no root
noise, policy weight 0). The K games share one coin per ply, so the network batch stays full;
over many plies each position is a full search with probability p. Every position keeps its
value target.

Games with chance (``games.base``): the K games are only ever searched at decision states. After
each move the runner plays the chance states that follow it with its seeded generator (outcomes
drawn by their probabilities, ``Game.sample_chance``) before the next search, so a chance state
is never searched, recorded or handed to the network as a position. Positions are then indexed by
the decisions of the game rather than its plies (which count the dice too), and every value
target is from the view of the player to move at that recorded decision, so a rolled 1 that
passes the turn flips the sign exactly where the mover changes. The moves of ``sample_games``
list decisions and outcomes in play order (``Game.format_moves``). With ``reuse_tree`` a game
whose move led to a chance state starts its next search from an empty tree.

Value targets (``value_target``): ``"z"`` the game outcome, ``"q"`` the root search value of the
position, ``"mix"`` their average (A. Oracle, "Lessons from AlphaZero", part 4), ``"lambda"`` the
lambda-return over the root search values of the rest of the game (:func:`lambda_returns`), all
from the view of the player to move.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np

import games
from games.base import NO_WINNER, Game
from games.checks import check_choice, check_int, check_number
from mcts import algorithm_of, reroot, run_search
from selfplay.records import GameRecord

#: accepted ``value_target`` settings
VALUE_TARGETS = ("z", "q", "mix", "lambda")


@dataclass
class SelfPlayStats:
    """Counters of one ``play_moves`` call (plain values: they cross process boundaries)."""

    moves: int = 0  # plies played, summed over the K games
    games: int = 0
    positions: int = 0  # positions of finished games
    leaf_evaluations: int = 0  # states sent to the evaluator
    simulations: int = 0
    degenerate_priors: int = 0
    full_searches: int = 0  # plies (summed over the K games) searched with the full budget
    eval_cache_hits: int = 0  # evaluator calls answered by the evaluation cache (selfplay.eval_cache)
    eval_cache_lookups: int = 0
    wins_first_player: int = 0
    wins_second_player: int = 0
    draws: int = 0
    game_lengths: list[int] = field(default_factory=list)
    sample_games: list[str] = field(default_factory=list)  # move strings, at most one per call
    seconds: float = 0.0

    def merge(self, other: SelfPlayStats) -> None:
        for name in (
            "moves", "games", "positions", "leaf_evaluations", "simulations", "degenerate_priors",
            "full_searches", "eval_cache_hits", "eval_cache_lookups", "wins_first_player", "wins_second_player", "draws", "seconds",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.game_lengths.extend(other.game_lengths)
        self.sample_games.extend(other.sample_games)


def outcome_targets(to_play: np.ndarray, winner: int) -> np.ndarray:
    """Value targets z ``[T]`` float32 from the view of the player to move at each position.

    +1 where the eventual winner was to move, -1 for the loser's positions, 0 for every position
    of a drawn game. ``to_play`` is ``[T]`` int (0/1); ``winner`` is 0, 1 or -1.
    """
    to_play = np.asarray(to_play)
    if winner == NO_WINNER:
        return np.zeros(to_play.shape, dtype=np.float32)
    return np.where(to_play == winner, 1.0, -1.0).astype(np.float32)


def lambda_returns(z: np.ndarray, q: np.ndarray, to_play: np.ndarray, td_lambda: float) -> np.ndarray:
    """The lambda-return of every recorded position of one game, ``[T]`` float32, player-to-move view.

    ``G_t = (1 - lambda) q_t + lambda s_t G_{t+1}`` backwards from ``G_T = z_{T-1}`` (the outcome
    after the last decision), where ``s_t`` is +1 when the same player is to move at positions
    ``t`` and ``t + 1`` and -1 when the mover changes (a hold, a rolled 1, any move of an
    alternating game). Unrolled, ``G_t`` weighs the search value ``k`` positions ahead by
    ``(1 - lambda) lambda^k`` and the outcome by ``lambda^(T - t)``: the lambda-return of Sutton &
    Barto (2018), section 12.1, with each position's root search value as its bootstrap (its
    0-step return), so ``lambda = 0`` is the target ``"q"`` and ``lambda = 1`` the target ``"z"``.

    Args:
        z: ``[T]`` outcomes from the view of the player to move at each position (+1, -1 or 0).
        q: ``[T]`` root search values, same view, in ``[-1, 1]``.
        to_play: ``[T]`` int, the player to move at each position.
        td_lambda: in ``[0, 1]``.

    Raises:
        ValueError: for shapes that differ or ``td_lambda`` outside ``[0, 1]``.
    """
    check_number("td_lambda", td_lambda, 0, 1)
    z = np.asarray(z, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    to_play = np.asarray(to_play)
    if not (z.shape == q.shape == to_play.shape) or z.ndim != 1:
        raise ValueError(f"expected z, q and to_play of one shape [T], got {z.shape}, {q.shape} and {to_play.shape}")
    returns = np.empty(z.shape, dtype=np.float64)
    if z.size == 0:
        return returns.astype(np.float32)
    following = z[-1]  # G_T: the outcome, from the view of the last position's mover
    for t in range(z.size - 1, -1, -1):
        returns[t] = (1.0 - td_lambda) * q[t] + td_lambda * following
        if t > 0:
            following = returns[t] if to_play[t - 1] == to_play[t] else -returns[t]
    return np.clip(returns, -1.0, 1.0).astype(np.float32)


def value_targets(
    z: np.ndarray, q: np.ndarray, kind: str, to_play: np.ndarray | None = None, td_lambda: float | None = None
) -> np.ndarray:
    """Value targets ``[T]`` float32 of one game, player-to-move view, in ``[-1, 1]``.

    ``kind`` ``"z"``: the outcome ``z``; ``"q"``: the root search value ``q`` of each position;
    ``"mix"``: ``(z + q) / 2`` (A. Oracle, "Lessons from AlphaZero", part 4); ``"lambda"``: the
    lambda-return of :func:`lambda_returns`, which needs ``to_play`` ``[T]`` and ``td_lambda``.

    Raises:
        ValueError: for another ``kind``, shapes that differ, or ``"lambda"`` without ``to_play`` or
            ``td_lambda``.
    """
    z = np.asarray(z, dtype=np.float32)
    q = np.asarray(q, dtype=np.float32)
    if z.shape != q.shape:
        raise ValueError(f"expected z and q of one shape, got {z.shape} and {q.shape}")
    if kind == "z":
        return z.copy()
    if kind == "q":
        return np.clip(q, -1.0, 1.0)
    if kind == "mix":
        return np.clip(0.5 * (z + q), -1.0, 1.0).astype(np.float32)
    if kind == "lambda":
        if to_play is None or td_lambda is None:
            raise ValueError("value target 'lambda' needs to_play (the player to move at each position) and td_lambda")
        return lambda_returns(z, q, to_play, td_lambda)
    raise ValueError(f"expected value target kind in {list(VALUE_TARGETS)}, got {kind!r}")


@dataclass(frozen=True)
class SelfPlaySettings:
    """How the K games of a ``SelfPlayRunner`` are played and recorded (one frozen object; the
    trainer builds it once from the ``selfplay`` section of a run's config,
    ``trainer.config.worker_settings``).

    Attributes:
        temperature: move-sampling temperature for the first ``temperature_plies`` plies, >= 0.
        temperature_plies: plies sampled at ``temperature``, >= 0; later moves are greedy.
        random_opening_plies: each game starts with 0 to this many uniformly random plies that
            are not recorded, >= 0 (0 = none); see ``SelfPlayRunner._open``.
        exploring_starts: the share of games, in ``[0, 1]``, that start instead at a state the
            game's knowledge draws to cover its states (``games.knowledge.Knowledge.exploring_start``;
            Sutton & Barto 2018, sec. 5.3), reached by events that are not recorded; 0 = none.
        full_search_probability: p of playout cap randomisation, in ``(0, 1]`` (1 = off).
        cheap_simulations: N_cheap, simulations of a cheap search, in ``[1, num_simulations]`` of
            the search (read only when p < 1).
        value_target: ``"z"``, ``"q"``, ``"mix"`` or ``"lambda"`` (module docstring).
        td_lambda: lambda of the ``"lambda"`` target (:func:`lambda_returns`), in ``[0, 1]``.
        reuse_tree: subtree reuse (searches that reuse trees, ``mcts.Algorithm.reuses_tree``): the
            next search of a game starts from the subtree below the move played
            (``mcts.tree.reroot``), with its visit counts and values, and fresh root noise;
            finished games and ``SelfPlayRunner.reset_trees`` (new weights) start empty.

    Raises:
        ValueError: for a field out of its range above (``games.checks``: the message names the
            field, the range and the value).
    """

    temperature: float = 1.0
    temperature_plies: int = 8
    random_opening_plies: int = 0
    exploring_starts: float = 0.0
    full_search_probability: float = 1.0
    cheap_simulations: int = 16
    value_target: str = "z"
    td_lambda: float = 0.9
    reuse_tree: bool = False

    def __post_init__(self) -> None:
        check_number("temperature", self.temperature, 0)
        for name in ("temperature_plies", "random_opening_plies"):
            check_int(name, getattr(self, name), 0)
        check_number("exploring_starts", self.exploring_starts, 0, 1)
        check_number("full_search_probability", self.full_search_probability, 0, 1, low_open=True)
        check_int("cheap_simulations", self.cheap_simulations, 1)
        check_choice("value_target", self.value_target, VALUE_TARGETS)
        check_number("td_lambda", self.td_lambda, 0, 1)


#: the settings of a runner given none
DEFAULT_SETTINGS = SelfPlaySettings()


class SelfPlayRunner:
    """K self-play games searched together.

    Args:
        game: the rules.
        evaluate_fn: ``(observations [B,C,H,W] float32, legal_mask [B,A] bool) -> (priors [B,A],
            values [B])``, values for the player to move (see ``mcts.evaluators``).
        search_config: the frozen settings of a registered search (``mcts.PUCTConfig``,
            ``mcts.GumbelConfig``, ...); root noise (Dirichlet, or the Gumbel draw) is on for every
            full search (self-play roots only; arena searches have none).
        num_games: K, the games kept in flight.
        rng: the only source of randomness (noise and move sampling).
        settings: the frozen ``SelfPlaySettings`` (temperature, openings, playout cap, value
            target, subtree reuse).
        first_game_id, game_id_stride: game ids are ``first_game_id + i * game_id_stride``, so
            several workers never hand out the same id.

    Raises:
        ValueError: for ``num_games`` < 1, ``settings`` that are not a ``SelfPlaySettings``,
            ``cheap_simulations`` outside ``[1, num_simulations]`` with p < 1, settings of no
            registered search, ``reuse_tree`` with a search that does not reuse trees, or
            ``exploring_starts`` > 0 for a game whose knowledge draws none.
    """

    def __init__(
        self,
        game: Game,
        evaluate_fn,
        search_config,
        num_games: int,
        rng: np.random.Generator,
        settings: SelfPlaySettings = DEFAULT_SETTINGS,
        first_game_id: int = 0,
        game_id_stride: int = 1,
    ) -> None:
        algorithm = algorithm_of(search_config)
        if not isinstance(settings, SelfPlaySettings):
            raise ValueError(f"settings: expected a selfplay.runner.SelfPlaySettings, got {type(settings).__name__}")
        partial = settings.full_search_probability < 1.0
        if partial and not 1 <= settings.cheap_simulations <= search_config.num_simulations:
            raise ValueError(
                f"expected cheap_simulations in [1, {search_config.num_simulations}], got {settings.cheap_simulations}"
            )
        if settings.reuse_tree and not algorithm.reuses_tree:
            raise ValueError(f"reuse_tree: the {algorithm.name} search does not reuse trees")
        if num_games < 1:
            raise ValueError(f"num_games must be >= 1, got {num_games}")
        self.knowledge = games.knowledge(game) if settings.exploring_starts > 0 else None
        if self.knowledge is not None and self.knowledge.exploring_start(np.random.default_rng(0)) is None:
            raise ValueError(
                f"exploring_starts: {game.name} draws no exploring starts (games.knowledge); expected 0, "
                f"got {settings.exploring_starts}"
            )
        self.game = game
        self.evaluate_fn = evaluate_fn
        self.search_config = search_config
        self.settings = settings
        self.full_search_probability = float(settings.full_search_probability)
        self.cheap_config = replace(search_config, num_simulations=int(settings.cheap_simulations)) if partial else None
        self.value_target = settings.value_target
        self.td_lambda = settings.td_lambda
        self.num_games = num_games
        self.rng = rng
        self.temperature = float(settings.temperature)
        self.temperature_plies = int(settings.temperature_plies)
        self.model_version = 0  # the version of the weights evaluate_fn holds (set by the worker), recorded per position
        self._next_game_index = 0
        self._first_game_id = int(first_game_id)
        self._game_id_stride = int(game_id_stride)
        length, actions = game.max_game_length, game.num_actions
        self._observations = np.zeros((num_games, length, *game.observation_shape), dtype=np.float32)
        self._legal = np.zeros((num_games, length, actions), dtype=bool)
        self._policies = np.zeros((num_games, length, actions), dtype=np.float32)
        self._policy_weights = np.ones((num_games, length), dtype=np.float32)
        self._model_versions = np.zeros((num_games, length), dtype=np.int64)  # weights version per position
        self._search_values = np.zeros((num_games, length), dtype=np.float32)
        self._to_play = np.zeros((num_games, length), dtype=np.int8)
        self._actions = np.zeros((num_games, length), dtype=np.int64)
        self.random_opening_plies = int(settings.random_opening_plies)
        self.exploring_starts = float(settings.exploring_starts)
        self.reuse_tree = bool(settings.reuse_tree)
        self._tree = None  # the rerooted trees of the K games, with reuse_tree
        self._start_ply = np.zeros(num_games, dtype=np.int64)
        self._has_chance = bool(game.num_chance_outcomes)
        self._decisions = np.zeros(num_games, dtype=np.int64)  # positions recorded per game (chance games)
        self._events: list[list[int]] = [[] for _ in range(num_games)]  # decisions and outcomes (chance games)
        self.states = game.initial_states(num_games)
        for slot in range(num_games):
            self._open(slot)
        self.game_ids = np.array([self._new_game_id() for _ in range(num_games)], dtype=np.int64)

    def _new_game_id(self) -> int:
        game_id = self._first_game_id + self._next_game_index * self._game_id_stride
        self._next_game_index += 1
        return game_id

    def play_moves(self, num_moves: int) -> tuple[list[GameRecord], SelfPlayStats]:
        """Play ``num_moves`` plies in each of the K games; return the games that finished.

        Returns:
            (finished ``GameRecord``s, ``SelfPlayStats`` of this call).
        """
        start = time.perf_counter()
        game = self.game
        stats = SelfPlayStats()
        finished: list[GameRecord] = []
        rows = np.arange(self.num_games)
        for _ in range(num_moves):
            states = self.states
            plies = self._decisions.copy() if self._has_chance else game.ply(states)
            full = self.cheap_config is None or bool(self.rng.random() < self.full_search_probability)
            config = self.search_config if full else self.cheap_config
            output, policy, actions = self._search(states, plies, config, full)
            self._observations[rows, plies] = game.observation(states)
            self._legal[rows, plies] = game.legal_mask(states)
            self._policies[rows, plies] = policy
            self._policy_weights[rows, plies] = 1.0 if full else 0.0
            self._model_versions[rows, plies] = self.model_version
            self._search_values[rows, plies] = output.root_values
            self._to_play[rows, plies] = game.to_play(states)
            self._actions[rows, plies] = actions
            self.states = game.step(states, actions)
            if self.reuse_tree:
                self._tree = reroot(output.tree, actions)
            if self._has_chance:
                self._after_decisions(actions)
            stats.moves += self.num_games
            stats.full_searches += self.num_games if full else 0
            stats.leaf_evaluations += int(output.num_evaluations.sum())
            stats.simulations += config.num_simulations * self.num_games
            stats.degenerate_priors += int(output.num_degenerate_priors.sum())
            done = np.flatnonzero(game.terminal(self.states))
            if len(done):
                winners = game.winner(self.states[done])
                for slot, winner in zip(done, winners):
                    finished.append(self._finish(int(slot), int(winner), stats))
                self.states[done] = game.initial_states(len(done))
                if self._has_chance:
                    self._decisions[done] = 0
                    for slot in done:
                        self._events[int(slot)] = []
                if self._tree is not None:
                    self._tree.num_nodes[done] = 0  # a new game: its first search starts empty
                for slot in done:
                    self._open(int(slot))
        stats.seconds = time.perf_counter() - start
        return finished, stats

    def _after_decisions(self, actions: np.ndarray) -> None:
        """Chance games: count the decisions just played, then play every chance state that
        follows them with the run's generator (repeatedly, for games that roll twice)."""
        self._decisions += 1
        for slot, action in enumerate(actions):
            self._events[slot].append(int(action))
        rolled = np.zeros(self.num_games, dtype=bool)
        while True:
            chance = np.flatnonzero(self.game.is_chance(self.states))
            if not chance.size:
                break
            rolled[chance] = True
            outcomes = self.game.sample_chance(self.states[chance], self.rng)
            self.states[chance] = self.game.apply_chance(self.states[chance], outcomes)
            for slot, outcome in zip(chance, outcomes):
                self._events[int(slot)].append(int(outcome))
        if self._tree is not None and rolled.any():
            self._tree.num_nodes[rolled] = 0  # the subtree's root was the chance state: start afresh

    def _search(self, states, plies, config, full: bool):
        """One batched search: ``(SearchOutput, policy targets [K, A] float32, actions [K] int64)``."""
        temperatures = np.where(plies < self.temperature_plies, self.temperature, 0.0)
        output = run_search(
            self.game, states, self.evaluate_fn, config, self.rng, explore=full, temperature=temperatures,
            ties="random", tree=self._tree,
        )
        return output, output.policy_targets, output.actions

    def reset_trees(self) -> None:
        """Drop the reused trees (their evaluations came from weights no longer used)."""
        self._tree = None

    def _open(self, slot: int) -> None:
        """Play 0..``random_opening_plies`` uniformly random plies (not recorded as training
        positions) at the start of the game in ``slot``, so self-play visits more positions. An
        opening that would end the game is cut short before its last ply. In a game with chance
        the plies are decisions, each followed by its chance outcomes. With ``exploring_starts`` that
        share of games starts at the game's exploring start instead (``_open_at``)."""
        if self.exploring_starts and self.rng.random() < self.exploring_starts:
            self._open_at(slot, self.knowledge.exploring_start(self.rng))
            return
        if self._has_chance:
            self._open_with_chance(slot)
            return
        plies = int(self.rng.integers(0, self.random_opening_plies + 1)) if self.random_opening_plies else 0
        state = self.states[slot : slot + 1]
        for ply in range(plies):
            legal = np.flatnonzero(self.game.legal_mask(state)[0])
            action = int(self.rng.choice(legal))
            after = self.game.step(state, np.array([action]))
            if self.game.terminal(after)[0]:
                break
            self._actions[slot, ply] = action
            state = after
        self.states[slot] = state[0]
        self._start_ply[slot] = int(self.game.ply(state)[0])

    def _open_with_chance(self, slot: int) -> None:
        game = self.game
        plies = int(self.rng.integers(0, self.random_opening_plies + 1)) if self.random_opening_plies else 0
        state = self.states[slot : slot + 1]
        events: list[int] = []
        decisions = 0
        for _ in range(plies):
            legal = np.flatnonzero(game.legal_mask(state)[0])
            action = int(self.rng.choice(legal))
            after = game.step(state, np.array([action]))
            played = [action]
            while not game.terminal(after)[0] and game.is_chance(after)[0]:
                outcome = game.sample_chance(after, self.rng)
                played.append(int(outcome[0]))
                after = game.apply_chance(after, outcome)
            if game.terminal(after)[0]:
                break
            self._actions[slot, decisions] = action
            decisions += 1
            events.extend(played)
            state = after
        self.states[slot] = state[0]
        self._start_ply[slot] = decisions
        self._decisions[slot] = decisions
        self._events[slot] = events

    def _open_at(self, slot: int, events: list[int]) -> None:
        """Play ``events`` (decisions and chance outcomes in play order, as the game's move strings)
        from the initial state in ``slot``, not recorded as training positions.

        Raises:
            ValueError: for an event that is not a legal decision or chance outcome where it is
                played, or events that end the game.
        """
        game = self.game
        state = self.states[slot : slot + 1]
        decisions = 0
        for event in events:
            if self._has_chance and game.is_chance(state)[0]:
                if not 0 <= event < game.num_chance_outcomes:
                    raise ValueError(
                        f"exploring start: expected a chance outcome in [0, {game.num_chance_outcomes}), got {event}"
                    )
                state = game.apply_chance(state, np.array([event], dtype=np.int64))
            else:
                if not (0 <= event < game.num_actions and game.legal_mask(state)[0, event]):
                    raise ValueError(f"exploring start: expected a legal action, got {event} in {events}")
                self._actions[slot, decisions] = event
                decisions += 1
                state = game.step(state, np.array([event], dtype=np.int64))
            if game.terminal(state)[0]:
                raise ValueError(f"exploring start: expected events that leave the game unfinished, got {events}")
        self.states[slot] = state[0]
        if self._has_chance:
            self._start_ply[slot] = decisions
            self._decisions[slot] = decisions
            self._events[slot] = [int(event) for event in events]
        else:
            self._start_ply[slot] = int(game.ply(state)[0])

    def _finish(self, slot: int, winner: int, stats: SelfPlayStats) -> GameRecord:
        if self._has_chance:
            end = int(self._decisions[slot])
        else:
            end = int(self.game.ply(self.states[slot : slot + 1])[0])
        start = int(self._start_ply[slot])
        length = end - start
        to_play = self._to_play[slot, start:end].copy()
        values = value_targets(
            outcome_targets(to_play, winner), self._search_values[slot, start:end], self.value_target, to_play, self.td_lambda
        )
        record = GameRecord(
            game_id=int(self.game_ids[slot]),
            game_name=self.game.name,
            observations=self._observations[slot, start:end].copy(),
            legal_masks=self._legal[slot, start:end].copy(),
            policies=self._policies[slot, start:end].copy(),
            values=values,
            to_play=to_play,
            actions=self._actions[slot, start:end].copy(),
            winner=winner,
            model_versions=self._model_versions[slot, start:end].copy(),
            policy_weights=self._policy_weights[slot, start:end].copy(),
        )
        self.game_ids[slot] = self._new_game_id()
        stats.games += 1
        stats.positions += length
        stats.game_lengths.append(length)
        if not stats.sample_games:
            moves = self._events[slot] if self._has_chance else self._actions[slot, :end]
            stats.sample_games.append(self.game.format_moves(moves))  # opening included
        if winner == 0:
            stats.wins_first_player += 1
        elif winner == 1:
            stats.wins_second_player += 1
        else:
            stats.draws += 1
        return record
