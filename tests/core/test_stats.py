"""Layer statistics and the outlier rule against direct numpy on known inputs."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import F32

from bertviz_core import Encoder
from bertviz_core.measures import stats
from bertviz_core.corpora import TUTORIAL


@pytest.fixture
def states() -> np.ndarray:
    return np.random.default_rng(0).normal(size=(7, 10, 64)).astype(np.float32)  # (L+1, T, H)


def test_vector_stats_and_histogram(states: np.ndarray) -> None:
    v = states[5, 5]
    got = stats.vector_stats(v)
    assert got["min"] == pytest.approx(v.min(), **F32) and got["max"] == pytest.approx(v.max(), **F32)
    assert got["mean"] == pytest.approx(v.mean(), abs=1e-6) and got["std"] == pytest.approx(v.std(), rel=1e-5)
    assert got["l2_norm"] == pytest.approx(np.sqrt((v.astype(np.float64) ** 2).sum()), rel=1e-5)
    counts, edges = stats.histogram(v)
    assert len(counts) == 200 and len(edges) == 201 and counts.sum() == v.size
    assert edges[0] == pytest.approx(v.min(), **F32) and edges[-1] == pytest.approx(v.max(), **F32)


def test_layer_stats_match_numpy(states: np.ndarray) -> None:
    table = stats.layer_stats(states)
    assert table["layer"].tolist() == list(range(7))
    for layer in range(7):
        x = states[layer].astype(np.float64).ravel()
        centred = x - x.mean()
        excess = (centred ** 4).mean() / (centred ** 2).mean() ** 2 - 3
        row = table.iloc[layer]
        assert row["mean"] == pytest.approx(x.mean(), **F32) and row["std"] == pytest.approx(x.std(), **F32)
        assert row["min"] == pytest.approx(x.min(), **F32) and row["max"] == pytest.approx(x.max(), **F32)
        assert row["kurtosis"] == pytest.approx(excess, rel=1e-9)
        norms = np.sqrt((states[layer].astype(np.float64) ** 2).sum(axis=1))
        assert row["mean_l2_norm"] == pytest.approx(norms.mean(), **F32)
    one = stats.layer_stats(states, token=3)
    assert one["max"].tolist() == pytest.approx(states[:, 3].max(axis=1).tolist(), **F32)


def test_quantiles_and_norms(states: np.ndarray) -> None:
    q = stats.layer_quantiles(states, token=2)
    assert q["median"].tolist() == pytest.approx(np.median(states[:, 2], axis=1).tolist(), **F32)
    assert q["p99"].tolist() == pytest.approx(np.percentile(states[:, 2], 99, axis=1).tolist(), **F32)
    norms = stats.token_norms(states)
    assert norms.shape == (10, 7)
    assert norms[4, 6] == pytest.approx(np.linalg.norm(states[6, 4].astype(np.float64)), **F32)


def test_planted_outlier_dimension_is_found(states: np.ndarray) -> None:
    planted = states.copy()
    planted[2:, :, 17] = -9.0  # layers 2..6, every token: far outside N(0, 1)
    planted[3, :6, 40] = 8.0  # layer 3, 6 of 10 tokens
    planted[4, :3, 50] = 8.0  # layer 4, only 3 of 10 tokens: not "most tokens"
    found = stats.outlier_dimensions(planted, stats.OutlierRule(z=3.0, share=0.5))
    assert found["dimension"].tolist() == [17, 40]
    assert found.iloc[0]["layers"] == "2, 3, 4, 5, 6" and found.iloc[0]["n_layers"] == 5
    assert found.iloc[0]["mean_value"] == pytest.approx(-9.0, **F32)
    mask = stats.outlier_mask(planted, stats.OutlierRule(z=3.0, share=0.5))
    h = planted.astype(np.float64)
    z = np.abs(h - h.mean(axis=(1, 2), keepdims=True)) / h.std(axis=(1, 2), keepdims=True)
    np.testing.assert_array_equal(mask, (z > 3.0).mean(axis=1) > 0.5)
    lenient = stats.outlier_dimensions(planted, stats.OutlierRule(z=3.0, share=0.25))["dimension"].tolist()
    assert lenient[0] == 17 and set(lenient) == {17, 40, 50}  # 40 and 50 tie on n_layers
    assert stats.outlier_dimensions(states).empty  # pure noise has none


def test_the_rule_uses_its_threshold(states: np.ndarray) -> None:
    """A dimension planted between 3 and 4 standard deviations out is an outlier for z = 2.5 and 3, not for 4."""
    planted = states.astype(np.float64)
    planted[2, :, 9] = 3.6
    layer = planted[2]
    z = (layer[:, 9] - layer.mean()) / layer.std()
    assert ((z > 3) & (z < 4)).all()
    for threshold, expect in [(2.5, [9]), (3.0, [9]), (4.0, [])]:
        found = stats.outlier_dimensions(planted, stats.OutlierRule(z=threshold, share=0.5))
        assert found["dimension"].tolist() == expect, threshold
        assert found["layers"].tolist() == ["2"] * len(expect)


def test_constant_layer_has_no_outliers() -> None:
    flat = np.zeros((3, 4, 8), dtype=np.float32)
    assert stats.outlier_dimensions(flat).empty
    assert np.isfinite(stats.layer_stats(flat)[["mean", "std", "mean_l2_norm"]].to_numpy()).all()


def test_bundled_model_has_its_own_outlier_dimensions(bundled: Encoder) -> None:
    (encoding,) = bundled.encode([TUTORIAL])
    found = stats.outlier_dimensions(encoding.hidden_states)
    assert not found.empty and found["n_layers"].min() >= 1
    for d in found["dimension"]:
        assert stats.outlier_mask(encoding.hidden_states)[:, d].any()


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
