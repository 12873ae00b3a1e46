"""What the cross-cutting tests and the benchmarks do on each page, declared by the page's own test module.

Each page of the registry has a test module tests/pages/test_<page file's stem>_page.py that declares
``CHECKS = PageChecks(...)``. The loops over ``PAGES`` (tests/test_lengths.py, tests/test_browser_links.py,
tests/test_presentation.py, bench/model_calls.py, bench/interaction_latency.py, bench/visitors_memory.py) read it
through ``checks(entry)``, so a new page is its page file, one registry entry and its test module, and a page
without checks stops them with a message that names it.
"""
from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from streamlit.testing.v1 import AppTest

from bertviz_core.views.page_registry import PageEntry

if TYPE_CHECKING:  # playwright is imported only where a browser runs
    from playwright.sync_api import Page

Setting = tuple[str, str, object]  # (AppTest widget kind, or "session_state" for a lazy tab, key, value)
BrowserChange = Callable[["Page", int], None]  # change number i (0, 1, ...): each undoes the one before
Words = Callable[[int], str]  # n random words


@dataclass(frozen=True)
class PageChecks:
    """One page's part in the loops over the registry; the defaults suit a page without settings or text.

    settings: changes that must run no model once the page is drawn (bench-calls counts the runs).
    timed_change: (what is changed, query string, the change in a browser) that bench-latency times; "{mlm}" in
        the query is a local model with a masked-language-model head.
    long_text: the ways a user gives the page a text longer than the model takes (each must say what was cut).
    uploader: (source radio key, file uploader key) of a page that takes a CSV.
    upload_settings: (session state key, value) set before a test's upload, so that it computes little.
    upload_labelled: the page reads an upload's labels (its summary counts the rows used per label).
    shared_query: settings a teacher changed before sharing, each unlike its default ("{mlm}" as above).
    extra_views: views reached through a tab or a choice, as query strings, for the presentation-mode audit.
    visit: the query parameters of a visitor of bench-visitors, made from random words; it uploads a CSV when the
        query picks the upload source.
    needs_mlm_head: its numbers need a masked-language-model head, which the bundled model lacks.
    store_view: on a page that reads stores, the steps that open a store's view (the server lists one store).
    store_settings: changes on that view that must run no model (bench-calls counts them too).
    store_timed_change: as ``timed_change``, on the store's view; "{store}" in the query is the store's name.
    """

    settings: tuple[Setting, ...] = ()
    timed_change: tuple[str, str, BrowserChange] | None = None
    long_text: tuple[Callable[[AppTest], None], ...] = ()
    uploader: tuple[str, str] | None = None
    upload_settings: tuple[tuple[str, object], ...] = ()
    upload_labelled: bool = False
    shared_query: str | None = None
    extra_views: tuple[str, ...] = ()
    visit: Callable[[Words], dict[str, str]] = lambda words: {}
    needs_mlm_head: bool = False
    store_view: tuple[Setting, ...] = ()
    store_settings: tuple[Setting, ...] = ()
    store_timed_change: tuple[str, str, BrowserChange] | None = None

    def uploads_in(self, query: dict[str, str]) -> bool:
        """Whether a visit with ``query`` picks this page's upload source."""
        return self.uploader is not None and query.get(self.uploader[0]) == UPLOAD


UPLOAD = "Upload a CSV"
LONG = "The bank by the river flooded. " + "word " * 700  # longer than any model's 512 tokens
LABELLED_LONG = "text,label\n" + "\n".join([f"Short text number {i} here,{i % 2}" for i in range(10)] + [f"{LONG},1"])


# Where the page test modules and the core tests they import live: pytest.ini's pythonpath, which the benches lack.
TEST_ROOMS = [str(Path(__file__).resolve().parent / room) for room in ("pages", "core")]


def checks(entry: PageEntry) -> PageChecks:
    """The ``CHECKS`` of ``entry``'s test module; LookupError naming the page and the module when there is none."""
    sys.path.extend(room for room in TEST_ROOMS if room not in sys.path)
    name = f"test_{Path(entry.file).stem}_page"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != name:
            raise
        raise LookupError(f"{entry.file} has no test module: add tests/pages/{name}.py with CHECKS") from None
    found = getattr(module, "CHECKS", None)
    if not isinstance(found, PageChecks):
        raise LookupError(f"tests/pages/{name}.py declares no CHECKS = PageChecks(...) for {entry.file}")
    return found


def make(at: AppTest, setting: Setting) -> AppTest:
    """One ``Setting`` made and the page rerun: a lazy tab opened through its key, or a widget set."""
    kind, key, value = setting
    if kind == "session_state":
        at.session_state[key] = value
        return at.run()
    return getattr(at, kind)(key=key).set_value(value).run()


def typed(kind: str, key: str, value: str) -> Callable[[AppTest], None]:
    """Type ``value`` into the widget of ``kind`` (e.g. "text_area") with ``key``."""
    return lambda at: getattr(at, kind)(key=key).set_value(value).run()


def uploaded(uploader: tuple[str, str], csv: str) -> Callable[[AppTest], None]:
    """Pick the upload source, then upload ``csv`` (its text) to the page's uploader."""
    source, upload = uploader

    def run(at: AppTest) -> None:
        at.radio(key=source).set_value(UPLOAD).run()
        at.file_uploader(key=upload).set_value(("upload.csv", csv.encode(), "text/csv")).run()
    return run


# ---- browser changes for bench-latency ----------------------------------------------------------------------

def slider(page: Page, i: int) -> None:
    """The page's first slider one step right, then back."""
    page.locator("[data-testid='stSlider'] input[type='range']").first.press("ArrowLeft" if i % 2 else "ArrowRight")


def slider_named(label: str) -> BrowserChange:
    """Slider ``label`` one step right, then back."""
    return lambda page, i: page.locator("[data-testid='stSlider']").filter(has_text=label).locator(
        "input[type='range']").first.press("ArrowLeft" if i % 2 else "ArrowRight")


def select(label: str, options: tuple[str, str]) -> BrowserChange:
    """Selectbox ``label``'s two options in turn."""
    def act(page: Page, i: int) -> None:
        page.locator("[data-testid='stSelectbox']").filter(has_text=label).locator("input").click()
        page.get_by_role("option", name=options[i % 2], exact=True).click()
    return act


def toggle(label: str) -> BrowserChange:
    return lambda page, i: page.get_by_text(label, exact=True).click()


def choose(label: str, options: tuple[str, str]) -> BrowserChange:
    """Radio ``label``'s two options in turn (clicking the chosen one again would change nothing)."""
    return lambda page, i: (page.locator("[data-testid='stRadio']").filter(has_text=label)
                            .locator("label").filter(has_text=options[i % 2]).click())


def multiselect_last(label: str, option: str) -> BrowserChange:
    """Drop the last chosen option of multiselect ``label``, then choose ``option`` again."""
    def act(page: Page, i: int) -> None:
        box = page.locator("[data-testid='stMultiSelect']").filter(has_text=label).locator("input")
        if i % 2 == 0:
            box.press("Backspace")
        else:
            box.fill(option)
            box.press("Enter")
    return act
