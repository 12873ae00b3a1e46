"""Take a screenshot of every page of the page registry, for the README: docs/<page file stem>.png.

    .venv/bin/python docs/screenshots.py        (or: make screenshots)

Each page opens with its defaults, or with the settings named in SETTINGS.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "tests")]

from live_app import CHROMIUM, CHROMIUM_ARGS, running_app, wait_idle  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from bertviz_core.views.page_registry import PAGES  # noqa: E402

HEIGHT = 1500  # viewport height, px, unless HEIGHTS says otherwise
HEIGHTS = {"": 900, "word_similarity": 1700, "attention": 1600, "masked_words": 2100, "similar_contexts": 2600, "task_measures": 1500}  # by URL path
SETTINGS = {"compare_sentences": "?cs_correct=whitening"}  # by URL path: a query string to open the page with


def main() -> None:
    with running_app() as app, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for entry in PAGES:
            name, path = Path(entry.file).stem, entry.url_path
            page = browser.new_context(viewport={"width": 1400, "height": HEIGHTS.get(path, HEIGHT)}).new_page()
            page.goto(f"{app.url}/{path}{SETTINGS.get(path, '')}")
            wait_idle(page, settle_ms=1500)
            if page.locator("[data-testid='stException']").count():
                raise SystemExit(f"{name}: the page shows an exception")
            page.screenshot(path=str(HERE / f"{name}.png"))
            print(f"docs/{name}.png")
            page.context.close()
        # Presentation mode as a projector shows it: 1280 x 720.
        page = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
        page.goto(f"{app.url}/compare_sentences?present=true")
        wait_idle(page, settle_ms=1500)
        page.locator(".st-key-cs_raw").scroll_into_view_if_needed()
        page.screenshot(path=str(HERE / "presentation.png"))
        print("docs/presentation.png")
        browser.close()


if __name__ == "__main__":
    main()
