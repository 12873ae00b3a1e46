"""Ways to draw an annotated heatmap, measured side by side in headless Chromium in one run.

    .venv/bin/python bench/heatmap_drawing.py [--changes 20] [--cells 10] [--only NAME]

Serves bench/heatmap_app.py once per candidate drawing (see its docstring) and bench/floor_app.py, and times
``--changes`` layer changes (each draws a new ``--cells`` x ``--cells`` matrix) from the input to the page settled,
exactly as bench/interaction_latency.py times a page. Prints each candidate's median, spread (25th-75th
percentile) and ratio to the floor.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]

from interaction_latency import FLOOR, print_table, slider, timed_app  # noqa: E402
from live_app import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

CANDIDATES = ("plotly", "plotly-plain", "vega-canvas", "vega-svg")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=20)
    parser.add_argument("--cells", type=int, default=10)
    parser.add_argument("--only", default="", help="measure only the candidates whose name contains this")
    args = parser.parse_args()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        results = {FLOOR: timed_app(browser, "bench/floor_app.py", None, slider, args.changes)}
        for candidate in (c for c in CANDIDATES if args.only in c):
            env = {"BERTVIZ_HEATMAP": candidate, "BERTVIZ_HEATMAP_CELLS": str(args.cells)}
            results[candidate] = timed_app(browser, "bench/heatmap_app.py", env, slider, args.changes)
        browser.close()
    print_table(results)


if __name__ == "__main__":
    main()
