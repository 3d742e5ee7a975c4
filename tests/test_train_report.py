"""The run report (trainer/report.py): RUN/report.html drawn from TensorBoard events, with its
config and the best model's provenance; ``train-report RUN``; and the page in a real browser."""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path

import matplotlib.image
import pytest
from helpers_models import export_tiny_mlp

from networks.provenance import provenance_summary
from trainer.metrics import MetricsWriter
from trainer.report import main as report_main
from trainer.report import plots_of, read_curves, write_report

CONFIG = {"game": {"name": "tictactoe"}, "run": {"max_minutes": 3.0}}


def _fake_run(run_dir: Path, gating: bool = True) -> Path:
    """A run folder with TensorBoard scalars at steps 10, 20, 30, config.json and best/."""
    writer = MetricsWriter(run_dir / "tensorboard")
    for step, rate in ((10, 0.20), (20, 0.05), (30, 0.0)):
        values = {
            "arena/mistake_rate/all": rate,
            "train/policy_loss": 1.0 + rate,
            "train/value_loss": rate / 2,
            "selfplay/positions_per_s": 100.0 * step,
            "selfplay/games": step,  # logged, but no picture of it
        }
        if gating:
            values |= {"arena/promotions": step // 20, "arena/gates": step // 10}
        writer.scalars(values, step)
    writer.close()
    (run_dir / "config.json").write_text(json.dumps(CONFIG))
    export_tiny_mlp("tictactoe", run_dir / "best")
    return run_dir


def _images(page: str) -> list[bytes]:
    return [base64.b64decode(data) for data in re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)]


def test_the_report_holds_one_decodable_png_per_logged_curve_and_the_config(tmp_path):
    run_dir = _fake_run(tmp_path / "run")
    path = write_report(run_dir)
    assert path == run_dir / "report.html"
    page = path.read_text()
    titles = re.findall(r"<h2>([^<]+)</h2>", page)
    assert titles == [
        "Mistakes against perfect play", "Losses", "Self-play speed", "Gating",
        "Provenance of the best model", "Config",
    ]
    images = _images(page)
    assert len(images) == 4
    for png in images:
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        pixels = matplotlib.image.imread(io.BytesIO(png), format="png")
        assert pixels.shape == (306, 630, 4)  # 7 x 3.4 inches at 90 dpi, RGBA
    config_text = re.search(r'<pre id="config">(.*?)</pre>', page, re.DOTALL).group(1)
    assert json.loads(config_text.replace("&quot;", '"')) == CONFIG
    sidecar = json.loads((run_dir / "best" / "model.json").read_text())
    assert f'<p id="summary">{provenance_summary(sidecar)}</p>' in page


def test_curves_are_read_per_tag_and_a_picture_without_data_is_left_out(tmp_path):
    run_dir = _fake_run(tmp_path / "run", gating=False)
    curves = read_curves(run_dir)
    assert curves["arena/mistake_rate/all"].steps == [10, 20, 30]
    assert curves["arena/mistake_rate/all"].values == pytest.approx([0.2, 0.05, 0.0])
    assert curves["arena/mistake_rate/all"].minutes[0] == 0.0
    assert [plot.title for plot in plots_of(curves)] == ["Mistakes against perfect play", "Losses", "Self-play speed"]
    assert [curve.tag for curve in plots_of(curves)[1].curves] == ["train/policy_loss", "train/value_loss"]
    assert len(_images(write_report(run_dir).read_text())) == 3


def test_train_report_command(tmp_path, capsys):
    run_dir = _fake_run(tmp_path / "run")
    assert report_main([str(run_dir)]) == 0
    assert capsys.readouterr().out == f"wrote {run_dir / 'report.html'}\n"
    assert report_main([str(tmp_path / "missing")]) == 2
    assert capsys.readouterr().err == f"train-report: error: no such run folder: {tmp_path / 'missing'}\n"
    empty = tmp_path / "empty"
    empty.mkdir()
    page = write_report(empty).read_text()
    assert "No TensorBoard events yet" in page and "No readable config.json" in page and not _images(page)


@pytest.mark.slow
def test_the_report_pictures_render_in_chromium(tmp_path):
    from test_web_browser import _browser_or_skip

    from frontends.web.browser import start_chromium, stop_chromium

    _browser_or_skip()
    path = write_report(_fake_run(tmp_path / "run"))
    driver = start_chromium(1100, 850)
    try:
        driver.get(path.resolve().as_uri())
        sizes = driver.execute_script(
            "return Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.naturalHeight]);"
        )
        title = driver.title
    finally:
        stop_chromium(driver)
    assert sizes == [[True, 630, 306]] * 4
    assert title == "tabula-rasa run run"
