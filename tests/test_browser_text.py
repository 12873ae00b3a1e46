"""Real-browser tests of the pages that read one text or a few (Tokenization, Layer values, Word in context,
Compare sentences, Attention, Masked words): what each draws, its downloads, its deep links' settings."""
from __future__ import annotations

from pathlib import Path

from browser_views import (
    CANVAS_TITLE_JS, canvas_colours, canvas_title, choose, done, open_view, plotly_summaries, require_chromium,
    wait_for_canvas, wait_for_chart,
)
from live_app import wait_idle

require_chromium()

from playwright.sync_api import Browser, Page, expect  # noqa: E402



def test_tokenization_deep_link_shows_tutorial_tokens(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/tokenization")
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.get_by_text("Tokens", exact=True).first.is_visible()
    expect(page.locator("[data-testid='stMetricValue']").first).to_have_text("22")
    expect(page.locator("[data-testid='stSidebar']").get_by_text("6 layers", exact=False)).to_have_count(1)
    done(page)


def test_tokenization_settings_come_from_the_url(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/tokenization?tok_text=embeddings+%2A%23&tok_pad=true&tok_T=10")
    rows = page.locator(".bv-table tbody tr")
    rows.nth(9).wait_for(timeout=30_000)  # the tenth row (T=10): the page is drawn down to the table
    assert rows.count() == 10 and rows.filter(has_text="[PAD]").count() == 2
    assert page.locator("[data-testid='stException']").count() == 0
    # expect retries: under load a rerun can still be replacing the metrics when the table is drawn
    expect(page.locator("[data-testid='stMetricValue']").first).to_have_text("8")
    expect(page.locator("textarea").first).to_have_value("embeddings *#")  # the box can fill a moment late
    # tokens and labels show as typed ("## x" is no heading, "*" no emphasis)
    tokens = [rows.nth(i).locator("td").nth(1).inner_text().strip() for i in range(8)]
    assert tokens == ["[CLS]", "em", "##bed", "##ding", "##s", "*", "#", "[SEP]"]
    cells = lambda i: [td.strip() for td in rows.nth(i).locator("td").all_inner_texts()]  # noqa: E731
    assert cells(0)[5] == "—" and cells(1)[5:] == ["0", "word start", "embeddings", "0", "2"]  # ints stay ints
    assert rows.filter(has_text="## continuation").count() == 3
    assert page.locator(".bv-table :is(h1, h2, h3, ul, em)").count() == 0
    done(page)


def test_token_table_download_is_written_on_click(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/tokenization")
    with page.expect_download() as download:
        page.get_by_text("Download the token table (CSV)").click()
    lines = Path(download.value.path()).read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("position,token,id,") and len(lines) == 1 + 22
    assert [line.split(",")[2] for line in lines[1:4]] == ["101", "2044", "11065"]
    done(page)


BAR_PIXELS_JS = """key => { const canvas = document.querySelector(`.st-key-${key} canvas`);
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  let count = 0;
  for (let i = 0; i < data.length; i += 4) if (data[i] === 79 && data[i + 1] === 70 && data[i + 2] === 229) count++;
  return count; }"""  # the pixels in the bars' colour (canvas_bars.BAR, #4f46e5): a histogram whose bars are drawn


def test_layer_values_page_renders_histogram_layers_and_outliers(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/layer_values")
    wait_for_canvas(page, "lv_hist", "Token 5 · the at layer 5: 200 bins")
    assert page.evaluate(f"({BAR_PIXELS_JS})('lv_hist')") > 500
    summaries = plotly_summaries(page, 2)
    layers = next(s for s in summaries if "Values per layer" in s["title"])
    assert layers["type"] == "box" and layers["points"] == 7
    assert [s["title"] for s in summaries if s["type"] == "heatmap"] == ["L2 norm of each token's vector"]
    assert page.get_by_text("Outlier dimensions").count() >= 1
    for key in ("lv_stats", "lv_outliers"):  # the statistics and outlier tables, static (they redraw at once)
        expect(page.locator(f".st-key-{key} .bv-table")).to_have_count(1)  # drawn after the charts
    page.get_by_role("tab", name="Token × dimension at the chosen layer").click()  # only the open tab is drawn
    wait_for_chart(page, "Dimensions at layer 5")
    summaries = plotly_summaries(page, 3)
    assert [s["title"].split(" (")[0] for s in summaries if s["type"] == "heatmap"] == [
        "Dimensions at layer 5", "L2 norm of each token's vector"]
    assert page.locator(".st-key-lv_hist canvas").count() == 0  # the histogram's tab closed
    assert "lv_tab=" in page.url
    assert page.locator("[data-testid='stException']").count() == 0
    done(page)


def test_layer_values_layer_change_updates_the_histogram(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/layer_values")
    wait_for_canvas(page, "lv_hist", "Token 5 · the at layer 5: 200 bins")
    page.locator("[data-testid='stSlider'] input[type='range']").first.press("ArrowLeft")
    wait_for_canvas(page, "lv_hist", "Token 5 · the at layer 4: 200 bins")  # redrawn in place, its bars too
    assert page.evaluate(f"({BAR_PIXELS_JS})('lv_hist')") > 500
    assert "lv_layer=4" in page.url
    assert page.locator("[data-testid='stException']").count() == 0
    done(page)


def test_word_page_matrix_curves_scores_and_strategy_switch(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/word_similarity")
    wait_for_canvas(page, "ws_matrix", "cosine, sum of last 4")  # its numbered rows: tests/pages' AppTest
    summaries = plotly_summaries(page, 2)
    assert any("cosine per layer" in s["title"] for s in summaries)
    assert any("per merge rule" in s["title"] for s in summaries)
    assert page.get_by_text("…from the «bank» vault, the…", exact=False).count() >= 1  # which bank: marked
    choose(page, "Word vector", "layer 2")
    wait_for_canvas(page, "ws_matrix", "cosine, layer 2")
    choose(page, "Metric", "dot product")
    wait_for_canvas(page, "ws_matrix", "dot product, layer 2")
    assert "ws_strategy=layer+2" in page.url and "ws_metric=dot+product" in page.url
    assert page.locator("[data-testid='stException']").count() == 0
    done(page)


def test_the_word_layer_curves_have_a_short_legend(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/word_similarity")
    wait_for_chart(page, "cosine per layer, every pair")
    legend = page.evaluate("""() => Array.from(document.querySelectorAll('.js-plotly-plot')).find(
        el => (el.layout.title.text || '').replace(/<br>/g, ' ').includes('cosine per layer')).querySelectorAll('.legend .traces').length""")
    assert legend == 2  # same sense, different senses: one entry per kind, not one per pair (36)
    done(page)


def test_compare_page_matrix_ranking_baseline_and_whitening(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/compare_sentences")
    wait_for_canvas(page, "cs_raw", "cosine, mean, layer 5")  # its numbers: tests/pages' AppTest
    page.get_by_role("tab", name="Rank against one sentence").click()
    wait_for_canvas(page, "cs_rank", "cosine to sentence 1")  # its bars and band: tests/pages' AppTest
    page.get_by_role("tab", name="Every pair").click()
    wait_for_canvas(page, "cs_raw", "cosine, mean, layer 5")
    page.get_by_text("whitening", exact=True).click()
    wait_for_canvas(page, "cs_fixed", "after whitening")
    wait_for_canvas(page, "cs_raw", "raw")
    done(page)


def test_attention_page_views_render_and_a_statistics_click_opens_the_head(server: str, browser: Browser) -> None:
    page = open_view(browser, f"{server}/attention")
    wait_for_canvas(page, "at_head_chart", "Layer 1, head 1")
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
    wait_for_canvas(page, "at_head_chart", "Layer 1, head 3")
    assert "at_heads=head+3" in page.url  # layer 1 and the head view are the defaults, so not in the link
    assert canvas_colours(page, "at_head_chart") > 8  # redrawn in place, its cells coloured from 0 to the data's most
    done(page)


def test_a_heatmap_redrawn_in_place_shows_its_new_title_and_colours(server: str, browser: Browser) -> None:
    """Why similar?'s token pairs: a change of the reference gives the drawn view new cells, title and colour
    scale ends (they travel with the cells), not a new view; it must show them all."""
    page = open_view(browser, f"{server}/why_similar")
    wait_for_canvas(page, "wy_matrix", "Token pairs' shares of the cosine", starts=True)
    assert "[PAD] reference" in canvas_title(page, "wy_matrix")
    page.locator("[data-testid='stRadio']").filter(has_text="Reference").locator("label").filter(
        has_text="[MASK]").click()
    page.wait_for_function(f"({CANVAS_TITLE_JS})('wy_matrix').includes('[MASK] reference')", timeout=60_000)
    wait_idle(page)
    assert canvas_colours(page, "wy_matrix") > 8 and page.locator("[data-testid='stException']").count() == 0
    done(page)


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


def test_clicking_head_statistics_logs_no_session_state_warning(server: str, server_log: Path,
                                                                 browser: Browser) -> None:
    """A click sets the layer, heads and tab through a callback: Streamlit logs a warning with a stack trace for a
    widget given both a default and a value that way, once per server process: the shared server's whole log may
    hold none, whichever test's click set it off, and this test's clicks log no traceback."""
    before = server_log.stat().st_size
    page = open_view(browser, f"{server}/attention?at_tab=Statistics")
    for layer, head in ((2, 3), (1, 1), (3, 2)):
        click_head(page, 4, layer, head)
        wait_for_canvas(page, "at_head_chart", f"Layer {layer}, head {head}")
        page.get_by_role("tab", name="Statistics").click()
        wait_idle(page)
    done(page)
    logged = server_log.read_bytes()
    assert b"Uvicorn server started" in logged or b"You can now view" in logged  # the log is captured
    assert b"Session State" not in logged, logged.decode(errors="replace")
    mine = logged[before:].decode(errors="replace")
    assert "Traceback" not in mine and "Stack (most recent" not in mine, mine


def test_attention_page_stays_usable_at_512_tokens(server: str, browser: Browser) -> None:
    from urllib.parse import quote

    page = open_view(browser, f"{server}/attention?at_text={quote('word ' * 600)}&at_layer=3")
    wait_for_chart(page, "Layer 3, head 1")  # past 40 tokens plotly's heatmap (ui/page_parts/attention.py)
    assert page.get_by_text("tokens were dropped").count() == 1
    assert page.locator(".js-plotly-plot").first.evaluate("el => el._fullData[0].z.length") == 512
    page.get_by_role("tab", name="Model view").click()
    wait_for_chart(page, "Every head")
    assert page.get_by_text("groups them into 48 blocks").count() == 1
    assert page.locator("[data-testid='stException']").count() == 0
    done(page)


def test_masked_words_page_with_the_head_and_without(server: str, browser: Browser, mlm_folder: str) -> None:
    page = open_view(browser, f"{server}/masked_words?model=Custom+id+or+path%E2%80%A6"
                              f"&custom_model={mlm_folder}&mw_layer=6&mw_view=Layer+by+layer")
    wait_for_chart(page, "the 10 best guesses after each layer")
    wait_for_chart(page, "rank and probability by layer")
    assert page.get_by_text("Top guess for each mask").count() == 1
    assert page.locator(".st-key-mw_grid .js-plotly-plot").evaluate("el => el._fullData[0].z.length") == 13
    assert page.locator("[data-testid='stException']").count() == 0
    done(page)
    bundled = open_view(browser, f"{server}/masked_words")
    expect(bundled.get_by_text("has no masked-language-model head")).to_have_count(1)
    expect(bundled.get_by_role("button", name="Switch to bert-base-uncased")).to_have_count(1)
    assert bundled.locator("[data-testid='stException']").count() == 0
    done(bundled)
