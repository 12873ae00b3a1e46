"""Server memory for 5,000-row corpora on the Sentence pooling page, against what must be kept.

    .venv/bin/python bench/memory.py [--rows 5000] [--uploads 5]

Reads the server's resident memory (VmRSS) and its peak (VmHWM) from /proc: idle with the model
loaded and the built-in corpus shown, then after uploading a corpus through the browser. The
theoretical size is what the pooled vectors need: texts x layers x hidden x strategies x 4 bytes.
Then ``--uploads`` - 1 more sessions each upload a different corpus of the same size: the shared
result store keeps at most BERTVIZ_CACHE_MB of them, so memory must level off near idle + that budget.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import pandas as pd  # noqa: E402
from live_app import CHROMIUM, CHROMIUM_ARGS, IDLE, running_app, wait_idle  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from bertviz_core import describe  # noqa: E402
from bertviz_core.corpora import news_topics  # noqa: E402
from bertviz_core.measures.pooling import POOLINGS, supported_strategies  # noqa: E402


def memory_mb(pid: int) -> dict[str, float]:
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return {k: int(fields[k].split()[0]) / 1024 for k in ("VmRSS", "VmHWM")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--uploads", type=int, default=5, help="corpora uploaded in turn, each by a new session")
    args = parser.parse_args()
    corpus = news_topics()

    def rows(upload: int) -> list[tuple[str, str]]:
        return [(f"{t} ({upload}.{i})", label) for i in range(args.rows // len(corpus) + 1)
                for t, label in zip(corpus.text, corpus.label)][:args.rows]

    info = describe()  # the bundled model, which the app serves by default
    layers, hidden = info.num_layers + 1, info.hidden_size
    strategies = supported_strategies(info.has_pooler)
    per_layer = sum(POOLINGS[s].per_layer for s in strategies)
    single = len(strategies) - per_layer
    theoretical = args.rows * hidden * 4 * (per_layer * layers + single) / 2**20
    store_mb = int(os.environ.get("BERTVIZ_CACHE_MB", "1024"))
    with tempfile.TemporaryDirectory() as folder, running_app() as app, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        after_each = []
        for upload in range(args.uploads):
            csv = Path(folder) / f"corpus{upload}.csv"
            pd.DataFrame(rows(upload), columns=["text", "label"]).to_csv(csv, index=False)
            page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            page.goto(f"{app.url}/sentence_pooling?sp_source=Upload+a+CSV")
            wait_idle(page, settle_ms=2000)
            if upload == 0:
                idle = memory_mb(app.pid)
            page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(csv))
            page.wait_for_selector("[data-testid='stProgress']", timeout=60_000)
            page.wait_for_selector(IDLE, timeout=900_000)  # encoding 5,000 rows takes a minute or more
            wait_idle(page, settle_ms=2000)
            page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 2", timeout=300_000)
            after_each.append(memory_mb(app.pid))
            page.context.close()
        after = after_each[0]
        browser.close()
    budget = idle["VmRSS"] + 2 * theoretical
    print(f"rows {args.rows}; theoretical pooled size {theoretical:.0f} MB "
          f"({per_layer} per-layer strategies x {layers} layers + {single} single, {hidden} wide, float32)")
    print(f"idle RSS {idle['VmRSS']:.0f} MB; after the corpus: RSS {after['VmRSS']:.0f} MB, peak {after['VmHWM']:.0f} MB")
    print(f"peak - idle = {after['VmHWM'] - idle['VmRSS']:.0f} MB = "
          f"{(after['VmHWM'] - idle['VmRSS']) / theoretical:.2f}x the theoretical size "
          f"(goal: at most 2x, i.e. peak <= {budget:.0f} MB)")
    if args.uploads > 1:
        print(f"after each of {args.uploads} uploads by new sessions, RSS: "
              + ", ".join(f"{m['VmRSS']:.0f}" for m in after_each) + f" MB; peak {after_each[-1]['VmHWM']:.0f} MB")
        bound = idle["VmRSS"] + store_mb * 1.048576 + 2 * theoretical
        print(f"stated bound: idle + the result store's budget ({store_mb} MiB = {store_mb * 1.048576:.0f} MB) + "
              f"one corpus being encoded at <= 2x its size ({2 * theoretical:.0f} MB) = {bound:.0f} MB; "
              f"RSS after the last upload {'within' if after_each[-1]['VmRSS'] <= bound else 'ABOVE'} it")


if __name__ == "__main__":
    main()
