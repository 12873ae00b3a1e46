"""Measures on a labelled store (precompute.measures): the stratified sample, each column's silhouette and probe on
it, and the stored maps, each equal to plain numpy / scikit-learn on the store's files, and to the teaching code."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from sklearn.manifold import trustworthiness
from sklearn.metrics import silhouette_score

from bertviz_core import recipes
from bertviz_core.measures.pooling_grid import Cell, score_cell
from bertviz_core.precompute import measures
from bertviz_core.measures.task_measures import probe, probe_plan


def test_the_sample_is_stratified_sorted_and_the_recipe_draws_the_same(labelled_store) -> None:  # noqa: ANN001
    whole = measures.labelled_sample(labelled_store)
    assert whole.whole and whole.rows.tolist() == list(range(160)) and list(whole.labels) == labelled_store.labels
    sample = measures.labelled_sample(labelled_store, 40)
    assert not sample.whole and len(set(sample.rows)) == 40 and (np.diff(sample.rows) > 0).all()
    assert set(Counter(sample.labels).values()) == {10}  # four topics of 40 texts: each keeps its quarter
    assert list(sample.labels) == [labelled_store.labels[row] for row in sample.rows]
    ran: dict = {}
    exec(recipes.store_measures(str(labelled_store.folder), "cls@3", 40, 160), ran)  # noqa: S102
    assert ran["rows"].tolist() == sample.rows.tolist() and ran["labels"] == list(sample.labels)
    np.testing.assert_array_equal(ran["vectors"], measures.sample_vectors(labelled_store, Cell("cls", 3), sample))
    assert "40 of the store's 160 rows" in measures.sample_note(sample)
    assert "all 160 rows" in measures.sample_note(whole)


@pytest.mark.parametrize("cell", [Cell("mean", 6), Cell("cls", 3)])
def test_the_silhouette_and_probe_equal_scikit_learn_and_the_recipe(labelled_store, cell: Cell) -> None:  # noqa: ANN001
    sample = measures.labelled_sample(labelled_store, 120)
    vectors = np.load(labelled_store.folder / "vectors" / f"{labelled_store.column(cell.strategy, cell.layer)}.npy")
    labels = list(sample.labels)
    expected = silhouette_score(vectors[sample.rows].astype(np.float64), labels, metric="cosine")
    result = score_cell(measures.sample_vectors(labelled_store, cell, sample), labels)
    assert result.silhouette == pytest.approx(expected, abs=1e-5)
    plan = probe_plan(labels)
    scored = probe(measures.sample_vectors(labelled_store, cell, sample), labels, plan)
    ran: dict = {}
    exec(recipes.store_measures(str(labelled_store.folder), labelled_store.column(cell.strategy, cell.layer), 120, 160,
                                plan.folds), ran)  # noqa: S102
    assert ran["accuracy"] == pytest.approx(scored.accuracy, abs=1e-9)
    assert ran["macro_f1"] == pytest.approx(scored.macro_f1, abs=1e-9)
    assert ran["silhouette"] == pytest.approx(result.silhouette, abs=1e-5)


def test_stored_maps_their_points_and_trust_equal_the_files_and_the_recipe(labelled_store) -> None:  # noqa: ANN001
    cell = Cell("mean", 6)
    assert measures.stored_maps(labelled_store, cell) == ["PCA"]
    points = measures.map_points(labelled_store, cell, "PCA")
    stored = labelled_store.map("PCA", "mean", 6)
    assert len(points) == 160 and points["row"].tolist() == stored["row"].tolist()
    assert points["text"].tolist() == [labelled_store.texts[row] for row in stored["row"]]
    assert points["label"].tolist() == [labelled_store.labels[row] for row in stored["row"]]
    vectors = np.asarray(labelled_store.vectors("mean", 6), dtype=np.float64)
    expected = trustworthiness(vectors[stored["row"]], stored[["x", "y"]].to_numpy(), n_neighbors=5)
    assert measures.map_trust(labelled_store, cell, "PCA") == pytest.approx(expected, abs=1e-9)
    ran: dict = {}
    exec(recipes.store_map(str(labelled_store.folder), "mean@6", "PCA", measures.TRUST_ROWS), ran)  # noqa: S102
    assert ran["trust"] == pytest.approx(expected, abs=1e-9)
    sampled = measures.map_trust(labelled_store, cell, "PCA", size=50)
    ran = {}
    exec(recipes.store_map(str(labelled_store.folder), "mean@6", "PCA", 50), ran)  # noqa: S102
    assert ran["trust"] == pytest.approx(sampled, abs=1e-9) and "a random 50 of its 160 points" in \
        measures.trust_note(labelled_store, cell, "PCA", 50)
    assert len(measures.map_points(labelled_store, cell, "PCA", size=30)) == 30


@pytest.mark.slow
def test_a_grid_draws_the_same_rows_in_every_panel(labelled_store) -> None:  # noqa: ANN001
    cells = measures.chosen_cells(labelled_store, ["mean", "cls"], [6])
    assert cells == [Cell("mean", 6), Cell("cls", 6)]
    points, coords = measures.grid_maps(labelled_store, cells, "PCA", size=50)
    assert len(points) == 50 and (np.diff(points["row"]) > 0).all()
    for cell in cells:
        stored = labelled_store.map("PCA", cell.strategy, cell.layer).set_index("row")
        np.testing.assert_array_equal(coords[cell], stored.loc[points["row"], ["x", "y"]].to_numpy())
    assert points["text"].tolist() == [labelled_store.texts[row] for row in points["row"]]
    assert measures.grid_rows(measures.stored_cells(labelled_store)) == [
        [Cell("mean", 3), Cell("mean", 6)], [Cell("cls", 3), Cell("cls", 6)]]
    assert "the same 50 of the store's 160 rows" in measures.grid_note(50, 160)
    assert measures.chosen_cells(labelled_store, ["max"], [6]) == []


def test_bad_input_says_what_is_wrong(labelled_store, news_store, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    with pytest.raises(ValueError, match="no labels"):
        monkeypatch.setitem(news_store.manifest["input"], "label_column", None)
        measures.labelled_sample(news_store)
    for call in (lambda: measures.labelled_sample(None), lambda: measures.labelled_sample(labelled_store, 0),
                 lambda: measures.sample_vectors(labelled_store, ("mean", 6), measures.labelled_sample(labelled_store)),
                 lambda: measures.sample_note(None), lambda: measures.stored_maps(labelled_store, "mean@6"),
                 lambda: measures.map_trust(labelled_store, Cell("mean", 6), "UMAP"),
                 lambda: measures.map_points(labelled_store, Cell("max", 6), "PCA"),
                 lambda: measures.chosen_cells(labelled_store, "mean", [6]),
                 lambda: measures.grid_maps(labelled_store, [Cell("mean", 6)], "PCA", size=-1)):
        with pytest.raises(ValueError):
            call()


@pytest.fixture(scope="module")
def two_models(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """``stores.model_stores`` opened: {name: VectorStore}, and each model's identity."""
    from stores import model_stores

    from bertviz_core import open_store
    from bertviz_core.model.encoder import load_encoder
    from bertviz_core.model.models import UNTRAINED_TWIN

    opened = {name: open_store(folder) for name, folder in model_stores(tmp_path_factory.mktemp("models")).items()}
    identities = {"bundled": load_encoder(device="cpu").info.identity,
                  "twin": load_encoder(UNTRAINED_TWIN, device="cpu").info.identity}
    return {"stores": opened, "identities": identities}


