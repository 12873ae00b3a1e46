"""Verdicts that depend on the uncertainty (issue #26 part 2): a best is named only when it is ahead of every
other cell beyond the noise of paired folds or bootstrap resamples; otherwise "no clear best on N texts".
Each verdict carries its count, method, interval and chance level; intervals cover; results are seeded."""
from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr
from sklearn.metrics import roc_auc_score

from bertviz_core.measures import uncertainty
from bertviz_core.measures.pooling_grid import Cell, cell_vectors, score_cell, silhouette_grid
from bertviz_core.measures.similarity import sense_scores, sense_verdict
from bertviz_core.measures.task_measures import agreement, correlation, correlation_grid, probe, probe_chance, probe_grid, probe_plan
from bertviz_core.measures.uncertainty import Scored


def labelled_layers(texts: int, classes: int, strength: dict[int, float], seed: int = 0,
                    near_copy: float | None = None) -> tuple[dict, list[str]]:
    """Noise at 4 layers (texts, 4, 16); the classes are pushed apart by ``strength[layer]`` at those layers.
    With ``near_copy``, layer 3 is layer 2 plus noise of that spread: the two differ by less than the noise."""
    rng = np.random.default_rng(seed)
    labels = [str(i % classes) for i in range(texts)]
    layers = rng.normal(size=(texts, 4, 16))
    for layer, push in strength.items():
        layers[:, layer, :classes] += push * np.eye(classes)[[int(label) for label in labels]]
    if near_copy is not None:
        layers[:, 3] = layers[:, 2] + near_copy * rng.normal(size=(texts, 16))
    return {"mean": layers}, labels


CELLS = [Cell("mean", layer) for layer in range(4)]


def grids(pooled: dict, labels: list[str]) -> tuple:
    plan = probe_plan(labels)
    probed = {cell: probe(cell_vectors(pooled, cell), labels, plan) for cell in CELLS}
    return (probe_grid(CELLS, probed, labels, plan),
            silhouette_grid(CELLS, lambda cell: score_cell(cell_vectors(pooled, cell), labels)))


def test_two_cells_within_the_noise_give_no_clear_best_with_the_count() -> None:
    pooled, labels = labelled_layers(24, 3, {2: 2.0}, near_copy=0.3)  # layer 3: layer 2, slightly shaken
    probe_scores, silhouettes = grids(pooled, labels)
    for scores, method in ((probe_scores, "5 folds"), (silhouettes, "1,000 bootstrap resamples of the texts")):
        top = scores.verdict
        assert top.clear is False and top.tie and top.n == 24 and top.method == method
        assert {("mean", "layer 2"), ("mean", "layer 3")} <= set(top.cells)
        assert top.sentence.startswith("No clear best on 24 texts") and method in top.sentence
        assert "Chance:" in top.sentence and "Best" not in top.sentence
    said = agreement(probe_scores.verdict, silhouettes.verdict, "probe accuracy", "silhouette")
    assert "no clear best on 24 texts" in said and "is on top by both" not in said


def test_a_large_corpus_with_a_real_difference_names_its_best() -> None:
    pooled, labels = labelled_layers(160, 4, {2: 3.0, 1: 0.5})
    for scores in grids(pooled, labels):
        top = scores.verdict
        assert top.clear and top.cells == [("mean", "layer 2")] and top.n == 160
        assert top.sentence.startswith(f"Best {scores.measure} on 160 texts: **mean at layer 2**")
        assert top.interval[0] <= top.value <= top.interval[1] and top.above_chance


