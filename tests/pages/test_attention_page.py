"""The Attention page (AppTest): a 12x12 model's 144 thumbnails, each view drawn and no model run on setting
changes, bad input as a message. Its numbers against plain transformers are in core/test_attention.py."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import chart, charts, open_page, open_tab, save_tiny_bert
from page_checks import LONG, PageChecks, slider, typed
from test_attention import plain_attentions

from bertviz_core import load_encoder
from bertviz_core.corpora import TUTORIAL


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


def test_the_page_draws_each_view_and_settings_run_no_model(model_calls: list[int]) -> None:
    at = open_page(PAGE)
    before = len(model_calls)
    at.text_area(key="at_text").set_value("A fresh text, so that its attention is not in the shared store yet.").run()
    runs = len(model_calls)
    assert runs == before + 1 and "at_head_chart" in charts(at)
    at.slider(key="at_layer").set_value(4).run()
    at.multiselect(key="at_heads").set_value([2, 3]).run()
    assert chart(at, "at_head_chart")["layout"]["title"]["text"] == "Layer 4, mean of heads 2, 3"
    for tab, key in [("Model view", "at_model_chart"), ("Statistics", "at_stat_0"), ("From one token", "at_token_raw")]:
        assert key in charts(open_tab(at, "at_tab", tab)), tab
    at.selectbox(key="at_token").set_value(3).run()
    assert not at.exception and len(model_calls) == runs


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
