"""A training run's report: one self-contained HTML page, ``RUN/report.html``.

``train`` writes it when a run ends; ``train-report RUN`` writes it again at any time (a run still
going, or one copied from another machine). The page holds the curves a user looks at, drawn with
matplotlib from the run's TensorBoard event files (read with TensorBoard's ``EventAccumulator``)
and embedded as base64 PNG images, so the one file can be mailed or opened offline:

* mistakes against perfect play, one line per labelled set (``arena/mistake_rate/SET``), against
  wall-clock minutes;
* the exact win probability of the best model's policy against optimal play
  (``arena/exact_win/mean``, ``as_first``, ``as_second``), for games that compute it (Pig);
* ratings, when the run logged any (``arena/elo*``, ``arena/rating*``);
* the losses (``train/policy_loss``, ``train/value_loss``, and ``validation/*`` when held-out games
  were scored) against optimiser steps;
* self-play positions per second (``selfplay/positions_per_s``) against minutes;
* gating: promotions and matches played (``arena/promotions``, ``arena/gates``) against steps.

A curve without events is left out (a tic-tac-toe run with gating off has no promotions plot).
Below the pictures come the best model's provenance (``best/model.json``,
``networks.provenance``) and the resolved config (``config.json``).
"""

from __future__ import annotations

import argparse
import base64
import html
import io
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from matplotlib.figure import Figure
from tensorboard.backend.event_processing.event_accumulator import SCALARS, EventAccumulator

from games.atomic import atomic_write_bytes
from networks.provenance import provenance_summary

#: the report's file name in the run folder
REPORT_FILE = "report.html"
#: the page's style sheet, inline (the page is one file)
STYLE = (
    "<style>body{font-family:sans-serif;max-width:60em;margin:1em auto;padding:0 1em}"
    "img{max-width:100%;display:block;margin:0.5em 0 1.5em}pre{background:#f4f4f4;padding:0.5em;"
    "overflow-x:auto;font-size:0.85em}</style></head><body>"
)


@dataclass(frozen=True)
class Curve:
    """One scalar series: ``steps`` and ``minutes`` (since the run's first event) per value."""

    tag: str
    steps: list[int]
    minutes: list[float]
    values: list[float]


@dataclass(frozen=True)
class Plot:
    """One picture: its title, the x axis (``"minutes"`` or ``"steps"``), the y label, the curves."""

    title: str
    x: str
    y_label: str
    curves: tuple[Curve, ...]
    percent: bool = False


def read_curves(run_dir: str | Path) -> dict[str, Curve]:
    """Every scalar series in ``RUN/tensorboard/``, by tag; ``{}`` when the folder has no events."""
    folder = Path(run_dir) / "tensorboard"
    if not folder.is_dir():
        return {}
    accumulator = EventAccumulator(str(folder), size_guidance={SCALARS: 0})  # 0: keep every event
    accumulator.Reload()
    tags = accumulator.Tags().get("scalars", [])
    events = {tag: accumulator.Scalars(tag) for tag in tags}
    starts = [series[0].wall_time for series in events.values() if series]
    if not starts:
        return {}
    start = min(starts)
    return {
        tag: Curve(
            tag,
            [int(event.step) for event in series],
            [(event.wall_time - start) / 60.0 for event in series],
            [float(event.value) for event in series],
        )
        for tag, series in events.items()
        if series
    }


def plots_of(curves: dict[str, Curve]) -> list[Plot]:
    """The report's pictures for these curves, in page order; a picture without a curve is left out."""

    def pick(predicate) -> tuple[Curve, ...]:
        return tuple(curve for tag, curve in sorted(curves.items()) if predicate(tag))

    wanted = [
        Plot("Mistakes against perfect play", "minutes", "mistake rate",
             pick(lambda tag: tag.startswith("arena/mistake_rate/")), percent=True),
        Plot("The policy against optimal play, exactly", "minutes", "win probability",
             pick(lambda tag: tag.startswith("arena/exact_win/"))),
        Plot("Ratings", "minutes", "rating",
             pick(lambda tag: tag.startswith(("arena/elo", "arena/rating")))),
        Plot("Losses", "steps", "loss",
             pick(lambda tag: tag in ("train/policy_loss", "train/value_loss") or
                  tag in ("validation/policy_loss", "validation/value_loss"))),
        Plot("Self-play speed", "minutes", "positions/s", pick(lambda tag: tag == "selfplay/positions_per_s")),
        Plot("Gating", "steps", "count", pick(lambda tag: tag in ("arena/promotions", "arena/gates"))),
    ]
    return [plot for plot in wanted if plot.curves]


