"""The teaching panels' code, run as a reader would run it, reproduces the numbers the pages show."""
from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

from bertviz_core import Encoder, recipes
from bertviz_core.corpora import TUTORIAL, news_topics
from bertviz_core.pooling import POOLINGS
from bertviz_core.comparison import compare
from bertviz_core.similarity import CORRECTIONS, METRICS, fit_correction, similarity_matrix
from bertviz_core.word_vectors import SUBWORD_RULES, stack, word_strategies


def run(code: str) -> dict:
    """Execute a recipe in a fresh namespace, its prints swallowed; return its variables."""
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "<recipe>", "exec"), namespace)  # noqa: S102 - our own generated code
    return namespace


def test_tokenization_recipe(bundled: Encoder) -> None:
    ns = run(recipes.tokenization(bundled.info, TUTORIAL, "And a pair.", 40))
    df = bundled.tokenize(TUTORIAL, "And a pair.", pad_to=40)
    assert ns["encoded"]["input_ids"] == df["id"].tolist()
    assert ns["encoded"]["token_type_ids"] == df["segment"].tolist()
    assert ns["encoded"]["attention_mask"] == df["attention_mask"].tolist()


def test_layer_values_recipe(bundled: Encoder) -> None:
    ns = run(recipes.layer_values(bundled.info, TUTORIAL, token=5, layer=5))
    (encoding,) = bundled.encode([TUTORIAL])
    np.testing.assert_allclose(ns["vector"], encoding.hidden_states[5, 5], atol=1e-5)
    assert ns["counts"].sum() == 384 and len(ns["counts"]) == 200


@pytest.mark.parametrize(("strategy", "merge"), [("sum of last 4", "mean"), ("concat of last 4", "first"),
                                                 ("layer 2", "last"), ("sum of all layers", "sum")])
def test_word_similarity_recipe(bundled: Encoder, strategy: str, merge: str) -> None:
    texts = [TUTORIAL, "Word embeddings: embeddings everywhere."]
    for word in ("bank", "embeddings"):
        code = word_strategies(6)[strategy].code
        ns = run(recipes.word_similarity(bundled.info, texts, word, code, SUBWORD_RULES[merge].code))
        ours = word_strategies(6)[strategy].fn(stack(bundled.word_vectors(texts, word, merge)))
        np.testing.assert_allclose(np.stack(ns["vectors"]), ours, atol=1e-4)


@pytest.mark.parametrize("name", list(POOLINGS))
def test_pooling_and_compare_recipes(bundled: Encoder, name: str) -> None:
    texts = ["The cat sat on the mat.", "Stocks fell sharply today.", "A short one."]
    layer = 3 if POOLINGS[name].per_layer else None
    pooled = bundled.embed(texts, [name])[name][:, 0 if layer is None else layer]
    ns = run(recipes.sentence_pooling(bundled.info, texts, POOLINGS[name].code, layer))
    np.testing.assert_allclose(ns["vectors"], pooled, atol=1e-4)
    assert ns["coords"].shape == (3, 2)
    ns = run(recipes.compare_sentences(bundled.info, texts, POOLINGS[name].code, layer, "none"))
    np.testing.assert_allclose(ns["vectors"], pooled, atol=1e-4)


@pytest.mark.parametrize(("correction", "k"), [("mean-centering", None), ("whitening", None), ("whitening", 8)])
def test_corrected_compare_recipe(bundled: Encoder, correction: str, k: int | None) -> None:
    texts = ["what is your age?", "Today is monday", "How old are you?"]
    ns = run(recipes.compare_sentences(bundled.info, texts, POOLINGS["mean"].code, 5, correction, k))
    reference = bundled.embed(list(news_topics()["text"])[::2], ["mean"])["mean"][:, 5]
    ours = fit_correction(correction, reference, k)(bundled.embed(texts, ["mean"])["mean"][:, 5])
    np.testing.assert_allclose(np.abs(ns["vectors"]), np.abs(ours), atol=1e-3)  # whitening axes: up to sign


@pytest.mark.parametrize("metric", list(METRICS))
@pytest.mark.parametrize("correction", list(CORRECTIONS))
def test_the_compare_code_prints_the_matrix_shown_for_every_metric_and_correction(bundled: Encoder, metric: str,
                                                                                  correction: str) -> None:
    texts = ["what is your age?", "Today is monday", "How old are you?"]
    ns = run(recipes.compare_sentences(bundled.info, texts, POOLINGS["mean"].code, 5, correction, None, metric))
    reference = bundled.embed(list(news_topics()["text"]), ["mean"])["mean"][:, 5]
    shown = compare(bundled.embed(texts, ["mean"])["mean"][:, 5], reference, metric, correction).corrected
    np.testing.assert_allclose(ns["matrix"], shown, atol=1e-3)  # whitening's axis signs cancel in all three


@pytest.mark.parametrize("metric", list(METRICS))
def test_the_word_code_prints_the_matrix_shown_for_every_metric(bundled: Encoder, metric: str) -> None:
    texts = [TUTORIAL, "The bank was shut."]
    strategy = word_strategies(6)["sum of last 4"]
    ns = run(recipes.word_similarity(bundled.info, texts, "bank", strategy.code, SUBWORD_RULES["mean"].code, metric))
    shown = similarity_matrix(strategy.fn(stack(bundled.word_vectors(texts, "bank"))), metric)
    np.testing.assert_allclose(ns["matrix"], shown, atol=1e-3)
