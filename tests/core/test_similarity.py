"""Centering, whitening and the random-pair baseline against direct numpy; the baseline band; a judged verdict's
tied cells are boxed where the table holds them."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from conftest import F32

from bertviz_core.measures.similarity import (
    CORRECTIONS,
    fit_correction,
    random_pair_baseline,
    similarity_matrix,
    top_positions,
)


@pytest.fixture
def corpus() -> np.ndarray:
    rng = np.random.default_rng(5)
    return rng.normal(size=(200, 16)) @ rng.normal(size=(16, 16)) + 20.0  # correlated and off-centre


def test_centering_subtracts_the_corpus_mean(corpus: np.ndarray) -> None:
    x = corpus[:5] * 2
    np.testing.assert_allclose(fit_correction("mean-centering", corpus)(x), x - corpus.mean(0))
    np.testing.assert_allclose(fit_correction("none", corpus)(x), x)


def test_whitening_matches_numpy_and_gives_identity_covariance(corpus: np.ndarray) -> None:
    whiten = fit_correction("whitening", corpus)
    z = whiten(corpus)
    np.testing.assert_allclose(np.cov(z.T), np.eye(16), atol=1e-8)
    centred = corpus - corpus.mean(0)
    values, vectors = np.linalg.eigh(np.cov(centred.T))
    values, vectors = values[::-1], vectors[:, ::-1]
    direct = centred @ vectors / np.sqrt(values)  # the same whitening, axes up to sign
    np.testing.assert_allclose(np.abs(z), np.abs(direct), atol=1e-8)
    top = fit_correction("whitening", corpus, axes=4)(corpus)
    assert top.shape == (200, 4)
    np.testing.assert_allclose(np.cov(top.T), np.eye(4), atol=1e-8)


def test_whitening_is_capped_at_the_rank_of_a_small_corpus() -> None:
    small = np.random.default_rng(6).normal(size=(10, 32))
    z = fit_correction("whitening", small)(small)
    assert z.shape == (10, 9) and np.isfinite(z).all()
    with pytest.raises(ValueError, match="at least two"):
        fit_correction("whitening", small[:1])
    with pytest.raises(ValueError, match=", ".join(CORRECTIONS)):
        fit_correction("pca", small)


def test_random_pair_baseline_is_every_pair_of_a_sample(corpus: np.ndarray) -> None:
    values = random_pair_baseline(corpus, rows=30, seed=1)
    pick = np.random.default_rng(1).permutation(200)[:30]
    full = similarity_matrix(corpus[pick])
    assert len(values) == 30 * 29 // 2
    np.testing.assert_allclose(np.sort(values), np.sort(full[np.triu_indices(30, 1)]))
    assert np.median(values) > 0.9  # off-centre vectors: anisotropic, every pair looks similar
    centred = random_pair_baseline(fit_correction("mean-centering", corpus)(corpus), rows=30, seed=1)
    assert abs(np.median(centred)) < 0.1


def test_baseline_band_and_share_below() -> None:
    from bertviz_core.measures.similarity import baseline_band, share_below

    baseline = np.arange(100, dtype=float)
    assert baseline_band(baseline) == pytest.approx((4.95, 49.5, 94.05), **F32)
    np.testing.assert_allclose(share_below(baseline, np.array([-1.0, 49.5, 200.0])), [0.0, 0.5, 1.0])


def test_top_positions_box_every_tied_cell_the_table_holds() -> None:
    from bertviz_core.measures import uncertainty

    scores = pd.DataFrame({"a": [0.5, 0.7], "b": [0.7 - 1e-9, 0.2]}, index=["x", "y"])
    resampling = uncertainty.bootstrap(40, "texts", 0.0, "0")
    noise = np.random.default_rng(0).normal(0, 0.05, size=len(resampling.indices()))
    replicates = {("x", "a"): 0.5 + noise, ("y", "a"): 0.7 + noise, ("x", "b"): 0.7 + noise[::-1], ("y", "b"): 0.2 + noise}
    tie = uncertainty.judge(scores, replicates, resampling, "score")
    assert tie.tie and set(tie.cells) == {("y", "a"), ("x", "b")}
    assert top_positions(tie, scores) == [(1, 0), (0, 1)] and top_positions(tie, scores[["a"]]) == [(1, 0)]
    assert top_positions(None, scores) == []
