"""The YAML files of configs/: each game resolves to the recorded training values, the group files
of trainer/, selfplay/ and arena/ say only what differs from their default.yaml, and comments give a
reason and a link, never measured figures (those live in docs/results.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from trainer.cli import CONFIG_DIR

CONFIGS = Path(CONFIG_DIR)
#: the Connect Four trainer section in full (configs/trainer/default.yaml over the schema)
CONNECT4_TRAINER = {
    "batch_size": 256, "optimizer": "adamw", "learning_rate": 0.002, "momentum": 0.9, "weight_decay": 0.0001,
    "lr_schedule": "constant", "lr_schedule_samples": None, "lr_warmup_samples": 0, "lr_min_ratio": 0.0,
    "lr_step_gamma": 0.1, "lr_decay_fraction": 0.2, "grad_clip": 5.0, "replay_capacity": 200000,
    "replay_window_growth_start": None, "min_replay_positions": 2000, "validation_every": 0, "replay_ratio": 4.0,
    "batches_per_fetch": 4, "checkpoint_every_minutes": 5.0, "checkpoint_every_steps": None, "keep_checkpoints": 3,
    "publish_every_steps": 100,
    "device": "auto", "torch_threads": 1,
}
#: what each game's resolved train config changes from Connect Four's, section by section (the
#: search group aside); recorded from the configs as composed before the group files were shortened
GAME_DIFFERENCES = {
    "connect4": {},
    "othello": {"selfplay": {"temperature_plies": 20, "value_target": "z", "eval_cache_size": 0, "random_opening_plies": 0},
                "arena": {"rating": False}},
    "othello6x6": {"selfplay": {"temperature_plies": 12, "value_target": "z", "eval_cache_size": 0, "random_opening_plies": 0},
                   "arena": {"rating": False}},
    "tictactoe": {
        "trainer": {"batch_size": 128, "learning_rate": 0.003, "replay_capacity": 30000, "min_replay_positions": 500,
                    "checkpoint_every_minutes": 1.0, "publish_every_steps": 50, "device": "cpu"},
        "selfplay": {"moves_per_call": 9, "temperature_plies": 4, "random_opening_plies": 4, "device": "cpu",
                     "eval_cache_size": 0},
        "arena": {"gating": False, "gate_every_steps": 200, "opening_random_plies": 1, "rating": False},
        "network": {"kind": "mlp"},
    },
    "pig": {
        "trainer": {"batch_size": 128, "learning_rate": 0.003, "replay_capacity": 100000, "min_replay_positions": 1000,
                    "publish_every_steps": 50, "device": "cpu", "lr_schedule": "wsd", "lr_decay_fraction": 0.3},
        "selfplay": {"games_per_actor": 32, "moves_per_call": 16, "device": "cpu",
                     "eval_cache_size": 0, "random_opening_plies": 0, "value_target": "lambda"},
        "arena": {"gating": False, "gate_every_steps": 200, "num_simulations": 32, "opening_random_plies": 0, "gate": "fixed",
                  "rating": False, "backup": "max_self"},
        "network": {"kind": "mlp"},
    },
}
#: Connect Four's own choices over the selfplay group (configs/game/connect4.yaml)
CONNECT4_SELFPLAY = {"value_target": "mix", "eval_cache_size": 65536, "random_opening_plies": 8, "temperature_plies": 8,
                     "num_actors": 2, "games_per_actor": 64, "moves_per_call": 8, "device": "auto"}
#: a measured figure in a comment: a percentage, a seed, a count of mistakes
FIGURE_IN_COMMENT = re.compile(r"#.*(\d%|\bseeds?\b|\bmistakes? (over|of|on)\b|\d+ against \d+)", re.IGNORECASE)


@pytest.fixture(scope="module")
def resolved():
    """``game -> the resolved train config`` as plain containers."""
    with initialize_config_dir(config_dir=CONFIG_DIR, version_base="1.3"):
        return {
            game: OmegaConf.to_container(compose("train", overrides=[f"game={game}"]), resolve=True)
            for game in GAME_DIFFERENCES
        }


def test_connect4_resolves_to_the_recorded_values(resolved):
    config = resolved["connect4"]
    assert config["trainer"] == CONNECT4_TRAINER
    assert {key: config["selfplay"][key] for key in CONNECT4_SELFPLAY} == CONNECT4_SELFPLAY
    assert (config["arena"]["gating"], config["arena"]["gate_every_steps"], config["arena"]["num_simulations"]) == (True, 500, 64)
    assert config["network"]["kind"] == "resnet" and config["network"]["num_blocks"] == 4


@pytest.mark.parametrize("game", [game for game in GAME_DIFFERENCES if game != "connect4"])
def test_each_game_changes_only_the_recorded_values(resolved, game):
    base, config = resolved["connect4"], resolved[game]
    assert config["game"]["name"] == game
    for section in ("trainer", "selfplay", "arena"):
        changed = {key: value for key, value in config[section].items() if base[section][key] != value}
        assert changed == GAME_DIFFERENCES[game].get(section, {}), section
    assert config["network"]["kind"] == GAME_DIFFERENCES[game].get("network", {"kind": "resnet"})["kind"]


@pytest.mark.parametrize("group", ["trainer", "selfplay", "arena"])
def test_group_files_say_only_what_differs_from_the_default(group):
    default = yaml.safe_load((CONFIGS / group / "default.yaml").read_text(encoding="utf-8"))
    for path in sorted((CONFIGS / group).glob("*.yaml")):
        if path.name == "default.yaml":
            continue
        values = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert values.pop("defaults") == ["default", "_self_"], path.name
        repeated = {key: value for key, value in values.items() if key in default and default[key] == value}
        assert repeated == {}, path.name


def test_comments_give_reasons_not_figures():
    found = [
        f"{path.relative_to(CONFIGS)}:{number}: {line.strip()}"
        for path in sorted(CONFIGS.rglob("*.yaml"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if FIGURE_IN_COMMENT.search(line)
    ]
    assert found == []
