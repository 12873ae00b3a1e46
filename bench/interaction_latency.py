"""Interaction latency in a real browser, as a ratio to Streamlit's own floor, measured in one run.

    .venv/bin/python bench/interaction_latency.py [--changes 20]

For each page, changes one setting (a layer, a strategy, a toggle) ``--changes`` times and times each
change from the input (the last keydown or pointerdown of the change, captured in the page) until the
app's script state is idle again and the page's last DOM change, read from a MutationObserver, or the
end of its last long task (a canvas is drawn without changing the DOM). The floor is the same change on
bench/floor_app.py: one slider and one plotly chart, timed first and again last (the ratios are to both together,
so that the machine drifting during the run favours neither end). For the sentence pooling page it also times its
PCA grid drawing alone on a minimal page (bench/grid_app.py), which separates the figure's own drawing cost from
what the page adds.
Then the same on each store page's view of a precomputed store (the built-in corpus, precomputed; each page's
``store_timed_change``). Prints the median and spread (25th-75th percentile) per page and the ratio to the floor's median.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from live_app import CHROMIUM, CHROMIUM_ARGS, running_app, wait_idle  # noqa: E402
from page_checks import BrowserChange, checks, multiselect_last, slider  # noqa: E402
from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402
from stores import topics_store  # noqa: E402
from tiny_models import save_tiny_bert  # noqa: E402

from bertviz_core import describe  # noqa: E402
from bertviz_core.figures import layer_label  # noqa: E402
from bertviz_core.views.page_registry import PAGES  # noqa: E402
from bertviz_core.precompute.offered import SETTING  # noqa: E402

OBSERVE = """() => {
  window.__last = 0; window.__input = 0;
  for (const kind of ['keydown', 'pointerdown'])
    document.addEventListener(kind, e => { window.__input = e.timeStamp; }, true);
  new MutationObserver(() => { window.__last = performance.now(); })
    .observe(document.querySelector('[data-testid="stMain"]'),
             {subtree: true, childList: true, attributes: true, characterData: true});
  // Drawing on a canvas changes no DOM: a long task (script work over 50 ms) ending later counts as a change.
  new PerformanceObserver(list => { for (const task of list.getEntries())
      window.__last = Math.max(window.__last, task.startTime + task.duration); })
    .observe({type: 'longtask'});
}"""
# Done: the script is idle, something in the page changed after the input, and nothing has for 400 ms.
SETTLED = """t0 => window.__last > t0 && performance.now() - window.__last > 400 &&
  document.querySelector('[data-testid="stApp"]').getAttribute('data-test-script-state') === 'notRunning'"""


GRID_ALONE = "pooling's grid figure alone (no model)"
TOP_LAYER = layer_label(describe().num_layers)  # the bundled model's last layer, which the grid shows by default


def page_changes(mlm: str) -> dict[str, tuple[str, BrowserChange]]:
    """{bench row name: (URL path and query, action)} for every page of the registry that has settings;
    ``mlm`` is the folder of a model with a masked-language-model head."""
    try:  # each page's test module names the change (tests/page_checks.py)
        changes = {entry: checks(entry).timed_change for entry in PAGES}
    except LookupError as missing:
        raise SystemExit(str(missing)) from None
    return {f"{entry.title.lower()} ({what})": (entry.url_path + query.format(mlm=quote(mlm)), act)
            for entry, change in changes.items() if change for what, query, act in [change]}


def store_changes(store: str) -> dict[str, tuple[str, BrowserChange]]:
    """As ``page_changes``, on the store view of each page that reads stores, the store named ``store``."""
    return {f"{entry.title.lower()} ({what})": (entry.url_path + query.format(store=quote(store)), act)
            for entry in PAGES if entry.reads_stores and (change := checks(entry).store_timed_change)
            for what, query, act in [change]}


def timed_change(page: Page, act: BrowserChange, i: int) -> float:
    """Milliseconds from the input of change ``i`` to the page settled (OBSERVE must be installed)."""
    t0 = page.evaluate("window.__input = 0; performance.now()")
    act(page, i)
    page.wait_for_function(SETTLED, arg=t0, timeout=60_000, polling=50)
    return page.evaluate("window.__last - window.__input")


def measure(page: Page, act: BrowserChange, changes: int) -> list[float]:
    wait_idle(page, settle_ms=1000)
    page.evaluate(OBSERVE)
    return [timed_change(page, act, i) for i in range(changes)]


def timed_page(browser: Browser, url: str, act: BrowserChange, changes: int) -> list[float]:
    """``changes`` timed changes on a fresh page at ``url``, after two that warm the caches they will hit."""
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.goto(url)
    measure(page, act, 2)
    return measure(page, act, changes)


def summary(times: list[float]) -> tuple[float, float, float]:
    q = statistics.quantiles(times, n=4)
    return statistics.median(times), q[0], q[2]


FLOOR = "floor: one slider, one plotly chart"


def timed_app(browser: Browser, script: str, env: dict[str, str] | None, act: BrowserChange,
              changes: int) -> list[float]:
    """``changes`` timed changes on a fresh server of ``script`` (after two untimed ones that load what they
    need)."""
    with running_app(script, env=env) as app:
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        page.goto(app.url)
        measure(page, act, 2)
        return measure(page, act, changes)


def print_table(results: dict[str, list[float]]) -> None:
    """Median, spread and ratio to the floor's median, a row per entry of ``results`` (FLOOR among them)."""
    floor = statistics.median(results[FLOOR])
    print(f"{'':40} {'median ms':>10} {'p25-p75 ms':>14} {'ratio to floor':>15}")
    for name, times in results.items():
        median, lo, hi = summary(times)
        print(f"{name:40} {median:10.0f} {f'{lo:.0f}-{hi:.0f}':>14} {median / floor:14.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=20)
    parser.add_argument("--only", default="", help="measure only the pages whose name contains this")
    args = parser.parse_args()
    results: dict[str, list[float]] = {}
    mlm = str(save_tiny_bert(Path(tempfile.mkdtemp(prefix="bench-mlm-")), heads=12, mlm=True))
    pages = {name: change for name, change in page_changes(mlm).items() if args.only in name}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        results[FLOOR] = timed_app(browser, "bench/floor_app.py", None, slider, args.changes)
        if any("pooling" in name for name in pages):
            results[GRID_ALONE] = timed_app(browser, "bench/grid_app.py", {"BERTVIZ_GRID": "product"},
                                            multiselect_last("Layers", TOP_LAYER), args.changes)
        with running_app() as app:
            for name, (path, act) in pages.items():
                results[name] = timed_page(browser, f"{app.url}/{path}", act, args.changes)
        with tempfile.TemporaryDirectory() as folder:
            store = topics_store(Path(folder))
            with running_app(env={SETTING: store}) as app:
                for name, (path, act) in store_changes(Path(store).name).items():
                    if args.only in name:
                        results[name] = timed_page(browser, f"{app.url}/{path}", act, args.changes)
        # the floor again at the end: the pages are compared with both, so drift during the run cancels
        first, last = results[FLOOR], timed_app(browser, "bench/floor_app.py", None, slider, args.changes)
        results[FLOOR] = first + last
        browser.close()
    print(f"the floor's median: {statistics.median(first):.0f} ms first, {statistics.median(last):.0f} ms last; "
          "ratios are to both together")
    print_table(results)
    if GRID_ALONE in results and "sentence pooling (layers)" in results:
        ratio = statistics.median(results["sentence pooling (layers)"]) / statistics.median(results[GRID_ALONE])
        print(f"sentence pooling vs its grid figure alone on a minimal page: {ratio:.2f}x")


if __name__ == "__main__":
    main()
