"""Where each page's interaction time goes: the same changes as bench-latency, each split into its parts.

    .venv/bin/python bench/latency_parts.py [--changes 12] [--only NAME]

Every change of bench/interaction_latency.py (input to the page settled) is split, per change, into:
- to server: from the input to the browser's script state turning 'running' (the widget's own delay, if any,
  the message to the server, and the server starting the run);
- script: the server's script runs the change caused, timed inside the server (bench/timed_streamlit.py wraps
  streamlit's ScriptRunner._run_script), reruns included;
- running: how long the browser shows the state 'running' (the script, plus any delay in handling its messages);
- after: from the state back to 'notRunning' until the page's last change (DOM mutation or long task end):
  the browser finishing what the run sent (React, chart layout and paint);
- long tasks: how many main-thread tasks over 50 ms fell in the change, and their total milliseconds.
Prints the medians per page, the floor (bench/floor_app.py) first, so the parts compare within one run. The floor
is measured first and again last, as bench/interaction_latency.py measures it, so that the machine drifting during
the run favours neither end; ratios are to both together.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]

from interaction_latency import FLOOR, OBSERVE, SETTLED, page_changes, store_changes  # noqa: E402
from live_app import CHROMIUM, CHROMIUM_ARGS, running_app, wait_idle  # noqa: E402
from page_checks import BrowserChange, slider  # noqa: E402
from playwright.sync_api import Browser, sync_playwright  # noqa: E402
from stores import topics_store  # noqa: E402
from tiny_models import save_tiny_bert  # noqa: E402

from bertviz_core.precompute.offered import SETTING  # noqa: E402

TIMED_SERVER = ("bench/timed_streamlit.py",)
# The script state's changes and every long task, from the first call on (OBSERVE keeps __input and __last).
WATCH_PARTS = """() => {
  window.__states = []; window.__tasks = [];
  const app = document.querySelector('[data-testid="stApp"]');
  new MutationObserver(() => window.__states.push([performance.now(), app.getAttribute('data-test-script-state')]))
    .observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
  new PerformanceObserver(list => {
    for (const t of list.getEntries()) window.__tasks.push([t.startTime, t.duration]);
  }).observe({type: 'longtask'});
}"""
# The browser's parts of the change that just settled, in milliseconds.
READ_PARTS = """() => {
  const t0 = window.__input, t1 = window.__last;
  const states = window.__states.filter(s => s[0] >= t0 && s[0] <= t1);
  const started = states.find(s => s[1] === 'running');
  const ended = states.filter(s => s[1] === 'notRunning').pop();
  const runStart = started ? started[0] : t0, runEnd = ended ? ended[0] : runStart;
  const tasks = window.__tasks.filter(t => t[0] + t[1] >= t0 && t[0] <= t1);
  return {total: t1 - t0, 'to server': runStart - t0, running: runEnd - runStart, after: t1 - runEnd,
          'long tasks': tasks.length, 'long task ms': tasks.reduce((sum, t) => sum + t[1], 0)};
}"""
PARTS = ("total", "to server", "script", "running", "after", "long tasks", "long task ms")


def script_ms(log: Path, seen: int) -> tuple[float, int]:
    """The milliseconds of the server's script runs logged after the first ``seen`` lines, and the lines now."""
    lines = log.read_text().split() if log.exists() else []
    return 1000 * sum(float(line) for line in lines[seen:]), len(lines)


def parted_changes(browser: Browser, url: str, act: BrowserChange, changes: int, log: Path) -> list[dict]:
    """``changes`` changes on a fresh page at ``url``, after two that warm the caches, each split into PARTS."""
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.goto(url)
    wait_idle(page, settle_ms=1000)
    page.evaluate(OBSERVE)
    page.evaluate(WATCH_PARTS)
    parts = []
    for i in range(changes + 2):
        _, seen = script_ms(log, 0)
        t0 = page.evaluate("window.__input = 0; performance.now()")
        act(page, i)
        page.wait_for_function(SETTLED, arg=t0, timeout=60_000, polling=50)
        measured = page.evaluate(READ_PARTS)
        measured["script"], _ = script_ms(log, seen)
        if i >= 2:
            parts.append(measured)
    page.context.close()
    return parts


def print_parts(results: dict[str, list[dict]], first: list[dict], last: list[dict]) -> None:
    print(f"the floor's median: {statistics.median(p['total'] for p in first):.0f} ms first, "
          f"{statistics.median(p['total'] for p in last):.0f} ms last; ratios are to both together")
    floor = statistics.median(p["total"] for p in results[FLOOR])
    print(f"{'median per change (ms)':44}" + "".join(f"{part:>13}" for part in PARTS) + f"{'ratio':>8}")
    for name, parts in results.items():
        medians = [statistics.median(p[part] for p in parts) for part in PARTS]
        print(f"{name:44}" + "".join(f"{m:13.0f}" for m in medians) + f"{medians[0] / floor:7.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=12)
    parser.add_argument("--only", default="", help="measure only the pages whose name contains this")
    args = parser.parse_args()
    mlm = str(save_tiny_bert(Path(tempfile.mkdtemp(prefix="bench-mlm-")), heads=12, mlm=True))
    pages = {name: change for name, change in page_changes(mlm).items() if args.only in name}
    results: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as pw:
        log = Path(folder) / "script_times.txt"
        timed = {"BERTVIZ_SCRIPT_TIMES": str(log)}
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        with running_app("bench/floor_app.py", env=timed, command=TIMED_SERVER) as app:
            first = parted_changes(browser, app.url, slider, args.changes, log)
        results[FLOOR] = first
        with running_app(env=timed, command=TIMED_SERVER) as app:
            for name, (path, act) in pages.items():
                results[name] = parted_changes(browser, f"{app.url}/{path}", act, args.changes, log)
        (Path(folder) / "store").mkdir()
        store = topics_store(Path(folder) / "store")
        with running_app(env={**timed, SETTING: store}, command=TIMED_SERVER) as app:
            for name, (path, act) in store_changes(Path(store).name).items():
                if args.only in name:
                    results[name] = parted_changes(browser, f"{app.url}/{path}", act, args.changes, log)
        with running_app("bench/floor_app.py", env=timed, command=TIMED_SERVER) as app:
            last = parted_changes(browser, app.url, slider, args.changes, log)
        results[FLOOR] = first + last
        browser.close()
    print_parts(results, first, last)


if __name__ == "__main__":
    main()
