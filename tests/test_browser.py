"""Real-browser tests: `streamlit run app.py` on a free loopback port, driven by Debian's chromium."""
from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from live_app import CHROMIUM, DRAWN_JS, changes, running_app, wait_for_change, wait_idle
from page_checks import checks

if not Path(CHROMIUM).exists():
    if os.environ.get("BERTVIZ_REQUIRE_BROWSER"):
        raise RuntimeError("BERTVIZ_REQUIRE_BROWSER is set but chromium is missing: apt-get install chromium")
    pytest.skip("chromium is not installed (apt-get install chromium); skipping browser tests",
                allow_module_level=True)

from playwright.sync_api import Browser, Page, expect  # noqa: E402
from plotly.colors import qualitative  # noqa: E402

from bertviz_core.corpora import news_topics  # noqa: E402
from bertviz_core.figures import GRID_ROW_PX  # noqa: E402
from bertviz_core.page_registry import PAGES  # noqa: E402


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    with running_app() as app:
        yield app.url


def open_view(browser: Browser, url: str) -> Page:
    """A fresh context (no shared state), the page loaded and its script run finished."""
    page = browser.new_context(viewport={"width": 1400, "height": 1600}).new_page()
    page.goto(url)
    wait_idle(page)
    return page


def test_tokenization_deep_link_shows_tutorial_tokens(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/tokenization")
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.get_by_text("Tokens", exact=True).first.is_visible()
    expect(page.locator("[data-testid='stMetricValue']").first).to_have_text("22")
    assert page.locator("[data-testid='stSidebar']").get_by_text("6 layers", exact=False).count() == 1
    page.context.close()


def test_tokenization_settings_come_from_the_url(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/tokenization?tok_text=embeddings+%2A%23&tok_pad=true&tok_T=10")
    rows = page.locator("[data-testid='stTable'] tbody tr")
    rows.nth(9).wait_for(timeout=30_000)  # the tenth row (T=10): the page is drawn down to the table
    assert rows.count() == 10 and rows.filter(has_text="[PAD]").count() == 2
    assert page.locator("[data-testid='stException']").count() == 0
    # expect retries: under load a rerun can still be replacing the metrics when the table is drawn
    expect(page.locator("[data-testid='stMetricValue']").first).to_have_text("8")
    expect(page.locator("textarea").first).to_have_value("embeddings *#")  # the box can fill a moment late
    # st.table renders cells as Markdown; tokens and labels must show as typed ("## x" is no heading)
    tokens = [rows.nth(i).locator("td").nth(1).inner_text().strip() for i in range(8)]
    assert tokens == ["[CLS]", "em", "##bed", "##ding", "##s", "*", "#", "[SEP]"]
    cells = lambda i: [td.strip() for td in rows.nth(i).locator("td").all_inner_texts()]  # noqa: E731
    assert cells(0)[5] == "None" and cells(1)[5:] == ["0", "word start", "embeddings", "0", "2"]  # ints stay ints
    assert rows.filter(has_text="## continuation").count() == 3
    assert page.locator("[data-testid='stTable'] :is(h1, h2, h3, ul, em)").count() == 0
    page.context.close()


def test_token_table_download_is_written_on_click(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/tokenization")
    with page.expect_download() as download:
        page.get_by_text("Download the token table (CSV)").click()
    lines = Path(download.value.path()).read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("position,token,id,") and len(lines) == 1 + 22
    assert [line.split(",")[2] for line in lines[1:4]] == ["101", "2044", "11065"]
    page.context.close()


def wait_for_chart(page: Page, text: str) -> None:
    """Wait until a chart's title or subplot title contains ``text`` (a rerun can start late under load)."""
    page.wait_for_function("""expect => Array.from(document.querySelectorAll('.js-plotly-plot')).some(el =>
        [((el.layout.title && el.layout.title.text) || '').replace(/<br>/g, ' '),  // as read
         ...(el.layout.annotations || []).map(a => a.text || '')].some(t => t.includes(expect)))""", arg=text, timeout=90_000)
    wait_idle(page)


def plotly_summaries(page: Page, count: int) -> list[dict]:
    """Title, trace type and number of drawn points of each plotly chart, once ``count`` are drawn."""
    page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot').length >= {count}", timeout=60_000)
    return page.evaluate(r"""() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(el => ({
        title: ((el.layout.title && el.layout.title.text) || '').replace(/<\/?b>/g, '').replace(/<br>/g, ' '), type: el._fullData[0].type, points: el.calcdata[0].length}))""")


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


# Where the last point drawn in a grid of scatters lies (CSS px in the viewport, the canvas' bottom brought into
# view): the last pixel, row by row, of one of the colours, blended as GRID_PIXELS counts them. The last, since
# the legend above the panels draws the same colours.
LAST_POINT = """([key, colours]) => { const canvas = document.querySelector(`.st-key-${key} canvas`);
    canvas.scrollIntoView({block: 'end'});
    const {data} = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    const blended = colours.map(c => [1, 3, 5].map(i => 0.8 * parseInt(c.slice(i, i + 2), 16) + 0.2 * 255));
    const box = canvas.getBoundingClientRect(), scale = box.width / canvas.width;
    for (let i = data.length - 4; i >= 0; i -= 4)
      if (blended.some(rgb => rgb.every((v, j) => Math.abs(v - data[i + j]) < 4))) {
        const pixel = i / 4;
        return [box.x + (pixel % canvas.width + 0.5) * scale, box.y + (Math.floor(pixel / canvas.width) + 0.5) * scale];
      }
    return null; }"""


def hover_text(page: Page, key: str, colours: list[str]) -> str | None:
    """The tooltip of a point of a grid of scatters, the pointer moved onto the last point drawn in one of
    ``colours`` (its bottom edge first, then a little higher, towards its middle: points are about 5 px wide)."""
    x, y = page.evaluate(LAST_POINT, [key, colours])
    for dy in (-1, -2, 0, -3):
        page.mouse.move(x, y + dy)
        shown = page.evaluate("""() => { const tip = document.querySelector('#vg-tooltip-element.visible');
            return tip ? tip.innerText : null; }""")
        if shown:
            return shown
    return None


def test_layer_values_page_renders_histogram_layers_and_outliers(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/layer_values")
    summaries = plotly_summaries(page, 3)
    hist = next(s for s in summaries if "Token 5 · the at layer 5" in s["title"])
    assert hist["type"] == "bar" and hist["points"] == 200
    layers = next(s for s in summaries if "Values per layer" in s["title"])
    assert layers["type"] == "box" and layers["points"] == 7
    assert [s["title"] for s in summaries if s["type"] == "heatmap"] == ["L2 norm of each token's vector"]
    assert page.get_by_text("Outlier dimensions").count() >= 1
    for key in ("lv_stats", "lv_outliers"):  # the statistics and outlier tables, static (they redraw at once)
        expect(page.locator(f".st-key-{key} [data-testid='stTable']")).to_have_count(1)  # drawn after the charts
    page.get_by_role("tab", name="Token × dimension at the chosen layer").click()  # only the open tab is drawn
    wait_for_chart(page, "Value of every dimension at layer 5")
    heatmaps = [s for s in plotly_summaries(page, 3) if s["type"] == "heatmap"]
    assert [s["title"].split(" (")[0] for s in heatmaps] == ["Value of every dimension at layer 5"]
    assert "lv_tab=" in page.url
    assert page.locator("[data-testid='stException']").count() == 0
    page.context.close()


def choose(page: Page, label: str, option: str) -> None:
    """Pick ``option`` in the Streamlit selectbox labelled ``label`` and wait for the rerun."""
    box = page.locator("[data-testid='stSelectbox']").filter(has_text=label)
    box.locator("input").click()
    page.get_by_role("option", name=option, exact=True).click()
    wait_idle(page)


def test_word_page_matrix_curves_scores_and_strategy_switch(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/word_similarity")
    summaries = plotly_summaries(page, 3)
    assert summaries[0]["title"] == "cosine, sum of last 4"
    assert any("cosine per layer" in s["title"] for s in summaries)
    assert any("per merge rule" in s["title"] for s in summaries)
    labels = page.evaluate("() => document.querySelector('.js-plotly-plot').data[0].y.slice(0, 3)")
    assert labels == ["0", "1", "2"]  # numbered: long contexts must not squeeze the matrix; the key names them
    assert page.get_by_text("…from the «bank» vault, the…", exact=False).count() >= 1  # which bank: marked
    choose(page, "Word vector", "layer 2")
    wait_for_chart(page, "cosine, layer 2")
    choose(page, "Metric", "dot product")
    wait_for_chart(page, "dot product, layer 2")
    assert plotly_summaries(page, 3)[0]["title"] == "dot product, layer 2"
    assert "ws_strategy=layer+2" in page.url and "ws_metric=dot+product" in page.url
    assert page.locator("[data-testid='stException']").count() == 0
    page.context.close()


def test_sentence_pooling_grid_and_scores(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/sentence_pooling")
    from bertviz_core.pooling import POOLINGS

    drawn = scatter_grid_drawn(page, "sp_grid", qualitative.Plotly[:4])
    rows = len(POOLINGS)  # the bundled model has a pooler: a row per strategy
    assert all(count > 100 for count in drawn["counts"]), drawn  # every topic's colour is drawn
    assert drawn["height"] >= rows * GRID_ROW_PX and drawn["width"] > 700  # a row per strategy, the page's width
    assert hover_text(page, "sp_grid", qualitative.Plotly[:4]) in {f"text\t\n{text}\n\nlabel\t\n{label}"
                                           for text, label in zip(news_topics()["text"], news_topics()["label"])}
    scores = plotly_summaries(page, 2)[0]
    assert scores["title"].startswith("silhouette") and scores["type"] == "heatmap"
    # mean and mean_sqrt_len always give the same silhouette: no clear best, with the count
    assert page.get_by_text("No clear best on 160 texts", exact=False).count() == 1
    page.context.close()


def test_pooled_vectors_download_equals_embed(server: str, browser: Browser, bundled, tmp_path: Path) -> None:
    import numpy as np

    page = open_view(browser, f"{server}/sentence_pooling?sp_cell=mean&sp_cell_layer=layer+3")
    with page.expect_download() as download:
        page.get_by_text("Vectors (.npy)").click()  # written on click, from the cached pooled arrays
    vectors = np.load(download.value.path())
    expected = bundled.embed(list(news_topics()["text"]), ["mean"])["mean"][:, 3]
    assert download.value.suggested_filename == "mean_layer3.npy" and vectors.shape == (160, 384)
    np.testing.assert_allclose(vectors, expected, atol=1e-5)
    page.context.close()


def test_sentence_pooling_upload_shows_progress_then_grid(server: str, browser: Browser, tmp_path: Path) -> None:
    corpus = news_topics()
    rows = [(f"{t} (note {i})", label) for i in range(19) for t, label in zip(corpus.text, corpus.label)]
    csv = tmp_path / "big.csv"
    csv.write_text("text,label\n" + "\n".join(f'"{t}",{label}' for t, label in rows), encoding="utf-8")
    page = open_view(browser, f"{server}/sentence_pooling?sp_source=Upload+a+CSV")
    page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(csv))
    page.wait_for_selector("[data-testid='stProgress']", timeout=60_000)
    wait_idle(page)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 2", timeout=120_000)
    points = page.locator(".st-key-sp_cell_map .js-plotly-plot").evaluate("el => el._fullData[0]._length")
    assert points == len(rows) == 3040  # the chosen cell drawn large
    assert all(count > 100 for count in scatter_grid_drawn(page, "sp_grid", qualitative.Plotly[:4])["counts"])
    assert page.locator("[data-testid='stException']").count() == 0
    page.context.close()


@pytest.mark.parametrize(("url", "expect"), [
    ("/layer_values?lv_text=The+cat+sat+down.&lv_layer=2&lv_token=2+%C2%B7+cat", "Token 2 · cat at layer 2"),
    ("/word_similarity?ws_preset=crane&ws_strategy=layer+1&ws_metric=dot+product"
     "&ws_texts=A+crane+lifted+steel.%0AA+crane+waded+in+the+marsh.", "dot product, layer 1"),
    ("/sentence_pooling?sp_layers=layer+1&sp_layers=layer+2&sp_strats=max&sp_cell=max&sp_cell_layer=layer+2",
     "layer 2<br>var"),
    ("/compare_sentences?cs_texts=Cats+purr.%0ADogs+bark.%0ABirds+sing.&cs_layer=2&cs_correct=mean-centering",
     "after mean-centering"),
])
def test_deep_link_opens_the_same_view_in_a_fresh_context(server: str, browser: Browser, url: str,
                                                           expect: str) -> None:
    page = open_view(browser, server + url)
    wait_for_chart(page, expect)
    if "sp_strats=max" in url:  # one strategy: the grid is one row
        assert scatter_grid_drawn(page, "sp_grid", qualitative.Plotly[:4])["height"] < 2 * GRID_ROW_PX
    assert page.locator("[data-testid='stException']").count() == 0
    page.get_by_text("Reproduce these numbers").first.click()
    link = page.locator("[data-testid='stCode']").last.inner_text()
    for part in url.split("?")[1].split("&"):  # every setting is in the shareable link too
        name = part.split("=")[0]
        assert f"{name}=" in link
    page.context.close()


def test_compare_page_matrix_ranking_baseline_and_whitening(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/compare_sentences")
    summaries = plotly_summaries(page, 2)
    assert summaries[0]["title"] == "cosine, mean, layer 5" and summaries[0]["type"] == "heatmap"
    assert summaries[1]["title"].startswith("cosine to sentence 1")
    assert page.get_by_text("random pairs: 5th–95th percentile").count() >= 1
    raw = page.evaluate("() => Array.from(document.querySelector('.js-plotly-plot').calcdata[0][0].z[0])")
    page.get_by_text("whitening", exact=True).click()
    wait_for_chart(page, "after whitening")
    titles = [s["title"] for s in plotly_summaries(page, 3)]
    assert titles[:2] == ["raw", "after whitening"]
    whitened = page.evaluate("() => Array.from(document.querySelectorAll('.js-plotly-plot')[1].calcdata[0][0].z[0])")
    assert max(abs(a - b) for a, b in zip(raw, whitened)) > 0.2
    page.context.close()


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
        page = browser.new_context(viewport={"width": 1300, "height": 1000}).new_page()
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
        page.context.close()


def test_overview_links_to_the_pages(server: str, browser: Browser) -> None:
    page = open_view(browser, server)
    assert page.get_by_role("heading", name="BERT Embedding Explorer").count() == 1
    for title in ("Tokenization", "Layer values", "Word in context", "Sentence pooling", "Compare sentences"):
        assert page.locator("[data-testid='stSidebarNav']").get_by_text(title, exact=True).count() == 1
    page.get_by_text("Start with tokenization").click()
    wait_idle(page)
    assert page.url.endswith("/tokenization")
    expect(page.locator("[data-testid='stMetricValue']").first).to_have_text("22")
    assert page.locator("[data-testid='stException']").count() == 0
    page.context.close()


def test_layer_values_layer_change_updates_the_histogram(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/layer_values")
    plotly_summaries(page, 3)
    page.locator("[data-testid='stSlider'] input[type='range']").first.press("ArrowLeft")
    wait_for_chart(page, "at layer 4")
    hist = next(s for s in plotly_summaries(page, 3) if s["type"] == "bar")
    assert hist["title"] == "Token 5 · the at layer 4: 200 bins" and hist["points"] == 200
    assert "lv_layer=4" in page.url
    assert page.locator("[data-testid='stException']").count() == 0
    page.context.close()


def test_bare_urls_and_addresses_in_user_text_stay_text(server: str, browser: Browser) -> None:
    """Links in a shared URL's text must not become clickable: ranking table, warnings, sidebar errors."""
    from urllib.parse import quote

    texts = "Visit http://evil.example/login now\nwww.evil.example has prizes\nMail bob@evil.example today\nA plain one"
    page = open_view(browser, f"{server}/compare_sentences?cs_texts={quote(texts)}")
    page.locator(".st-key-cs_ranking [data-testid='stTable'] tbody tr").nth(2).wait_for(timeout=60_000)
    shown = page.locator(".st-key-cs_ranking").inner_text().replace("\u2060", "")  # the invisible joiner
    assert "www.evil.example has prizes" in shown and "bob@evil.example" in shown
    assert page.locator("[data-testid='stApp'] a[href*='evil']").count() == 0
    page.context.close()
    page = open_view(browser, f"{server}/word_similarity?ws_word={quote('http://evil.example')}")
    page.locator("[data-testid='stAlert']").first.wait_for(timeout=60_000)
    assert page.locator("[data-testid='stApp'] a[href*='evil']").count() == 0
    page.context.close()
    page = open_view(browser, f"{server}/tokenization?model={quote('Custom id or path…')}"
                              f"&custom_model={quote('./x@evil.example/www.evil.example')}")
    page.locator("[data-testid='stSidebar'] [data-testid='stAlert']").first.wait_for(timeout=60_000)
    assert "evil.example" in page.locator("[data-testid='stSidebar']").inner_text()
    assert page.locator("[data-testid='stApp'] a[href*='evil']").count() == 0
    page.context.close()


def test_attention_page_views_render_and_a_statistics_click_opens_the_head(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/attention")
    wait_for_chart(page, "Layer 1, head 1")
    assert page.locator("[data-testid='stException']").count() == 0
    page.get_by_role("tab", name="Model view").click()
    wait_for_chart(page, "Every head: rows are layers, columns heads")
    page.get_by_role("tab", name="Statistics").click()
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 7", timeout=60_000)
    wait_idle(page)
    # Click the cell of layer 1, head 3 in the "previous token" heatmap (the 5th statistic): its marker
    # sits over the cell; plotly selects it on click.
    heatmap = page.locator(".st-key-at_stat_4 .js-plotly-plot")
    heatmap.scroll_into_view_if_needed()
    point = heatmap.evaluate("""el => { const xa = el._fullLayout.xaxis, ya = el._fullLayout.yaxis;
        const box = el.getBoundingClientRect();
        return {x: box.left + xa._offset + xa.d2p('h3'), y: box.top + ya._offset + ya.d2p('layer 1')}; }""")
    page.mouse.click(point["x"], point["y"])
    wait_for_chart(page, "Layer 1, head 3")
    assert "at_heads=head+3" in page.url  # layer 1 and the head view are the defaults, so not in the link
    page.context.close()


def click_head(page: Page, statistic: int, layer: int, head: int) -> None:
    """Click the cell of ``layer``, ``head`` in the Statistics tab's heatmap number ``statistic`` (plotly selects
    the point under the pointer)."""
    heatmap = page.locator(f".st-key-at_stat_{statistic} .js-plotly-plot")
    heatmap.wait_for(timeout=60_000)
    heatmap.scroll_into_view_if_needed()
    point = heatmap.evaluate("""(el, [layer, head]) => { const xa = el._fullLayout.xaxis, ya = el._fullLayout.yaxis;
        const box = el.getBoundingClientRect();
        return {x: box.left + xa._offset + xa.d2p(head), y: box.top + ya._offset + ya.d2p(layer)}; }""",
                             [f"layer {layer}", f"h{head}"])
    page.mouse.click(point["x"], point["y"])


def test_clicking_head_statistics_logs_no_session_state_warning(browser: Browser, tmp_path: Path) -> None:
    """A click sets the layer, heads and tab through a callback: Streamlit logs a warning with a stack trace (once
    per server process, hence a server of its own, its log kept) for a widget given both a default and a value
    that way."""
    log = tmp_path / "server.log"
    with running_app(env={"BERTVIZ_WARM_UP": "0"}, log=log) as app:
        page = open_view(browser, f"{app.url}/attention?at_tab=Statistics")
        for layer, head in ((2, 3), (1, 1), (3, 2)):
            click_head(page, 4, layer, head)
            wait_for_chart(page, f"Layer {layer}, head {head}")
            page.get_by_role("tab", name="Statistics").click()
            wait_idle(page)
        page.context.close()
    logged = log.read_text(encoding="utf-8")
    assert "Uvicorn server started" in logged or "You can now view" in logged  # the log was captured
    assert "Session State" not in logged and "Traceback" not in logged and "Stack (most recent" not in logged, logged


def test_attention_page_stays_usable_at_512_tokens(server: str, browser: Browser) -> None:
    from urllib.parse import quote

    page = open_view(browser, f"{server}/attention?at_text={quote('word ' * 600)}&at_layer=3")
    wait_for_chart(page, "Layer 3, head 1")
    assert page.get_by_text("tokens were dropped").count() == 1
    assert page.locator(".js-plotly-plot").first.evaluate("el => el._fullData[0].z.length") == 512
    page.get_by_role("tab", name="Model view").click()
    wait_for_chart(page, "Every head")
    assert page.get_by_text("groups them into 48 blocks").count() == 1
    assert page.locator("[data-testid='stException']").count() == 0
    page.context.close()


@pytest.fixture(scope="session")
def mlm_folder(mlm_dir: Path) -> str:
    """conftest's tiny model with a masked-language-model head, as a link gives it, for the page that needs one."""
    from urllib.parse import quote

    return quote(str(mlm_dir))


def test_similar_contexts_lists_different_neighbours_at_layer_1_and_the_last(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/similar_contexts")
    wait_for_chart(page, "Contextuality by layer")
    first, last = (page.locator(f".st-key-sc_near_{side} tbody tr").all_inner_texts() for side in ("left", "right"))
    assert len(first) == len(last) == 10 and first != last
    assert all("«bank»" in row for row in first + last)
    assert page.get_by_text("Layer 1:").count() == 1 and page.get_by_text("Layer 6:").count() == 1
    assert page.locator("[data-testid='stException']").count() == 0
    page.context.close()


def test_task_measures_probe_beside_silhouette_correlations_and_a_tsne_grid(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/task_measures")
    wait_for_chart(page, "probe accuracy per strategy × layer")
    wait_for_chart(page, "silhouette (cosine) per strategy × layer")
    probe, silhouette = (page.locator(f".st-key-tm_{key} .js-plotly-plot").bounding_box() for key in ("probe", "silhouette"))
    assert abs(probe["y"] - silhouette["y"]) < 5 and silhouette["x"] > probe["x"] + probe["width"] - 5  # side by side
    assert page.get_by_text("They agree", exact=False).count() + page.get_by_text("They disagree", exact=False).count() == 1
    page.context.close()
    pairs = open_view(browser, f"{server}/task_measures?tm_tab=Similarity+correlation")
    wait_for_chart(pairs, "Spearman ρ, raw cosine per strategy × layer")
    wait_for_chart(pairs, "Spearman ρ after whitening per strategy × layer")
    pairs.context.close()
    maps = open_view(browser, f"{server}/task_measures?tm_tab=Maps&tm_projection=t-SNE&tm_strats=mean&tm_strats=max"
                              "&tm_layers=layer+1&tm_layers=layer+6")
    drawn = scatter_grid_drawn(maps, "tm_maps", qualitative.Plotly[:4])
    assert all(count > 100 for count in drawn["counts"]), drawn  # four maps of the four topics
    assert 2 * GRID_ROW_PX <= drawn["height"] < 3 * GRID_ROW_PX  # two strategies, two layers
    for view in (maps,):
        assert view.locator("[data-testid='stException']").count() == 0
    maps.context.close()


def test_a_warm_first_visit_to_sentence_pooling_runs_no_model(browser: Browser, tmp_path: Path) -> None:
    import time

    log = tmp_path / "runs.log"
    with running_app(env={"BERTVIZ_RUN_LOG": str(log), "BERTVIZ_WARM_UP": "1"}) as app:
        home = open_view(browser, app.url)  # the first visit starts the model loading and the warm-up
        deadline = time.time() + 900  # the warm-up runs at the lowest CPU priority: beside a busy process, slowly
        while "warm-up done" not in (log.read_text() if log.exists() else "") and time.time() < deadline:
            time.sleep(0.5)  # a condition polled: the server's run log, another process's file, says when
        runs_before = log.read_text().count("model run")
        assert "warm-up done" in log.read_text() and runs_before >= 3  # news, reference corpus index and pooling
        home.context.close()
        page = open_view(browser, f"{app.url}/sentence_pooling")  # a new visitor
        wait_for_chart(page, "silhouette (cosine) per strategy × layer")
        assert all(count > 100 for count in scatter_grid_drawn(page, "sp_grid", qualitative.Plotly[:4])["counts"])
        assert log.read_text().count("model run") == runs_before  # the grid came from the warm-up: no encoding
        page.context.close()


def test_masked_words_page_with_the_head_and_without(server: str, browser: Browser, mlm_folder: str) -> None:
    page = open_view(browser, f"{server}/masked_words?model=Custom+id+or+path%E2%80%A6"
                              f"&custom_model={mlm_folder}&mw_layer=6")
    wait_for_chart(page, "the 10 best guesses after each layer")
    wait_for_chart(page, "rank and probability by layer")
    assert page.get_by_text("Top guess for each mask").count() == 1
    assert page.locator(".st-key-mw_grid .js-plotly-plot").evaluate("el => el._fullData[0].z.length") == 13
    assert page.locator("[data-testid='stException']").count() == 0
    page.context.close()
    bundled = open_view(browser, f"{server}/masked_words")
    expect(bundled.get_by_text("has no masked-language-model head")).to_have_count(1)
    expect(bundled.get_by_role("button", name="Switch to bert-base-uncased")).to_have_count(1)
    assert bundled.locator("[data-testid='stException']").count() == 0
    bundled.context.close()


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


@pytest.mark.parametrize("path", list(SHARED))
def test_a_shared_link_reopens_the_same_view(server: str, browser: Browser, path: str, mlm_folder: str) -> None:
    page = open_view(browser, f"{server}/{path}?{SHARED[path].format(mlm=mlm_folder)}")
    page.wait_for_function(DRAWN_JS, timeout=60_000)  # every chart drawn: the view is complete
    wait_idle(page)
    before = page.evaluate(SETTINGS_JS)
    link = shared_link(page)
    page.context.close()
    assert link.startswith(f"{server}/{path}?")
    again = open_view(browser, link)  # a fresh context: nothing shared but the link
    again.wait_for_function(DRAWN_JS, timeout=60_000)
    wait_idle(again)
    # The charts can be drawn before the last widgets (below them, or in a tab) are: wait until the page shows
    # as many settings as the first did, then compare their values.
    again.wait_for_function(f"() => Object.keys(({SETTINGS_JS})()).length >= {len(before)}", timeout=60_000)
    after = again.evaluate(SETTINGS_JS)
    assert len(before) >= 4 and after == before
    again.context.close()


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
    page.context.close()
    again = open_view(browser, link)  # a fresh context: the labels come from the link alone
    wait_for_chart(again, "per merge rule")
    assert again.evaluate(SENSE_SCORES_JS) == edited
    again.context.close()
    default = open_view(browser, f"{server}/word_similarity?ws_preset=crane")
    wait_for_chart(default, "per merge rule")
    assert default.evaluate(SENSE_SCORES_JS) != edited  # the labels changed the scores
    default.context.close()


def test_the_word_layer_curves_have_a_short_legend(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/word_similarity")
    wait_for_chart(page, "cosine per layer, every pair")
    legend = page.evaluate("""() => Array.from(document.querySelectorAll('.js-plotly-plot')).find(
        el => (el.layout.title.text || '').replace(/<br>/g, ' ').includes('cosine per layer')).querySelectorAll('.legend .traces').length""")
    assert legend == 2  # same sense, different senses: one entry per kind, not one per pair (36)
    page.context.close()


# ---- pickers whose options come from the text: the label always names what the page computes ----------------

def picked(page: Page, key: str) -> str:
    """The label a selectbox shows."""
    return page.locator(f".st-key-{key} input").first.input_value()


def titled(page: Page, key: str) -> str:
    """The title of the plotly chart drawn with ``key`` ('' while none is drawn)."""
    charts = page.locator(f".st-key-{key} .js-plotly-plot")
    return charts.first.evaluate(r"el => ((el.layout.title && el.layout.title.text) || '').replace(/<\/?b>/g, '').replace(/<br>/g, ' ')") \
        if charts.count() else ""


def text_of(locator) -> str:  # noqa: ANN001 - a playwright Locator
    """The text of the first element ``locator`` finds ('' while there is none)."""
    return locator.first.inner_text() if locator.count() else ""


def group(pattern: str, text: str, number: int = 1) -> str:
    """Group ``number`` of ``pattern`` searched in ``text``, or '' when it is not there."""
    found = re.search(pattern, text)
    return found[number] if found else ""


def type_into(page: Page, key: str, value: str) -> None:
    """Replace the text of the text area or text input keyed ``key`` and send it, as a user does."""
    box = page.locator(f".st-key-{key} textarea, .st-key-{key} input").first
    box.fill(value)
    box.press("Control+Enter" if box.evaluate("el => el.tagName") == "TEXTAREA" else "Enter")
    wait_idle(page)


def settles(page: Page, read: Callable[[], tuple[str, str, bool]], what: str) -> str:
    """Call ``read`` (the picker's label, the label of what the page shows, whether the picker is on the new
    text) at once and after each change of the page, until the picker is on the new text and the two labels
    agree; fail with both when they never do. A stale label never corrects itself, so waiting hides no bug; it
    lets a late rerun finish. The agreed label."""
    deadline, last = time.time() + 90, ("", "", False)
    while time.time() < deadline:
        seen = changes(page)
        last = read()
        if last[2] and last[0] == last[1]:
            return last[0]
        if not wait_for_change(page, seen, max(deadline - time.time(), 0.001) * 1000):  # the next change, not a timer
            break
    raise AssertionError(f"{what}: the picker says {last[0]!r}, the page shows {last[1]!r} (new text: {last[2]})")


def token_labels_of(bundled, text: str) -> list[str]:  # noqa: ANN001 - the bundled Encoder
    return [f"{i} · {t}" for i, t in enumerate(bundled.tokenize(text)["token"])]


def test_every_text_picker_names_what_the_page_shows_after_the_text_changes(server: str, browser: Browser,
                                                                           bundled, mlm_folder: str) -> None:
    # Layer values: a token chosen, then a text without its label (back to the default, token 5), then one
    # that keeps the new label.
    page = open_view(browser, f"{server}/layer_values")
    choose(page, "Token", "6 · bank")
    for text in ("Spring water flows in spring; the spring in the mattress broke.",
                 "Spring water flows in spring; the spring broke."):
        type_into(page, "lv_text", text)
        labels = token_labels_of(bundled, text)
        assert settles(page, lambda: (picked(page, "lv_token"), group("Token (.*) at layer", titled(page, "lv_hist")),
                                      picked(page, "lv_token") in labels), "Layer values") == "5 · spring"
    page.context.close()

    # Similar contexts: a new text starts on its second "bank", the documented default.
    page = open_view(browser, f"{server}/similar_contexts")
    text = "I deposited my paycheck at the bank before fishing on the river bank."
    type_into(page, "sc_text", text)
    banks = [label for label in token_labels_of(bundled, text) if label.endswith(" · bank")]
    heading = page.locator("h3").filter(has_text="Where else the model puts")

    def similar() -> tuple[str, str, bool]:
        shown = text_of(heading)
        position, token = group(r"token (\d+)$", shown), group("puts “(.*)”", shown)
        return picked(page, "sc_token"), f"{position} · {token}", picked(page, "sc_token") in banks
    assert len(banks) == 2 and settles(page, similar, "Similar contexts") == banks[1]
    page.context.close()

    # Attention: the heads (the model's: a text change keeps them) in the head view, then the token.
    page = open_view(browser, f"{server}/attention?at_heads=head+3")
    type_into(page, "at_text", "The cat sat on the mat.")
    tags = page.locator(".st-key-at_heads .react-aria-ComboBox [data-tag] [title]")
    rows = lambda: page.locator(".st-key-at_head_chart .js-plotly-plot").evaluate(  # noqa: E731
        "el => el._fullData[0].z.length")
    assert settles(page, lambda: (" and ".join(tags.all_inner_texts()),
                                  group("Layer 1, (.*)", titled(page, "at_head_chart")), rows() == 9),
                   "Attention heads") == "head 3"  # 9 tokens: the new text's
    page.get_by_role("tab", name="From one token").click()
    wait_idle(page)
    choose(page, "Token (From one token)", "3 · sat")
    text = "A dog barked at the postman twice."
    type_into(page, "at_text", text)
    labels = token_labels_of(bundled, text)
    caption = page.locator("[data-testid=stCaptionContainer]").filter(has_text="layer by layer. Above")
    settles(page, lambda: (picked(page, "at_token"), group("Where (.*) looks", text_of(caption)),
                           picked(page, "at_token") in labels), "Attention token")
    page.context.close()

    # Masked words (a model with the head): the mask picker, then the word picker.
    page = open_view(browser, f"{server}/masked_words?model=Custom+id+or+path%E2%80%A6&custom_model={mlm_folder}"
                              "&mw_text=The+%5BMASK%5D+sat+on+the+%5BMASK%5D.")
    choose(page, "Mask", "mask 2 (token 6)")
    wait_for_chart(page, "Mask 2 (token 6): the 10 best guesses")
    type_into(page, "mw_text", "A [MASK] and a [MASK] went [MASK] home.")
    masks = ("mask 1 (token 2)", "mask 2 (token 5)", "mask 3 (token 7)")
    settles(page, lambda: (picked(page, "mw_mask").capitalize(), titled(page, "mw_guesses").split(":")[0],
                           picked(page, "mw_mask") in masks), "Masked words, mask")
    page.get_by_text("Mask a word", exact=True).click()
    wait_idle(page)
    choose(page, "Word to mask", "to #2")
    type_into(page, "mw_sentence", "I want to go home.")
    reads = page.locator("[data-testid=stCaptionContainer]").filter(has_text="The model reads")
    settles(page, lambda: (picked(page, "mw_word"), group("with “(.*)” masked", text_of(reads)),
                           picked(page, "mw_word") in ("I", "want", "to", "go", "home")), "Masked words, word")
    page.context.close()

    # Compare sentences: the query sentence.
    page = open_view(browser, f"{server}/compare_sentences")
    choose(page, "Query", "3: How old are you?")
    texts = ["Cats purr.", "Dogs bark.", "Birds sing."]
    type_into(page, "cs_texts", "\n".join(texts))
    names = [f"{i + 1}: {t}" for i, t in enumerate(texts)]
    settles(page, lambda: (picked(page, "cs_query").split(":")[0],
                           group(r"to sentence (\d+)$", titled(page, "cs_rank")), picked(page, "cs_query") in names),
            "Compare sentences")
    assert page.locator("[data-testid='stException']").count() == 0
    page.context.close()
