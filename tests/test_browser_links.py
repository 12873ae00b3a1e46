"""Real-browser tests of what travels between visitors: deep and shared links reopen the same view, eight sessions
at once see only their own text, two first visitors of a fresh server both get the app, the overview links every
page, and user text never becomes a link."""
from __future__ import annotations

import json

import pytest
from browser_views import (
    done, open_view, require_chromium, scatter_grid_drawn, tab, wait_for_canvas, wait_for_chart,
)
from live_app import DRAWN_JS, running_app, wait_idle
from page_checks import checks

require_chromium()

from playwright.sync_api import Browser, Page, expect  # noqa: E402
from plotly.colors import qualitative  # noqa: E402

from bertviz_core.figures.grid_figures import GRID_ROW_PX  # noqa: E402
from bertviz_core.views.page_registry import PAGES  # noqa: E402


@pytest.mark.parametrize(("url", "expect"), [
    ("/layer_values?lv_text=The+cat+sat+down.&lv_layer=2&lv_token=2+%C2%B7+cat",
     ("lv_hist", "Token 2 · cat at layer 2", True)),
    ("/word_similarity?ws_preset=crane&ws_strategy=layer+1&ws_metric=dot+product"
     "&ws_texts=A+crane+lifted+steel.%0AA+crane+waded+in+the+marsh.", ("ws_matrix", "dot product, layer 1")),
    ("/sentence_pooling?sp_layers=layer+1&sp_layers=layer+2&sp_strats=max&sp_cell=max&sp_cell_layer=layer+2",
     ("sp_cell_map", "layer 2", True)),  # the chosen cell's map, titled "layer 2", then its variance
    ("/compare_sentences?cs_texts=Cats+purr.%0ADogs+bark.%0ABirds+sing.&cs_layer=2&cs_correct=mean-centering",
     ("cs_fixed", "after mean-centering")),
])
def test_deep_link_opens_the_same_view_in_a_fresh_context(server: str, browser: Browser, url: str,
                                                           expect: str | tuple) -> None:
    """``expect``: a plotly chart's title, or a canvas chart's key and title (and True: the title starts so)."""
    page = open_view(browser, server + url, fresh=True)
    if isinstance(expect, tuple):
        wait_for_canvas(page, *expect)
    else:
        wait_for_chart(page, expect)
    if "sp_strats=max" in url:  # one strategy: the grid is one row
        assert scatter_grid_drawn(page, "sp_grid", qualitative.Plotly[:4])["height"] < 2 * GRID_ROW_PX
    assert page.locator("[data-testid='stException']").count() == 0
    link = shared_link(page)
    for part in url.split("?")[1].split("&"):  # every setting is in the shareable link too
        name = part.split("=")[0]
        assert f"{name}=" in link
    done(page)


SESSIONS = [  # (page, text parameter, how to interact): eight visitors at once, each with its own words
    ("tokenization", "tok_text", "text"),
    ("tokenization", "tok_text", "text"),
    ("layer_values", "lv_text", "slider"),
    ("layer_values", "lv_text", "slider"),
    ("word_similarity", "ws_texts", "strategy"),
    ("word_similarity", "ws_texts", "strategy"),
    ("compare_sentences", "cs_texts", "correction"),
    ("compare_sentences", "cs_texts", "correction"),
]


def test_eight_sessions_at_once_see_only_their_own_text(server: str, browser: Browser) -> None:
    import urllib.parse

    markers = [f"zorblat{i}" for i in range(len(SESSIONS))]
    pages = []
    for (path, param, _), marker in zip(SESSIONS, markers):
        value = f"The {marker} bank sat by the river.\nA {marker} bank lent money." if path in (
            "word_similarity", "compare_sentences") else f"The {marker} bank sat by the river."
        page = tab(browser, fresh=True)  # eight visitors: nothing shared between them
        page.goto(f"{server}/{path}?{urllib.parse.urlencode({param: value})}")  # all load at the same time
        pages.append(page)
    for page in pages:
        wait_idle(page)
    for round_ in range(3):
        for page, (_, _, how), marker in zip(pages, SESSIONS, markers):  # start every change, then wait
            if how == "text":
                box = page.locator("textarea").first
                box.fill(f"Round {round_}: {marker} speaks.")
                box.press("Control+Enter")
            elif how == "slider":
                page.locator("[data-testid='stSlider'] input[type='range']").first.press("ArrowLeft")
            elif how == "strategy":
                box = page.locator("[data-testid='stSelectbox']").filter(has_text="Word vector")
                box.locator("input").click()
                page.get_by_role("option", name=f"layer {round_ + 1}", exact=True).click()
            else:
                page.get_by_text(["mean-centering", "whitening", "none"][round_], exact=True).click()
        for page, marker in zip(pages, markers):
            wait_idle(page)
            body = page.evaluate("""() => document.body.innerText + ' ' + Array.from(
                document.querySelectorAll('textarea, input')).map(el => el.value).join(' ')""")
            assert marker in body
            assert not [m for m in markers if m != marker and m in body], "another session's text leaked"
            assert page.locator("[data-testid='stException']").count() == 0
    for page in pages:
        done(page)


