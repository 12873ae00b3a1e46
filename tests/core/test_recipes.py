"""The teaching panels' code, run as a reader would run it, reproduces the numbers the pages show: on the
bundled model, and every recipe on every model of the model-family fixture (tests/model_family.py). The
masked-LM recipes' family loop is in core/test_masked.py."""
from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from conftest import BASE_NAMES, assert_top_k, token_rows
from model_family import SENTENCES
from recipe_runs import run

from bertviz_core import Encoder, recipes
from bertviz_core.measures.attention import head_statistics, mean_weights, rollout, statistic_grid, token_roles
from bertviz_core.corpora import TUTORIAL, news_topics
from bertviz_core.measures.neighbours import contextuality, nearest_sentences, nearest_tokens, own_sentences, word_contextuality
from bertviz_core.measures.pooling import POOLINGS, supported_strategies
from bertviz_core.views.comparison import compare
from bertviz_core.views.page_views import default_word_strategy
from bertviz_core.measures.projection import project
from bertviz_core.measures.similarity import CORRECTIONS, METRICS, fit_correction, similarity_matrix
from bertviz_core.measures.task_measures import correlation, distinct_rows, probe, probe_plan
from bertviz_core.model.token_index import token_index
from bertviz_core.words.word_vectors import SUBWORD_RULES, stack, word_strategies


def test_tokenization_recipe(bundled: Encoder) -> None:
    ns = run(recipes.tokenization(bundled.info, TUTORIAL, "And a pair.", 40))
    df = bundled.tokenize(TUTORIAL, "And a pair.", pad_to=40)
    assert ns["encoded"]["input_ids"] == df["id"].tolist()
    assert ns["segments"] == ns["encoded"]["token_type_ids"] == df["segment"].tolist()
    assert ns["encoded"]["attention_mask"] == df["attention_mask"].tolist()


def test_layer_values_recipe(bundled: Encoder) -> None:
    ns = run(recipes.layer_values(bundled.info, TUTORIAL, token=5, layer=5))
    (encoding,) = bundled.encode([TUTORIAL])
    np.testing.assert_allclose(ns["vector"], encoding.hidden_states[5, 5], atol=1e-5)
    assert ns["counts"].sum() == 384 and len(ns["counts"]) == 200


@pytest.mark.parametrize(("strategy", "merge"), [("sum of last 4", "mean"), ("concat of last 4", "first"),
                                                 ("layer 2", "last"), ("sum of all layers", "sum")])
@pytest.mark.slow
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


@pytest.fixture(scope="module")
def half_news_mean(bundled: Encoder) -> np.ndarray:
    """Every other text of the built-in corpus, mean-pooled at every layer: (80, layers+1, hidden), embedded once."""
    return bundled.embed(list(news_topics()["text"])[::2], ["mean"])["mean"]


@pytest.fixture(scope="module")
def questions_mean(bundled: Encoder) -> np.ndarray:
    """QUESTIONS mean-pooled at every layer, embedded once for the compare recipes' cases."""
    return bundled.embed(QUESTIONS, ["mean"])["mean"]


QUESTIONS = ["what is your age?", "Today is monday", "How old are you?"]


@pytest.mark.parametrize(("correction", "k"), [("mean-centering", None), ("whitening", None), ("whitening", 8)])
@pytest.mark.slow
def test_corrected_compare_recipe(bundled: Encoder, half_news_mean: np.ndarray, questions_mean: np.ndarray,
                                  correction: str, k: int | None) -> None:
    texts = QUESTIONS
    ns = run(recipes.compare_sentences(bundled.info, texts, POOLINGS["mean"].code, 5, correction, k))
    reference = half_news_mean[:, 5]
    ours = fit_correction(correction, reference, k)(questions_mean[:, 5])
    np.testing.assert_allclose(np.abs(ns["vectors"]), np.abs(ours), atol=1e-3)  # whitening axes: up to sign


@pytest.mark.parametrize("metric", list(METRICS))
@pytest.mark.parametrize("correction", list(CORRECTIONS))
@pytest.mark.slow
def test_the_compare_code_prints_the_matrix_shown_for_every_metric_and_correction(
        bundled: Encoder, news_pooled: dict[str, np.ndarray], questions_mean: np.ndarray, metric: str,
        correction: str) -> None:
    texts = QUESTIONS
    ns = run(recipes.compare_sentences(bundled.info, texts, POOLINGS["mean"].code, 5, correction, None, metric))
    reference = news_pooled["mean"][:, 5]
    shown = compare(questions_mean[:, 5], reference, metric, correction).corrected
    np.testing.assert_allclose(ns["matrix"], shown, atol=1e-3)  # whitening's axis signs cancel in all three