def test_pairs_too_few_for_a_difference_and_enough_for_one() -> None:
    rng = np.random.default_rng(3)

    def pairs(n: int, noise: dict[int, float]) -> tuple:
        gold = rng.uniform(0, 5, n)
        first, second = rng.normal(size=(n, 4, 8)), rng.normal(size=(n, 4, 8))
        angle = (1 - gold / 5) * np.pi / 2
        for layer, spread in noise.items():  # pair i at an angle whose cosine is gold / 5, plus noise
            first[:, layer] = np.eye(8)[0] + spread * first[:, layer]
            second[:, layer] = (np.outer(np.cos(angle), np.eye(8)[0]) + np.outer(np.sin(angle), np.eye(8)[1])
                                + spread * second[:, layer])
        return {"mean": first}, {"mean": second}, gold

    first, second, gold = pairs(25, {2: 0.5, 3: 0.52})
    top = correlation_grid(CELLS, first, second, gold).verdict
    assert not top.clear and top.sentence.startswith("No clear best on 25 pairs (Spearman ρ)")
    assert top.value == pytest.approx(max(correlation(first["mean"][:, c], second["mean"][:, c], gold) for c in (2, 3)))
    first, second, gold = pairs(200, {2: 0.05, 3: 0.6})
    top = correlation_grid(CELLS, first, second, gold, "mean-centering").verdict
    assert top.clear and top.cells == [("mean", "layer 2")] and "200 pairs" in top.sentence
    assert "Spearman ρ after mean-centering" in top.sentence and top.chance == 0


@pytest.mark.slow
def test_chance_levels() -> None:
    labels = ["a"] * 6 + ["b"] * 3 + ["c"] * 3 + ["lonely"]  # the single-text class is not probed
    plan = probe_plan(labels)
    assert probe_chance(labels, plan)[0] == pytest.approx(0.5)
    assert probe_chance(labels, plan, "macro-F1")[0] == pytest.approx(2 * 0.5 / 1.5 / 3)
    pooled, labels = labelled_layers(24, 3, {2: 1.0})
    assert grids(pooled, labels)[0].verdict.chance == pytest.approx(1 / 3)
    assert grids(pooled, labels)[1].verdict.chance == 0 and "about 0" in grids(pooled, labels)[1].verdict.chance_wording
    senses = ["bank"] * 5 + ["river"] * 5
    vectors = np.random.default_rng(0).normal(size=(10, 3, 8))
    for score, chance in (("auc", 0.5), ("gap", 0.0)):
        top = sense_verdict({"mean": vectors}, {"layer 1": lambda v: v[..., 1, :]}, senses, score)
        assert top.chance == chance and "10 labelled occurrences" in top.sentence and "45 pairs" in top.sentence


def test_the_difference_is_paired() -> None:
    noise = np.random.default_rng(0).normal(size=1000)  # shared by both cells: the same resamples
    scores = pd.DataFrame({"layer 1": [0.51, 0.50]}, index=["mean", "max"])
    reps = {("mean", "layer 1"): 0.51 + noise, ("max", "layer 1"): 0.50 + noise}
    resampling = uncertainty.bootstrap(30, "texts", 0.0, "0")
    paired = uncertainty.judge(scores, reps, resampling, "score")
    assert paired.clear and paired.cells == [("mean", "layer 1")]  # each interval is wide, their difference is not
    unpaired = {**reps, ("max", "layer 1"): 0.50 + np.random.default_rng(1).normal(size=1000)}
    assert not uncertainty.judge(scores, unpaired, resampling, "score").clear


def test_cells_that_differ_by_float_rounding_tie() -> None:
    # mean and mean_sqrt_len have the same cosine silhouette; float32 vectors make their per-text values differ by
    # ~1e-8, always the same way, which a paired bootstrap would otherwise call a clear lead
    noise = np.random.default_rng(0).normal(size=1000)
    scores = pd.DataFrame({"layer 3": [0.21, 0.21 - 3e-8]}, index=["mean", "mean_sqrt_len"])
    reps = {("mean", "layer 3"): 0.21 + noise, ("mean_sqrt_len", "layer 3"): 0.21 - 3e-8 + noise}
    top = uncertainty.judge(scores, reps, uncertainty.bootstrap(160, "texts", 0.0, "0"), "score")
    assert not top.clear and top.cells == [("mean", "layer 3"), ("mean_sqrt_len", "layer 3")]


def test_intervals_cover() -> None:
    rng = np.random.default_rng(7)
    truth, hits_t, hits_boot = 6 / np.pi * np.arcsin(0.3), 0, 0  # Spearman's rho of normals correlated 0.6
    indices = uncertainty.bootstrap_indices(60, 500)
    for _ in range(120):
        x = rng.multivariate_normal([0, 0], [[1, 0.6], [0.6, 1]], size=60)
        low, high = uncertainty.interval(uncertainty.spearman_replicates(x[:, 0], x[:, 1], indices), "bootstrap")
        hits_boot += low <= truth <= high
        low, high = uncertainty.interval(rng.normal(0.7, 0.05, size=5), "folds")
        hits_t += low <= 0.7 <= high
    assert hits_boot / 120 >= 0.85 and hits_t / 120 >= 0.88


