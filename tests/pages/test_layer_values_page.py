"""AppTest of the Layer values page: charts, the 12-layer shape, edge inputs, no model call on changes."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import (canvas_chart, canvas_keys, chart, chart_title, charts, drawn_title, open_page, plotly_array,
                      table)
from bertviz_core.measures import stats
from page_checks import LONG, PageChecks, slider, typed


CHECKS = PageChecks(
    settings=(("slider", "lv_layer", 2), ("selectbox", "lv_token", 3), ("radio", "lv_scope", "all tokens"),
              ("slider", "lv_k", 2.5)),
    timed_change=("layer", "?lv_layer=4", slider),
    long_text=(typed("text_area", "lv_text", LONG),),
    shared_query="lv_text=Another+text+to+share&lv_layer=3&lv_token=2+%C2%B7+text&lv_scope=all+tokens&lv_k=4.5&lv_share=0.3",
    extra_views=("lv_tab=Token+%C3%97+dimension+at+the+chosen+layer",),
    visit=lambda words: {"lv_text": words(600)},
)

PAGE = "pages/layer_values.py"


def test_defaults_show_histogram_layers_and_outliers(bundled) -> None:  # noqa: ANN001
    at = open_page(PAGE)
    spec, bins = canvas_chart(at, "lv_hist")  # numpy's histogram of the token's hidden state, bin by bin
    (expected,) = bundled.encode([at.text_area(key="lv_text").value])
    counts, edges = np.histogram(expected.hidden_states[5, 5], bins=200)
    np.testing.assert_array_equal(bins["count"], counts)
    np.testing.assert_allclose(bins[["low", "high"]], np.c_[edges[:-1], edges[1:]], rtol=0, atol=1e-5)
    assert drawn_title(at, "lv_hist") == "Token 5 · the at layer 5: 200 bins"
    assert spec["encoding"]["x"]["title"] == "value" and spec["encoding"]["y"]["title"] == "count"
    box = chart(at, "lv_layers")
    assert box["data"][0]["x"] == ["0 · embeddings"] + [f"layer {i}" for i in range(1, 7)]
    outliers = table(at, "lv_outliers")
    assert len(outliers) >= 1
    assert [m.label for m in at.metric] == ["min", "max", "mean", "std", "l2 norm"]


def test_twelve_layer_model_shows_thirteen_distributions(tiny_dir: Path) -> None:
    at = open_page(PAGE)
    at.sidebar.selectbox(key="model").set_value("Custom id or path…").run()
    at.sidebar.text_input(key="custom_model").set_value(str(tiny_dir)).run()
    assert not at.exception and not at.sidebar.error
    box = chart(at, "lv_layers")
    assert len(box["data"][0]["x"]) == 13 and box["data"][0]["x"][-1] == "layer 12"
    assert at.slider(key="lv_layer").max == 12


def test_changing_token_layer_scope_and_rule_runs_no_model(model_calls: list[int]) -> None:
    calls = model_calls
    at = open_page(PAGE)
    opened = len(calls)  # the default text: encoded here, or earlier by another test of this process
    at.text_area(key="lv_text").set_value("A fresh text about river banks, used once.").run()
    before = len(calls)
    assert before == opened + 1
    at.slider(key="lv_layer").set_value(2).run()
    at.selectbox(key="lv_token").set_value(3).run()
    at.radio(key="lv_scope").set_value("all tokens").run()
    at.slider(key="lv_k").set_value(2.5).run()
    assert not at.exception and len(calls) == before
    assert drawn_title(at, "lv_hist").startswith("Token 3 · text at layer 2")
    assert chart_title(chart(at, "lv_layers")).startswith("Values per layer, all")


@pytest.mark.parametrize(("text", "expect"), [
    ("", "Type a text"),
    ("   ", "Type a text"),
    ("Hello", None),
    ("bank " * 3000, "tokens were dropped"),
])
def test_edge_inputs_are_clear(text: str, expect: str | None) -> None:
    at = open_page(PAGE)
    at.text_area(key="lv_text").set_value(text).run()
    assert not at.exception
    messages = " ".join(m.value for m in [*at.info, *at.warning])
    if expect:
        assert expect in messages
    else:
        assert drawn_title(at, "lv_hist").startswith("Token 2 · [SEP] at layer 5")  # token 5 clamps to the last


def test_only_the_open_layer_tab_is_drawn(bundled) -> None:
    at = open_page(PAGE)
    assert canvas_keys(at, ["lv_hist"]) and "lv_norms" in charts(at) and "lv_dims" not in charts(at)
    at.session_state["lv_tab"] = "Token × dimension at the chosen layer"
    at.slider(key="lv_layer").set_value(3).run()
    dims = chart(at, "lv_dims")
    assert chart_title(dims).startswith("Dimensions at layer 3") and not canvas_keys(at, ["lv_hist"])
    (expected,) = bundled.encode([at.text_area(key="lv_text").value])
    np.testing.assert_allclose(plotly_array(dims["data"][0]["z"]), expected.hidden_states[3], atol=1e-5)
    at.slider(key="lv_k").set_value(2.0).run()  # the rule, set below the layer's view, marks its outliers
    marked = stats.outliers_at(expected.hidden_states, stats.OutlierRule(z=2.0, share=0.5), 3)
    axis = chart(at, "lv_dims")["layout"]["xaxis"]
    shown = [int(value) for value, text in zip(axis["tickvals"], axis["ticktext"]) if "<b>" in text]
    assert marked and shown == marked