@pytest.mark.parametrize("metric", list(METRICS))
def test_the_word_code_prints_the_matrix_shown_for_every_metric(bundled: Encoder, metric: str) -> None:
    texts = [TUTORIAL, "The bank was shut."]
    strategy = word_strategies(6)["sum of last 4"]
    ns = run(recipes.word_similarity(bundled.info, texts, "bank", strategy.code, SUBWORD_RULES["mean"].code, metric))
    shown = similarity_matrix(strategy.fn(stack(bundled.word_vectors(texts, "bank"))), metric)
    np.testing.assert_allclose(ns["matrix"], shown, atol=1e-3)


# ---- every recipe on every model of the model-family fixture --------------------------------------------------
# Words the tokenizers split differently (accents, an apostrophe, capitals, punctuation against a word).
FAMILY_TEXTS = ["The bank by the river was muddy.", "Bank!", "A café in Zürich, by the bank; the BANK's vault.",
                "Spring water flows in spring; the spring broke."]
PAIR = ("The bank by the river.", "She went to the bank.")
LONG = " ".join(["The bank by the river was muddy after the rain."] * 30)  # past every fixture model's limit
ATOL = 1e-5  # float32: the recipe runs one text at a time, the core pads texts into batches
LABELS = ["bank" if "bank" in text.lower() else "other" for text in SENTENCES]  # two classes of 8 texts
# Pairs of the fixture's sentences with made-up gold scores, all distinct so the ranks are fixed.
GOLD = [0.5, 4.0, 1.5, 3.0, 2.5, 1.0, 3.5, 2.0]
PAIRS_CODE = ("import pandas as pd\n"
              f"pairs = pd.DataFrame({{'sentence1': {list(SENTENCES[0::2])!r},\n"
              f"                      'sentence2': {list(SENTENCES[1::2])!r}, 'score': {GOLD!r}}})\n")


@cache
def news_reference(encoder: Encoder) -> np.ndarray:
    """The built-in corpus' mean vectors at the last layer, which the corrections are fitted on: once per model."""
    return encoder.embed(list(news_topics()["text"]), ["mean"])["mean"][:, encoder.info.num_layers]


@pytest.mark.parametrize("name", BASE_NAMES)
def test_the_tokenization_recipe_on_every_model(family_encoders: dict[str, Encoder], name: str) -> None:
    """Ids, the segments the model sees (none where it has no segment embeddings or its tokenizer gives none)
    and the mask, padded, paired and cut at the model's usable length."""
    enc = family_encoders[name]
    for text, pair, pad_to in ((FAMILY_TEXTS[2], None, 40), (*PAIR, None), (LONG, None, None)):
        ns = run(recipes.tokenization(enc.info, text, pair, pad_to))
        df = enc.tokenize(text, pair, pad_to=pad_to)
        assert ns["encoded"]["input_ids"] == df["id"].tolist()
        assert ns["segments"] == df["segment"].tolist()
        assert ns["encoded"]["attention_mask"] == df["attention_mask"].tolist()
    assert ns["uses_segments"] == enc.uses_segments


@pytest.mark.parametrize("name", BASE_NAMES)
def test_the_hidden_states_and_layer_values_recipes_on_every_model(family_encoders: dict[str, Encoder],
                                                                   name: str) -> None:
    enc = family_encoders[name]
    for text in (FAMILY_TEXTS[2], LONG):
        ns = run(recipes.layer_values(enc.info, text, token=3, layer=enc.info.num_layers))
        (encoding,) = enc.encode([text])
        np.testing.assert_allclose(ns["states"].numpy(), encoding.hidden_states, atol=ATOL)
        np.testing.assert_allclose(ns["vector"], encoding.hidden_states[-1, 3], atol=ATOL)
        assert ns["counts"].sum() == enc.info.hidden_size


