"""Drive the page in a real headless Chromium: for its browser test and ``scripts/web_screenshot.py``.

Needs Selenium (the dev extra) and Chromium with its driver (Debian: ``apt-get install chromium
chromium-driver``); nothing is downloaded. ``start_server`` runs ``play --web`` in a child process
on a free port of 127.0.0.1.
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

#: where Debian's packages put the browser and its driver
CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
CHROMEDRIVER_PATHS = ("/usr/bin/chromedriver",)
#: headless, no GPU, no network of its own (updates, sync, QUIC), nothing from an earlier profile
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
)
#: a phone's screen in CSS pixels (an iPhone 12-14), with its pixel ratio
PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True}


def find_chromium() -> tuple[str, str] | None:
    """``(browser, driver)`` paths, or None when either is missing."""
    browser = next((p for p in CHROMIUM_PATHS if Path(p).is_file()), None) or shutil.which("chromium")
    driver = next((p for p in CHROMEDRIVER_PATHS if Path(p).is_file()), None) or shutil.which("chromedriver")
    if browser is None or driver is None:
        return None
    return browser, driver


def start_chromium(width: int = 1200, height: int = 900, phone: bool = False):
    """A Selenium Chrome driver on headless Chromium with a fresh profile; ``quit()`` it when done.

    ``phone``: emulate ``PHONE``'s screen (width, height and pixel ratio) instead of ``width``
    x ``height``.

    Raises:
        RuntimeError: if Chromium or its driver is not installed.
    """
    from selenium import webdriver  # optional dependency (selenium): imported where it is used
    from selenium.webdriver.chrome.service import Service

    found = find_chromium()
    if found is None:
        raise RuntimeError(f"Chromium not found (looked for {CHROMIUM_PATHS} and {CHROMEDRIVER_PATHS})")
    browser, driver_path = found
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="tabula-rasa-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument(f"--window-size={width},{height}")
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    if phone:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    driver.profile_dir = profile
    return driver


def stop_chromium(driver) -> None:
    """Quit the browser and remove its profile folder."""
    try:
        driver.quit()
    finally:
        shutil.rmtree(getattr(driver, "profile_dir", ""), ignore_errors=True)


def start_server(model: str | os.PathLike | None, *arguments: str, timeout: float = 120.0):
    """Run ``play --web --model MODEL --port 0 ARGUMENTS`` (without ``--model`` when ``model`` is
    None: every game, with the shipped models) in a child process.

    Returns:
        ``(process, url)``: the ``subprocess.Popen`` (stop it with ``stop_server``) and the page's
        address, read from the line the server prints once it listens.

    Raises:
        RuntimeError: if the server exits or prints no address within ``timeout`` seconds.
    """
    command = [
        sys.executable,
        "-m",
        "frontends.play_cli",
        "--web",
        *(["--model", str(model)] if model is not None else []),
        "--port",
        "0",
        *arguments,
    ]
    root = Path(__file__).resolve().parents[2]
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=root, env=environment
    )
    deadline = time.monotonic() + timeout
    lines: list[str] = []
    while (remaining := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([process.stdout], [], [], remaining)
        if not ready:
            break
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("serving http://"):
            process.output = lines
            # keep reading what it prints, so a full pipe never blocks the server
            threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True).start()
            return process, line.split()[1]
    stop_server(process)
    raise RuntimeError(f"play --web did not start: {''.join(lines)[-2000:]}")


def stop_server(process: subprocess.Popen) -> int:
    """Stop a ``start_server`` process (SIGTERM, then SIGKILL after 10 s); returns its exit code."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return process.returncode
