"""The class server (`make serve`, bertviz_core/runtime/class_server.py) in a real browser, through HAProxy in front
of 2 Streamlit processes: two browsers land on different processes and each sees only its own texts; an upload, a
CSV download, a chart's PNG export and a share link reopened in a fresh context work through the proxy. Three page
visits in all."""
from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_views import VIEWPORT, require_chromium, still_context
from live_app import IDLE_WAIT_MS, wait_idle

from bertviz_core.runtime.class_server import COOKIE, ClassServer, class_server, haproxy_path


def require_haproxy() -> None:
    """Skip this module where haproxy is missing, or fail where BERTVIZ_REQUIRE_BROWSER says it must run (CI)."""
    if haproxy_path():
        return
    if os.environ.get("BERTVIZ_REQUIRE_BROWSER"):
        raise RuntimeError("BERTVIZ_REQUIRE_BROWSER is set but haproxy is missing: make haproxy (apt-get install haproxy)")
    pytest.skip("haproxy is not installed (make haproxy, as root, installs Debian's); skipping the class server's test",
                allow_module_level=True)


require_chromium()
require_haproxy()

from playwright.sync_api import Browser, BrowserContext, Page, expect  # noqa: E402

TYPED = "The zebra crossing was busy."  # A's own text, typed into Tokenization
UPLOADED = [(f"A quokka note {i} about {topic}.", topic) for i in range(6) for topic in ("sport", "money")]  # B's


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClassServer]:
    with class_server(2, env={"BERTVIZ_WARM_UP": "0"}, logs=tmp_path_factory.mktemp("class-server")) as server:
        yield server


def visit(context: BrowserContext, url: str) -> Page:
    """``url`` in a new tab of ``context``, its script run finished."""
    page = context.new_page()
    page.goto(url)
    wait_idle(page)
    return page


def process_of(context: BrowserContext) -> str:
    """The Streamlit process the proxy keeps ``context`` on: its affinity cookie's value."""
    return next(c["value"] for c in context.cookies() if c["name"] == COOKIE)


def shown(page: Page) -> str:
    """What the page shows: its text and the values of its boxes."""
    return page.evaluate("""() => document.body.innerText + ' ' + Array.from(
        document.querySelectorAll('textarea, input')).map(el => el.value).join(' ')""")


def test_two_browsers_on_two_processes_with_upload_download_and_share_link(
        proxy: ClassServer, browser: Browser, tmp_path: Path) -> None:
    first, second = (still_context(browser, viewport=VIEWPORT) for _ in range(2))
    a = visit(first, f"{proxy.url}/tokenization")  # its websocket stays open: the next browser goes elsewhere
    box = a.locator("textarea").first
    box.fill(TYPED)
    box.press("Control+Enter")
    expect(a.locator(".bv-table").first).to_contain_text("zebra", timeout=IDLE_WAIT_MS)
    wait_idle(a)

    csv = tmp_path / "notes.csv"
    csv.write_text("text,label\n" + "\n".join(f"{t},{label}" for t, label in UPLOADED), encoding="utf-8")
    b = visit(second, f"{proxy.url}/sentence_pooling?sp_source=Upload+a+CSV")
    b.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(csv))  # the upload, through the proxy
    b.wait_for_selector(".st-key-sp_cell_map canvas", timeout=IDLE_WAIT_MS)  # the chosen cell's map
    wait_idle(b)
    with b.expect_download() as download:  # served from the memory of the process that ran the page
        b.get_by_role("button", name="PCA coordinates (CSV)", exact=True).click()
    rows = Path(download.value.path()).read_text(encoding="utf-8").splitlines()
    assert rows[0].startswith("text,label,pc1,pc2") and len(rows) == 1 + len(UPLOADED)
    assert sorted(row.split(",")[0] for row in rows[1:]) == sorted(t for t, _ in UPLOADED)
    chart = b.locator(".st-key-sp_cell_map")
    chart.hover()  # Streamlit shows the chart's toolbar on hover
    with b.expect_download() as image:  # the PNG export: Vega draws it in the page, of the spec the process sent
        chart.get_by_role("button", name="Download as PNG").click()
    assert Path(image.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    assert {process_of(first), process_of(second)} == {"p1", "p2"}  # two browsers, two processes
    assert "zebra" in shown(a) and "quokka" not in shown(a)
    assert "zebra" not in shown(b)
    for page in (a, b):
        assert page.locator("[data-testid='stException']").count() == 0

    assert "tok_text=" in a.url
    fresh = still_context(browser, viewport=VIEWPORT)  # a share link, opened where nothing of A's session is
    shared = visit(fresh, a.url)
    expect(shared.locator("textarea").first).to_have_value(TYPED, timeout=IDLE_WAIT_MS)
    expect(shared.locator(".bv-table").first).to_contain_text("zebra", timeout=IDLE_WAIT_MS)
    assert "quokka" not in shown(shared) and shared.locator("[data-testid='stException']").count() == 0
    for context in (first, second, fresh):
        context.close()