@pytest.mark.parametrize("name", BASE_NAMES)
def test_the_word_similarity_recipe_on_every_model(family_encoders: dict[str, Encoder], name: str) -> None:
    """A word's pieces found by their characters, the space SentencePiece and byte-level tokenizers count in
    a word's first piece trimmed: every occurrence, merged, combined and compared as the page does."""
    enc = family_encoders[name]
    strategies = word_strategies(enc.info.num_layers)  # the fixture's models have 1 or 2 layers
    strategy = list(strategies.values())[default_word_strategy(list(strategies))]  # the page's first
    for word, merge, metric in (("bank", "mean", "cosine"), ("zürich", "last", "dot product"),
                                ("spring", "first", "euclidean distance")):
        ns = run(recipes.word_similarity(enc.info, FAMILY_TEXTS, word, strategy.code, SUBWORD_RULES[merge].code,
                                         metric))
        ours = strategy.fn(stack(enc.word_vectors(FAMILY_TEXTS, word, merge)))
        np.testing.assert_allclose(ns["vectors"], ours, atol=ATOL)
        np.testing.assert_allclose(ns["matrix"], similarity_matrix(ours, metric), atol=1e-4)  # sums of 32 products


@pytest.mark.parametrize("name", BASE_NAMES)
def test_the_pooling_recipes_on_every_model(family_encoders: dict[str, Encoder], name: str) -> None:
    """Every pooling strategy the model supports (the pooler only where its checkpoint has one)."""
    enc = family_encoders[name]
    texts = FAMILY_TEXTS[:3]
    pooled = enc.embed(texts)
    for strategy in supported_strategies(enc.info.has_pooler):
        layer = 1 if POOLINGS[strategy].per_layer else None
        ns = run(recipes.sentence_pooling(enc.info, texts, POOLINGS[strategy].code, layer))
        np.testing.assert_allclose(ns["vectors"], POOLINGS[strategy].at(pooled[strategy], layer), atol=ATOL)


@pytest.mark.parametrize("name", BASE_NAMES)
@pytest.mark.slow
def test_the_compare_recipe_on_every_model(family_encoders: dict[str, Encoder], name: str) -> None:
    enc = family_encoders[name]
    last = enc.info.num_layers
    texts = FAMILY_TEXTS[:3]
    sentences = enc.embed(texts, ["mean"])["mean"][:, last]
    # Whitening on 8 axes: on all 32 it would include the one direction a LayerNorm's outputs never vary in (its
    # normalised values sum to zero), of variance ~1e-13, and scale float32 noise up by some 1e6 there.
    for correction, axes, metric in (("none", None, "cosine"), ("mean-centering", None, "dot product"),
                                     ("whitening", 8, "cosine")):
        ns = run(recipes.compare_sentences(enc.info, texts, POOLINGS["mean"].code, last, correction, axes, metric))
        shown = compare(sentences, news_reference(enc), metric, correction, axes).corrected
        np.testing.assert_allclose(ns["matrix"], shown, atol=1e-4)  # sums of 32 products


@pytest.mark.parametrize("name", BASE_NAMES)
def test_the_attention_recipe_on_every_model(family_encoders: dict[str, Encoder], name: str) -> None:
    enc = family_encoders[name]
    layer = enc.info.num_layers
    for text, pair in ((FAMILY_TEXTS[2], None), PAIR):
        ns = run(recipes.attention(enc.info, text, pair, layer, [1, 3], 2))
        (weights,) = enc.attentions([text], None if pair is None else [pair])
        np.testing.assert_allclose(ns["weights"].numpy(), mean_weights(weights, [layer - 1], [0, 2]), atol=ATOL)
        np.testing.assert_allclose(ns["from_token"].numpy(), rollout(weights)[:, 2], atol=ATOL)
        frame = head_statistics(weights, token_roles(ns["tokens"], enc.tokenizer.cls_token, enc.tokenizer.sep_token))
        np.testing.assert_allclose(ns["cls_share"].numpy(), statistic_grid(frame, "[CLS]").to_numpy(), atol=ATOL)
        np.testing.assert_allclose(ns["entropy"].numpy(), statistic_grid(frame, "entropy").to_numpy(), atol=1e-4)


