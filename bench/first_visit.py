"""First visits: the time from opening a page to the page settled, on a cold and on a warm server, beside
the floor app's first visit, for every page of the registry.

    .venv/bin/python bench/first_visit.py [--repeats 3] [--only TITLE]

Cold: a fresh server per visit (nothing loaded), the page opened straight from its URL. Warm: a fresh
server per repeat, its home page opened once (that starts the model loading and the warm-up of the default
views) and left until the warm-up is done (read from BERTVIZ_RUN_LOG); then each page is opened by a new
visitor, in registry order. The cold home page is also opened once per repeat on a server with the
warm-up off, to show what the warm-up costs the first visitor. The floor is bench/floor_app.py (one
slider, one chart): its cold visit on a fresh server, its warm one on the same server a second time. A
visit is timed in the page, from navigation start to its last DOM change once the script is idle and
nothing has changed for 500 ms.
Prints medians and spreads (min-max) and the ratio to the floor's median.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from live_app import CHROMIUM, CHROMIUM_ARGS, running_app  # noqa: E402
from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

from bertviz_core.views.page_registry import PAGES  # noqa: E402

OBSERVE = """() => { window.__last = 0;
  new MutationObserver(() => { window.__last = performance.now(); })
    .observe(document, {subtree: true, childList: true, attributes: true, characterData: true}); }"""
SETTLED = """() => { const app = document.querySelector('[data-testid="stApp"]');
  return app && app.getAttribute('data-test-script-state') === 'notRunning' && window.__last > 0
    && performance.now() - window.__last > 500 && document.querySelector('[data-testid="stMain"]'); }"""


WARM_UP_OFF = "Overview, no warm-up"


def open_settled(browser: Browser, url: str) -> tuple[Page, float]:
    """A new visitor's page at ``url``, and the seconds from navigation start to its last DOM change, settled."""
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.add_init_script(f"({OBSERVE})()")
    page.goto(url)
    page.wait_for_function(SETTLED, timeout=300_000, polling=100)
    return page, page.evaluate("window.__last") / 1000


def visit(browser: Browser, url: str) -> float:
    """Seconds from navigation start to the page's last DOM change, the page settled."""
    page, seconds = open_settled(browser, url)
    page.context.close()
    return seconds


def wait_for_warm_up(log: Path, timeout: float = 300) -> None:
    deadline = time.time() + timeout
    while "warm-up done" not in (log.read_text() if log.exists() else ""):
        if time.time() > deadline:
            raise SystemExit("the warm-up did not finish within 300 s")
        time.sleep(0.5)


def summary(times: list[float]) -> str:
    return f"{statistics.median(times):8.2f} {min(times):6.2f}-{max(times):<6.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default="", help="visit only the pages whose title contains this")
    args = parser.parse_args()
    pages = [entry for entry in PAGES if args.only in entry.title]
    cold: dict[str, list[float]] = {name: [] for name in ["floor", *(e.title for e in pages), WARM_UP_OFF]}
    warm: dict[str, list[float]] = {name: [] for name in cold}
    with sync_playwright() as pw, tempfile.TemporaryDirectory() as folder:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for repeat in range(args.repeats):
            with running_app("bench/floor_app.py") as floor:
                cold["floor"].append(visit(browser, floor.url))
                warm["floor"].append(visit(browser, floor.url))
            for entry in pages:
                with running_app(timeout=120) as app:
                    cold[entry.title].append(visit(browser, f"{app.url}/{entry.url_path}"))
            with running_app(env={"BERTVIZ_WARM_UP": "0"}, timeout=120) as app:
                cold[WARM_UP_OFF].append(visit(browser, app.url))
            log = Path(folder) / f"runs{repeat}.log"
            with running_app(env={"BERTVIZ_RUN_LOG": str(log), "BERTVIZ_WARM_UP": "1"}, timeout=120) as app:
                visit(browser, app.url)
                wait_for_warm_up(log)
                for entry in pages:
                    warm[entry.title].append(visit(browser, f"{app.url}/{entry.url_path}"))
        browser.close()
    print(f"first visit, seconds: median and min-max of {args.repeats}; ratio = median / the floor's median")
    print(f"{'page':20} {'cold':>8} {'range':13} {'ratio':>6}   {'warm':>8} {'range':13} {'ratio':>6}")
    for name in [n for n in cold if n != WARM_UP_OFF]:
        c, w = cold[name], warm[name]
        print(f"{name:20} {summary(c)} {statistics.median(c) / statistics.median(cold['floor']):5.1f}x   "
              f"{summary(w)} {statistics.median(w) / statistics.median(warm['floor']):5.1f}x")
    print(f"{WARM_UP_OFF:20} {summary(cold[WARM_UP_OFF])} (the first page, cold, without the background warm-up)")
    print("goal: warm first visit <= 2x the floor's")


if __name__ == "__main__":
    main()
