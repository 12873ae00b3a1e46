"""Reading the app in a real browser, for the browser test modules: the chromium check, a view opened in a fresh
context, a chart waited for, the plotly charts' summaries, a selectbox choice, and a grid of scatters' pixels."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from live_app import CHROMIUM, wait_idle
from playwright.sync_api import Browser, BrowserContext, Page

# Every CSS animation and transition of the app ended at once. A headless chromium draws every frame of one
# (Streamlit's running icon, elements fading while a script runs) in software, on the CPU the app server and
# the page's own scripts need: with them, views took 20-36 s beside a busy test worker, without them 6-10 s
# (the compositing process' CPU 2-11 s a view against 0.3-0.8 s). The tests read what is drawn and where, once
# it has settled, which no animation changes; the benchmarks keep them, as a visitor sees them.
STILL_JS = """document.addEventListener('DOMContentLoaded', () => {
  const style = document.createElement('style');
  style.textContent = '*, *::before, *::after { animation: none !important; transition: none !important; }';
  document.head.appendChild(style);
});"""


def still_context(browser: Browser, **options: object) -> BrowserContext:
    """A new browser context (``options`` as ``Browser.new_context`` takes them) whose pages run no CSS
    animation or transition (``STILL_JS``): every context a test opens."""
    context = browser.new_context(**options)
    context.add_init_script(STILL_JS)
    return context

# Every button (a download's or another) whose label is cut short: ends in "…" or runs past the button's edge (#51
# item 11: "For the Embedding Projector (.z…"). Any element of the button whose text needs more room than it shows
# counts. Returns [label, px its text needs, px shown] for each.
LABELS_CUT_JS = """() => Array.from(document.querySelectorAll(
    '[data-testid=stMain] [data-testid=stDownloadButton] button, [data-testid=stMain] [data-testid=stButton] button'))
  .flatMap(button => [button, ...button.querySelectorAll('*')]
    .filter(el => el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)
    .slice(0, 1).map(el => [button.innerText.trim(), el.scrollWidth, el.clientWidth]))"""


def require_chromium() -> None:
    """Skip the calling test module where chromium is missing, or fail where BERTVIZ_REQUIRE_BROWSER says the
    browser tests must run (CI)."""
    if Path(CHROMIUM).exists():
        return
    if os.environ.get("BERTVIZ_REQUIRE_BROWSER"):
        raise RuntimeError("BERTVIZ_REQUIRE_BROWSER is set but chromium is missing: apt-get install chromium")
    pytest.skip("chromium is not installed (apt-get install chromium); skipping browser tests",
                allow_module_level=True)


VIEWPORT = {"width": 1400, "height": 1600}
_SHARED: dict[int, BrowserContext] = {}  # per browser: the context that views share unless they must be fresh
# Tabs whose view is done, on about:blank, for the next view: per shared context its tabs, per browser the fresh
# ones (each in a context of its own). A view loaded in a used tab costs chromium less than half the CPU of a new
# tab (2.5-3.2 s against 6-7.7 s a view; the note of #48): a new tab is a new renderer process, which compiles and
# boots the app's scripts from nothing.
_IDLE_TABS: dict[int, list[Page]] = {}
_FRESH_TABS: dict[int, list[Page]] = {}
_FRESH_CONTEXTS: set[int] = set()  # the contexts ``tab`` made for fresh tabs: only their tabs go back to that pool


def tab(browser: Browser, fresh: bool = False) -> Page:
    """A tab to load a view in: one of the shared context's, or with ``fresh`` one in a context of its own, with no
    cookie or storage left (a reused one served only other tests' views, never the view that made a link)."""
    if fresh:
        idle = _FRESH_TABS.setdefault(id(browser), [])
        if idle:
            return idle.pop()
        context = still_context(browser, viewport=VIEWPORT)
        _FRESH_CONTEXTS.add(id(context))
        return context.new_page()
    if id(browser) not in _SHARED:
        _SHARED[id(browser)] = still_context(browser, viewport=VIEWPORT)
    idle = _IDLE_TABS.setdefault(id(_SHARED[id(browser)]), [])
    return idle.pop() if idle else _SHARED[id(browser)].new_page()


def open_view(browser: Browser, url: str, fresh: bool = False) -> Page:
    """``url`` loaded in a ``tab``, its script run finished. Every load is a new Streamlit session; views share one
    context (the browser's cache of the app's scripts) unless ``fresh``: nothing shared with any other view's
    session (a link that must reopen a view by itself). ``done`` ends it."""
    page = tab(browser, fresh)
    page.goto(url)
    wait_idle(page)
    return page


def done(page: Page) -> None:
    """End a view ``open_view`` or ``tab`` gave: its session ends (the tab leaves for about:blank) and the tab waits
    for the next view; a fresh one first loses its cookies and storage. A tab of another context (a test's own,
    of another size) is closed: it must never serve a later view as a fresh one."""
    shared = page.context in _SHARED.values()
    if not shared and id(page.context) not in _FRESH_CONTEXTS:
        page.close()
        return
    if not shared:
        page.evaluate("() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) {} }")
        page.context.clear_cookies()
    page.goto("about:blank")
    browser = page.context.browser
    (_IDLE_TABS[id(page.context)] if shared else _FRESH_TABS.setdefault(id(browser), [])).append(page)


def wait_for_chart(page: Page, text: str) -> None:
    """Wait until a chart's title or subplot title contains ``text`` (a rerun can start late under load)."""
    page.wait_for_function("""expect => Array.from(document.querySelectorAll('.js-plotly-plot')).some(el =>
        [((el.layout.title && el.layout.title.text) || '').replace(/<br>/g, ' '),  // as read
         ...(el.layout.annotations || []).map(a => a.text || '')].some(t => t.includes(expect)))""", arg=text, timeout=90_000)
    wait_idle(page)


# The title of the canvas chart in container .st-key-<key>: a heatmap's hidden title (``ui.canvas_heatmap`` draws its
# title from its data, and labels the view with the kind of heatmap), else the view's label, the spec's description
# (``ui.canvas_chart``: the title); '' while no view is drawn.
CANVAS_TITLE_JS = """key => { const box = document.querySelector(`.st-key-${key}`);
  const view = box && box.querySelector("[role='graphics-document']");
  if (!view) return '';
  const hidden = box.querySelector('.bv-chart-title');
  return hidden ? hidden.textContent : view.getAttribute('aria-label') || ''; }"""


def canvas_title(page: Page, key: str) -> str:
    """The title of the canvas chart drawn with ``key`` (``CANVAS_TITLE_JS``)."""
    return page.evaluate(f"({CANVAS_TITLE_JS})({json.dumps(key)})")


def wait_for_canvas(page: Page, key: str, title: str, starts: bool = False) -> None:
    """Wait until the canvas chart keyed ``key`` (``ui.canvas_heatmap``, ``ui.canvas_chart``) is drawn under
    ``title`` (with ``starts``, a title that starts so): a canvas holds no text (``CANVAS_TITLE_JS``)."""
    page.wait_for_function(f"""([key, title, starts]) => {{ const shown = ({CANVAS_TITLE_JS})(key);
        return starts ? shown.startsWith(title) : shown === title; }}""", arg=[key, title, starts], timeout=90_000)
    wait_idle(page)


def canvas_colours(page: Page, key: str) -> int:
    """How many distinct colours the canvas chart drawn with ``key`` holds, counted on a 40 × 40 grid of its pixels:
    a chart whose marks failed to draw (a colour scale Vega could not build) shows its axes' few greys alone."""
    return page.evaluate("""key => { const canvas = document.querySelector(`.st-key-${key} canvas`);
      const ctx = canvas.getContext('2d'), seen = new Set();
      for (let i = 0; i < 40; i++) for (let j = 0; j < 40; j++) {
        const [r, g, b] = ctx.getImageData(Math.floor(canvas.width * (i + 0.5) / 40),
                                           Math.floor(canvas.height * (j + 0.5) / 40), 1, 1).data;
        seen.add(`${r >> 4},${g >> 4},${b >> 4}`); }
      return seen.size; }""", key)


def plotly_summaries(page: Page, count: int) -> list[dict]:
    """Title, trace type and number of drawn points of each plotly chart, once ``count`` are drawn."""
    page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot').length >= {count}", timeout=60_000)
    return page.evaluate(r"""() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(el => ({
        title: ((el.layout.title && el.layout.title.text) || '').replace(/<\/?b>/g, '').replace(/<br>/g, ' '), type: el._fullData[0].type, points: el.calcdata[0].length}))""")


def choose(page: Page, label: str, option: str) -> None:
    """Pick ``option`` in the Streamlit selectbox labelled ``label`` and wait for the rerun."""
    box = page.locator("[data-testid='stSelectbox']").filter(has_text=label)
    box.locator("input").click()
    page.get_by_role("option", name=option, exact=True).click()
    wait_idle(page)


GRID_PIXELS = """([key, colours]) => { const canvas = document.querySelector(`.st-key-${key} canvas`);
    if (!canvas || !canvas.width) return null;
    const {data} = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    // points are drawn at opacity 0.8 on white: count the pixels of each colour so blended
    const blended = colours.map(c => [1, 3, 5].map(i => 0.8 * parseInt(c.slice(i, i + 2), 16) + 0.2 * 255));
    const counts = colours.map(() => 0);
    for (let i = 0; i < data.length; i += 4)
      blended.forEach((rgb, k) => { if (rgb.every((v, j) => Math.abs(v - data[i + j]) < 4)) counts[k] += 1; });
    const box = canvas.getBoundingClientRect();
    return {counts, width: box.width, height: box.height}; }"""


def scatter_grid_drawn(page: Page, key: str, colours: list[str]) -> dict:
    """The drawn grid of scatters (``ui.scatter_grid``): its canvas' CSS size and how many of its pixels have
    each of ``colours`` (as points drawn at opacity 0.8 on white show it)."""
    page.wait_for_function(f"{GRID_PIXELS}", arg=[key, colours], timeout=120_000)
    wait_idle(page)
    return page.evaluate(GRID_PIXELS, [key, colours])