def cosines(candidates: np.ndarray, query: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """Each candidate's cosine to ``query`` in float64, NaN where not ``allowed``: (candidates,)."""
    c, q = candidates.astype(np.float64), query.astype(np.float64)
    return np.where(allowed, c @ q / (np.linalg.norm(c, axis=1) * np.linalg.norm(q)), np.nan)


@pytest.mark.parametrize("name", BASE_NAMES)
def test_the_similar_contexts_recipe_on_every_model(family_encoders: dict[str, Encoder], name: str) -> None:
    """The token index with each token's word found by its characters, the neighbours, the nearest sentences and
    the measures, on the fixture's sentences (the query among them, so left out)."""
    enc = family_encoders[name]
    texts, sentence = list(SENTENCES), SENTENCES[0]
    index = token_index(enc, texts)
    (query,) = enc.encode([sentence])
    token = enc.word_vectors([sentence], "bank")[0].positions[0]
    own = own_sentences(texts, sentence)
    layers = (enc.info.num_layers, 1)  # not layer 0: models without position embeddings tie a word's copies there
    ns = run(recipes.similar_contexts(enc.info, sentence, token, f"texts = {texts!r}\n", layers, 5, "cosine", "bank",
                                      POOLINGS["mean"].code, layers[0]))
    assert [(s, w, start) for s, w, start in ns["where"]] == list(
        index.tokens[["sentence", "key", "word_start"]].itertuples(index=False, name=None))
    for layer in set(layers):
        found = nearest_tokens(index, query.hidden_states[layer, token], layer, 5, "cosine", own)
        ours = cosines(index.vectors[layer], query.hidden_states[layer, token], ns["allowed"])
        theirs = cosines(ns["index"][layer], ns["query"][layer], ns["allowed"])  # the recipe's rows are the index's
        # Each side's picks are the other's top 5: the recipe runs on the CPU and the encoder maybe on a GPU, whose
        # float32 differences can round a float16 index value to its neighbour and so swap near-ties.
        assert_top_k(token_rows(index.tokens, found), found["score"], theirs, atol=1e-4)
        assert_top_k(list(ns["neighbours"][layer]), ours[ns["neighbours"][layer]], ours, atol=1e-4)
    near = nearest_sentences(enc.embed(texts, ["mean"]), enc.embed([sentence], ["mean"]), "mean", layers[0], 5,
                             "cosine", own)
    assert [int(s) for s in ns["nearest_sentences"]] == near["sentence"].tolist()
    corpus = contextuality(index)
    row = corpus.table.merge(word_contextuality(index, "bank", corpus), on="layer").iloc[layers[0]]
    vectors, apart = ns["vectors"], ns["apart"]
    # 1e-4: the index is float16, and a float32 difference of 1e-7 can round a value to its neighbour
    assert (vectors @ vectors.T)[apart].mean() == pytest.approx(row["self-similarity of “bank”"], abs=1e-4)
    assert ns["intra_sentence"] == pytest.approx(row["intra-sentence similarity"], abs=1e-4)
    assert ns["baseline"] == pytest.approx(row["anisotropy baseline"], abs=1e-4)


@pytest.mark.parametrize("name", BASE_NAMES)
@pytest.mark.slow
def test_the_task_measure_recipes_on_every_model(family_encoders: dict[str, Encoder], name: str) -> None:
    """The probe, the pair correlation (raw and whitened) and the map's trustworthiness, on the fixture's sentences."""
    enc = family_encoders[name]
    layer = enc.info.num_layers
    corpus_code = f"texts, labels = {list(SENTENCES)!r}, {LABELS!r}\n"
    vectors = enc.embed(list(SENTENCES), ["mean"])["mean"][:, layer]
    plan = probe_plan(LABELS)
    ns = run(recipes.probe(enc.info, corpus_code, POOLINGS["mean"].code, layer, plan.folds))
    score = probe(vectors, LABELS, plan)
    assert ns["accuracy"] == pytest.approx(score.accuracy, abs=ATOL)
    assert ns["macro_f1"] == pytest.approx(score.macro_f1, abs=ATOL)
    first, second = vectors[0::2], vectors[1::2]
    for correction in ("none", "whitening"):
        ns = run(recipes.correlation(enc.info, PAIRS_CODE, POOLINGS["mean"].code, layer, correction))
        expected = correlation(first, second, GOLD, correction, distinct_rows([*SENTENCES[0::2], *SENTENCES[1::2]]))
        assert ns["rho"] == pytest.approx(expected, abs=ATOL)
    ns = run(recipes.projection_map(enc.info, corpus_code, POOLINGS["mean"].code, layer, "PCA"))
    assert ns["trust"] == pytest.approx(project("PCA", vectors)[1], abs=ATOL)
