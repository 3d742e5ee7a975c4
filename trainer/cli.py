"""``train``: the self-play training run, configured by Hydra (configs/train.yaml).

Examples::

    train                                   # Connect Four, CPU defaults, 60 minutes
    train game=tictactoe run.max_minutes=5  # a fast run
    train experiment=gpu                    # a GPU box
    train ray.address=auto                  # join a running Ray cluster
    train resume=outputs/connect4/2026-11-29_14-00-00 run.max_minutes=120
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

import games
from trainer.config import check_overrides, register_configs, to_dict, to_train_config
from trainer.resume import describe_changes, named_keys, resume_changes, resume_config

CONFIG_DIR = str(Path(__file__).resolve().parents[1] / "configs")  # as trainer.resume.CONFIG_DIR

register_configs()


@hydra.main(version_base="1.3", config_path=CONFIG_DIR, config_name="train")
def _main(cfg: DictConfig) -> None:
    from trainer.loop import RunStopped, TrainingRun  # heavy dependency (torch): imported where it is used

    config = to_train_config(cfg)  # the only DictConfig -> dataclass conversion: actors get plain, picklable values
    hydra_dir = Path(HydraConfig.get().runtime.output_dir).resolve()
    launch_dir = Path(HydraConfig.get().runtime.cwd)  # where `train` was typed (hydra.job.chdir may have left it)
    if config.resume:
        run_dir = resolve_resume(config.resume, launch_dir)
        config = dataclasses.replace(config, resume=str(run_dir))
        if hydra_dir != run_dir.resolve():
            if Path.cwd().resolve() == hydra_dir:  # hydra.job.chdir=true: leave the folder before it goes
                os.chdir(run_dir if run_dir.is_dir() else launch_dir)
            _remove_unused_run_dir(hydra_dir, launch_dir)  # the run goes on in its own folder
        if not run_dir.is_dir():
            raise SystemExit(f"train: resume={config.resume}: no such run directory")
        try:
            config = _resumed_config(config, run_dir, list(HydraConfig.get().overrides.task))
        except ValueError as exc:
            raise SystemExit(f"train: resume={config.resume}: {exc}") from None
    else:
        run_dir = hydra_dir
    try:
        training = TrainingRun(config, run_dir)  # validates the config, once
    except ValueError as exc:
        if not config.resume:
            _remove_unused_run_dir(hydra_dir, launch_dir)
        raise SystemExit(f"train: {exc}") from None
    link_latest(run_dir)
    try:
        summary = training.run()
    except (ValueError, RunStopped) as exc:  # a clear message and exit status 1, no traceback
        raise SystemExit(f"train: {exc}") from None
    from trainer.report import write_report  # matplotlib: only when a run has finished

    print(finish_message(summary, config.run.max_minutes))
    print(f"report: {write_report(run_dir)}")


def finish_message(summary, max_minutes: float | None) -> str:
    """What ``train`` prints when a run ends: the totals, the final mistake rates, the next commands.

    Args:
        summary: the run's ``trainer.loop.RunSummary``.
        max_minutes: the run's ``run.max_minutes`` (None: no wall-clock budget).

    Returns:
        ``run finished (REASON): ...`` (with gating off, the best version is said to be the latest
        weights rather than ``0 promotions in 0 gates``); when the wall-clock budget ended before
        any game finished, a line saying that ``best/`` holds the untrained network; the last
        mistake rates against perfect play, when measured; and the commands that play, measure and
        report on the run (``RUN/best`` and ``train-report RUN``).
    """
    if summary.gating:
        best = f"best version {summary.best_version} ({summary.promotions} promotions in {summary.gates} gates)"
    else:
        best = f"best version {summary.best_version} (gating off: the latest weights, no gating matches)"
    line = (
        f"run finished ({summary.stopped_by}): {summary.steps} steps, {summary.games} games, "
        f"{best}, {summary.seconds:.0f} s; outputs in {summary.run_dir}"
    )
    if summary.games == 0 and summary.steps == 0 and summary.stopped_by == "max_minutes":
        line += (
            f"\nno self-play game finished within run.max_minutes={max_minutes:g}: starting Ray and "
            "the self-play actors (and compiling the game's kernels on a first run) took it all, so "
            "best/ holds the untrained network; give the run more minutes "
            "(resume=DIR run.max_minutes=N continues it)"
        )
    if summary.mistake_rates:
        rates = ", ".join(f"{name} {rate:.2%}" for name, rate in summary.mistake_rates.items())
        line += f"\nmistakes against perfect play (best version {summary.measured_version}): {rates}"
    if summary.stopped_by in ("max_minutes", "max_steps") and summary.steps > 0:
        run = summary.run_dir
        line += (
            "\nnext:"
            f"\n  play --model {run}/best  # play against it"
            f"\n  arena accuracy mcts:model={run}/best  # its mistakes against perfect play"
            f"\n  arena mcts:model={run}/best alphabeta:depth=4 --games 20  # a match against alpha-beta"
            f"\n  train-report {run}  # write {run}/report.html again"
        )
    return line


def link_latest(run_dir: Path) -> Path:
    """Point ``latest`` beside ``run_dir`` (``outputs/GAME/latest``) at it, replacing any older link
    atomically (a new link under a temporary name, then a rename over the old one).

    Returns:
        the link's path. A folder or file already named ``latest`` is left alone (and returned).
    """
    link = run_dir.parent / "latest"
    if link.exists() and not link.is_symlink():
        return link
    temporary = run_dir.parent / f".latest.{os.getpid()}"
    try:
        if temporary.is_symlink():
            temporary.unlink()
        temporary.symlink_to(run_dir.name, target_is_directory=True)
        os.replace(temporary, link)
    except OSError:  # a file system without links: the run goes on without one
        temporary.unlink(missing_ok=True)
    return link


def _resumed_config(config, run_dir: Path, overrides: list[str]):
    """The run's saved ``config.json`` with the keys this command line names (``trainer.resume``);
    prints each key whose value changes, with the saved and the new value.

    A run stopped before it wrote ``config.json`` resumes with the composed ``config`` as is.

    Args:
        config: the configuration composed from this command line.
        run_dir: the run to continue.
        overrides: this command line's overrides (Hydra's task overrides).

    Raises:
        ValueError: if ``config.json`` is not a JSON object of known keys.
    """
    saved_path = run_dir / "config.json"
    if not saved_path.is_file():
        return config
    try:
        saved = json.loads(saved_path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{saved_path} is not readable JSON ({exc})") from None
    if not isinstance(saved, dict):
        raise ValueError(f"{saved_path}: expected a JSON object, got {type(saved).__name__}")
    resumed = resume_config(saved, to_dict(config), named_keys(overrides))
    lines = describe_changes(resume_changes(saved, to_dict(resumed)))
    if lines:
        print(f"resume {run_dir}: the command line changes\n  " + "\n  ".join(lines))
    else:
        print(f"resume {run_dir}: every setting as saved in {saved_path.name}")
    return resumed


def resolve_resume(resume: str, launch_dir: Path) -> Path:
    """The run folder that ``resume=`` names: an absolute path as given, a relative one taken from
    ``launch_dir``, the folder ``train`` was started in (with ``hydra.job.chdir=true`` the working
    folder is Hydra's new output folder by then, so ``Path(resume)`` alone would point inside it).
    ``~`` is expanded; the result is absolute, with ``.`` and ``..`` parts removed.
    """
    path = Path(resume).expanduser()
    if not path.is_absolute():
        path = Path(launch_dir) / path
    return Path(os.path.normpath(path.absolute()))


def _remove_unused_run_dir(run_dir: Path, launch_dir: Path) -> None:
    """Delete a run folder Hydra created for a run that never started.

    Only a folder holding nothing but Hydra's own files (``.hydra/`` and the job log) is removed,
    so a rejected command line leaves no empty run behind and nothing else is ever lost. Its empty
    parents are removed up to ``launch_dir`` (the folder ``train`` was started in).
    """
    try:
        entries = {p.name for p in run_dir.iterdir()}
    except OSError:
        return
    if entries <= {".hydra"}:
        shutil.rmtree(run_dir, ignore_errors=True)
        # and the date's parents Hydra made (outputs/GAME), while empty and below the working folder
        top = Path(launch_dir).resolve()
        parent = run_dir.resolve().parent
        while parent != top and top in parent.parents:
            try:
                parent.rmdir()
            except OSError:
                break
            parent = parent.parent


def class_game_overrides(overrides: list[str]) -> list[str]:
    """``game=module:Class`` or ``game=NAME`` of an installed package's entry point (a game class
    outside this repository, ``games.make``) as the overrides Hydra composes: ``game=module``
    (configs/game/module.yaml) and ``game.name=SPEC``; every other override as it is."""
    options = {path.stem for path in (Path(CONFIG_DIR) / "game").glob("*.yaml")}
    out = []
    for override in overrides:
        key, _, value = override.partition("=")
        if key == "game" and value not in options and (games.is_class_spec(value) or value in games.names()):
            out.extend(["game=module", f"game.name={value}"])
        else:
            out.append(override)
    return out


def main() -> None:
    """Console-script entry point."""
    try:  # unknown keys: a message naming the accepted ones, before Hydra composes
        check_overrides(sys.argv[1:], CONFIG_DIR)
    except ValueError as exc:
        raise SystemExit(f"train: {exc}") from None
    sys.argv[1:] = class_game_overrides(sys.argv[1:])
    _main()


if __name__ == "__main__":
    sys.exit(main())
