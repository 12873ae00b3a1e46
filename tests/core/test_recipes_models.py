"""The Compare models recipes (bertviz_core.recipes.models) run as a reader would run them, and give the page's
matrices: the bundled model against its untrained twin at the sentence level, and a WordPiece against a byte-level
BPE model at the word level, with each estimator."""
from __future__ import annotations

import numpy as np
import pytest
from model_family import SENTENCES
from recipe_runs import run

from bertviz_core import Encoder, load_encoder, recipes
from bertviz_core.measures.cka import cka_matrix
from bertviz_core.views.model_comparison import LAYER_STRATEGIES
from bertviz_core.model.models import UNTRAINED_TWIN
from bertviz_core.measures.pooling import POOLINGS
from bertviz_core.words.word_alignment import aligned_words

TEXTS = ["The bank raised its rates.", "We sat on the river bank.", "A café in Zürich serves crème brûlée.",
         "Don't split well-known words!", "The vault was open all night.", "Rain fell on the quiet town."]


@pytest.mark.parametrize("debiased", [False, True])
@pytest.mark.slow
def test_the_sentence_recipe_gives_the_pages_matrix(bundled: Encoder, debiased: bool) -> None:
    twin = load_encoder(UNTRAINED_TWIN, device="cpu")
    code = recipes.compare_models(bundled.info, twin.info, f"texts = {TEXTS!r}\n", POOLINGS["max"].code, debiased)
    expected = cka_matrix(bundled.embed(TEXTS, ["max"])["max"], twin.embed(TEXTS, ["max"])["max"], debiased)
    np.testing.assert_allclose(run(code)["matrix"], expected, atol=1e-5)


@pytest.mark.parametrize("strategy", LAYER_STRATEGIES)
@pytest.mark.slow
def test_the_sentence_recipe_gives_the_pages_matrix_for_every_pooling(bundled: Encoder, strategy: str) -> None:
    twin = load_encoder(UNTRAINED_TWIN, device="cpu")
    code = recipes.compare_models(bundled.info, twin.info, f"texts = {TEXTS!r}\n", POOLINGS[strategy].code, False)
    expected = cka_matrix(bundled.embed(TEXTS, [strategy])[strategy], twin.embed(TEXTS, [strategy])[strategy])
    found = run(code)["matrix"]
    shown = np.isfinite(expected)  # the page leaves a constant layer's cells blank; the recipe prints NaN or noise
    assert shown.sum() >= expected.size - 2 * expected.shape[0]
    np.testing.assert_allclose(found[shown], expected[shown], atol=1e-5)


@pytest.mark.parametrize("debiased", [False, True])
def test_the_word_recipe_gives_the_pages_matrix(family_encoders: dict[str, Encoder], debiased: bool) -> None:
    bert, roberta = family_encoders["bert"], family_encoders["roberta"]
    texts = [*SENTENCES[4:8], " ".join(["alpha"] * 300) + " omega."]  # the last one truncated by both
    code = recipes.compare_models_words(bert.info, roberta.info, f"texts = {texts!r}\n", debiased, 20)
    words = aligned_words(bert, roberta, texts, max_units=20)
    assert words.left_out == 0 and len(words.units) >= 20 and words.texts_read < len(texts)
    np.testing.assert_allclose(run(code)["matrix"], cka_matrix(words.first, words.second, debiased), atol=1e-5)
    full = aligned_words(bert, roberta, texts)
    assert full.left_out > 0
    code = recipes.compare_models_words(bert.info, roberta.info, f"texts = {texts!r}\n", debiased, 10_000)
    np.testing.assert_allclose(run(code)["matrix"], cka_matrix(full.first, full.second, debiased), atol=1e-5)


@pytest.mark.parametrize("measure", ["macro-F1", "silhouette"])  # accuracy differs from macro-F1 by its scoring name
@pytest.mark.slow
def test_the_which_model_recipe_gives_the_leaderboards_scores(bundled: Encoder, measure: str) -> None:
    from bertviz_core.corpora import news_topics
    from bertviz_core.model_choice import rank_models

    news = news_topics().iloc[::4]  # 40 texts, 10 a topic: five folds
    texts, labels = list(news["text"]), list(news["label"])
    twin = load_encoder(UNTRAINED_TWIN, device="cpu")
    cells = {bundled.info.name: (bundled, [("mean", 3), ("cls", 6)]), "twin": (twin, [("mean", 3), ("max", 0)])}
    code = recipes.which_model({name: (enc.info, chosen) for name, (enc, chosen) in cells.items()},
                               f"texts, labels = {texts!r}, {labels!r}\n", measure, 5)
    vectors = {}
    for name, (enc, chosen) in cells.items():
        pooled = enc.embed(texts, sorted({s for s, _ in chosen}))
        vectors[name] = {(s, layer): pooled[s][:, layer] for s, layer in chosen}
    table = rank_models(vectors, labels=labels, measure=measure).table
    found = run(code)
    assert set(found["scores"]) == set(zip(table.model, table.strategy, table.layer))
    for row in table.itertuples():
        assert found["scores"][(row.model, row.strategy, row.layer)] == pytest.approx(row.score, abs=1e-5)
    for name in cells:  # the leaderboard: each model's best cell
        best = table[table.model == name].iloc[0]
        assert found["leaderboard"][name][:2] == (best.strategy, best.layer)


@pytest.mark.parametrize("correction", ["none", "whitening"])
@pytest.mark.slow
def test_the_which_model_recipe_gives_every_models_spearman_scores(bundled: Encoder, correction: str) -> None:
    from bertviz_core.corpora import sentence_pairs
    from bertviz_core.measures.task_measures import check_pairs
    from bertviz_core.model_choice import rank_models
    from bertviz_core.views.which_model import pairs_corpus

    pairs = check_pairs(sentence_pairs())
    texts, first, second, gold = pairs_corpus(pairs)
    twin = load_encoder(UNTRAINED_TWIN, device="cpu")
    cells = {bundled.info.name: (bundled, [("mean", 3), ("cls", 6)]), "twin": (twin, [("mean", 6), ("max", 0)])}
    columns = pairs[["sentence1", "sentence2", "score"]].to_dict("list")
    corpus = f"import pandas as pd\npairs = pd.DataFrame({columns!r})\n"
    code = recipes.which_model({name: (enc.info, chosen) for name, (enc, chosen) in cells.items()}, corpus,
                               "spearman", 0, correction)
    vectors = {}
    for name, (enc, chosen) in cells.items():
        pooled = enc.embed(texts, sorted({s for s, _ in chosen}))
        vectors[name] = {(s, layer): pooled[s][:, layer] for s, layer in chosen}
    table = rank_models(vectors, pairs=(first, second, gold), measure="spearman", correction=correction).table
    found = run(code)
    assert set(found["scores"]) == set(zip(table.model, table.strategy, table.layer))
    for row in table.itertuples():  # every model's every cell
        assert found["scores"][(row.model, row.strategy, row.layer)] == pytest.approx(row.score, abs=1e-5)
    for name in cells:  # the leaderboard: each model's best cell
        best = table[table.model == name].iloc[0]
        assert found["leaderboard"][name][:2] == (best.strategy, best.layer)
