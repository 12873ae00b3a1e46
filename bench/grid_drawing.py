"""Ways to draw the Sentence pooling grid, measured side by side in headless Chromium in one run.

    .venv/bin/python bench/grid_drawing.py [--changes 20] [--only NAME]

Serves bench/grid_app.py once per candidate drawing (see its docstring) and bench/floor_app.py, and times
``--changes`` changes of the layers (dropping the last layer, adding it back: 22 and 18 panels of 160 points)
from the input to the page settled, exactly as bench/interaction_latency.py times a page. Prints each
candidate's median, spread (25th-75th percentile) and ratio to the floor, and which WebGL renderer the
browser had (headless Chromium draws WebGL in software, so its WebGL rows are not what a GPU gives).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]

from interaction_latency import FLOOR, TOP_LAYER, multiselect_last, print_table, slider, timed_app  # noqa: E402
from live_app import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

CANDIDATES = ("plotly-svg", "plotly-webgl", "plotly-tiled", "plotly-tiled-webgl", "vega-canvas", "image", "product")
WEBGL = """() => { const gl = document.createElement('canvas').getContext('webgl');
  if (!gl) return 'none';
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  return info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER); }"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=20)
    parser.add_argument("--only", default="", help="measure only the candidates whose name contains this")
    args = parser.parse_args()
    change = multiselect_last("Layers", TOP_LAYER)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        results = {FLOOR: timed_app(browser, "bench/floor_app.py", None, slider, args.changes)}
        for candidate in (c for c in CANDIDATES if args.only in c):
            results[candidate] = timed_app(browser, "bench/grid_app.py", {"BERTVIZ_GRID": candidate}, change,
                                           args.changes)
        page = browser.new_page()
        renderer = page.evaluate(WEBGL)
        browser.close()
    print(f"WebGL renderer in this browser: {renderer}")
    print_table(results)


if __name__ == "__main__":
    main()