def test_replicates_of_the_identity_resample_are_the_point_scores() -> None:
    rng = np.random.default_rng(2)
    x, gold = rng.normal(size=30), rng.normal(size=30)
    one = np.arange(30)[None]
    assert uncertainty.spearman_replicates(x, gold, one)[0] == pytest.approx(spearmanr(x, gold).statistic)
    senses = ["a", "b", "a", "c", "b", "a", "c", "c"]
    vectors = rng.normal(size=(8, 4)).round(1)
    first, second = np.triu_indices(8, k=1)
    sims = (vectors @ vectors.T / np.outer(*[np.linalg.norm(vectors, axis=1)] * 2))[first, second]
    same = np.array(senses)[first] == np.array(senses)[second]
    got = {score: uncertainty.pair_replicates(sims, same, first, second, np.arange(8)[None], score)[0]
           for score in ("auc", "gap")}
    assert got["auc"] == pytest.approx(roc_auc_score(same, sims)) == pytest.approx(sense_scores(vectors, senses)["auc"])
    assert got["gap"] == pytest.approx(sense_scores(vectors, senses)["gap"])


def test_seeded_and_reproducible() -> None:
    np.testing.assert_array_equal(uncertainty.bootstrap_indices(40),
                                  np.random.default_rng(0).integers(0, 40, size=(1000, 40)))
    pooled, labels = labelled_layers(24, 3, {2: 1.0, 3: 1.0})
    first, again = grids(pooled, labels), grids(pooled, labels)
    for one, two in zip(first, again):
        assert one.verdict == two.verdict or one.verdict.sentence == two.verdict.sentence
        for key, reps in one.replicates.items():
            np.testing.assert_array_equal(reps, two.replicates[key])
    folds = first[0].replicates[("mean", "layer 2")]
    assert len(folds) == 5 and folds.mean() == pytest.approx(first[0].per_layer.loc["mean", "layer 2"])


@pytest.mark.slow
def test_a_whole_task_measures_grid_gets_a_verdict() -> None:
    rng = np.random.default_rng(0)
    labels = [str(i % 4) for i in range(160)]
    pooled = {s: rng.normal(size=(160, 13, 384)) for s in ("mean", "cls", "max")}
    cells = [Cell(s, layer) for s in pooled for layer in range(13)]
    results = {cell: score_cell(cell_vectors(pooled, cell), labels) for cell in cells}  # the page caches these
    gold = rng.uniform(0, 5, 160)
    # 39 cells of 160 texts, as the page judges them (its time is bench-latency's to measure, not a test's)
    assert silhouette_grid(cells, results.__getitem__).verdict is not None
    assert correlation_grid(cells, pooled, {s: v[::-1] for s, v in pooled.items()}, gold).verdict is not None


def test_a_cell_without_replicates_is_never_a_clear_best() -> None:
    scores = pd.DataFrame({"layer 1": [0.9, 0.1]}, index=["mean", "max"])
    top = uncertainty.judge(scores, {("mean", "layer 1"): np.full(1, np.nan)}, uncertainty.bootstrap(9, "texts", 0, "0"),
                            "score")
    assert not top.clear and "No clear best on 9 texts" in top.sentence
    assert Scored(0.5).replicates.shape == (1,)


def test_a_fold_interval_stays_within_the_scores_range() -> None:
    scores = pd.DataFrame({"layer 1": [0.99], "layer 2": [0.5]}, index=["mean"])
    replicates = {("mean", "layer 1"): np.array([1.0, 1.0, 0.95, 1.0, 1.0]),
                  ("mean", "layer 2"): np.array([0.5, 0.45, 0.55, 0.5, 0.5])}
    top = uncertainty.judge(scores, replicates, uncertainty.folds(40, 5, "texts", 0.25, "the majority rate"),
                            "probe accuracy")
    assert top.clear and 0.0 <= top.interval[0] <= top.interval[1] == 1.0
