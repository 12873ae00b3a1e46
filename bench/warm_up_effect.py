"""What the background warm-up costs a visitor: the first page, and the interaction of a visitor already working
while it runs, beside a server with the warm-up off, in one run.

    .venv/bin/python bench/warm_up_effect.py [--repeats 2] [--after 10] [--think 1.5] [--working 8]

Per repeat, two fresh servers, warm-up on and off. A visitor opens Tokenization straight away (its first visit
loads the model, after which the warm-up starts in the background), makes ``--working`` changes 0.3 s apart, which
the warm-up waits behind (a tab's first changes are its slowest, warm-up or not: the browser and the caches are
cold; these make the visitor one already working, whose tab is warm), then toggles the padding option
again and again, ``--think`` seconds after each change settled (the warm-up yields to a page that ran in
the last second, so a visitor clicking without pause would hold it off for good), each change timed as
bench/interaction_latency.py times one: with the warm-up on, every
change until the run log says "warm-up done" counts as *during*, then ``--after`` more as *after*; with it
off, the same working changes and then as many as the other server had in all. Prints the first visit's seconds and the changes'
median and spread (25th-75th percentile) per case, the ratio of each to the warm-up-off server, and the changes
during the warm-up against those after it and against the warm-up-off server's changes of the same numbers in their
tab (a tab's first changes are slower, warm-up or not: the browser and the caches are cold).

The two directions of the toggle are different changes: turning padding on draws the padded table, 1.3-1.9x the time
of turning it off. So the changes during the warm-up are also set against those after it direction by direction
(each direction's medians, and the geometric mean of the two ratios): the few changes during it are not half and
half, and a median over both directions then says more about that count than about the warm-up.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]

from first_visit import open_settled  # noqa: E402
from interaction_latency import OBSERVE, summary, timed_change  # noqa: E402
from live_app import CHROMIUM, CHROMIUM_ARGS, running_app  # noqa: E402
from page_checks import toggle  # noqa: E402
from playwright.sync_api import Page, sync_playwright  # noqa: E402

PAD = toggle("Pad to a fixed length T")
DIRECTIONS = ("padding turned on", "padding turned off")  # change i of a tab turns it on when i is even


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--after", type=int, default=10)
    parser.add_argument("--think", type=float, default=1.5)
    parser.add_argument("--working", type=int, default=8, help="changes before the timed ones (0: a cold tab)")
    args = parser.parse_args()
    first: dict[str, list[float]] = {"warm-up off": [], "warm-up on": []}
    times: dict[str, list[float]] = {"warm-up off": [], "warm-up off, the same changes": [], "during the warm-up": [],
                                     "after the warm-up": []}
    directed: dict[str, list[list[float]]] = {"during": [[], []], "after": [[], []]}  # [turned on, turned off]
    with sync_playwright() as pw, tempfile.TemporaryDirectory() as folder:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for repeat in range(args.repeats):
            log = Path(folder) / f"runs{repeat}.log"
            with running_app(env={"BERTVIZ_RUN_LOG": str(log), "BERTVIZ_WARM_UP": "1"}, timeout=120) as app:
                page, seconds = open_settled(browser, f"{app.url}/tokenization")
                first["warm-up on"].append(seconds)
                page.evaluate(OBSERVE)
                work(page, args.working)
                during: list[float] = []
                after: list[float] = []
                while len(after) < args.after:
                    # the log appears with the server's first model run; once written, "warm-up done" stays
                    done = log.exists() and "warm-up done" in log.read_text()
                    change = timed_change(page, PAD, args.working + len(during) + len(after))
                    (after if done else during).append(change)
                    page.wait_for_timeout(args.think * 1000)
                times["during the warm-up"] += during
                times["after the warm-up"] += after
                for i, change in enumerate(during + after):
                    directed["during" if i < len(during) else "after"][(args.working + i) % 2].append(change)
                total = len(during) + len(after)
                page.context.close()
            with running_app(env={"BERTVIZ_WARM_UP": "0"}, timeout=120) as app:
                page, seconds = open_settled(browser, f"{app.url}/tokenization")
                first["warm-up off"].append(seconds)
                page.evaluate(OBSERVE)
                work(page, args.working)
                off = []
                for i in range(total):
                    off.append(timed_change(page, PAD, args.working + i))
                    page.wait_for_timeout(args.think * 1000)
                times["warm-up off"] += off
                times["warm-up off, the same changes"] += off[:len(during)]  # a tab's first changes are its slowest
                page.context.close()
        browser.close()
    off = statistics.median(first["warm-up off"])
    print("first visit to Tokenization on a fresh server, seconds (median, min-max):")
    for name, values in first.items():
        print(f"  {name:20} {statistics.median(values):6.2f} {min(values):.2f}-{max(values):.2f}"
              f" {statistics.median(values) / off:6.2f}x")
    off = statistics.median(times["warm-up off"])
    print("padding toggles on Tokenization, ms (median, p25-p75, changes, against all of warm-up off's):")
    for name, values in times.items():
        median, lo, hi = summary(values)
        print(f"  {name:30} {median:6.0f} {lo:.0f}-{hi:.0f} {len(values):4d} {median / off:6.2f}x")
    during = statistics.median(times["during the warm-up"])
    after = statistics.median(times["after the warm-up"])
    print(f"during the warm-up against after it: {during / after:.2f}x; against "
          f"the same changes (by their number in the tab) without it: "
          f"{during / statistics.median(times['warm-up off, the same changes']):.2f}x")
    print_directions(directed)


def work(page: Page, changes: int) -> None:
    """A visitor at work: ``changes`` padding toggles 0.3 s apart, untimed. The warm-up starts a step only after a
    second with no page running (``ui.warm.QUIET_S``), so it waits behind them."""
    for i in range(changes):
        timed_change(page, PAD, i)
        page.wait_for_timeout(300)


def print_directions(directed: dict[str, list[list[float]]]) -> None:
    """The changes during the warm-up against those after it, each direction of the toggle on its own."""
    ratios = []
    print("the same direction during and after the warm-up, ms (median, changes):")
    for name, during, after in zip(DIRECTIONS, *directed.values()):
        if not during:
            print(f"  {name:20} none during the warm-up")
            continue
        ratios.append(statistics.median(during) / statistics.median(after))
        print(f"  {name:20} during {statistics.median(during):6.0f} ({len(during)}), after "
              f"{statistics.median(after):6.0f} ({len(after)}): {ratios[-1]:.2f}x")
    if ratios:
        print(f"during the warm-up against after it, direction by direction (geometric mean): "
              f"{statistics.geometric_mean(ratios):.2f}x")


if __name__ == "__main__":
    main()
