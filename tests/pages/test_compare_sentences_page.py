"""AppTest of the Compare sentences page: matrix, ranking, baseline, corrections, pairs, bad input."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import canvas_chart, canvas_heatmap, charts, drawn_title, open_page, open_tab, table
from page_checks import LONG, PageChecks, slider, slider_named, typed


CHECKS = PageChecks(
    settings=(("slider", "cs_layer", 2), ("selectbox", "cs_strategy", "max"), ("selectbox", "cs_metric", "euclidean distance"),
              ("radio", "cs_correct", "whitening"), ("session_state", "cs_view", "Rank against one sentence"),
              ("selectbox", "cs_query", 2)),
    timed_change=("layer", "?cs_layer=4", slider),
    long_text=(typed("text_area", "cs_texts", f"A short one.\n{LONG}"),),
    shared_query="cs_texts=One+sentence.%0AAnother+one.%0AA+third.&cs_strategy=max&cs_layer=2"
                 "&cs_metric=dot+product&cs_correct=whitening&cs_k=8&cs_view=Rank+against+one+sentence"
                 "&cs_query=2%3A+Another+one.",
    extra_views=("cs_metric=euclidean+distance&cs_strategy=first_last_avg", "cs_view=Rank+against+one+sentence",
                 "cs_view=Two+sentences+as+one+input"),
    visit=lambda words: {"cs_texts": "\n".join(f"{words(10)}." for _ in range(60))},
    store_view=(("session_state", "cs_view", "Rank against one sentence"),),
    store_settings=(("slider", "cs_store_k", 5), ("selectbox", "cs_store_layer", 3),
                    ("selectbox", "cs_metric", "dot product")),
    store_timed_change=("store, k", "?cs_store={store}&cs_view=Rank+against+one+sentence",
                        slider_named("Neighbours (k)")),
)

PAGE = "pages/compare_sentences.py"
RANK, PAIR = "Rank against one sentence", "Two sentences as one input"


def test_defaults_show_matrix_ranking_and_baseline() -> None:
    at = open_page(PAGE)
    spec, _ = canvas_heatmap(at, "cs_raw")
    assert drawn_title(at, "cs_raw") == "cosine, mean, layer 5"
    assert spec["encoding"]["y"]["sort"][:2] == ["1", "2"]  # numbered, with a key
    captions = " ".join(c.value for c in at.caption).replace("\\", "")
    assert "**1** what is your age?" in captions and "the loaded model" in captions and "gives **0." in captions
    with pytest.raises(KeyError):  # only the open tab is drawn
        canvas_chart(at, "cs_rank")
    open_tab(at, "cs_view", RANK)
    with pytest.raises(KeyError):  # the matrix's tab is closed
        canvas_heatmap(at, "cs_raw")
    ranking, bars = canvas_chart(at, "cs_rank")
    assert ranking["description"] == "cosine to sentence 1"
    assert ranking["layer"][0]["mark"]["type"] == "rect"  # the random-pair band behind the bars
    shown = table(at, "cs_ranking")
    assert list(bars["score"]) == pytest.approx(list(shown["cosine"]))  # the bars are the table's numbers, in order
    assert table(at, "cs_ranking")["sentence"].iloc[0] == "How old are you?"
    assert "random pairs from half of the built-in corpus" in " ".join(c.value for c in at.caption)


def test_corrections_change_the_matrix_without_running_the_model(model_calls: list[int]) -> None:
    at = open_page(PAGE)
    runs = len(model_calls)
    raw = canvas_heatmap(at, "cs_raw")[1]["value"].to_numpy()
    at.radio(key="cs_correct").set_value("whitening").run()
    spec, cells = canvas_heatmap(at, "cs_raw")
    np.testing.assert_array_equal(cells["value"].to_numpy(), raw)
    assert drawn_title(at, "cs_raw") == "raw"
    spec, cells = canvas_heatmap(at, "cs_fixed")
    assert drawn_title(at, "cs_fixed") == "after whitening"
    assert np.abs(cells["value"].to_numpy() - raw).max() > 0.2
    at.radio(key="cs_correct").set_value("mean-centering").run()
    at.selectbox(key="cs_metric").set_value("dot product").run()
    at.slider(key="cs_layer").set_value(2).run()
    assert not at.exception and len(model_calls) == runs
    assert drawn_title(at, "cs_fixed") == "after mean-centering"


def test_the_pair_tab_shows_pair_and_separate_vectors() -> None:
    at = open_tab(open_page(PAGE), "cs_view", PAIR)
    cosines = table(at, "cs_pair_table")
    assert list(cosines["vector"])[:3] == ["[CLS] of the pair, last layer", "[CLS] of sentence 1 alone",
                                     "[CLS] of sentence 2 alone"]
    assert "pooler output of the pair" in list(cosines["vector"])


@pytest.mark.parametrize(("text", "expect"), [
    ("", "Enter a few sentences"),
    ("\n\n", "Enter a few sentences"),
    ("Only one sentence here.", "at least two sentences"),
])
def test_too_little_input_explains_itself(text: str, expect: str) -> None:
    at = open_page(PAGE)
    at.text_area(key="cs_texts").set_value(text).run()
    assert not at.exception and expect in at.info[0].value and not charts(at)
    assert not at.get("vega_lite_chart")


@pytest.mark.slow
def test_empty_lines_duplicates_and_a_huge_sentence() -> None:
    at = open_page(PAGE)
    at.text_area(key="cs_texts").set_value("Same words.\n\nSame words.\n" + "long " * 2000).run()
    assert not at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "1 empty line(s) ignored" in captions and "more than once" in captions
    assert "1 of the 3 sentences is longer" in at.warning[0].value and "by sentence: 3 (1,490)" in at.warning[0].value
    cells = canvas_heatmap(at, "cs_raw")[1]
    matrix = cells["value"].to_numpy().reshape(3, 3)
    assert matrix[0, 1] == pytest.approx(1.0)


def test_the_store_ranking_has_the_store_s_own_random_pair_band(monkeypatch: pytest.MonkeyPatch, labelled_store,
                                                               bundled) -> None:  # noqa: ANN001
    """Issue #51: each stored neighbour's score beside the share of the store's own random pairs below it, and their
    band, as plain numpy computes them; drawn once per column and metric, not on every rerun."""
    from bertviz_core import recipes
    from bertviz_core.measures.pooling import POOLINGS
    from bertviz_core.precompute.offered import SETTING
    from bertviz_core.views import comparison

    drawn, original = [], comparison.store_baseline
    monkeypatch.setattr(comparison, "store_baseline", lambda *args, **kw: drawn.append(1) or original(*args, **kw))
    monkeypatch.setenv(SETTING, str(labelled_store.folder))
    at = open_tab(open_page(PAGE, timeout=300), "cs_view", RANK)
    at.selectbox(key="cs_store_strategy").set_value("mean").run()
    at.selectbox(key="cs_store_layer").set_value(3).run()
    at.selectbox(key="cs_metric").set_value("dot product").run()
    shown = table(at, "cs_sentences")
    vectors = np.asarray(labelled_store.vectors("mean", 3), dtype=np.float64)
    sample = vectors[np.sort(np.random.default_rng(0).permutation(len(vectors))[:300])]
    pairs = (sample @ sample.T)[np.triu_indices(len(sample), k=1)]  # every pair of the drawn texts, by dot product
    np.testing.assert_allclose(shown["above this share of the store's random pairs"],
                               [(pairs < score).mean() for score in shown["score"]], atol=1e-3)
    low, mid, high = np.percentile(pairs, [5, 50, 95])
    said = " ".join(c.value for c in at.caption).replace("\\", "")
    assert (f"the share of {len(pairs):,} pairs of the store's own texts (every pair of {len(sample)} stored "
            "texts") in said
    assert f"5th percentile {low:.3f}, median {mid:.3f}, 95th {high:.3f}" in said
    code = recipes.store_sentences(bundled.info, str(labelled_store.folder), "mean@3", at.text_area(key="cs_texts")
                                   .value.splitlines()[0], POOLINGS["mean"].code, 3, 10, "dot product", True)
    ran: dict = {}
    exec(code, ran)  # noqa: S102 - the teaching panel's own code prints the same pairs
    np.testing.assert_allclose(np.sort(ran["pairs"]), np.sort(pairs), rtol=1e-4, atol=1e-4)
    runs = len(drawn)
    at.slider(key="cs_store_k").set_value(5).run()
    at.selectbox(key="cs_query").set_value(2).run()
    assert len(drawn) == runs and len(table(at, "cs_sentences")) == 5 and not at.exception
