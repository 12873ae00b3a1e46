"""No page puts a text over ``ui.links.MAX_LINK_VALUE`` (2,000) characters in its address bar (issue #53, item 6),
as none puts one in its shared link: every page of the registry, each of its text boxes that takes a longer text
given 2,600 characters (or as many as it takes) in a real browser (only a browser keeps the address bar: AppTest sees no URL the page's
widgets write)."""
from __future__ import annotations

import pytest
from browser_views import done, open_view, require_chromium

require_chromium()

from playwright.sync_api import Browser  # noqa: E402

from bertviz_core.views.page_registry import PAGES, PageEntry  # noqa: E402
from ui.links import MAX_LINK_VALUE  # noqa: E402

LONG = ("The river bank flooded after the storm. " * 65)[:2_600]
# the page's text boxes, not the sidebar's, nor a selectbox's search field (an input of type text too, which a
# rerun can replace under the cursor)
BOXES = "[data-testid='stMain'] textarea, [data-testid='stMain'] input[type='text']:not([role='combobox'])"


@pytest.mark.parametrize("entry", PAGES, ids=lambda entry: entry.title)
def test_no_page_puts_a_text_over_2000_characters_in_its_address_bar(server: str, browser: Browser,
                                                                     entry: PageEntry) -> None:
    page = open_view(browser, f"{server}/{entry.url_path}")
    boxes = page.locator(BOXES)
    for number in range(boxes.count()):  # a box that takes fewer characters keeps its first ones
        box = boxes.nth(number)
        if box.is_visible():
            box.fill(LONG, timeout=10_000)
            box.press("Control+Enter" if box.evaluate("el => el.tagName") == "TEXTAREA" else "Enter")
    # the address bar as the page leaves it: the run that reads the long texts takes them out first thing
    page.wait_for_function("""limit => [...new URLSearchParams(location.search).values()].every(v => v.length <= limit)
        && !document.querySelector("[data-test-script-state='running']")""", arg=MAX_LINK_VALUE, timeout=120_000)
    assert page.locator("[data-testid='stException']").count() == 0, entry.file
    kept = [box.input_value() for box in boxes.all() if box.is_visible()]
    assert not [text for text in kept if MAX_LINK_VALUE < len(text) != len(LONG)], entry.file  # what the link leaves out
    done(page)
