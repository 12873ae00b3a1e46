"""Centering, whitening and the random-pair baseline against direct numpy; the baseline band; verdicts need a
margin and report ties."""
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
    verdict,
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


def test_baseline_band_share_below_and_verdict() -> None:
    import pandas as pd

    from bertviz_core.measures.similarity import baseline_band, share_below, verdict

    baseline = np.arange(100, dtype=float)
    assert baseline_band(baseline) == pytest.approx((4.95, 49.5, 94.05), **F32)
    np.testing.assert_allclose(share_below(baseline, np.array([-1.0, 49.5, 200.0])), [0.0, 0.5, 1.0])
    grid = pd.DataFrame([[0.1, np.nan], [0.7, 0.3]])
    assert verdict(grid, margin=0.01).cells == [("1", "0")]  # NaN ignored
    assert verdict(pd.DataFrame([[np.nan]]), 0.01) is None and verdict(pd.DataFrame(), 0.01) is None


def test_a_verdict_needs_a_margin_and_reports_ties() -> None:
    scores = pd.DataFrame({"a": [0.5, 0.7], "b": [0.7 - 1e-9, 0.2]}, index=["x", "y"])
    tie = verdict(scores, margin=0.005)
    assert tie.tie and set(tie.cells) == {("y", "a"), ("x", "b")} and tie.lead == pytest.approx(0.2, **F32)
    assert top_positions(tie, scores) == [(0, 1), (1, 0)]
    best = verdict(scores.assign(b=[0.6, 0.2]), margin=0.005)
    assert not best.tie and best.cells == [("y", "a")] and best.lead == pytest.approx(0.1, **F32)
    assert np.isnan(verdict(pd.DataFrame({"a": [1.0, 1.0]}), margin=0.01).lead)  # all tie: nothing behind
    assert verdict(pd.DataFrame({"a": [np.nan]}), margin=0.01) is None
