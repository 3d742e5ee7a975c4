"""Bad configuration: every bad value or key gives a message naming the key and
the accepted values, before Ray starts.

Property tests over ``trainer.config.validate`` (fast), a few through Hydra's compose API, and a
handful through the real ``train`` command (slow: each start costs seconds).
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers_train import refusal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import games
from trainer.config import (
    CONFIG_GROUPS,
    ArenaSchema,
    MCTSSchema,
    SelfPlaySchema,
    TrainerSchema,
    TrainSchema,
    arena_search,
    check_overrides,
    selfplay_search,
    validate,
)
from trainer.loop import make_learner

REPO_ROOT = Path(__file__).resolve().parents[1]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: keys that must be > 0 (None allowed where the schema says Optional)
POSITIVE = [
    "selfplay.num_actors",
    "selfplay.games_per_actor",
    "selfplay.moves_per_call",
    "selfplay.torch_threads",
    "trainer.batch_size",
    "trainer.learning_rate",
    "trainer.replay_capacity",
    "trainer.replay_ratio",
    "trainer.batches_per_fetch",
    "trainer.checkpoint_every_steps",
    "trainer.checkpoint_every_minutes",
    "trainer.keep_checkpoints",
    "trainer.publish_every_steps",
    "trainer.grad_clip",
    "trainer.torch_threads",
    "trainer.lr_schedule_samples",
    "arena.gate_every_steps",
    "arena.num_games",
    "arena.num_simulations",
    "ray.num_cpus",
    "ray.object_store_memory",
    "run.max_steps",
    "run.max_minutes",
    "run.sample_games_every",
    "run.status_every_seconds",
]
#: keys that must be >= 0
NON_NEGATIVE = [
    "selfplay.temperature",
    "selfplay.temperature_plies",
    "selfplay.random_opening_plies",
    "selfplay.num_cpus_per_actor",
    "selfplay.num_gpus_per_actor",
    "trainer.weight_decay",
    "trainer.min_replay_positions",
    "arena.opening_random_plies",
    "arena.num_cpus",
    "ray.num_gpus",
]
#: keys of the search section and the message of the settings class that checks each
#: (mcts/search.py, mcts/gumbel.py, mcts/uct.py): > 0 for these ...
SEARCH_POSITIVE = {
    "mcts.num_simulations": "expected num_simulations >= 1",
    "mcts.c_base": "expected c_base None or > 0",
    "mcts.dirichlet_alpha": "expected dirichlet_alpha > 0",
    "mcts.gumbel_max_considered_actions": "expected an int max_num_considered_actions >= 1",
    "mcts.uct_num_rollouts": "expected an int num_rollouts >= 1",
}
#: ... and >= 0 for these
SEARCH_NON_NEGATIVE = {
    "mcts.c_puct": "expected c_puct finite and >= 0",
    "mcts.c_init": "expected c_init finite and >= 0",
    "mcts.gumbel_scale": "expected a finite gumbel_scale >= 0",
    "mcts.gumbel_c_visit": "expected a finite c_visit >= 0",
    "mcts.gumbel_c_scale": "expected a finite c_scale >= 0",
    "mcts.uct_c": "expected c finite and >= 0",
}
CHOICES = {
    "trainer.optimizer": ["adamw", "sgd"],
    "trainer.lr_schedule": ["constant", "cosine", "step", "wsd"],
    "trainer.device": ["auto", "cpu", "cuda"],
    "selfplay.device": ["auto", "cpu", "cuda"],
    "arena.inference": ["torch", "onnx"],
    "arena.gate": ["sprt", "fixed"],
}


def tiny_config(**changes) -> TrainSchema:
    """A valid tic-tac-toe config (like ``experiment=tiny``) with ``{"section.key": value}`` changes."""
    config = TrainSchema()
    config.game.name = "tictactoe"
    config.network.kind = "mlp"
    config.trainer.batch_size, config.trainer.replay_capacity, config.trainer.min_replay_positions = (
        32,
        2000,
        64,
    )
    config.run.max_steps = 20
    for dotted, value in changes.items():
        section, key = dotted.split(".")
        setattr(getattr(config, section), key, value)
    return config


def is_int_key(dotted: str) -> bool:
    section, key = dotted.split(".")
    field = {f.name: f for f in dataclasses.fields(getattr(TrainSchema(), section))}[key]
    return "int" in str(field.type) and "float" not in str(field.type)


def errors_of(config: TrainSchema) -> str:
    with pytest.raises(ValueError, match="invalid configuration") as raised:
        validate(config)
    return str(raised.value)


def test_the_tiny_config_is_valid():
    validate(tiny_config())


@SETTINGS
@given(key=st.sampled_from(POSITIVE), data=st.data())
def test_zero_or_negative_values_name_the_key_and_the_bound(key, data):
    if is_int_key(key):
        value = data.draw(st.integers(max_value=0))
    else:
        value = data.draw(st.floats(max_value=0.0) | st.sampled_from([math.nan, math.inf, -math.inf]))
    message = errors_of(tiny_config(**{key: value}))
    bound = "an int >= 1" if is_int_key(key) else "a finite number > 0"
    assert re.search(rf"{re.escape(key)}: expected {bound}, got ", message), message


@SETTINGS
@given(key=st.sampled_from(sorted(SEARCH_POSITIVE) + sorted(SEARCH_NON_NEGATIVE)), data=st.data())
def test_search_values_out_of_range_name_the_key_and_the_bound_of_their_settings_class(key, data):
    positive = key in SEARCH_POSITIVE
    if is_int_key(key):
        value = data.draw(st.integers(max_value=0 if positive else -1))
    else:
        bad = [math.nan, math.inf, -math.inf] if positive else [math.nan, -math.inf]
        value = data.draw(st.floats(max_value=0.0 if positive else -1e-9) | st.sampled_from(bad))
    message = errors_of(tiny_config(**{key: value}))
    expected = (SEARCH_POSITIVE | SEARCH_NON_NEGATIVE)[key]
    assert f"{key}: {expected}, got " in message, message


@SETTINGS
@given(key=st.sampled_from(NON_NEGATIVE), data=st.data())
def test_negative_values_name_the_key_and_the_bound(key, data):
    if is_int_key(key):
        value = data.draw(st.integers(max_value=-1))
    else:
        value = data.draw(st.floats(max_value=-1e-9) | st.sampled_from([math.nan, -math.inf]))
    message = errors_of(tiny_config(**{key: value}))
    bound = "an int >= 0" if is_int_key(key) else "a finite number >= 0"
    assert re.search(rf"{re.escape(key)}: expected {bound}, got ", message), message


@SETTINGS
@given(name=st.text(min_size=0, max_size=12).filter(lambda text: text not in games.names()))
def test_an_unknown_game_lists_the_games(name):
    message = errors_of(tiny_config(**{"game.name": name}))
    assert f"game.name: expected one of {games.names()}, got {name!r}" in message


@SETTINGS
@given(key=st.sampled_from(sorted(CHOICES)), data=st.data())
def test_an_unknown_choice_lists_the_accepted_ones(key, data):
    device = key.endswith(".device")  # a device may also be "cuda:N" (networks.config.check_device)
    value = data.draw(
        st.text(max_size=10).filter(lambda text: text not in CHOICES[key] and not text.startswith("cuda:"))
    )
    message = errors_of(tiny_config(**{key: value}))
    assert f"{key}: expected one of {CHOICES[key]}{' or ' + repr('cuda:N') if device else ''}, got {value!r}" in message


@SETTINGS
@given(capacity=st.integers(1, 5000), extra=st.integers(1, 5000))
def test_a_batch_larger_than_the_buffer_names_both(capacity, extra):
    config = tiny_config(
        **{
            "trainer.replay_capacity": capacity,
            "trainer.batch_size": capacity + extra,
            "trainer.min_replay_positions": 0,
        }
    )
    message = errors_of(config)
    assert (
        f"trainer.batch_size: expected <= trainer.replay_capacity ({capacity}), got {capacity + extra}"
        in message
    )


@SETTINGS
@given(
    epsilon=st.floats(allow_nan=True, allow_infinity=True).filter(lambda x: not 0.0 <= x <= 1.0),
    fpu=st.floats(allow_nan=True).filter(lambda x: not -1.0 <= x <= 1.0),
    threshold=st.floats(allow_nan=True).filter(lambda x: not 0.0 < x <= 1.0),
    momentum=st.floats(allow_nan=True).filter(lambda x: not 0.0 <= x < 1.0),
    decay=st.floats(allow_nan=True, allow_infinity=True).filter(lambda x: not 0.0 < x <= 1.0),
)
def test_every_bad_range_is_reported_at_once(epsilon, fpu, threshold, momentum, decay):
    message = errors_of(
        tiny_config(
            **{
                "mcts.dirichlet_epsilon": epsilon,
                "mcts.fpu_value": fpu,
                "arena.threshold": threshold,
                "trainer.momentum": momentum,
                "trainer.lr_decay_fraction": decay,
                "selfplay.num_actors": 0,
            }
        )
    )
    for expected in (
        "mcts.dirichlet_epsilon: expected dirichlet_epsilon in [0, 1]",
        "mcts.fpu_value: expected fpu_value in [-1, 1]",
        "arena.threshold: expected in (0, 1]",
        "trainer.momentum: expected in [0.0, 1.0)",
        "trainer.lr_decay_fraction: expected in (0, 1]",
        "selfplay.num_actors: expected an int >= 1, got 0",
    ):
        assert expected in message, message


def test_cosine_schedule_needs_its_length_and_both_budgets_null_is_refused():
    message = errors_of(
        tiny_config(**{"trainer.lr_schedule": "cosine", "run.max_steps": None, "run.max_minutes": None})
    )
    assert (
        "trainer.lr_schedule_samples: expected an int > 0 with trainer.lr_schedule=cosine, got null"
        in message
    )
    assert "run: set run.max_steps or run.max_minutes" in message


@pytest.mark.skipif(
    __import__("torch").cuda.is_available(), reason="checks the message on a machine without CUDA"
)
def test_cuda_without_cuda_is_refused():
    message = errors_of(tiny_config(**{"selfplay.device": "cuda", "trainer.device": "cuda"}))
    assert "selfplay.device: 'cuda' asked for, but CUDA is not available here" in message
    assert "trainer.device: 'cuda' asked for, but CUDA is not available here" in message


@SETTINGS
@given(
    simulations=st.integers(1, 64),
    c_puct=st.floats(1e-3, 10),
    c_base=st.none() | st.floats(1.0, 1e5),
    c_init=st.floats(0.0, 5.0),
    fpu=st.floats(-1.0, 1.0),
    alpha=st.floats(1e-3, 5.0),
    epsilon=st.floats(0.0, 1.0),
    learning_rate=st.floats(1e-6, 1.0),
    momentum=st.floats(0.0, 0.99),
    weight_decay=st.floats(0.0, 0.1),
    grad_clip=st.floats(1e-3, 100.0),
    schedule=st.sampled_from(["constant", "cosine"]),
    schedule_samples=st.integers(1, 10**6),
    capacity=st.integers(32, 4000),
)
def test_whatever_validate_accepts_the_components_accept(
    simulations,
    c_puct,
    c_base,
    c_init,
    fpu,
    alpha,
    epsilon,
    learning_rate,
    momentum,
    weight_decay,
    grad_clip,
    schedule,
    schedule_samples,
    capacity,
):
    """A config that passes ``validate`` must not fail later inside a Ray actor or the learner."""
    from mcts import PUCTConfig
    from networks import build_network
    from selfplay.replay_buffer import ReplayBuffer
    from trainer.config import network_config

    config = tiny_config(
        **{
            "mcts.num_simulations": simulations,
            "mcts.c_puct": c_puct,
            "mcts.c_base": c_base,
            "mcts.c_init": c_init,
            "mcts.fpu_value": fpu,
            "mcts.dirichlet_alpha": alpha,
            "mcts.dirichlet_epsilon": epsilon,
            "trainer.learning_rate": learning_rate,
            "trainer.momentum": momentum,
            "trainer.weight_decay": weight_decay,
            "trainer.grad_clip": grad_clip,
            "trainer.lr_schedule": schedule,
            "trainer.lr_schedule_samples": schedule_samples,
            "trainer.replay_capacity": capacity,
            "trainer.min_replay_positions": min(64, capacity),
        }
    )
    validate(config)
    assert isinstance(selfplay_search(config), PUCTConfig)  # what the run hands its actors
    assert isinstance(arena_search(config), PUCTConfig)
    game = games.make(config.game.name)
    tr = config.trainer
    model = build_network(network_config(config), game.observation_shape, game.num_actions)
    make_learner(config, model)
    ReplayBuffer(tr.replay_capacity, game, seed=0, min_positions_to_sample=max(1, tr.min_replay_positions))


@SETTINGS
@given(
    c_base=st.floats(allow_nan=True, allow_infinity=True).filter(lambda x: not (math.isfinite(x) and x > 0)),
    c_init=st.floats(allow_nan=True, allow_infinity=True).filter(lambda x: not (math.isfinite(x) and x >= 0)),
)
def test_what_the_search_would_refuse_validate_refuses_first(c_base, c_init):
    message = errors_of(tiny_config(**{"mcts.c_base": c_base, "mcts.c_init": c_init}))
    assert "mcts.c_base: expected c_base None or > 0" in message
    assert "mcts.c_init: expected c_init finite and >= 0" in message


# ------------------------------------------------------------------------------ unknown keys
SECTIONS = {
    "mcts": MCTSSchema,
    "selfplay": SelfPlaySchema,
    "trainer": TrainerSchema,
    "arena": ArenaSchema,
}


def _misspell(word: str, data) -> str:
    kind = data.draw(st.sampled_from(["drop", "swap", "insert", "replace"]))
    i = data.draw(st.integers(0, len(word) - 1))
    letter = data.draw(st.sampled_from("abcdefghijklmnopqrstuvwxyz_"))
    if kind == "drop":
        return word[:i] + word[i + 1 :]
    if kind == "swap" and i < len(word) - 1:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == "insert":
        return word[:i] + letter + word[i:]
    return word[:i] + letter + word[i + 1 :]


@SETTINGS
@given(section=st.sampled_from(sorted(SECTIONS)), data=st.data())
def test_a_misspelt_key_names_the_accepted_keys(section, data):
    fields = sorted(f.name for f in dataclasses.fields(SECTIONS[section]))
    key = data.draw(st.sampled_from(fields))
    wrong = _misspell(key, data)
    if wrong in fields or not wrong:
        return
    prefix = data.draw(st.sampled_from(["", "+"]))
    with pytest.raises(ValueError) as raised:
        check_overrides(["game=tictactoe", f"{prefix}{section}.{wrong}=3", "hydra.run.dir=x"])
    message = str(raised.value)
    assert f"{section}.{wrong}: unknown key; accepted keys of {section}: {fields}" in message


def test_a_close_misspelling_is_suggested_and_good_overrides_pass():
    with pytest.raises(ValueError, match=r"did you mean mcts\.num_simulations\?"):
        check_overrides(["mcts.num_simulation=3"])
    with pytest.raises(ValueError, match=r"experimnt: unknown key; .*did you mean experiment\?"):
        check_overrides(["experimnt=tiny"])
    with pytest.raises(ValueError, match=r"foo: unknown key; accepted top-level keys and config groups"):
        check_overrides(["+foo=1"])
    with pytest.raises(
        ValueError, match=r"mtcs\.c_puct: unknown key; accepted config sections: .*did you mean mcts\?"
    ):
        check_overrides(["mtcs.c_puct=1"])
    check_overrides(
        [
            "game=tictactoe",
            "experiment=tiny",
            "network.mlp_hidden=[64,64]",
            "hydra.run.dir=/tmp/x",
            "--cfg",
            "job",
            "~mcts.c_base",
            "resume=/tmp/run",
            "+experiment=gpu",
            "hydra/job_logging=disabled",
            "run.max_steps=null",
        ]
    )
    assert set(CONFIG_GROUPS) <= {f.name for f in dataclasses.fields(TrainSchema)} | {"experiment"}


# ------------------------------------------------------------------------------ Hydra compose API
@pytest.mark.parametrize(
    "override, key, expected",
    [
        ("mcts.num_simulations=abc", "mcts.num_simulations", "Integer"),
        ("arena.gating=maybe", "arena.gating", "not a valid bool"),
        ("trainer.learning_rate=fast", "trainer.learning_rate", "Float"),
        ("run.max_steps=1.5", "run.max_steps", "Integer"),
    ],
)
def test_wrong_types_through_compose_name_the_key_and_type(compose, override, key, expected):
    from hydra.errors import ConfigCompositionException

    with pytest.raises(ConfigCompositionException) as raised:
        compose(["game=tictactoe", override])
    cause = str(raised.value.__cause__)
    assert f"full_key: {key}" in cause and expected in cause, cause


@pytest.mark.parametrize(
    "overrides, expected",
    [
        (["mcts.num_simulations=0"], "mcts.num_simulations: expected num_simulations >= 1, got 0"),
        (["selfplay.num_actors=0"], "selfplay.num_actors: expected an int >= 1, got 0"),
        (["game.name=chess"], f"game.name: expected one of {games.names()}, got 'chess'"),
        (
            ["experiment=tiny", "trainer.batch_size=5000"],
            "trainer.batch_size: expected <= trainer.replay_capacity",
        ),
        (["trainer.learning_rate=nan"], "trainer.learning_rate: expected a finite number > 0, got nan"),
        (["mcts.c_base=-5"], "mcts.c_base: expected c_base None or > 0, got -5"),
    ],
)
def test_bad_values_through_compose(compose, overrides, expected):
    assert expected in refusal(compose, ["game=tictactoe", *overrides])


def test_pig_config_composes_with_both_chance_modes_and_refuses_deterministic_only_searches(compose):
    from trainer.config import arena_search, selfplay_search

    config = compose(["game=pig"])
    validate(config)
    assert config.game.name == "pig" and config.network.kind == "mlp"
    assert selfplay_search(config).chance == "expectation" and arena_search(config).chance == "expectation"
    # trained with the robust max backup, played (gating, mistake rates, the export) with max_self
    assert (selfplay_search(config).backup, arena_search(config).backup) == ("robust", "max_self")
    assert (config.selfplay.value_target, config.selfplay.td_lambda) == ("lambda", 0.9)
    same = compose(["game=pig", "arena.backup=null", "mcts.backup=max"])
    assert (selfplay_search(same).backup, arena_search(same).backup) == ("max", "max")
    sampling = compose(["game=pig", "mcts.chance=sampling"])
    validate(sampling)
    assert selfplay_search(sampling).chance == "sampling" and arena_search(sampling).chance == "sampling"
    for overrides, expected in (
        (["mcts.chance=average"], "mcts.chance: expected chance in ['expectation', 'sampling'], got 'average'"),
        (["arena.backup=maximum"], "arena: expected backup in ['mean', 'max', 'max_self', 'robust'], got 'maximum'"),
        (["mcts.algorithm=uct"], "mcts.algorithm: pig has chance states"),
        (["mcts.solver=true"], "mcts.solver: pig has chance states"),
        (["selfplay.exploring_starts=-0.1"], "selfplay.exploring_starts: expected"),
    ):
        with pytest.raises(ValueError) as raised:
            validate(compose(["game=pig", *overrides]))
        assert expected in str(raised.value)


def test_exploring_starts_are_refused_for_a_game_whose_knowledge_draws_none(compose):
    validate(compose(["game=pig", "selfplay.exploring_starts=0.5"]))
    assert compose(["game=pig"]).selfplay.exploring_starts == 0.0
    assert (
        "selfplay.exploring_starts: tictactoe draws no exploring starts (games/knowledge.py exploring_start); "
        "expected 0, got 0.5"
    ) in refusal(compose, ["game=tictactoe", "selfplay.exploring_starts=0.5"])


def test_connect4_self_play_defaults_to_the_cache_with_random_openings_and_other_games_to_no_cache(compose):
    # docs/results/learning_efficiency.md, "The 60-minute run with the cache and random openings": the pair
    # is the Connect Four default; the cache alone made the games repeat, and on tic-tac-toe its
    # lookups cost what the small network saves; "Eight random opening plies": 8 beat 4 on two
    # seeds of a Connect Four hour
    connect4 = compose([])
    validate(connect4)
    assert connect4.game.name == "connect4"
    assert (connect4.selfplay.eval_cache_size, connect4.selfplay.random_opening_plies) == (65536, 8)
    assert connect4.selfplay.value_target == "mix"
    # "The Gumbel root search for an hour on the whole machine": Gumbel with 32 simulations over all
    # 7 columns; the other games keep PUCT
    mcts = connect4.mcts
    assert (mcts.algorithm, mcts.num_simulations, mcts.gumbel_max_considered_actions) == ("gumbel", 32, 7)
    for game, opening_plies in (("tictactoe", 4), ("othello", 0), ("pig", 0)):
        other = compose([f"game={game}"])
        selfplay = other.selfplay
        assert (selfplay.eval_cache_size, selfplay.random_opening_plies) == (0, opening_plies), game
        assert other.mcts.algorithm == "puct", game
    gpu = compose(["experiment=gpu"])
    assert (gpu.mcts.algorithm, gpu.mcts.num_simulations) == ("gumbel", 200)
    plain = compose(["selfplay.eval_cache_size=0", "selfplay.random_opening_plies=0"])
    assert (plain.selfplay.eval_cache_size, plain.selfplay.random_opening_plies) == (0, 0)


def test_an_unknown_game_group_lists_the_options(compose):
    from hydra.errors import MissingConfigException

    with pytest.raises(MissingConfigException, match=r"(?s)Could not find 'game/chess'.*connect4.*tictactoe"):
        compose(["game=chess"])


# ------------------------------------------------------------------------------ the real command
@pytest.mark.slow
@pytest.mark.parametrize(
    "overrides, expected",
    [
        (
            ["mcts.num_simulation=3"],
            "train: invalid configuration: mcts.num_simulation: unknown key; accepted keys of mcts:",
        ),
        (
            ["selfplay.num_actors=0"],
            "train: invalid configuration: selfplay.num_actors: expected an int >= 1, got 0",
        ),
        (
            ["game=chess"],
            "train: invalid configuration: game=chess: no such option; accepted options of game: "
            + str(sorted(path.stem for path in (REPO_ROOT / "configs" / "game").glob("*.yaml")))
            + " or a game class outside this repository as module:Class",
        ),
        (["mcts.num_simulations=-3"], "mcts.num_simulations: expected num_simulations >= 1, got -3"),
        (
            ["selfplay.games_per_actor=many"],
            "train: invalid configuration: selfplay.games_per_actor: expected an integer, got 'many'",
        ),
        (
            ["experiment=tiny", "trainer.batch_size=5000"],
            "trainer.batch_size: expected <= trainer.replay_capacity (2000), got 5000",
        ),
    ],
)
def test_the_train_command_stops_before_ray_with_the_message(tmp_path, overrides, expected):
    run_dir = tmp_path / "run"
    command = [
        sys.executable,
        "-m",
        "trainer.cli",
        *overrides,
        f"hydra.run.dir={run_dir}",
        "ray.address=127.0.0.1:1",
    ]  # nothing listens there: starting Ray would fail differently
    env = {**os.environ, "COLUMNS": "1000"}
    result = subprocess.run(
        command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    output = " ".join((result.stdout + result.stderr).split())
    assert result.returncode != 0
    assert expected in output, output[-2000:]
    assert "Traceback" not in output
    assert "127.0.0.1:1" not in output.replace("ray.address=127.0.0.1:1", "")
    assert not (run_dir / "actors.json").exists() and not (run_dir / "checkpoints").exists()
    assert not run_dir.exists(), "a refused configuration leaves no run folder behind"


def test_a_refused_configuration_keeps_a_folder_that_holds_anything_else(tmp_path):
    run_dir = tmp_path / "run"
    (run_dir / "notes").mkdir(parents=True)
    (run_dir / "notes" / "keep.txt").write_text("mine")
    result = subprocess.run(
        [sys.executable, "-m", "trainer.cli", "selfplay.num_actors=0", f"hydra.run.dir={run_dir}"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False,
    )
    assert result.returncode == 1
    assert "selfplay.num_actors: expected an int >= 1, got 0" in result.stderr
    assert (run_dir / "notes" / "keep.txt").read_text() == "mine"


def test_a_resumed_run_keeps_its_saved_config_but_what_the_command_line_changes():
    from trainer.config import TrainSchema, to_dict
    from trainer.resume import override_keys, resume_config

    defaults = to_dict(TrainSchema())
    saved = to_dict(TrainSchema())
    saved["game"]["name"] = "tictactoe"
    saved["network"]["kind"] = "mlp"
    saved["run"]["max_minutes"] = 5
    saved["mcts"]["num_simulations"] = 32
    composed = to_dict(TrainSchema())  # `train resume=DIR run.max_minutes=<default> run.max_steps=50`
    composed["resume"] = "runs/x"
    composed["run"]["max_steps"] = 50
    named = override_keys(["resume=runs/x", f"run.max_minutes={defaults['run']['max_minutes']}", "run.max_steps=50"])
    assert named == {"run.max_minutes", "run.max_steps"}
    merged = to_dict(resume_config(saved, composed, named))
    assert merged["game"]["name"] == "tictactoe" and merged["network"]["kind"] == "mlp"
    assert merged["mcts"]["num_simulations"] == 32
    assert merged["run"]["max_minutes"] == defaults["run"]["max_minutes"]  # named, though a default
    assert merged["run"]["max_steps"] == 50 and merged["resume"] == "runs/x"
    # a group named on the command line takes its whole section, even the default choice
    assert override_keys(["game=connect4", "experiment=tiny", "+mcts.c_puct=2", "hydra.run.dir=x"]) == {
        "game",
        "mcts.c_puct",
    }
    merged = to_dict(resume_config(saved, to_dict(TrainSchema()), {"game"}))
    assert merged["game"]["name"] == defaults["game"]["name"]
    # a key the saved file lacks (an older run) takes the composed value; an unknown one is refused
    del saved["mcts"]["num_simulations"]
    assert to_dict(resume_config(saved, composed, set()))["mcts"]["num_simulations"] == (
        defaults["mcts"]["num_simulations"]
    )
    saved["mcts"]["no_such_key"] = 1
    with pytest.raises(ValueError, match="no_such_key"):
        resume_config(saved, composed, set())


def test_a_run_that_played_no_game_says_its_best_model_is_untrained():
    from trainer.cli import finish_message
    from trainer.loop import RunSummary

    empty = RunSummary("out/r", 0, 0, 0, 0, 0, 0, 139.0, "max_minutes")
    lines = finish_message(empty, 1.0).splitlines()
    assert lines[0] == (
        "run finished (max_minutes): 0 steps, 0 games, best version 0 (0 promotions in 0 gates), 139 s; "
        "outputs in out/r"
    )
    assert len(lines) == 2 and "within run.max_minutes=1:" in lines[1] and "untrained" in lines[1]
    played = RunSummary("out/r", 20, 43, 400, 10, 1, 2, 67.0, "max_steps")
    assert finish_message(played, 3.0) == (
        "run finished (max_steps): 20 steps, 43 games, best version 10 (1 promotions in 2 gates), 67 s; "
        "outputs in out/r\n"
        "next:\n"
        "  play --model out/r/best  # play against it\n"
        "  arena accuracy mcts:model=out/r/best  # its mistakes against perfect play\n"
        "  arena mcts:model=out/r/best alphabeta:depth=4 --games 20  # a match against alpha-beta\n"
        "  train-report out/r  # write out/r/report.html again"
    )
    # a run stopped by Ctrl-C before its first game gets no budget hint
    stopped = RunSummary("out/r", 0, 0, 0, 0, 0, 0, 20.0, "interrupted")
    assert len(finish_message(stopped, 1.0).splitlines()) == 1


def test_a_run_without_any_checkpoint_interval_is_refused():
    message = errors_of(tiny_config(**{"trainer.checkpoint_every_minutes": None, "trainer.checkpoint_every_steps": None}))
    assert (
        "trainer.checkpoint_every_minutes: expected a number > 0 (or trainer.checkpoint_every_steps), "
        "got null for both: the run would never write a checkpoint"
    ) in message
    validate(tiny_config(**{"trainer.checkpoint_every_minutes": None, "trainer.checkpoint_every_steps": 10}))


@pytest.mark.parametrize(
    "dotted, field, settings_type, bad",
    [
        ("trainer.learning_rate", "learning_rate", "LearnerConfig", -0.5),
        ("trainer.momentum", "momentum", "LearnerConfig", 1.0),
        ("trainer.lr_min_ratio", "lr_min_ratio", "LearnerConfig", 1.5),
        ("trainer.lr_warmup_samples", "lr_warmup_samples", "LearnerConfig", -3),
        ("trainer.optimizer", "optimizer", "LearnerConfig", "adam"),
        ("selfplay.games_per_actor", "num_games", "WorkerSettings", 0),
        ("selfplay.eval_cache_size", "eval_cache_size", "WorkerSettings", -1),
        ("selfplay.inference", "inference", "WorkerSettings", "tensorrt"),
        ("selfplay.value_target", "value_target", "SelfPlaySettings", "td"),
        ("selfplay.full_search_probability", "full_search_probability", "SelfPlaySettings", 0.0),
        ("selfplay.exploring_starts", "exploring_starts", "SelfPlaySettings", 1.5),
    ],
)
def test_a_range_is_written_once_in_its_library_class_and_validate_reports_its_message(dotted, field, settings_type, bad):
    """``validate`` names the key and passes on the message of the class the run builds from the
    section (``trainer.learner_config.LearnerConfig``, ``selfplay.worker.WorkerSettings``,
    ``selfplay.runner.SelfPlaySettings``), so a range lives in one place."""
    from selfplay.runner import SelfPlaySettings
    from selfplay.worker import WorkerSettings
    from trainer.learner_config import LearnerConfig

    classes = {"LearnerConfig": LearnerConfig, "WorkerSettings": WorkerSettings, "SelfPlaySettings": SelfPlaySettings}
    with pytest.raises(ValueError) as library:
        classes[settings_type](**{field: bad})
    assert str(library.value).startswith(f"{field}: expected ")
    assert f"{dotted}: {str(library.value).removeprefix(f'{field}: ')}" in errors_of(tiny_config(**{dotted: bad}))