def test_overview_links_to_the_pages(server: str, browser: Browser) -> None:
    page = open_view(browser, server)
    assert page.get_by_role("heading", name="BERT Embedding Explorer").count() == 1
    for title in ("Tokenization", "Layer values", "Word in context", "Sentence pooling", "Compare sentences"):
        assert page.locator("[data-testid='stSidebarNav']").get_by_text(title, exact=True).count() == 1
    page.get_by_text("Start with tokenization").click()
    # the address changes once the server has switched pages, which can come after the script state's first idle
    page.wait_for_url("**/tokenization", timeout=60_000)
    # the tokenization page's first run can end after wait_idle on a busy machine: wait for its metric itself
    expect(page.locator("[data-testid='stMetricValue']").first).to_have_text("22", timeout=120_000)
    assert page.locator("[data-testid='stException']").count() == 0
    done(page)


def test_bare_urls_and_addresses_in_user_text_stay_text(server: str, browser: Browser) -> None:
    """Links in a shared URL's text must not become clickable: ranking table, warnings, sidebar errors."""
    from urllib.parse import quote

    texts = "Visit http://evil.example/login now\nwww.evil.example has prizes\nMail bob@evil.example today\nA plain one"
    page = open_view(browser, f"{server}/compare_sentences?cs_view=Rank+against+one+sentence"
                              f"&cs_texts={quote(texts)}")
    page.locator(".st-key-cs_ranking .bv-table tbody tr").nth(2).wait_for(timeout=60_000)
    shown = page.locator(".st-key-cs_ranking").inner_text().replace("\u2060", "")  # the invisible joiner
    assert "www.evil.example has prizes" in shown and "bob@evil.example" in shown
    assert page.locator("[data-testid='stApp'] a[href*='evil']").count() == 0
    done(page)
    page = open_view(browser, f"{server}/word_similarity?ws_word={quote('http://evil.example')}")
    page.locator("[data-testid='stAlert']").first.wait_for(timeout=60_000)
    assert page.locator("[data-testid='stApp'] a[href*='evil']").count() == 0
    done(page)
    page = open_view(browser, f"{server}/tokenization?model={quote('Custom id or path…')}"
                              f"&custom_model={quote('./x@evil.example/www.evil.example')}")
    page.locator("[data-testid='stSidebar'] [data-testid='stAlert']").first.wait_for(timeout=60_000)
    assert "evil.example" in page.locator("[data-testid='stSidebar']").inner_text()
    assert page.locator("[data-testid='stApp'] a[href*='evil']").count() == 0
    done(page)


SETTINGS_JS = """() => {
  const out = {};
  for (const el of document.querySelectorAll('[data-testid=stMain] [class*="st-key-"]')) {
    const key = Array.from(el.classList).find(c => c.startsWith('st-key-')).slice(7);
    const slider = el.querySelector('[role=slider]');
    const field = el.querySelector('textarea, input[type=text], input[type=number]');
    const checked = el.querySelector('input[type=checkbox]');
    const radio = el.querySelector('input[type=radio]:checked');
    const tab = el.querySelector('[role=tab][aria-selected=true]');
    const tags = el.querySelectorAll('[data-baseweb=tag]');
    const select = el.querySelector('[data-baseweb=select]');
    if (slider) out[key] = slider.getAttribute('aria-valuenow');
    else if (tags.length) out[key] = Array.from(tags).map(t => t.innerText).join('|');
    else if (select) out[key] = select.innerText;
    else if (field) out[key] = field.value;
    else if (checked) out[key] = checked.checked;
    else if (radio) out[key] = radio.closest('label').innerText;
    else if (tab) out[key] = tab.innerText;
  }
  return out;
}"""


# Per page: settings a teacher changed before sharing (every one differs from the page's default), from its checks.
SHARED = {entry.url_path: query for entry in PAGES if (query := checks(entry).shared_query)}


def shared_link(page: Page) -> str:
    """The link the teaching panel offers, read as a reader would: open the panel, copy the link."""
    page.get_by_text("Reproduce these numbers in a notebook, or share this view").first.click()
    code = page.locator("[data-testid=stExpanderDetails] [data-testid=stCode]").nth(1)
    code.wait_for(timeout=30_000)
    return code.inner_text().strip()


SETTLED_JS = """() => { const n = Object.keys((SETTINGS)()).length, same = window.__settings_seen === n;
    window.__settings_seen = n; return same && n >= 4; }"""


