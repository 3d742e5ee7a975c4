"""Screenshot of the ``play --web`` page in headless Chromium, after clicking some moves.

Usage::

    python scripts/web_screenshot.py --moves 4445 --hint --out docs/web.png
    python scripts/web_screenshot.py --model runs/c4/best --moves 4453 --out c4.png
    python scripts/web_screenshot.py --model runs/c4/best --moves 4453 --phone --out docs/web_phone.png
    python scripts/web_screenshot.py --model runs/othello/best --moves d3c5 --out othello.png

Starts ``play --web`` on a free port of 127.0.0.1 (without ``--model``: the page of every game,
the shipped models seated, opened on the default game), clicks each move of ``--moves`` as the human
(waiting for the model's reply after each), optionally asks for a hint, saves a PNG and prints one
JSON object (the file, the moves on the board, the status line). Needs Selenium and Chromium
(``frontends/web/browser.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from urllib.request import urlopen

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from frontends.web.browser import start_chromium, start_server, stop_chromium, stop_server


def split_moves(text: str, notation: list[str]) -> list[str]:
    """``text`` cut into the game's move strings (``notation``: one per action), longest first."""
    moves, i = [], 0
    text = "".join(text.split())
    by_length = sorted(notation, key=len, reverse=True)
    while i < len(text):
        move = next((m for m in by_length if text.startswith(m, i)), None)
        if move is None:
            raise SystemExit(f"--moves: no move of the game at {text[i:]!r}; moves are {' '.join(notation)}")
        moves.append(move)
        i += len(move)
    return moves


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--model", help="export folder (a run's best/); default: every game with the shipped models"
    )
    parser.add_argument(
        "--moves", default="", help="the human's moves to click, as a move string ('4453', 'd3c5')"
    )
    parser.add_argument("--out", required=True, help="PNG file to write")
    parser.add_argument("--sims", type=int, default=200, help="the model's simulations per move")
    parser.add_argument("--width", type=int, default=1200)
    parser.add_argument("--height", type=int, default=860)
    parser.add_argument("--phone", action="store_true", help="a phone's screen (390 x 844 CSS pixels)")
    parser.add_argument("--hint", action="store_true", help="press Hint before the screenshot")
    parser.add_argument("--human-second", action="store_true", help="the model moves first")
    args = parser.parse_args(argv)

    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    extra = ["--sims", str(args.sims)] + (["--human-second"] if args.human_second else [])
    server, url = start_server(args.model, *extra)
    driver = None
    try:
        driver = start_chromium(args.width, args.height, phone=args.phone)
        driver.get(url)
        wait = WebDriverWait(driver, 300)

        def attribute(element_id: str, name: str) -> str:
            return driver.find_element(By.ID, element_id).get_attribute(name) or ""

        wait.until(lambda _: attribute("board", "data-ready") == "true")
        for move in split_moves(
            args.moves, json.loads(urlopen(url + "api/info", timeout=60).read())["moves"]
        ):
            wait.until(
                lambda _: attribute("status", "data-turn") == "human" or attribute("status", "data-result")
            )
            if attribute("status", "data-result"):
                break
            ply = int(attribute("board", "data-ply"))
            driver.find_element(By.CSS_SELECTOR, f'[data-move="{move}"]').click()
            wait.until(
                lambda _, ply=ply: (
                    int(attribute("board", "data-ply")) >= ply + 2 or attribute("status", "data-result")
                )
            )
        if args.hint:
            driver.find_element(By.ID, "hint").click()
            wait.until(lambda _: attribute("evaluation", "data-source") == "hint")
        time.sleep(0.5)  # the evaluation bar's transition
        ActionChains(driver).move_to_element(driver.find_element(By.TAG_NAME, "h1")).perform()  # no hover
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(args.out)
        report = {
            "out": args.out,
            "moves": attribute("moves", "data-moves"),
            "status": driver.find_element(By.ID, "status").text,
            "phone": args.phone,
        }
    finally:
        if driver is not None:
            stop_chromium(driver)
        stop_server(server)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
