"""AppTest of the Why similar page: the default pair's attribution and MaxSim pairs equal the core's, settings reach
the core, and bad input (an empty side, texts over the model's length and over the attribution's) says what to do."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import (
    canvas_heatmap, canvas_keys, canvas_values, chart, charts, heatmap_range, drawn_title, open_page, open_tab, table,
)
from page_checks import LONG, PageChecks, choose, typed

from bertviz_core import Encoder
from bertviz_core.figures import token_labels
from bertviz_core.measures.attribution import MAX_TOKENS, pair_attribution
from bertviz_core.views.token_pairs import DEFAULT_PAIR, attribution_title, maxsim_pairs
from ui.layout.present import MIN_FONT_PX

CHECKS = PageChecks(
    timed_change=("reference", "", choose("Reference", ("[MASK]", "[PAD]"))),
    long_text=(typed("text_area", "wy_first", LONG),),
    shared_query="wy_first=The+cat+sat+on+the+mat.&wy_second=A+dog+lay+on+the+rug.&wy_strategy=max&wy_layer=5"
                 "&wy_at=2&wy_steps=4&wy_reference=%5BMASK%5D",
    visit=lambda words: {"wy_first": words(12), "wy_second": words(12)},
    extra_views=("wy_view=Each+token%27s+share+and+MaxSim",),
)

PAGE = "pages/why_similar.py"
SHARES = "Each token's share and MaxSim"


def matrix(at) -> np.ndarray:  # noqa: ANN001
    return canvas_values(at, "wy_matrix")


@pytest.mark.slow
def test_the_default_pair_equals_the_core(bundled: Encoder) -> None:
    at = open_page(PAGE)
    expected = pair_attribution(bundled, *DEFAULT_PAIR)
    np.testing.assert_allclose(matrix(at), expected.matrix, atol=1e-5)
    spec, cells = canvas_heatmap(at, "wy_matrix")
    title = drawn_title(at, "wy_matrix")  # wrapped to its column: its lines
    assert " ".join([title] if isinstance(title, str) else title) == attribution_title(expected)
    # every token of both texts named: the first text's down the side, the second's across, each axis titled
    assert spec["encoding"]["y"]["sort"] == token_labels(expected.first_tokens)
    assert spec["encoding"]["x"]["sort"] == token_labels(expected.second_tokens)
    assert [spec["encoding"][axis]["axis"]["title"] for axis in "xy"] == ["second text", "first text"]
    # no number in the cells; on hover a signed share to 3 significant figures (most are too small for 3 decimals)
    assert len(spec["layer"]) == 1
    assert [field.get("title") for field in spec["encoding"]["tooltip"]] == ["first text", "second text", "share"]
    assert cells["hover"].str.match(r"^[+-]").all()
    np.testing.assert_allclose(cells["hover"].astype(float), cells["value"], rtol=5e-3)
    assert (cells["value"].abs() < 1e-3).any()  # a share that 3 decimals would show as 0.000
    reach = float(np.abs(expected.matrix).max())
    scale = spec["layer"][0]["encoding"]["color"]["scale"]
    assert scale["scheme"] == "redblue" and scale["domainMid"] == 0
    np.testing.assert_allclose(heatmap_range(at, "wy_matrix"), [-reach, reach], atol=1e-5)
    story = " ".join(i.value for i in at.info)
    assert f"Cosine **{expected.score:.3f}**" in story and "from the token pairs" in story
    assert "wy_lines" not in chart_keys(at), "only the open tab is drawn"
    open_tab(at, "wy_view", SHARES)
    assert "wy_matrix" not in chart_keys(at)
    shown = table(at, "wy_maxsim")
    core = maxsim_pairs(bundled, *DEFAULT_PAIR)
    assert shown[["text", "position", "partner position"]].values.tolist() == \
        core[["text", "position", "partner position"]].values.tolist()
    np.testing.assert_allclose(shown["cosine"].astype(float), core["cosine"], atol=1e-3)  # shown to 3 decimals
    lines = chart(at, "wy_lines")["data"]
    assert [trace["name"] for trace in lines][2:] == ["MaxSim from the first text", "MaxSim from the second text"]


@pytest.mark.slow
def test_settings_reach_the_core(bundled: Encoder) -> None:
    at = open_page(PAGE)
    at.text_area(key="wy_first").set_value("The cat sat on the mat.").run()
    at.text_area(key="wy_second").set_value("A dog lay on the rug.").run()
    at.selectbox(key="wy_strategy").set_value("max").run()
    at.slider(key="wy_layer").set_value(5).run()
    at.slider(key="wy_at").set_value(2).run()
    at.select_slider(key="wy_steps").set_value(4).run()
    at.radio(key="wy_reference").set_value("[MASK]").run()
    assert not at.exception
    expected = pair_attribution(bundled, "The cat sat on the mat.", "A dog lay on the rug.", "max", 5, 4, "[MASK]", 2)
    np.testing.assert_allclose(matrix(at), expected.matrix, atol=1e-5)


def test_an_empty_side_says_what_is_missing() -> None:
    at = open_page(PAGE)
    at.text_area(key="wy_second").set_value("   ").run()
    assert not at.exception
    assert "The second text is empty" in " ".join(e.value for e in at.error)
    assert not any(key == "wy_matrix" for key in chart_keys(at))


def chart_keys(at) -> list[str]:  # noqa: ANN001
    """The keys of the charts drawn: plotly's, and the canvas heatmap's."""
    return [*charts(at), *canvas_keys(at, ["wy_matrix"])]


@pytest.mark.slow
def test_presentation_mode_names_every_token_of_both_texts(bundled: Encoder) -> None:
    # a canvas has no text for the browser's check (test_presentation.py): every label drawn at the least size
    at = open_page(PAGE)
    at.sidebar.toggle(key="present").set_value(True).run()
    assert not at.exception
    expected = pair_attribution(bundled, *DEFAULT_PAIR)
    spec, _ = canvas_heatmap(at, "wy_matrix")
    for axis, tokens in (("y", expected.first_tokens), ("x", expected.second_tokens)):
        shown = spec["encoding"][axis]
        assert shown["sort"] == token_labels(tokens)
        assert shown["axis"]["labelOverlap"] is False and shown["axis"]["labelFontSize"] >= MIN_FONT_PX
    assert spec["height"] >= len(expected.first_tokens) * MIN_FONT_PX  # no row squeezed below its label


@pytest.mark.slow
def test_a_long_text_is_refused_with_its_cost_and_cut_on_request(monkeypatch) -> None:  # noqa: ANN001
    import bertviz_core.views.token_pairs as token_pairs

    monkeypatch.setattr(token_pairs, "LONG_SECONDS", float("inf"))  # it runs without a click on a slow machine too
    at = open_page(PAGE)
    at.text_area(key="wy_first").set_value(LONG).run()
    assert not at.exception
    assert "longer than the model's" in " ".join(w.value for w in at.warning)
    refusal = " ".join(e.value for e in at.error)
    assert "the 512 tokens the model reads of it" in refusal and "square of the length" in refusal
    assert f"Cut texts longer than {MAX_TOKENS} tokens" in refusal  # the box's own words
    at.slider(key="wy_at").set_value(5).run()
    at.select_slider(key="wy_steps").set_value(2).run()
    at.checkbox(key="wy_cut").check().run()
    assert not at.exception and not at.error
    assert len(matrix(at)) == MAX_TOKENS
    assert f"To keep each text within {MAX_TOKENS} tokens" in " ".join(i.value for i in at.info)


def test_a_long_attribution_says_how_long_it_will_take_and_waits_for_a_click(monkeypatch) -> None:  # noqa: ANN001
    # Issue #52: 64 steps on two 128-token texts took 468 s, started by moving a slider.
    import bertviz_core.measures.attribution as attribution
    import bertviz_core.views.token_pairs as token_pairs

    at = open_page(PAGE)  # the default pair ran, and timed the model
    monkeypatch.setattr(token_pairs, "LONG_SECONDS", 0)  # every run is long, whatever the machine
    monkeypatch.setattr(attribution, "pair_attribution", lambda *a, **k: pytest.fail("it ran without a click"))
    at.checkbox(key="wy_cut").check().run()
    for key, text in (("wy_first", "word " * 200), ("wy_second", "again " * 200)):
        at.text_area(key=key).set_value(text).run()
    at.select_slider(key="wy_steps").set_value(64).run()
    assert not at.exception
    said = " ".join(w.value for w in at.warning)
    assert "This attribution is expected to take **about" in said
    assert f"{64 * 2 * MAX_TOKENS:,} forward-mode passes (64 steps" in said
    assert [b.key for b in at.button] == ["wy_start"] and "wy_matrix" not in chart_keys(at)


@pytest.mark.slow
def test_a_long_attribution_starts_on_its_click(monkeypatch) -> None:  # noqa: ANN001
    import bertviz_core.views.token_pairs as token_pairs

    at = open_page(PAGE)
    monkeypatch.setattr(token_pairs, "LONG_SECONDS", 0)
    at.select_slider(key="wy_steps").set_value(2).run()
    assert "wy_matrix" not in chart_keys(at) and "expected to take" in " ".join(w.value for w in at.warning)
    at.button(key="wy_start").click().run()
    assert not at.exception and "wy_matrix" in chart_keys(at)
    at.radio(key="wy_reference").set_value("[MASK]").run()  # another run: asked again
    assert "wy_matrix" not in chart_keys(at) and at.button(key="wy_start")
