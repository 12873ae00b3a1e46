"""Cold start, side by side in one run: launching `streamlit run app.py` until the first page is fully
rendered in headless chromium, against the same for bench/floor_app.py; and import times.

The first page reads the model's facts from its files; the model itself (transformers and the
weights) loads on the first page that runs it. So it also times a cold launch straight into the
Tokenization page, which includes that load.

    .venv/bin/python bench/cold_start.py [--repeats 3]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # live_app starts each server as make run does (bertviz_core)

from live_app import CHROMIUM, CHROMIUM_ARGS, running_app, wait_idle  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402


def import_time(module: str) -> float:
    """Seconds to import ``module`` in a fresh interpreter."""
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env={"HF_HUB_OFFLINE": "1", "PATH": ""}, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def first_render(browser, script: str, path: str = "") -> float:
    """Seconds from launching the server to the page at ``path`` idle with its content drawn."""
    start = time.perf_counter()
    with running_app(script, timeout=120) as app:
        page = browser.new_context().new_page()
        page.goto(f"{app.url}/{path}")
        wait_idle(page, settle_ms=0)
        page.wait_for_selector("[data-testid='stMain'] h1, .js-plotly-plot", timeout=60_000)
        elapsed = time.perf_counter() - start
        page.context.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    app, floor, model_page = [], [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for _ in range(args.repeats):  # interleaved, so drifts in load hit both
            floor.append(first_render(browser, "bench/floor_app.py"))
            app.append(first_render(browser, "app.py"))
            model_page.append(first_render(browser, "app.py", "tokenization"))
        browser.close()
    imports = {m: [import_time(m) for _ in range(args.repeats)] for m in ("bertviz_core", "ui", "streamlit")}
    print(f"{'':46} {'median s':>9} {'min-max s':>12}")
    for name, runs in [("floor: launch to first render", floor), ("app: launch to first render", app),
                       ("app: launch into Tokenization (model loads)", model_page)] + [
            (f"import {m}", runs) for m, runs in imports.items()]:
        print(f"{name:46} {statistics.median(runs):9.2f} {f'{min(runs):.2f}-{max(runs):.2f}':>12}")
    print(f"\nthe app adds {statistics.median(app) - statistics.median(floor):.2f} s to the floor "
          f"(goal: at most 3 s); ratio {statistics.median(app) / statistics.median(floor):.2f}x")
    print(f"launching straight into a page that runs the model adds "
          f"{statistics.median(model_page) - statistics.median(floor):.2f} s to the floor")


if __name__ == "__main__":
    main()