@pytest.mark.slow
def test_stores_of_one_input_rank_models_on_their_own_vectors(two_models: dict) -> None:
    from bertviz_core.corpora import news_topics
    from bertviz_core.model_choice import rank_models

    stores = two_models["stores"]
    chosen = measures.matched_stores({"bundled": stores["bundled"], "twin": stores["twin"]}, two_models["identities"])
    assert chosen.sample.whole and chosen.texts() == list(news_topics()["text"])
    cells = {"bundled": [Cell("mean", 6), Cell("cls", 3)], "twin": [Cell("mean", 6)]}
    found = measures.model_store_vectors(chosen, cells)
    assert {model: list(grid) for model, grid in found.items()} == {"bundled": [("mean", 6), ("cls", 3)],
                                                                     "twin": [("mean", 6)]}
    for model, cell, column in (("bundled", ("cls", 3), "cls@3"), ("twin", ("mean", 6), "mean@6")):  # read plainly
        np.testing.assert_array_equal(found[model][cell], np.load(stores[model].folder / "vectors" / f"{column}.npy"))
    assert not np.allclose(found["bundled"][("mean", 6)], found["twin"][("mean", 6)])
    ranking = rank_models(found, list(chosen.sample.labels), measure="silhouette")
    assert len(ranking.table) == 3 and ranking.table["model"].iloc[0] == "bundled"  # trained beats random weights
    ran: dict = {}
    exec(recipes.store_corpus(str(stores["bundled"].folder), 160, 160), ran)  # noqa: S102
    assert ran["texts"] == chosen.texts() and ran["labels"] == list(chosen.sample.labels)


@pytest.mark.slow
@pytest.mark.parametrize(("pair", "message"), [
    (("bundled", "twin_fewer"), "hold different texts: 160 texts of the column 'text'"),
    (("bundled", "twin_unlabelled"), "has no labels, and ranking by labels"),
    (("twin", "bundled"), "was computed with .*, not with bundled"),  # each store given for the other model
])
def test_stores_that_cannot_rank_models_together_say_why(two_models: dict, pair: tuple, message: str) -> None:
    stores, identities = two_models["stores"], two_models["identities"]
    given = {"bundled": stores[pair[0]], "twin": stores[pair[1]]}
    with pytest.raises(ValueError, match=message) as raised:
        measures.matched_stores(given, identities)
    assert str(stores[pair[1]].folder) in str(raised.value) or str(stores[pair[0]].folder) in str(raised.value)
    with pytest.raises(ValueError, match="must map each model"):
        measures.matched_stores({}, identities)
