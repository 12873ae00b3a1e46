"""Take a screenshot of every page with its defaults, for the README: docs/<page>.png.

    .venv/bin/python docs/screenshots.py        (or: make screenshots)
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from live_app import CHROMIUM, CHROMIUM_ARGS, running_app, wait_idle  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

PAGES = {  # file name: (url path, viewport height)
    "overview": ("", 900),
    "tokenization": ("tokenization", 1500),
    "layer_values": ("layer_values", 1500),
    "word_similarity": ("word_similarity", 1700),
    "sentence_pooling": ("sentence_pooling", 1500),
    "compare_sentences": ("compare_sentences?cs_correct=whitening", 1500),
}


def main() -> None:
    with running_app() as app, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for name, (path, height) in PAGES.items():
            page = browser.new_context(viewport={"width": 1400, "height": height}).new_page()
            page.goto(f"{app.url}/{path}")
            wait_idle(page, settle_ms=1500)
            if page.locator("[data-testid='stException']").count():
                raise SystemExit(f"{name}: the page shows an exception")
            page.screenshot(path=str(HERE / f"{name}.png"))
            print(f"docs/{name}.png")
            page.context.close()
        browser.close()


if __name__ == "__main__":
    main()