def png_of(plot: Plot) -> bytes:
    """``plot`` drawn as a PNG (matplotlib's object API, no global pyplot state)."""
    figure = Figure(figsize=(7.0, 3.4), dpi=90)
    axes = figure.subplots()
    for curve in plot.curves:
        xs = curve.minutes if plot.x == "minutes" else curve.steps
        ys = [100.0 * value for value in curve.values] if plot.percent else curve.values
        label = curve.tag.rsplit("/", 1)[-1]
        if curve.tag.startswith("validation/"):
            label = "held-out " + label
        axes.plot(xs, ys, marker="o" if len(xs) < 30 else None, markersize=3, label=label)
    axes.set_title(plot.title)
    axes.set_xlabel("wall-clock minutes" if plot.x == "minutes" else "optimiser steps")
    axes.set_ylabel(plot.y_label + (" (%)" if plot.percent else ""))
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize="small")
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def _read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None


def report_html(run_dir: str | Path) -> str:
    """The report page of ``run_dir`` as HTML text (images inline as ``data:image/png;base64``)."""
    run_dir = Path(run_dir)
    plots = plots_of(read_curves(run_dir))
    config = _read_json(run_dir / "config.json")
    sidecar = _read_json(run_dir / "best" / "model.json")
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>tabula-rasa run {html.escape(run_dir.name)}</title>",
        STYLE,
        f"<h1>Training run {html.escape(str(run_dir))}</h1>",
    ]
    if isinstance(sidecar, dict):
        parts.append(f'<p id="summary">{html.escape(provenance_summary(sidecar))}</p>')
    if not plots:
        parts.append("<p>No TensorBoard events yet: the run has logged nothing to draw.</p>")
    for plot in plots:
        encoded = base64.b64encode(png_of(plot)).decode("ascii")
        parts.append(f"<h2>{html.escape(plot.title)}</h2>")
        parts.append(f'<img alt="{html.escape(plot.title)}" src="data:image/png;base64,{encoded}">')
    if isinstance(sidecar, dict) and isinstance(sidecar.get("provenance"), dict):
        provenance = {key: value for key, value in sidecar["provenance"].items() if key != "config"}
        digest = (sidecar["provenance"].get("config") or {}).get("sha256")
        if digest:
            provenance["config_sha256"] = digest
        parts.append("<h2>Provenance of the best model</h2>")
        parts.append(f'<pre id="provenance">{html.escape(json.dumps(provenance, indent=2))}</pre>')
    parts.append("<h2>Config</h2>")
    if config is None:
        parts.append("<p>No readable config.json in the run folder.</p>")
    else:
        parts.append(f'<pre id="config">{html.escape(json.dumps(config, indent=2))}</pre>')
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_report(run_dir: str | Path) -> Path:
    """Write ``RUN/report.html`` atomically and return its path.

    Raises:
        FileNotFoundError: if ``run_dir`` is not a folder.
    """
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise FileNotFoundError(f"no such run folder: {run_dir}")
    path = run_dir / REPORT_FILE
    atomic_write_bytes(path, report_html(run_dir).encode("utf-8"))
    return path


def main(argv: list[str] | None = None) -> int:
    """``train-report RUN``: write ``RUN/report.html``; returns 0, or 2 for a missing run folder."""
    parser = argparse.ArgumentParser(
        prog="train-report",
        description="Write RUN/report.html: the run's curves (mistakes against perfect play, losses, "
        "self-play speed, gating) drawn from its TensorBoard events, with its config and the best "
        "model's provenance, in one self-contained page.",
    )
    parser.add_argument("run", metavar="RUN", help="a run folder of train (outputs/GAME/latest, ...)")
    args = parser.parse_args(argv)
    try:
        path = write_report(args.run)
    except FileNotFoundError as error:
        print(f"train-report: error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
