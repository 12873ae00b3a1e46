"""Which of B's layers is most like each of A's (bertviz_core.views.layer_matches): a best named only beyond the noise
of half-samples of the texts, with its interval, count and chance; constructed cases whose answer is known."""
from __future__ import annotations

import numpy as np
import pytest

import bertviz_core.views.layer_matches as lm
from bertviz_core.measures.cka import cka_matrix
from bertviz_core.views.model_comparison import compare_layers

RNG = np.random.default_rng(3)
TEXTS = 120


def models(copies: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """A (120, 3, 16) of noise; B (120, 4, 16): layer 2 (and, with copies 2, layer 3 too) A's last layer rotated,
    plus a little noise; the other B layers noise."""
    a = RNG.normal(size=(TEXTS, 3, 16))
    b = RNG.normal(size=(TEXTS, 4, 16))
    rotation = np.linalg.qr(RNG.normal(size=(16, 16)))[0]
    for layer in range(2, 2 + copies):
        b[:, layer] = a[:, 2] @ rotation + 0.3 * RNG.normal(size=(TEXTS, 16))
    return a, b


@pytest.mark.parametrize("estimator", ["linear CKA", "debiased CKA"])
def test_a_layer_clearly_ahead_is_named_with_its_interval_count_and_chance(estimator: str) -> None:
    a, b = models()
    comparison, evidence = compare_layers(a, b, estimator), lm.match_evidence(a, b)
    last = lm.best_matches(comparison, evidence).iloc[-1]
    assert last["most alike B layer"] == "B 2" and last["within the noise"] == "B 2"
    assert last["CKA"] == pytest.approx(comparison.cka.iat[2, 2])
    assert last["95% interval from"] < last["CKA"] < last["95% interval to"]
    assert last["chance (random pairing)"] < last["95% interval from"]
    story = lm.layer_story(comparison, evidence)[0]
    assert story.startswith(f"A's last layer is most like B's layer 2 ({estimator} {last['CKA']:.2f}")
    assert f"{lm.RESAMPLES} half-samples of the {TEXTS} texts" in story and "beyond the noise" in story


def test_two_layers_that_hold_the_same_vectors_give_no_clear_best() -> None:
    a, b = models(copies=2)
    b[:, 3] = b[:, 2]  # two B layers alike: neither can lead the other
    comparison, evidence = compare_layers(a, b), lm.match_evidence(a, b)
    last = lm.best_matches(comparison, evidence).iloc[-1]
    assert last["most alike B layer"] == "no clear best"
    assert set(last["within the noise"].split(", ")) == {"B 2", "B 3"}
    assert "no clear most alike layer in B: layers 2, 3 are within the noise" in lm.layer_story(comparison,
                                                                                                 evidence)[0]


def test_unrelated_layers_score_chance_and_no_best() -> None:
    a, b = RNG.normal(size=(TEXTS, 2, 16)), RNG.normal(size=(TEXTS, 3, 16))
    comparison, evidence = compare_layers(a, b, "debiased CKA"), lm.match_evidence(a, b)
    matches = lm.best_matches(comparison, evidence)
    assert (matches["most alike B layer"] == "no clear best").all()
    assert (evidence.chance["debiased CKA"] == 0).all() and (evidence.chance["linear CKA"] > 0.05).all()
    assert "not clearly above that" in lm.layer_story(comparison, evidence)[0]


def test_replicates_centre_on_the_value_of_all_texts_and_spread_like_a_bootstrap() -> None:
    a, b = models()
    evidence = lm.match_evidence(a, b)
    for name, debiased in lm.ESTIMATORS.items():
        found = evidence.replicates[name]
        assert found.shape == (lm.RESAMPLES, 3, 4)
        np.testing.assert_allclose(found.mean(axis=0), cka_matrix(a, b, debiased), atol=1e-10)
    # half-samples without replacement spread as the whole sample's estimate does: their spread matches that of
    # CKA over fresh draws of the same model's texts, within a factor of 2
    fresh = [cka_matrix(*models())[2, 2] for _ in range(40)]
    ratio = evidence.replicates["linear CKA"][:, 2, 2].std() / np.std(fresh)
    assert 0.5 < ratio < 2.0


def test_words_are_resampled_with_their_whole_text_and_capped_at_whole_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = models()
    text_of = np.repeat(np.arange(40), 3)  # 40 texts of 3 words
    seen = {}

    def capture(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> dict:
        seen["weights"] = weights
        return {debiased: np.repeat(cka_matrix(x, y, debiased)[None], len(weights), axis=0)
                for debiased in (False, True)}

    monkeypatch.setattr(lm, "cka_replicates", capture)
    monkeypatch.setattr(lm, "ROWS", 50)
    evidence = lm.match_evidence(a, b, "words", text_of)
    assert (evidence.rows, evidence.texts, evidence.of_rows, evidence.of_texts) == (48, 16, 120, 40)
    weights = seen["weights"]
    assert weights.shape == (lm.RESAMPLES, 48)
    assert (weights.reshape(lm.RESAMPLES, 16, 3).std(axis=2) == 0).all()  # a text's words in or out together
    assert (weights.sum(axis=1) == 8 * 3).all()  # half of the 16 texts, each with its 3 words
    assert "half-samples of the first 16 texts (48 of 120 words)" in lm.layer_story(
        compare_layers(a, b, level="words"), evidence)[0]


WORDS_READ = 510  # words a 512-token model reads of a text of 600 one-piece words
WORD_UNITS = 2_000  # the words Compare models compares at most, the first texts' (ui.page_parts.compare_models)


@pytest.mark.parametrize("texts", [1, 4, 40])
def test_long_texts_at_the_word_level_are_resampled_or_said_too_few(texts: int) -> None:
    # Issue #52: texts of 600 words put every word compared into the first text or four, and whole texts up to ROWS
    # rows were one text, whose half is none: "Every resample must draw at least one row".
    text_of = np.repeat(np.arange(texts), WORDS_READ)[:WORD_UNITS]
    a, b = RNG.normal(size=(len(text_of), 3, 16)), RNG.normal(size=(len(text_of), 4, 16))
    b[:, 2] = a[:, 2] + 0.3 * RNG.normal(size=(len(text_of), 16))
    comparison = compare_layers(a, b, level="words")
    evidence = lm.match_evidence(a, b, "words", text_of)
    story, matches = lm.layer_story(comparison, evidence), lm.best_matches(comparison, evidence)
    assert len(matches) == 3
    if texts == 1:
        assert evidence.texts == 1 and np.isnan(evidence.replicates["linear CKA"]).all()
        assert story[0].startswith("Every word compared is in one text") and "no layer is named" in story[0]
        assert (matches["most alike B layer"] == "no clear best").all()
        return
    per_text = -(-lm.ROWS // 4)
    assert (evidence.texts, evidence.per_text, evidence.rows) == (4, per_text, 4 * per_text)  # within ROWS
    assert np.isfinite(evidence.replicates["linear CKA"]).all()
    assert f"half-samples of the first 4 texts, each with its first {per_text} words" in story[0]
    assert matches.iloc[-1]["most alike B layer"] in ("B 2", "no clear best")
