"""Server memory under many visitors, each with their own heavy input on some page, each tab then closed.

    .venv/bin/python bench/visitors_memory.py [--visitors 30] [--budget-mb 200] [--ttl 30] [--slack-mb 250]
                                              [--only attention]

The server runs with ``BERTVIZ_CACHE_MB=--budget-mb`` and Streamlit's ``server.disconnectedSessionTTL``
shortened to ``--ttl`` seconds (default 120: a closed tab's session is kept that long for a reconnection).
A warm-up visitor opens every page with its defaults first; ``idle`` is read once its sessions are gone.
Then ``--visitors`` browser tabs, one after the other, round the pages, each opens one page with input no
other visitor typed (a 600-word text on Attention's model view, Layer values and Tokenization, 60 sentences
on Compare sentences, a sentence of its own on Similar contexts, 20 sentences on Word in context, a masked
text on Masked words, a 400-row CSV on Sentence pooling and Task measures), waits for it to be drawn and
closes (``--only PAGE``: every visitor on that page). The server's VmRSS and RssAnon (/proc/PID/status)
are sampled every 0.25 s throughout.

Printed: idle, the peak, after the last tab closed, after the reconnection window with no visitor, and after
one more visitor came and went (Streamlit drops expired sessions only when another session is stored), beside
the bound idle + budget + slack. The slack is one visit in flight: what a page computes beside the store while
it runs. The largest is Attention on 512 tokens: the eager model run, its weights as torch tensors and then
numpy arrays (75 MB each) and the summary's temporaries, ~400 MB over the settled level on 2026-11-23
(peak 1,386 MB, settled 992 MB); ``--slack-mb`` states it.
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import pandas as pd  # noqa: E402
from live_app import CHROMIUM, CHROMIUM_ARGS, running_app, wait_idle  # noqa: E402
from playwright.sync_api import Browser, sync_playwright  # noqa: E402

from page_checks import checks  # noqa: E402

from bertviz_core.corpora import news_topics  # noqa: E402
from bertviz_core.views.page_registry import PAGES  # noqa: E402

MB = 1024  # /proc reports kB
WORDS = sorted({w.strip(".,;:!?'\"()").lower() for t in news_topics().text for w in t.split()} - {""})


class Sampler(threading.Thread):
    """VmRSS and RssAnon of ``pid`` in MB every ``period`` seconds, until ``stop``."""

    def __init__(self, pid: int, period: float = 0.25) -> None:
        super().__init__(daemon=True)
        self.pid, self.period = pid, period
        self.samples: list[tuple[float, float, float]] = []  # (time, rss, anon)
        self._done = threading.Event()

    def read(self) -> tuple[float, float]:
        fields = dict(line.split(":", 1) for line in Path(f"/proc/{self.pid}/status").read_text().splitlines()
                      if ":" in line)
        return int(fields["VmRSS"].split()[0]) / MB, int(fields["RssAnon"].split()[0]) / MB

    def run(self) -> None:
        while not self._done.is_set():
            self.samples.append((time.monotonic(), *self.read()))
            time.sleep(self.period)

    def stop(self) -> None:
        self._done.set()
        self.join()

    def peak(self, since: float) -> tuple[float, float]:
        """The highest VmRSS and RssAnon sampled from ``since`` (time.monotonic) on."""
        later = [s for s in self.samples if s[0] >= since]
        return max(s[1] for s in later), max(s[2] for s in later)


def words(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(count))


def corpus_csv(rng: random.Random, folder: str, rows: int = 400) -> str:
    labels = ["world", "sports", "business", "science"]
    path = Path(folder) / f"corpus{rng.random():.12f}.csv"
    pd.DataFrame({"text": [words(rng, 12) for _ in range(rows)],
                  "label": [labels[i % len(labels)] for i in range(rows)]}).to_csv(path, index=False)
    return str(path)


def visits(rng: random.Random) -> list[tuple[str, dict[str, str], bool]]:
    """(page's URL path, query parameters, whether a CSV is uploaded) for every page of the registry, with input
    drawn from ``rng`` as its test module's checks say."""
    chosen = []
    for entry in PAGES:
        page_checks = checks(entry)
        query = page_checks.visit(lambda count: words(rng, count))
        chosen.append((entry.url_path, query, page_checks.uploads_in(query)))
    return chosen


def visit(browser: Browser, url: str, page_name: str, query: dict[str, str], csv: str | None) -> None:
    """One tab: open the page, wait until it is drawn (after the upload, if any), close the tab."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(f"{url}/{page_name}" + (f"?{urlencode(query)}" if query else ""))
    wait_idle(page, settle_ms=1000)
    if csv:
        page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(csv)
        page.wait_for_timeout(1000)
        wait_idle(page, settle_ms=1000)
    context.close()


def settle(sampler: Sampler, seconds: float) -> tuple[float, float]:
    """Wait ``seconds``, then the median of the last 2 s of samples (RSS, anon)."""
    time.sleep(seconds)
    last = [s for s in sampler.samples if s[0] >= time.monotonic() - 2]
    return sorted(s[1] for s in last)[len(last) // 2], sorted(s[2] for s in last)[len(last) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--visitors", type=int, default=30)
    parser.add_argument("--budget-mb", type=int, default=200, help="BERTVIZ_CACHE_MB (MiB)")
    parser.add_argument("--ttl", type=int, default=30, help="server.disconnectedSessionTTL in seconds")
    parser.add_argument("--only", help="every visitor on this page (e.g. attention), not round the pages")
    parser.add_argument("--slack-mb", type=float, default=450, help="one visit in flight (see the docstring)")
    args = parser.parse_args()
    env = {"BERTVIZ_CACHE_MB": str(args.budget_mb), "STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL": str(args.ttl)}
    rng = random.Random(27)
    with tempfile.TemporaryDirectory() as folder, running_app(env=env) as app, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        sampler = Sampler(app.pid)
        sampler.start()
        for page_name, _, _ in visits(rng):  # warm-up: every page with its defaults, and the model loaded
            visit(browser, app.url, page_name, {}, None)
        settle(sampler, args.ttl + 5)
        visit(browser, app.url, "", {}, None)  # stores its session, which drops the expired ones
        idle = settle(sampler, 20)
        print(f"idle: VmRSS {idle[0]:.0f} MB, RssAnon {idle[1]:.0f} MB", flush=True)
        start = time.monotonic()
        for i in range(args.visitors):
            chosen = [v for v in visits(rng) if args.only in (None, v[0] or "overview")]
            page_name, query, upload = chosen[i % len(chosen)]
            visit(browser, app.url, page_name, query, corpus_csv(rng, folder) if upload else None)
            rss, anon = sampler.read()
            print(f"visitor {i + 1:2} {page_name or 'overview':18} closed: VmRSS {rss:5.0f} MB, "
                  f"RssAnon {anon:5.0f} MB "
                  f"({time.monotonic() - start:.0f} s)", flush=True)
        busy = time.monotonic() - start
        closed = settle(sampler, 5)
        window = settle(sampler, args.ttl + 5)
        visit(browser, app.url, "", {}, None)
        returned = settle(sampler, 20)
        sampler.stop()
        browser.close()
    peak = sampler.peak(since=start)
    budget = args.budget_mb * 1.048576
    bound = idle[0] + budget + args.slack_mb
    where = f" on {args.only}" if args.only else ", round the pages"
    print(f"{args.visitors} visitors in {busy:.0f} s, one tab at a time{where}; BERTVIZ_CACHE_MB={args.budget_mb} "
          f"({budget:.0f} MB); server.disconnectedSessionTTL={args.ttl} s (Streamlit's default: 120 s)")
    print(f"{'':50} {'VmRSS':>7} {'RssAnon':>8}")
    for what, (rss, anon) in [("idle (model loaded, defaults seen)", idle), ("peak while the visitors came", peak),
                              ("5 s after the last tab closed", closed),
                              (f"after the reconnection window ({args.ttl} s), no visitor", window),
                              ("after one more visitor came and went", returned)]:
        print(f"{what:50} {rss:7.0f} {anon:8.0f}")
    print(f"bound: idle {idle[0]:.0f} + budget {budget:.0f} + slack {args.slack_mb:.0f} (one visit in flight) = "
          f"{bound:.0f} MB; peak {'within' if peak[0] <= bound else 'ABOVE'} it")
    print(f"after the window: {returned[0] - idle[0]:+.0f} MB from idle = the budget "
          f"{returned[0] - idle[0] - budget:+.0f} MB ({'within' if returned[0] <= bound else 'ABOVE'} the bound)")


if __name__ == "__main__":
    main()
