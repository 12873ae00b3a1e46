"""The Attention page (AppTest): a 12x12 model's 144 thumbnails, each view drawn and no model run on setting
changes, bad input as a message. Its numbers against plain transformers are in core/test_attention.py."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import (
    canvas_heatmap, canvas_keys, canvas_values, chart, charts, drawn_title, open_page, open_tab, plotly_array,
    save_tiny_bert,
)
from page_checks import LONG, PageChecks, slider, typed
from test_attention import plain_attentions

from bertviz_core import Encoder, load_encoder
from bertviz_core.corpora import TUTORIAL
from bertviz_core.views.page_views import head_view
from ui.layout.present import MIN_FONT_PX


CHECKS = PageChecks(
    settings=(("slider", "at_layer", 3), ("multiselect", "at_heads", [2, 5]), ("selectbox", "at_token", 4),
              ("session_state", "at_tab", "Statistics"), ("session_state", "at_tab", "From one token")),
    timed_change=("layer", "?at_layer=3", slider),
    long_text=(typed("text_area", "at_text", LONG),),
    shared_query="at_text=The+cat+sat+on+the+mat.&at_layer=4&at_heads=head+2&at_heads=head+5&at_token=3+%C2%B7+sat"
                 "&at_tab=Statistics",
    extra_views=("at_tab=Model+view", "at_tab=Statistics", "at_tab=From+one+token"),
    visit=lambda words: {"at_text": words(600), "at_tab": "Model view"},
)

PAGE = "pages/attention.py"


@pytest.fixture(scope="module")
def tiny_12x12(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_bert(tmp_path_factory.mktemp("tiny12x12"), layers=12, hidden=48, heads=12)


@pytest.mark.slow
def test_a_twelve_layer_twelve_head_model_shows_144_thumbnails(tiny_12x12: Path) -> None:
    encoder = load_encoder(str(tiny_12x12), device="cpu")
    (weights,) = encoder.attentions([TUTORIAL])
    assert weights.shape == (12, 12, 22, 22)
    np.testing.assert_allclose(weights, plain_attentions(tiny_12x12, TUTORIAL), atol=1e-5)
    at = open_page(PAGE)
    at.sidebar.selectbox(key="model").set_value("Custom id or path…").run()
    at.sidebar.text_input(key="custom_model").set_value(str(tiny_12x12)).run()
    open_tab(at, "at_tab", "Model view")
    model_view = chart(at, "at_model_chart")
    assert len(model_view["layout"]["xaxis"]["ticktext"]) * len(model_view["layout"]["yaxis"]["ticktext"]) == 144


def test_the_page_draws_each_view_and_settings_run_no_model(model_calls: list[int], bundled: Encoder) -> None:
    text = "A fresh text, so that its attention is not in the shared store yet."
    at = open_page(PAGE)
    before = len(model_calls)
    at.text_area(key="at_text").set_value(text).run()
    runs = len(model_calls)
    assert runs == before + 1 and canvas_keys(at, ["at_head_chart"])
    at.slider(key="at_layer").set_value(4).run()
    at.multiselect(key="at_heads").set_value([2, 3]).run()
    spec, cells = canvas_heatmap(at, "at_head_chart")
    assert drawn_title(at, "at_head_chart") == "Layer 4, mean of heads 2, 3"
    shown = canvas_values(at, "at_head_chart")  # queries down the side, keys across
    for tab, key in [("Model view", "at_model_chart"), ("Statistics", "at_stat_0"), ("From one token", "at_token_raw")]:
        assert key in charts(open_tab(at, "at_tab", tab)), tab
    at.selectbox(key="at_token").set_value(3).run()
    assert not at.exception and len(model_calls) == runs
    (weights,) = bundled.attentions([text])
    np.testing.assert_allclose(shown, head_view(weights, 4, [2, 3])[0], atol=1e-5)
    # no number in the cells (hover gives it, to 3 decimals), Blues from 0, each axis titled, no pair: no rule
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["rect"]
    scale = spec["layer"][0]["encoding"]["color"]["scale"]  # from 0 to the largest weight, which Vega takes from the data
    assert scale["domainMin"] == 0.0 and "domainMax" not in scale and "domain" not in scale
    assert [field.get("title") for field in spec["encoding"]["tooltip"]] == [
        "query (attending)", "key (attended to)", "weight"]
    np.testing.assert_allclose(cells["hover"].astype(float), cells["value"], atol=5e-4)


def test_a_pairs_texts_are_ruled_apart() -> None:
    at = open_page(PAGE)
    at.text_area(key="at_text").set_value("what is your age?").run()
    at.text_input(key="at_pair").set_value("Today is monday").run()
    spec, _ = canvas_heatmap(at, "at_head_chart")
    labels = spec["encoding"]["y"]["sort"]
    first = next(i for i, label in enumerate(labels) if label.startswith("B "))  # the second text's first token
    assert labels[first - 1].endswith(" · [SEP]") and labels[first] == "B 7 · today"
    across, down = spec["layer"][1:]  # a red rule before its column and before its row
    assert across["data"]["values"] == [{"column": labels[first]}]
    assert down["data"]["values"] == [{"row": labels[first]}]
    assert "red lines separate the pair's two segments" in " ".join(c.value for c in at.caption)


@pytest.mark.parametrize("present", [False, True], ids=["normal", "presentation"])
def test_every_token_is_named_both_ways_and_a_long_text_is_plotlys_heatmap(present: bool) -> None:
    # a canvas has no text for the browser's check (test_presentation.py): every label drawn, at the least size
    at = open_page(PAGE)
    at.sidebar.toggle(key="present").set_value(present).run()
    spec, _ = canvas_heatmap(at, "at_head_chart")
    least = MIN_FONT_PX if present else 8
    for axis in "xy":
        shown = spec["encoding"][axis]
        assert len(shown["sort"]) == 22 and shown["sort"][:2] == ["0 · [CLS]", "1 · after"]
        assert shown["axis"]["labelOverlap"] is False
        assert shown["axis"]["labelFontSize"] >= least
    assert spec["height"] >= 22 * least  # no row squeezed below its label
    # on one screen the keys by number alone (the rows name the same tokens), so the rows keep its height
    assert ("labelExpr" in spec["encoding"]["x"]["axis"]) == present
    # past 40 tokens (slanted labels would overlap) plotly's heatmap, one image: a canvas's 512 x 512 rects took
    # 18 s a layer change; no token named past 64 (hover names each cell)
    at.text_area(key="at_text").set_value(LONG).run()
    assert not canvas_keys(at, ["at_head_chart"])
    figure = chart(at, "at_head_chart")
    assert plotly_array(figure["data"][0]["z"]).shape == (512, 512) and not figure["layout"]["xaxis"]["showticklabels"]


@pytest.mark.parametrize(("text", "pair", "expect"), [
    ("", "", "Type a text above"),
    ("word " * 4000, "", "tokens were dropped"),
    ("I 💙 BERT 🤖 and the bank 🏦.", "", None),
    ("what is your age?", "   ", "only spaces"),
    ("what is your age?", "Today is monday", None),
])
def test_bad_input_is_a_clear_message(text: str, pair: str, expect: str | None) -> None:
    at = open_page(PAGE)
    at.text_area(key="at_text").set_value(text).run()
    at.text_input(key="at_pair").set_value(pair).run()
    assert not at.exception
    messages = " ".join(m.value for m in [*at.info, *at.warning, *at.error])
    assert (expect in messages) if expect else not at.error
