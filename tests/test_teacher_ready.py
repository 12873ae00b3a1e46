"""Teacher-ready details (issue 15) that need no browser: honest verdicts, what the overview promises,
the bundled model explained, outlier marks, uploads with other separators, picture export, presentation mode.
The share links and the layout at 150 % zoom are checked in a real browser (test_browser.py)."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import F32, chart, open_page

from bertviz_core import stats
from bertviz_core.corpora import read_table, sniff_separator
from bertviz_core.page_registry import PAGES
from bertviz_core.similarity import top_positions, verdict
from ui_present import CHART_PX, FONT_PX


def test_a_verdict_needs_a_margin_and_reports_ties() -> None:
    scores = pd.DataFrame({"a": [0.5, 0.7], "b": [0.7 - 1e-9, 0.2]}, index=["x", "y"])
    tie = verdict(scores, margin=0.005)
    assert tie.tie and set(tie.cells) == {("y", "a"), ("x", "b")} and tie.lead == pytest.approx(0.2, **F32)
    assert top_positions(tie, scores) == [(0, 1), (1, 0)]
    best = verdict(scores.assign(b=[0.6, 0.2]), margin=0.005)
    assert not best.tie and best.cells == [("y", "a")] and best.lead == pytest.approx(0.1, **F32)
    assert np.isnan(verdict(pd.DataFrame({"a": [1.0, 1.0]}), margin=0.01).lead)  # all tie: nothing behind
    assert verdict(pd.DataFrame({"a": [np.nan]}), margin=0.01) is None


def test_outlier_marks_follow_the_chosen_layer() -> None:
    states = np.random.default_rng(0).normal(size=(4, 10, 32))
    states[1, :, 5] = 9.0  # an outlier in layer 1 only
    states[3, :, 7] = -9.0  # and another in layer 3 only
    rule = stats.OutlierRule(z=3.0, share=0.5)
    assert stats.outliers_at(states, rule, 1) == [5] and stats.outliers_at(states, rule, 3) == [7]
    assert stats.outliers_at(states, rule, 2) == []
    listed = stats.outlier_dimensions(states, rule)
    for layer in range(4):  # the marks at a layer are exactly the table's rows listing that layer
        assert stats.outliers_at(states, rule, layer) == sorted(
            int(d) for d, layers in zip(listed["dimension"], listed["layers"]) if str(layer) in layers.split(", "))


@pytest.mark.parametrize(("separator", "name"), [(";", "semicolon"), ("\t", "tab"), ("|", "vertical bar")])
def test_csv_with_another_separator_is_read_as_columns(separator: str, name: str) -> None:
    rows = [("The cat sat on the mat, quietly.", "pets"), ("Stocks fell sharply, again, today.", "money"),
            ("Dogs bark at the postman.", "pets")]
    data = "\n".join([f"text{separator}label", *(f"{t}{separator}{label}" for t, label in rows)]).encode()
    table = read_table(data)
    assert (table.text_column, table.label_column) == ("text", "label") and len(table.frame) == 3
    assert table.frame["label"].tolist() == ["pets", "money", "pets"] and f"{name}-separated" in table.note
    assert sniff_separator("text,label\n\"a; b\",x\n") == ","


def test_uploading_a_semicolon_csv_scores_its_labels() -> None:
    at = open_page("pages/sentence_pooling.py")
    at.radio(key="sp_source").set_value("Upload a CSV").run()
    corpus = read_table(b"text,label\n" + "\n".join(f'"Sentence {i} about {t}.",{t}' for i in range(12)
                                                    for t in ("sport", "food")).encode()).frame
    at.file_uploader(key="sp_upload").set_value(("semi.csv", corpus.to_csv(index=False, sep=";").encode(),
                                                 "text/csv")).run()
    assert not at.exception and "semicolon-separated" in " ".join(i.value for i in at.info)
    assert [b.value for b in at.selectbox if b.label == "Text column"] == ["text"]  # not "text;label" glued
    assert any("silhouette" in c.proto.spec for c in at.get("plotly_chart"))


def test_picture_export_keeps_the_figure_size_and_title() -> None:
    at = open_page("pages/compare_sentences.py")
    element = next(e for e in at.get("plotly_chart") if str(e.proto.id).endswith("-cs_raw"))
    options = json.loads(element.proto.config)["toImageButtonOptions"]
    figure = chart(at, "cs_raw")
    assert options["height"] == figure["layout"]["height"] and options["format"] == "png" and options["scale"] == 2
    at.sidebar.radio(key="picture_format").set_value("svg").run()
    element = next(e for e in at.get("plotly_chart") if str(e.proto.id).endswith("-cs_raw"))
    assert json.loads(element.proto.config)["toImageButtonOptions"]["format"] == "svg"


@pytest.mark.parametrize("entry", PAGES[1:], ids=lambda e: e.url_path)
def test_presentation_mode_hides_code_and_downloads_and_fits_charts(entry) -> None:  # noqa: ANN001
    at = open_page(entry.file)
    at.sidebar.toggle(key="present").set_value(True).run()
    assert not at.exception and not at.code and not at.get("download_button")
    for element in at.get("plotly_chart"):
        figure = json.loads(element.proto.spec)
        assert figure["layout"]["height"] <= CHART_PX, element.proto.id
        assert figure["layout"]["font"]["size"] >= FONT_PX
    for element in at.get("vega_lite_chart"):  # a grid of scatters: as tall as its rows need, larger text
        spec = json.loads(element.proto.spec)
        assert spec["layer"][1]["mark"]["fontSize"] >= FONT_PX and spec["config"]["legend"]["labelFontSize"] >= FONT_PX


def test_the_bundled_model_is_explained_where_students_look() -> None:
    overview = " ".join(i.value for i in open_page().info)
    assert "bert-base-uncased's vocabulary" in overview and "(7, 22, 384)" in overview
    assert "layers 3–6 of 6" in overview and "[CLS] is nearly the same vector" in overview
    words = open_page("pages/word_similarity.py")
    assert any("bert-base-uncased's vocabulary" in c.value for c in words.caption)
    values = open_page("pages/layer_values.py")
    assert any("(7, 22, 384)" in c.value for c in values.caption)
    rows = " ".join(m.value for m in open_page().markdown).replace("\\", "")
    assert "0.93 (bert-base-uncased, in a Q&A thread)" in rows and "what does the loaded model give" in rows


def test_a_tie_is_explained_only_by_strategies_that_must_tie() -> None:
    from bertviz_core.pooling_grid import SeparationScores

    same_layer = SeparationScores(pd.DataFrame({"layer 3": [0.21, 0.21, 0.10]}, index=["mean", "mean_sqrt_len", "max"]),
                                  pd.Series(dtype=float))
    assert same_layer.verdict.tie and "mean_sqrt_len is mean multiplied" in same_layer.tie_reason()
    other_layers = SeparationScores(pd.DataFrame({"layer 3": [0.21, 0.10], "layer 5": [0.10, 0.21]},
                                                 index=["mean", "mean_sqrt_len"]), pd.Series(dtype=float))
    assert other_layers.verdict.tie and other_layers.tie_reason() is None  # a tie, but no reason it must be one
