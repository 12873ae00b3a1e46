"""Bars drawn on a canvas (bertviz_core.figures.canvas_bars): a ranking, every bar in order, named, its band behind;
a histogram, every bin."""
from __future__ import annotations

import json

import numpy as np
import pytest

from bertviz_core.figures.canvas_bars import BAR_PX, histogram_spec, ranking_spec


def test_a_ranking_keeps_every_bar_in_order_each_named_even_a_repeated_name() -> None:
    spec = ranking_spec(["cat", "dog", "cat"], [0.9, 0.5, 0.25], None, "the 3 best guesses")
    bars = spec["datasets"]["bars"]
    assert list(bars["rank"]) == [0, 1, 2] and list(bars["name"]) == ["cat", "dog", "cat"]
    np.testing.assert_array_equal(bars["score"].to_numpy(), [0.9, 0.5, 0.25])
    (drawn,) = spec["layer"]  # no band: the bars alone
    assert drawn["encoding"]["y"]["field"] == "rank"  # two bars of one name stay two rows ...
    assert spec["params"] == [{"name": "names", "value": ["cat", "dog", "cat"]}]  # ... each named by its name
    assert drawn["encoding"]["y"]["axis"]["labelExpr"] == "names[datum.value]"
    assert {"field": "score", "type": "quantitative", "format": ".3f"} in drawn["encoding"]["tooltip"]
    assert spec["description"] == "the 3 best guesses" and spec["config"]["aria"] is False
    small = ranking_spec(["cat"], [0.00031], None, "t", score_format=".3g")["layer"][-1]["encoding"]["tooltip"]
    assert small[-1]["format"] == ".3g"  # a small probability keeps its digits on hover


def test_the_band_of_random_pairs_lies_behind_the_bars() -> None:
    spec = ranking_spec(["1", "2"], [0.8, 0.1], (0.05, 0.2, 0.4), ["cosine to", "sentence 1"])
    shade, median, note, bars = spec["layer"]
    assert shade["data"]["values"] == [{"low": 0.05, "middle": 0.2, "high": 0.4}]
    assert shade["mark"]["type"] == "rect" and shade["encoding"]["x2"] == {"field": "high"}
    assert median["mark"]["strokeDash"] and median["encoding"]["x"]["field"] == "middle"
    assert "5th–95th percentile" in note["mark"]["text"] and bars["data"] == {"name": "bars"}
    assert spec["description"] == "cosine to sentence 1"


def test_a_ranking_is_as_tall_as_its_bars_and_never_squeezes_a_name_out() -> None:
    ten = ranking_spec([str(i) for i in range(10)], np.linspace(1, 0, 10), None, "t")
    assert ten["height"] >= 10 * BAR_PX
    fitted = ranking_spec([str(i) for i in range(10)], np.linspace(1, 0, 10), None, "t", font_px=17, height_px=390)
    assert fitted["height"] == 390  # one projector screen
    many = ranking_spec([str(i) for i in range(60)], np.linspace(1, 0, 60), None, "t", font_px=17, height_px=390)
    assert many["height"] >= 60 * 17  # past one screen: every bar a row of at least the text's size


@pytest.mark.parametrize(("names", "scores", "band", "says"), [
    (["a", "b"], [0.5], None, "one score a name"),
    (["a"], [[0.5]], None, "one score a name"),
    (["a"], [0.5], (0.1, 0.2), "three numbers"),
])
def test_a_ranking_refuses_scores_that_do_not_match_and_a_band_of_other_than_three(
        names: list[str], scores: list, band: tuple | None, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        ranking_spec(names, scores, band, "t")


def test_a_histogram_keeps_every_bin_and_a_spec_that_a_new_vector_leaves_alone() -> None:
    """Layer values' histogram: each bin a bar from its low to its high edge; the title travels with the bins, so a
    new layer or token changes the data alone and Streamlit redraws the drawn view in place."""
    counts, edges = np.histogram([0.0, 0.1, 0.1, 0.9], bins=4)
    spec = histogram_spec(counts, edges, ["Token 1 · a at", "layer 2: 4 bins"])
    bins = spec["datasets"]["bins"]
    np.testing.assert_array_equal(bins["count"], [3, 0, 0, 1])
    np.testing.assert_array_equal(bins[["low", "high"]].to_numpy(), np.c_[edges[:-1], edges[1:]])
    assert set(bins["title"]) == {"Token 1 · a at\nlayer 2: 4 bins"} and spec["encoding"]["x2"] == {"field": "high"}
    other = histogram_spec([5, 1], [-2.0, 0.0, 2.0], "Token 3 · b at layer 4: 2 bins")
    assert json.dumps(spec | {"datasets": None}) == json.dumps(other | {"datasets": None})


def test_a_histogram_refuses_edges_that_do_not_bound_its_bins() -> None:
    with pytest.raises(ValueError, match="one more edge than bins"):
        histogram_spec([1, 2], [0.0, 1.0], "t")
