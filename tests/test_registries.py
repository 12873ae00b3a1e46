"""Every entry of every registry against a direct numpy computation written here, by looping over the
registry: a new entry without a reference below fails, saying so. (Pooling strategies are checked
against plain transformers in core/test_pooling.py, the same way.)"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from bertviz_core.measures.similarity import CORRECTIONS, METRIC_IMPORTS, METRICS, fit_correction, similarity_matrix
from bertviz_core.words.word_vectors import SUBWORD_RULES, word_strategies
from bertviz_core.views.page_views import default_word_strategy

RNG = np.random.default_rng(11)
PIECES = RNG.normal(size=(7, 3, 5))  # one word: (layers+1, pieces, hidden)
WORDS = RNG.normal(size=(4, 7, 5))  # four words: (n, layers+1, hidden), a 6-layer model
X = RNG.normal(size=(6, 5))
CORPUS = RNG.normal(size=(300, 8)) @ RNG.normal(size=(8, 8)) + 5.0


def reference_for(registry: str, name: str, references: dict[str, Callable]) -> Callable:
    if name not in references:
        pytest.fail(f"{registry} entry {name!r} has no reference computation: add one to its dict in {__file__}.")
    return references[name]


SUBWORD_REFERENCE = {  # (layers+1, pieces, hidden) -> (layers+1, hidden)
    "mean": lambda p: p.sum(axis=1) / p.shape[1],
    "sum": lambda p: np.add.reduce(p, axis=1),
    "first": lambda p: p[:, 0, :],
    "last": lambda p: p[:, p.shape[1] - 1, :],
}


@pytest.mark.parametrize("name", list(SUBWORD_RULES))
def test_subword_rule(name: str) -> None:
    expect = reference_for("SUBWORD_RULES", name, SUBWORD_REFERENCE)(PIECES)
    np.testing.assert_allclose(SUBWORD_RULES[name].fn(PIECES), expect, atol=1e-12)


def word_reference(num_layers: int) -> dict[str, Callable]:
    """(n, layers+1, hidden) -> (n, dim), written out layer by layer."""
    last4 = range(max(1, num_layers - 3), num_layers + 1)
    return {
        "last layer": lambda v: v[:, num_layers],
        "second-to-last": lambda v: v[:, num_layers - 1],
        "sum of last 4": lambda v: sum(v[:, k] for k in last4),
        "concat of last 4": lambda v: np.hstack([v[:, k] for k in last4]),
        "mean of last 4": lambda v: sum(v[:, k] for k in last4) / len(last4),
        "sum of all layers": lambda v: sum(v[:, k] for k in range(1, num_layers + 1)),
        "embedding layer": lambda v: v[:, 0],
        **{f"layer {k}": (lambda v, k=k: v[:, k]) for k in range(num_layers + 1)},
    }


@pytest.mark.parametrize("num_layers", [6, 12])
def test_word_strategies(num_layers: int) -> None:
    words = RNG.normal(size=(3, num_layers + 1, 4))
    references = word_reference(num_layers)
    for name, strategy in word_strategies(num_layers).items():
        expect = reference_for("word_strategies", name, references)(words)
        np.testing.assert_allclose(strategy.fn(words), expect, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("num_layers", [1, 2, 6, 12])
def test_no_two_word_strategies_take_the_same_vectors(num_layers: int) -> None:
    """One thing, one name: a grid with a column per strategy shows no column twice under two names, and every
    layer is there under one name."""
    words = RNG.normal(size=(3, num_layers + 1, 4))
    strategies = word_strategies(num_layers)
    taken = {name: strategy.fn(words).tobytes() for name, strategy in strategies.items()}
    assert len(set(taken.values())) == len(taken), sorted(taken)
    assert {words[:, k].tobytes() for k in range(num_layers + 1)} <= set(taken.values())
    assert "layer 0" not in strategies and "embedding layer" in strategies and f"layer {num_layers}" not in strategies
    assert default_word_strategy(list(strategies)) < len(strategies)


METRIC_REFERENCE = {  # (n, d) -> (n, n), one pair at a time
    "cosine": lambda a, b: a @ b / np.sqrt((a @ a) * (b @ b)),
    "dot product": lambda a, b: float(np.sum(a * b)),
    "euclidean distance": lambda a, b: np.sqrt(np.sum((a - b) ** 2)),
}


@pytest.mark.parametrize("name", list(METRICS))
def test_metric(name: str) -> None:
    pair = reference_for("METRICS", name, METRIC_REFERENCE)
    expect = np.array([[pair(a, b) for b in X] for a in X])
    np.testing.assert_allclose(similarity_matrix(X, name), expect, atol=1e-10)
    namespace = {"vectors": X}
    exec(f"{METRIC_IMPORTS}\nmatrix = {METRICS[name].code}", namespace)  # noqa: S102 - the registry's own code
    np.testing.assert_allclose(namespace["matrix"], expect, atol=1e-10)


def _whiten(corpus: np.ndarray, axes: int | None) -> Callable[[np.ndarray], np.ndarray]:
    mean = corpus.mean(0)
    values, vectors = np.linalg.eigh(np.cov((corpus - mean).T))
    order = np.argsort(values)[::-1][:axes]
    return lambda x: (x - mean) @ vectors[:, order] / np.sqrt(values[order])


CORRECTION_REFERENCE = {  # fit(corpus, axes) -> transform
    "none": lambda corpus, axes: lambda x: x,
    "mean-centering": lambda corpus, axes: lambda x: x - corpus.mean(0),
    "whitening": _whiten,
}


@pytest.mark.parametrize("name", list(CORRECTIONS))
@pytest.mark.parametrize("axes", [None, 3])
def test_correction(name: str, axes: int | None) -> None:
    queries = CORPUS[:6] * 1.5
    expect = reference_for("CORRECTIONS", name, CORRECTION_REFERENCE)(CORPUS, axes)(queries)
    got = fit_correction(name, CORPUS, axes)(queries)
    np.testing.assert_allclose(np.abs(got), np.abs(expect), atol=1e-8)  # principal axes are defined up to sign
