"""Task measures: the probe against the stated scikit-learn protocol run directly, the pair correlation
against scipy, trustworthiness against scikit-learn, constructed data with an obvious answer, bad input,
the teaching code (the page: pages/test_task_measures_page.py)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression
from sklearn.manifold import trustworthiness
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from recipe_runs import run
from threadpoolctl import threadpool_info, threadpool_limits

from bertviz_core import Encoder, recipes
from bertviz_core.corpora import news_topics, read_pairs, sentence_pairs
from bertviz_core.measures.pooling import POOLINGS
from bertviz_core.measures.pooling_grid import Cell, cell_vectors
from bertviz_core.measures.projection import PROJECTIONS, project
from bertviz_core.measures.similarity import CORRECTIONS, Verdict, fit_correction
from bertviz_core.measures.task_measures import (
    agreement,
    check_pairs,
    correlation,
    correlation_grid,
    distinct_rows,
    pair_cosines,
    probe,
    probe_grid,
    probe_plan,
)



@pytest.fixture(scope="module")
def pooled_news(news_pooled: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return news_pooled  # conftest's, embedded once a session (the recipe tests use it too)


def stated_protocol(x: np.ndarray, y: list[str], folds: int = 5) -> tuple[float, float]:
    """The protocol exactly as the page states it, run directly."""
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    cv = StratifiedKFold(folds, shuffle=True, random_state=0)
    accuracy = cross_val_score(model, x, y, cv=cv, scoring="accuracy").mean()
    f1 = cross_val_score(model, x, y, cv=cv, scoring="f1_macro").mean()
    return accuracy, f1


@pytest.mark.slow
def test_the_probe_equals_the_stated_protocol(pooled_news: dict[str, np.ndarray]) -> None:
    labels = list(news_topics()["label"])
    for cell in (Cell("mean", 3), Cell("cls", 1), Cell("pooler", None)):
        vectors = cell_vectors(pooled_news, cell)
        score = probe(vectors, labels)
        accuracy, f1 = stated_protocol(vectors.astype(np.float64), labels)
        assert score.accuracy == pytest.approx(accuracy, abs=1e-12) and score.macro_f1 == pytest.approx(f1, abs=1e-12)
        assert score.folds == 5


def test_the_probe_fits_on_one_blas_thread(pooled_news: dict[str, np.ndarray],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Two BLAS threads a fit spin against each other on a busy machine (a cell of 2,000 texts took 14 s instead
    of 1.7 s): the probe asks for one, whatever the caller allows."""
    threads, fit = [], LogisticRegression.fit

    def counted(model: LogisticRegression, *args: object, **kwargs: object) -> LogisticRegression:
        threads.extend(pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas")
        return fit(model, *args, **kwargs)

    monkeypatch.setattr(LogisticRegression, "fit", counted)
    with threadpool_limits(2, user_api="blas"):
        probe(cell_vectors(pooled_news, Cell("mean", 3)), list(news_topics()["label"]))
    assert len(threads) >= 5 and set(threads) == {1}


def test_fewer_folds_for_small_classes_and_singletons_left_out() -> None:
    labels = ["a"] * 6 + ["b"] * 3 + ["c"]
    plan = probe_plan(labels)
    assert plan.folds == 3 and plan.keep.tolist() == [True] * 9 + [False]
    assert any("single text" in note for note in plan.notes) and any("3 folds" in note for note in plan.notes)
    x = np.random.default_rng(0).normal(size=(10, 4))
    accuracy, _ = stated_protocol(x[:9], labels[:9], folds=3)
    assert probe(x, labels).accuracy == pytest.approx(accuracy, abs=1e-12)
    with pytest.raises(ValueError, match="every class here has a single text"):
        probe_plan(["a", "b", "c"])
    with pytest.raises(ValueError, match="at least two classes"):
        probe_plan(["a", "a", "b"])


def test_the_correlation_equals_scipy_on_the_same_cosines(pooled_news: dict[str, np.ndarray], bundled: Encoder) -> None:
    pairs = sentence_pairs()
    first, second = bundled.embed(list(pairs["sentence1"])), bundled.embed(list(pairs["sentence2"]))
    a, b = POOLINGS["mean"].at(first["mean"], 4).astype(np.float64), POOLINGS["mean"].at(second["mean"], 4).astype(np.float64)
    cosines = np.array([x @ y / np.linalg.norm(x) / np.linalg.norm(y) for x, y in zip(a, b)])
    np.testing.assert_allclose(pair_cosines(a, b), cosines, atol=1e-12)
    assert correlation(a, b, pairs["score"]) == pytest.approx(spearmanr(cosines, pairs["score"]).statistic, abs=1e-12)
    rows = distinct_rows([*pairs["sentence1"], *pairs["sentence2"]])
    assert len(rows) == 77  # three sentences appear twice
    distinct = np.vstack([a, b])[rows]  # each sentence once
    whiten = PCA(n_components=19, whiten=True, svd_solver="full").fit(distinct)  # a quarter of 77 sentences
    wa, wb = whiten.transform(a), whiten.transform(b)
    whitened = (wa * wb).sum(1) / np.linalg.norm(wa, axis=1) / np.linalg.norm(wb, axis=1)
    fitted = fit_correction("whitening", distinct, 19)
    np.testing.assert_allclose(pair_cosines(fitted(a), fitted(b)), whitened, atol=1e-6)
    assert correlation(a, b, pairs["score"], "whitening", rows) == pytest.approx(
        spearmanr(whitened, pairs["score"]).statistic, abs=1e-9)
    centred = distinct.mean(0)
    ca, cb = a - centred, b - centred
    expected = spearmanr((ca * cb).sum(1) / np.linalg.norm(ca, axis=1) / np.linalg.norm(cb, axis=1), pairs["score"])
    assert correlation(a, b, pairs["score"], "mean-centering", rows) == pytest.approx(expected.statistic, abs=1e-12)


@pytest.mark.parametrize(("probe_cells", "silhouette_cells", "said"), [
    ([("mean", "layer 3")], [("mean", "layer 3")], "**They agree**: mean at layer 3 is on top by both probe and silhouette."),
    ([("mean", "layer 3"), ("mean", "layer 5")], [("mean", "layer 3")],
     "**They agree**: mean at layer 3 is among the tied best by probe and the best by silhouette."),
    ([("cls", "layer 1"), ("mean", "layer 3")], [("mean", "layer 3"), ("cls", "layer 1")],
     "**They agree**: cls at layer 1, mean at layer 3 are among the tied best by probe and among the tied best by "
     "silhouette."),
    ([("mean", "layer 3"), ("mean", "layer 5")], [("max", "layer 2")], "**They disagree**: probe puts mean at layer 3, "
     "mean at layer 5 on top, silhouette max at layer 2."),
])
def test_the_agreement_sentence_says_when_a_top_is_a_tie(probe_cells: list, silhouette_cells: list, said: str) -> None:
    verdicts = [Verdict(cells, 0.9, 0.05, True, 90, "texts", "5 folds", (0.85, 0.95), 0.3, "0.3")
                for cells in (probe_cells, silhouette_cells)]
    assert agreement(*verdicts, "probe", "silhouette").startswith(said)


@pytest.mark.parametrize("name", list(PROJECTIONS))
@pytest.mark.slow
def test_every_projection_is_seeded_and_its_trustworthiness_is_scikit_learns(name: str,
                                                                          pooled_news: dict[str, np.ndarray]) -> None:
    vectors = cell_vectors(pooled_news, Cell("mean", 6)).astype(np.float64)[:60]
    coords, trust = project(name, vectors)
    assert coords.shape == (60, 2)
    assert trust == pytest.approx(trustworthiness(vectors, coords, n_neighbors=5), abs=1e-12)
    again, _ = project(name, vectors)
    np.testing.assert_allclose(again, coords, atol=1e-6)  # a fixed seed: the same map every time
    same, score = project(name, np.ones((10, 4)))
    assert (same == 0).all() and score != score  # identical vectors: nothing to map, no score


# Run in a new process: the map of fixed vectors, and how many of umap's compiled functions numba loaded from its
# on-disk cache (hits) rather than compiled (misses).
NEW_PROCESS_UMAP = """import json, sys
import numpy as np
from numba.core.dispatcher import Dispatcher
from bertviz_core.measures.projection import project
coords, _ = project("UMAP", np.random.default_rng(1).normal(size=(40, 16)))
used = [value.stats for name, module in list(sys.modules.items()) if name == "umap" or name.startswith("umap.")
        for value in vars(module).values() if isinstance(value, Dispatcher)]
print(json.dumps({"hits": sum(sum(s.cache_hits.values()) for s in used),
                  "misses": sum(sum(s.cache_misses.values()) for s in used), "coords": coords.tolist()}))
"""


@pytest.mark.slow
def test_a_new_process_loads_umaps_compiled_functions_from_the_cache_and_draws_the_same_map() -> None:
    import json
    import subprocess
    import sys
    from pathlib import Path

    coords, _ = project("UMAP", np.random.default_rng(1).normal(size=(40, 16)))  # compiled here, so cached
    root = str(Path(__file__).resolve().parents[2])
    done = subprocess.run([sys.executable, "-c", NEW_PROCESS_UMAP], capture_output=True, text=True, cwd=root,
                          check=True)
    there = json.loads(done.stdout.strip().splitlines()[-1])
    assert there["hits"] > there["misses"]  # umap itself caches one of the ten or so it runs
    np.testing.assert_array_equal(np.asarray(there["coords"]), coords)


def test_constructed_data_puts_the_best_cell_on_the_separable_layer() -> None:
    rng = np.random.default_rng(0)
    labels = [str(i % 3) for i in range(90)]
    layers = rng.normal(size=(90, 4, 16))  # (texts, layers, dim): noise everywhere
    layers[:, 2, :3] += 6 * np.eye(3)[[int(label) for label in labels]]  # layer 2 separates the classes
    pooled = {"mean": layers}
    cells = [Cell("mean", layer) for layer in range(4)]
    plan = probe_plan(labels)
    scores = probe_grid(cells, {cell: probe(cell_vectors(pooled, cell), labels, plan) for cell in cells}, labels, plan)
    assert scores.verdict.cells == [("mean", "layer 2")] and scores.verdict.clear
    assert scores.per_layer.loc["mean", "layer 2"] > 0.95 and scores.per_layer.loc["mean", "layer 1"] < 0.6
    gold = rng.uniform(0, 5, size=40)
    first, second = rng.normal(size=(40, 4, 8)), rng.normal(size=(40, 4, 8))
    angle = (1 - gold / 5) * np.pi / 2  # layer 3: pair i at an angle whose cosine is gold / 5
    first[:, 3] = np.eye(8)[0] + 0.01 * first[:, 3]
    second[:, 3] = np.outer(np.cos(angle), np.eye(8)[0]) + np.outer(np.sin(angle), np.eye(8)[1]) + 0.01 * second[:, 3]
    pair_scores = correlation_grid(cells, {"mean": first}, {"mean": second}, gold)
    assert pair_scores.verdict.cells == [("mean", "layer 3")] and pair_scores.verdict.clear


@pytest.mark.parametrize(("csv", "message"), [
    ("sentence1,sentence2,score\nA cat.,A dog.,high\nA.,B.,1\nC.,D.,2\nE.,F.,3\nG.,H.,4\n", "“high”, not a number"),
    ("sentence1,sentence2,score\n" + "".join(f"S{i}.,T{i}.,3\n" for i in range(6)), "the same score"),
    ("sentence1,sentence2,score\nOne pair.,Only one.,4\n", "at least 5"),
    ("first,second,gold\nA.,B.,1\n", "needs the columns sentence1, sentence2 and score"),
])
def test_bad_pairs_are_explained(csv: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_pairs(read_pairs(csv.encode()))


def test_pairs_files_are_read_with_any_separator() -> None:
    frame = check_pairs(read_pairs(sentence_pairs().to_csv(index=False, sep=";").encode()))
    assert len(frame) == 40 and frame["score"].dtype == float


@pytest.mark.slow
def test_the_teaching_code_reproduces_each_measure(bundled: Encoder, pooled_news: dict[str, np.ndarray]) -> None:
    labels = list(news_topics()["label"])
    ns = run(recipes.probe(bundled.info, recipes.NEWS_TOPICS_CODE, POOLINGS["max"].code, 2, 5))
    score = probe(cell_vectors(pooled_news, Cell("max", 2)), labels)
    assert ns["accuracy"] == pytest.approx(score.accuracy, abs=1e-3) and ns["macro_f1"] == pytest.approx(score.macro_f1,
                                                                                                        abs=1e-3)
    texts = [f"Sentence {i} is about {topic}." for i in range(4) for topic in ("sport", "food", "music")] + ["Alone."]
    labels = [topic for _ in range(4) for topic in ("sport", "food", "music")] + ["single"]
    plan = probe_plan(labels)  # the one-text class is left out; 4 folds for classes of 4
    ns = run(recipes.probe(bundled.info, f"texts, labels = {texts!r}, {labels!r}\n", POOLINGS["mean"].code, 3,
                           plan.folds))
    score = probe(bundled.embed(texts)["mean"][:, 3], labels, plan)
    assert plan.folds == 4 and ns["accuracy"] == pytest.approx(score.accuracy, abs=1e-3)
    pairs = sentence_pairs()
    first, second = bundled.embed(list(pairs["sentence1"])), bundled.embed(list(pairs["sentence2"]))
    for correction in CORRECTIONS:  # every entry's teaching code, run
        ns = run(recipes.correlation(bundled.info, recipes.BUILT_IN_PAIRS_CODE, POOLINGS["mean"].code, 5, correction))
        expected = correlation(POOLINGS["mean"].at(first["mean"], 5), POOLINGS["mean"].at(second["mean"], 5),
                               pairs["score"], correction, distinct_rows([*pairs["sentence1"], *pairs["sentence2"]]))
        assert ns["rho"] == pytest.approx(expected, abs=2e-3)
    ns = run(recipes.projection_map(bundled.info, recipes.NEWS_TOPICS_CODE, POOLINGS["mean"].code, 3, "PCA"))
    _, trust = project("PCA", cell_vectors(pooled_news, Cell("mean", 3)))
    assert ns["trust"] == pytest.approx(trust, abs=2e-3)