@pytest.mark.parametrize("path", list(SHARED))
def test_a_shared_link_reopens_the_same_view(server: str, browser: Browser, path: str, mlm_folder: str) -> None:
    page = open_view(browser, f"{server}/{path}?{SHARED[path].format(mlm=mlm_folder)}")
    page.wait_for_function(DRAWN_JS, timeout=60_000)  # every chart drawn: the view is complete
    wait_idle(page)
    # On a busy machine the charts' check can pass before the first run has drawn anything (no chart yet), and the
    # widgets below the charts (or in a tab) can come later still: wait until the page shows at least the four
    # settings the assertion below asks of every shared view, and the same number at two polls in a row.
    page.wait_for_function(SETTLED_JS.replace("SETTINGS", SETTINGS_JS), timeout=60_000, polling=500)
    before = page.evaluate(SETTINGS_JS)
    link = shared_link(page)
    done(page)
    assert link.startswith(f"{server}/{path}?")
    again = open_view(browser, link, fresh=True)  # nothing shared but the link
    again.wait_for_function(DRAWN_JS, timeout=60_000)
    wait_idle(again)
    # The charts can be drawn before the last widgets (below them, or in a tab) are: wait until the page shows
    # as many settings as the first did, then compare their values.
    again.wait_for_function(f"() => Object.keys(({SETTINGS_JS})()).length >= {len(before)}", timeout=60_000)
    after = again.evaluate(SETTINGS_JS)
    assert len(before) >= 4 and after == before
    done(again)


SENSE_SCORES_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).filter(
    el => (el.layout.title.text || '').replace(/<br>/g, ' ').includes('per merge rule')).map(el => JSON.stringify(el._fullData[0].z))[0]"""


def test_edited_sense_labels_travel_in_the_link(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/word_similarity?ws_preset=crane")
    page.wait_for_function(DRAWN_JS, timeout=60_000)
    wait_idle(page)
    before = page.evaluate(SENSE_SCORES_JS)
    grid = page.locator("[class*='st-key-ws_senses_'] canvas").first
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    # Select a cell of the sense column (the right half; rows below a header), go to its first row with the
    # keyboard, and edit it as a user would: Enter opens the cell's editor, Enter again commits.
    page.mouse.click(box["x"] + box["width"] * 0.75, box["y"] + box["height"] / 2)
    for _ in range(6):
        page.keyboard.press("ArrowUp")
    page.keyboard.press("Enter")
    page.wait_for_selector("textarea.gdg-input", timeout=10_000)  # the cell's editor is open
    # keys typed before the editor has the focus would be lost
    page.wait_for_function("() => document.activeElement && document.activeElement.matches('textarea.gdg-input')")
    page.keyboard.press("Control+A")
    page.keyboard.type("kitchen crane", delay=30)
    page.wait_for_function("() => (document.querySelector('textarea.gdg-input') || {}).value === 'kitchen crane'")
    page.keyboard.press("Enter")
    page.wait_for_function("() => location.search.includes('ws_senses=') && location.search.includes('kitchen')",
                           timeout=30_000)
    page.wait_for_function(f"() => ({SENSE_SCORES_JS})() !== {json.dumps(before)}", timeout=60_000)  # redrawn
    wait_idle(page)
    edited = page.evaluate(SENSE_SCORES_JS)
    link = shared_link(page)
    assert "ws_senses=" in link and ("kitchen+crane" in link or "kitchen%20crane" in link)
    done(page)
    again = open_view(browser, link, fresh=True)  # the labels come from the link alone
    wait_for_chart(again, "per merge rule")
    assert again.evaluate(SENSE_SCORES_JS) == edited
    done(again)
    default = open_view(browser, f"{server}/word_similarity?ws_preset=crane")
    wait_for_chart(default, "per merge rule")
    assert default.evaluate(SENSE_SCORES_JS) != edited  # the labels changed the scores
    done(default)


def test_two_first_visitors_of_a_fresh_server_both_get_the_app(browser: Browser) -> None:
    """Until app.py's navigation first runs, Streamlit serves a deep link's page file alone (a legacy multipage app).
    Two visitors opening links at once on a fresh server both start so: each must still get app.py's pages, sidebar
    and model, not the page alone with a list of file names."""
    with running_app() as app:
        pages = [browser.new_context(viewport={"width": 1400, "height": 1000}).new_page() for _ in range(2)]
        for page, path in zip(pages, ("layer_values", "tokenization")):
            page.goto(f"{app.url}/{path}")
        for page in pages:
            wait_idle(page)
            sidebar = page.locator("[data-testid='stSidebar']")
            expect(sidebar.get_by_text("Sentence pooling", exact=True)).to_have_count(1)  # the app's page titles
            expect(sidebar.get_by_text("6 layers", exact=False)).to_have_count(1, timeout=30_000)  # its model
            assert sidebar.get_by_text("sentence pooling", exact=True).count() == 0  # no file names
            page.context.close()
