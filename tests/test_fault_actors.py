"""Dead actors: a run through the real ``train`` entry point whose actors are
killed with ``ray.kill`` by the ``TABULA_RASA_FAULT`` test hook (trainer/faults.py).

* a self-play actor killed mid-game: training goes on, a replacement starts, the buffer holds only
  whole games;
* the arena (gating) actor killed during a gating match: the run recovers with a new one and says so;
* the replay-buffer actor killed: the run stops cleanly (status 1, no traceback) naming the last
  checkpoint and ``resume=``, and a resume from that checkpoint finishes the run.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from helpers_train import TINY_TRAIN, run_train

import games
from selfplay.worker import GAME_ID_BLOCK
from trainer import checkpoint as ckpt

REPO_ROOT = Path(__file__).resolve().parents[1]
# outcome value targets: whole_game_problems reads each game's result back from them
TRAIN = [*TINY_TRAIN, "selfplay.value_target=z"]

#: tic-tac-toe's 8 lines, as sets of cells 0-8
LINES = [
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
    (0, 4, 8),
    (2, 4, 6),
]


def train(*overrides: str, fault: str | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return run_train([*TRAIN, *overrides], fault=fault, timeout=timeout)


def scalars(run_dir: Path, tag: str) -> list[tuple[int, float]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    accumulator = EventAccumulator(str(run_dir / "tensorboard"), size_guidance={"scalars": 0})
    accumulator.Reload()
    return [(event.step, event.value) for event in accumulator.Scalars(tag)]


def _wins(stones: np.ndarray) -> bool:
    return any(stones[list(line)].all() for line in LINES)


def whole_game_problems(state: dict, random_opening_plies: int) -> list[str]:
    """Problems with the games in a tic-tac-toe replay buffer's state dict (empty: all whole).

    The buffer stores positions oldest first with their game id; every game's positions must be
    contiguous, unique to it, consecutive plies (the next position is this one with one more stone
    of the player to move, the colours swapped), start at most ``random_opening_plies`` plies in
    (unless the ring overwrote the front of the oldest game), have legal masks equal to the empty
    cells and value targets that alternate in sign, and end one move before the game is over:
    value +1 and a legal winning move, or value 0 and one empty cell left whose filling does not win.
    """
    observations = state["train/observations"].reshape(-1, 2, 9) > 0.5  # plane 0: player to move
    legal = state["train/legal_masks"]
    values = state["train/values"]
    ids = state["train/game_ids"]
    wrapped = int(state["train_positions_added"]) > len(ids)
    problems: list[str] = []
    if len(ids) == 0:
        return ["the buffer is empty"]
    cuts = np.flatnonzero(np.diff(ids)) + 1
    seen: set[int] = set()
    for index, (start, end) in enumerate(zip(np.r_[0, cuts], np.r_[cuts, len(ids)])):
        game_id = int(ids[start])
        if game_id in seen:
            problems.append(f"game {game_id}: its positions are not contiguous (inserted twice or split)")
        seen.add(game_id)
        mover, other = observations[start:end, 0], observations[start:end, 1]
        empty = ~(mover | other)
        if (mover & other).any():
            problems.append(f"game {game_id}: a cell holds two stones")
        if not (legal[start:end] == empty).all():
            problems.append(f"game {game_id}: legal masks differ from the empty cells")
        stones = (mover | other).sum(axis=1)
        if (index > 0 or not wrapped) and stones[0] > random_opening_plies:
            problems.append(f"game {game_id}: starts at ply {stones[0]} (the front is missing)")
        for t in range(end - start - 1):
            placed = other[t + 1] & ~mover[t]
            if not (
                (mover[t + 1] == other[t]).all() and (other[t + 1] >= mover[t]).all() and placed.sum() == 1
            ):
                problems.append(f"game {game_id}: positions {t} and {t + 1} are not consecutive plies")
                break
        z = values[start:end]
        expected = z[-1] * (-1.0) ** np.arange(end - start - 1, -1, -1)
        if not np.array_equal(z, expected.astype(np.float32)):
            problems.append(f"game {game_id}: value targets {z.tolist()} do not alternate")
        last_mover, last_empty = mover[-1], np.flatnonzero(empty[-1])
        winning = [cell for cell in last_empty if _wins(last_mover | (np.arange(9) == cell))]
        if z[-1] == 1.0 and not winning:
            problems.append(f"game {game_id}: ends with value +1 but no winning move is left (cut short)")
        elif z[-1] == 0.0 and (len(last_empty) != 1 or winning):
            problems.append(
                f"game {game_id}: ends with value 0 but {len(last_empty)} cells are empty (cut short)"
            )
        elif z[-1] not in (0.0, 1.0):
            problems.append(
                f"game {game_id}: the last position's value is {z[-1]}, the player to move cannot lose"
            )
    return problems


def test_the_whole_game_check_finds_cut_games():
    """The checker itself: whole games pass; a game missing its end, or its middle, fails."""
    from mcts import PUCTConfig
    from mcts.evaluators import uniform_evaluator
    from selfplay.replay_buffer import ReplayBuffer
    from selfplay.runner import SelfPlayRunner, SelfPlaySettings

    game = games.make("tictactoe")
    runner = SelfPlayRunner(
        game,
        uniform_evaluator,
        PUCTConfig(num_simulations=4),
        4,
        np.random.default_rng(0),
        settings=SelfPlaySettings(random_opening_plies=4),
    )
    buffer = ReplayBuffer(10_000, game, seed=0)
    while buffer.games_added < 12:
        for record in runner.play_moves(3)[0]:
            buffer.add_game(record)
    state = buffer.state_dict()
    assert whole_game_problems(state, 4) == []
    ids = state["train/game_ids"]
    cut_end = {key: (value[:-1] if key.startswith("train/") else value) for key, value in state.items()}
    problems = whole_game_problems(cut_end, 4)
    assert problems and all(p.startswith(f"game {int(ids[-1])}:") for p in problems)
    middle = np.flatnonzero(ids == ids[0])
    if len(middle) >= 3:
        keep = np.ones(len(ids), bool)
        keep[middle[1]] = False
        cut_middle = {
            key: (value[keep] if key.startswith("train/") else value) for key, value in state.items()
        }
        assert any("consecutive" in p for p in whole_game_problems(cut_middle, 4))


@pytest.mark.slow
def test_dead_selfplay_and_arena_actors_are_replaced_and_the_buffer_holds_whole_games(tmp_path):
    run_dir = tmp_path / "run"
    result = train(
        f"hydra.run.dir={run_dir}",
        "run.max_steps=30",
        fault="kill_selfplay_actor_at_step:2,kill_gating_actor_at_step:10",
    )
    output = " ".join((result.stdout + result.stderr).split())  # the status console wraps long lines
    assert result.returncode == 0, output[-3000:]
    assert "Traceback" not in output
    assert "fault injection: killing the selfplay actor at step 2" in output
    assert "self-play actor 0 died (ActorDiedError); starting a replacement" in output
    assert "fault injection: killing the gating actor at step 10" in output
    assert re.search(
        r"the arena actor died at step \d+; its gating match is dropped and a new arena actor starts", output
    )
    assert "run finished (max_steps): 30 steps" in output  # training went on
    latest = ckpt.load_latest_checkpoint(run_dir)
    counters = latest.counters
    assert latest.step == 30
    assert counters["actor_restarts"] == 1
    assert counters["actor_incarnations"] == 3  # two actors, then one replacement
    assert counters["gating_restarts"] == 1
    assert counters["gates"] >= 1  # the new arena actor finished a gating match (step 20 or 30)
    restarts = scalars(run_dir, "selfplay/actor_restarts")
    assert restarts[-1][1] == 1.0 and restarts[0][1] <= 1.0
    state = latest.buffer_state()
    assert whole_game_problems(state, random_opening_plies=4) == []
    incarnations = set((state["train/game_ids"] // GAME_ID_BLOCK).tolist())
    # every game is of a known incarnation; the killed actor's (1) may have no game left by step 30:
    # whether it finished one before step 2 depends on how soon its first search was compiled
    assert incarnations <= {1, 2, 3} and 2 in incarnations
    assert int(state["train_games_added"]) >= counters["games"] > 0


@pytest.mark.slow
def test_dead_buffer_actor_stops_the_run_cleanly_and_it_resumes(tmp_path):
    run_dir = tmp_path / "run"
    stopped = train(f"hydra.run.dir={run_dir}", fault="kill_buffer_actor_at_step:15")
    output = " ".join((stopped.stdout + stopped.stderr).split())
    assert stopped.returncode == 1, output[-3000:]
    assert "Traceback" not in output
    assert "the replay-buffer actor died" in output
    assert f"resume from the last checkpoint (step 10) with: train resume={run_dir}" in output
    saved = ckpt.load_latest_checkpoint(run_dir)
    assert saved.step == 10
    saved_games = int(saved.buffer_state()["train_games_added"])

    resumed = train(f"hydra.run.dir={run_dir}", f"resume={run_dir}")
    output = " ".join((resumed.stdout + resumed.stderr).split())
    assert resumed.returncode == 0, output[-3000:]
    assert f"resumed {run_dir} at step 10" in output
    assert "run finished (max_steps): 20 steps" in output
    final = ckpt.load_latest_checkpoint(run_dir)
    assert final.step == 20
    assert final.counters["games"] >= saved.counters["games"]
    assert int(final.buffer_state()["train_games_added"]) >= saved_games > 0
    steps = [step for step, _ in scalars(run_dir, "train/policy_loss")]
    assert steps == list(range(1, 21))  # steps 11-15 of the stopped run were purged, then re-logged once
