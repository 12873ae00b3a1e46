"""Sentence pooling, Task measures and Compare sentences on a precomputed store (issue #30): the scores equal the
core's on the store's sample, the maps are the store's own, nothing runs the model but a query, and a store without
labels says what it cannot score."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import (canvas_chart, canvas_keys, canvas_values, open_code_panels, open_page, open_tab, scatter_grid,
                      table)
from page_checks import checks, make

from bertviz_core import Encoder
from bertviz_core.views.page_registry import PAGES
from bertviz_core.measures.pooling_grid import Cell, score_cell, silhouette_grid
from bertviz_core.precompute import measures
from bertviz_core.precompute.layout import MANIFEST
from bertviz_core.precompute.offered import SETTING
from bertviz_core.measures.similarity import METRICS


def opened(monkeypatch: pytest.MonkeyPatch, page: str, key: str, folders: list[Path]):  # noqa: ANN201 - an AppTest
    monkeypatch.setenv(SETTING, ",".join(map(str, folders)))
    at = open_page(page, timeout=300)
    at.radio(key=f"{key}_source").set_value("Precomputed store").run()
    assert not at.exception, at.exception
    return at


def unlabelled(store, tmp_path: Path) -> Path:  # noqa: ANN001
    folder = tmp_path / "plain"
    shutil.copytree(store.folder, folder)
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest["input"]["label_column"] = None
    (folder / MANIFEST).write_text(json.dumps(manifest))
    return folder


def test_sentence_pooling_scores_every_stored_column_and_draws_its_map(
        monkeypatch: pytest.MonkeyPatch, labelled_store, model_calls: list[int]) -> None:  # noqa: ANN001
    at = opened(monkeypatch, "pages/sentence_pooling.py", "sp", [labelled_store.folder])
    runs = len(model_calls)  # the built-in corpus ran on the first visit, before the store was picked
    sample = measures.labelled_sample(labelled_store)
    expected = {cell: score_cell(measures.sample_vectors(labelled_store, cell, sample), list(sample.labels))
                for cell in measures.stored_cells(labelled_store)}
    shown = canvas_values(at, "sp_store_scores")
    for (strategy, layer), value in zip([("mean", 3), ("mean", 6), ("cls", 3), ("cls", 6)],
                                        [shown[0, 0], shown[0, 1], shown[1, 0], shown[1, 1]]):
        assert value == pytest.approx(expected[Cell(strategy, layer)].silhouette, abs=1e-5)
    assert any("all 160 rows of the store" in c.value for c in at.caption)
    # the map opens on the verdict's best cell (#51 item 12), the store's mean at layer 3, not its last column
    best = silhouette_grid(list(expected), expected.__getitem__).verdict
    assert best.clear and best.cells[0] == ("mean", "layer 3")
    assert at.selectbox(key="sp_store_cell").value == "mean · layer 3"
    spec, drawn = canvas_chart(at, "sp_store_map")
    np.testing.assert_allclose(drawn["x"], labelled_store.map("PCA", "mean", 3)["x"], atol=1e-6)
    # a PCA map's axes say what they are, with the share of variance the store recorded
    ratios = labelled_store.manifest["maps"]["mean@3"]["PCA"]["explained_variance_ratio"]
    (points,) = spec["layer"]  # 160 points: every one drawn, no density image under them
    assert [points["encoding"][axis]["title"] for axis in ("x", "y")] == [
        f"PC {i} ({ratio * 100:.0f} % of variance)" for i, ratio in enumerate(ratios, start=1)]
    at.selectbox(key="sp_store_cell").set_value("cls · layer 3").run()
    at.selectbox(key="sp_store_cell").set_value("mean · layer 3").run()
    np.testing.assert_allclose(canvas_chart(at, "sp_store_map")[1]["y"], labelled_store.map("PCA", "mean", 3)["y"],
                               atol=1e-6)
    assert len(model_calls) == runs and not at.exception and not at.error


def test_task_measures_probes_the_stored_columns_and_draws_their_maps(
        monkeypatch: pytest.MonkeyPatch, labelled_store, model_calls: list[int]) -> None:  # noqa: ANN001
    at = opened(monkeypatch, "pages/task_measures.py", "tm", [labelled_store.folder])
    at.session_state["tm_strats"], at.session_state["tm_layers"] = ["mean", "cls"], [3, 6]
    runs = len(model_calls)
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert canvas_keys(at, ("tm_probe", "tm_silhouette")) == {"tm_probe", "tm_silhouette"}
    assert any("agree" in m.value for m in at.markdown)
    # the code panel reproduces the chosen stored column; choosing another reruns only the picker and its panel
    for name, column in (("cls · layer 3", "cls@3"), ("mean · layer 6", "mean@6")):
        at.selectbox(key="tm_probe_cell").set_value(name).run()
        assert [f"vectors/{column}.npy" in c.value for c in open_code_panels(at).code] == [True, False]  # the link
    assert canvas_keys(at, ("tm_probe", "tm_silhouette")) == {"tm_probe", "tm_silhouette"} and not at.exception
    at.session_state["tm_tab"] = "Maps"
    at.run()
    spec, data = scatter_grid(at)
    titles = [t.split("\n")[0] for t in data["tiles"]["title"]]
    assert titles == ["mean · layer 3", "mean · layer 6", "cls · layer 3", "cls · layer 6"]
    at.radio(key="tm_projection").set_value("UMAP").run()
    assert any("holds no UMAP map" in i.value for i in at.info) and not at.exception
    assert len(model_calls) == runs


LACKS_LAYERS = ("The store holds layer 3, layer 6 only, so the layers offered are those; it lacks 0 · embeddings, "
                "layer 1, layer 2, layer 4, layer 5.")
LACKS_STRATEGIES = ("The store holds cls, mean only, so the strategies offered are those; it lacks mean_no_special, "
                    "max, mean_sqrt_len, weightedmean, pooler, first_last_avg. Precompute it with --strategies")


def test_task_measures_on_a_store_offers_only_the_layers_and_strategies_it_holds(
        monkeypatch: pytest.MonkeyPatch, labelled_store) -> None:  # noqa: ANN001
    """#51 item 2: the store holds layers 3 and 6; "0 · embeddings" and the others are neither offered nor chosen,
    and the page says what the store lacks. The same for its strategies, mean and [CLS] (#51's review): max, a
    default on the model's own corpus, is neither offered nor chosen."""
    at = opened(monkeypatch, "pages/task_measures.py", "tm", [labelled_store.folder])
    layers, strategies = at.multiselect(key="tm_layers"), at.multiselect(key="tm_strats")
    assert layers.options == ["layer 3", "layer 6"] and layers.value == [3, 6]
    assert strategies.options == ["cls", "mean"] and strategies.value == ["mean", "cls"]
    captions = " ".join(c.value for c in at.caption)
    assert LACKS_LAYERS in captions and LACKS_STRATEGIES in captions
    # the model's own corpus: every layer and strategy again
    at.radio(key="tm_source").set_value("Built-in news topics (160 sentences, 4 topics)").run()
    assert at.multiselect(key="tm_layers").options[0] == "0 · embeddings" and not at.exception
    assert "max" in at.multiselect(key="tm_strats").options  # the choice made on the store stays
    assert LACKS_STRATEGIES not in " ".join(c.value for c in at.caption)


@pytest.mark.slow
def test_sentence_pooling_on_a_store_says_what_it_lacks_and_scores_under_a_moving_bar(
        monkeypatch: pytest.MonkeyPatch, labelled_store) -> None:  # noqa: ANN001
    """#51 items 9 and 4: switching Sentence pooling to a store shows a bar from its first stored column on, naming
    the column being scored and moving as each is done (recorded from Streamlit's progress calls: the bar is gone
    once the run ends); the page says which strategies and layers the store lacks."""
    import streamlit as st
    from streamlit.elements.progress import ProgressMixin

    shown: list[str | None] = []
    drawn = ProgressMixin.progress

    def recorded(self, value, text=None, **options):  # noqa: ANN001, ANN002, ANN003, ANN202
        shown.append(text)
        return drawn(self, value, text, **options)

    monkeypatch.setattr(ProgressMixin, "progress", recorded)
    monkeypatch.setattr(st, "progress", lambda value, text=None, **options: recorded(st._main, value, text, **options))
    monkeypatch.setenv(SETTING, str(labelled_store.folder))
    at = open_page("pages/sentence_pooling.py", timeout=300)
    shown.clear()
    at.radio(key="sp_source").set_value("Precomputed store").run()
    assert not at.exception
    columns = ["mean · layer 3", "mean · layer 6", "cls · layer 3", "cls · layer 6"]
    assert shown == [f"Silhouettes on 160 rows: {done} of 4 stored columns done; scoring {column}"
                     for done, column in enumerate(columns)] + ["Silhouettes on 160 rows: 4 of 4 stored columns done"]
    captions = " ".join(c.value for c in at.caption)
    assert LACKS_LAYERS in captions and LACKS_STRATEGIES in captions


def test_a_store_without_labels_says_what_it_cannot_score(monkeypatch: pytest.MonkeyPatch, labelled_store,
                                                          tmp_path: Path) -> None:  # noqa: ANN001
    folder = unlabelled(labelled_store, tmp_path)
    at = opened(monkeypatch, "pages/task_measures.py", "tm", [folder])
    assert any("has no labels, and the probe learns labels" in e.value for e in at.error) and not at.exception
    at = opened(monkeypatch, "pages/sentence_pooling.py", "sp", [folder])
    assert any("has no labels" in i.value for i in at.info) and not at.exception
    canvas_chart(at, "sp_store_map")  # the map is drawn all the same


def test_compare_sentences_ranks_the_query_against_the_store(monkeypatch: pytest.MonkeyPatch, labelled_store,
                                                             bundled: Encoder) -> None:  # noqa: ANN001
    monkeypatch.setenv(SETTING, str(labelled_store.folder))
    at = open_tab(open_page("pages/compare_sentences.py", timeout=300), "cs_view", "Rank against one sentence")
    assert not at.exception
    query = at.text_area(key="cs_texts").value.splitlines()[0]
    at.selectbox(key="cs_store_strategy").set_value("mean").run()
    at.selectbox(key="cs_store_layer").set_value(3).run()
    shown = table(at, "cs_sentences")
    vectors = np.asarray(labelled_store.vectors("mean", 3))
    scores = METRICS["cosine"].between(vectors, bundled.embed([query], ["mean"])["mean"][0, 3][None])[:, 0]
    order = np.argsort(-scores, kind="stable")[:10]
    assert shown["text"].tolist() == [labelled_store.texts[i] for i in order]
    monkeypatch.delenv(SETTING)
    at = open_tab(open_page("pages/compare_sentences.py", timeout=300), "cs_view", "Rank against one sentence")
    assert "cs_store" not in [w.key for w in at.selectbox] and "cs_query" in [w.key for w in at.selectbox]


@pytest.mark.parametrize("entry", [entry for entry in PAGES if entry.reads_stores], ids=lambda entry: entry.title)
def test_settings_on_a_store_run_no_model(monkeypatch: pytest.MonkeyPatch, labelled_store, entry,  # noqa: ANN001
                                          model_calls: list[int]) -> None:
    declared = checks(entry)
    assert declared.store_settings, f"{entry.file}'s CHECKS name no store_settings"
    monkeypatch.setenv(SETTING, str(labelled_store.folder))
    at = open_page(entry.file, timeout=300)
    for setting in declared.store_view:
        make(at, setting)
    runs = len(model_calls)
    for setting in declared.store_settings:
        make(at, setting)
        assert not at.exception and not at.error, (setting, at.exception, [e.value for e in at.error])
    assert len(model_calls) == runs, entry.file


def test_task_measures_on_an_unusable_store_names_the_chosen_corpus_not_an_upload(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "unfinished").mkdir()
    at = opened(monkeypatch, "pages/task_measures.py", "tm", [tmp_path / "unfinished"])
    assert "not a finished store" in at.error[0].value
    notes = [i.value for i in at.info if "chosen above" in i.value]
    assert notes == ["The probe uses the labelled corpus chosen above: it appears once it can be used."]
    at.session_state["tm_tab"] = "Maps"
    at.run()
    assert "The maps use the labelled corpus chosen above: they appear once it can be used." in [
        i.value for i in at.info]
