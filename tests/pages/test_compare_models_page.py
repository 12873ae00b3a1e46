"""AppTest of the Compare models page: the bundled model against its untrained twin and against itself, at the
sentence and the word level, equal to the core on the same vectors; settings that run no model; bad input."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import canvas_heatmap, canvas_values, heatmap_range, drawn_title, open_page, table
from page_checks import LONG, PageChecks, choose, uploaded

from bertviz_core import BUNDLED_MODEL, Encoder, load_encoder
from bertviz_core.measures.cka import cka_matrix, rsa_matrix
from bertviz_core.views.layer_matches import RESAMPLES, best_matches, match_evidence
from bertviz_core.views.model_comparison import compare_layers
from bertviz_core.corpora import news_topics
from bertviz_core.model.models import UNTRAINED_TWIN
from bertviz_core.words.word_alignment import aligned_words

CHECKS = PageChecks(
    settings=(("radio", "cm_estimator", "debiased CKA"), ("selectbox", "cm_strategy", "max"),
              ("slider", "cm_layer_a", 2), ("slider", "cm_layer_b", 3), ("selectbox", "cm_query", 4)),
    timed_change=("estimator", "?cm_estimator=linear+CKA", choose("Estimator", ("debiased CKA", "linear CKA"))),
    long_text=(uploaded(("cm_source", "cm_upload"), "text\n" + "\n".join(
        [f"Short text number {i} here." for i in range(6)] + [LONG])),),
    uploader=("cm_source", "cm_upload"),
    shared_query="cm_model_b=all-MiniLM-L6-v2+%28bundled%29&cm_estimator=debiased+CKA&cm_strategy=cls"
                 "&cm_layer_a=3&cm_layer_b=2&cm_query=3.+Injuries+to+two+starting+defenders+have+left+the+coach+with+%E2%80%A6",
    extra_views=("cm_level=words",),
    visit=lambda words: {"cm_source": "Upload a CSV", "cm_upload": "text\n" + "\n".join(
        f"{words(10)}." for _ in range(40))},
)

PAGE = "pages/compare_models.py"


@pytest.fixture(scope="module")
def twin() -> Encoder:
    return load_encoder(UNTRAINED_TWIN, device="cpu")


heatmap = canvas_values


def title(at, key: str) -> str:  # noqa: ANN001
    """The chart's title as read, its wrapping undone."""
    title = drawn_title(at, key)
    return title if isinstance(title, str) else " ".join(title)


@pytest.mark.slow
def test_defaults_compare_the_bundled_model_with_its_untrained_twin(bundled: Encoder, twin: Encoder,
                                                                     news_pooled) -> None:  # noqa: ANN001
    at = open_page(PAGE)
    texts = list(news_topics()["text"])
    mine = twin.embed(texts, ["mean"])["mean"]
    assert title(at, "cm_cka") == f"linear CKA of mean-pooled sentence vectors, {len(texts)} texts"
    np.testing.assert_allclose(heatmap(at, "cm_cka"), cka_matrix(news_pooled["mean"], mine), atol=1e-5)
    np.testing.assert_allclose(heatmap(at, "cm_rsa"), rsa_matrix(news_pooled["mean"], mine), atol=1e-5)
    matches = table(at, "cm_matches")
    expected = best_matches(compare_layers(news_pooled["mean"], mine), match_evidence(news_pooled["mean"], mine))
    pd.testing.assert_frame_equal(matches.drop(columns="RSA"), expected.drop(columns="RSA"), atol=1e-5)
    story = " ".join(m.value for m in at.info)
    assert "A's last layer has no clear most alike layer in B" in story and "Layer for layer" in story
    assert f"{RESAMPLES} half-samples of the {len(texts)} texts" in story
    assert "all\\-MiniLM\\-L6\\-v2, untrained twin" in " ".join(c.value for c in at.caption)
    assert at.radio(key="cm_estimator").value == "linear CKA"


def test_the_model_against_itself_is_the_sanity_view(news_pooled) -> None:  # noqa: ANN001
    at = open_page(PAGE)
    at.selectbox(key="cm_model_b").set_value(BUNDLED_MODEL).run()
    assert not at.exception
    m = heatmap(at, "cm_cka")
    np.testing.assert_allclose(np.diag(m), 1.0, atol=1e-6)
    assert "The same model on both sides" in " ".join(x.value for x in at.info)


@pytest.mark.slow
def test_settings_change_the_view_without_running_a_model(model_calls: list[int]) -> None:
    at = open_page(PAGE)
    runs = len(model_calls)
    linear = heatmap(at, "cm_cka")
    for kind, key, value in CHECKS.settings:
        getattr(at, kind)(key=key).set_value(value).run()
        assert not at.exception, (key, at.exception)
    assert len(model_calls) == runs
    assert title(at, "cm_cka").startswith("debiased CKA of max-pooled")
    assert np.abs(heatmap(at, "cm_cka") - linear).max() > 0.01
    assert "layer 2" in title(at, "cm_sim_A") and "layer 3" in title(at, "cm_sim_B")


@pytest.mark.slow
def test_the_word_level_equals_the_aligned_word_vectors(bundled: Encoder, twin: Encoder) -> None:
    at = open_page(PAGE)
    at.radio(key="cm_level").set_value("words").run()
    assert not at.exception
    texts = list(news_topics()["text"])
    words = aligned_words(bundled, twin, texts, max_units=2_000)
    np.testing.assert_allclose(heatmap(at, "cm_cka"), cka_matrix(words.first, words.second), atol=1e-5)
    assert words.texts_read == len(texts) == 160 and len(words.units) < 2_000  # every word of the corpus
    assert title(at, "cm_cka") == (f"linear CKA of word vectors (each word's pieces averaged), "
                                   f"{len(words.units):,} words of all 160 texts")


def test_a_model_b_that_cannot_load_says_so(tmp_path) -> None:  # noqa: ANN001
    at = open_page(PAGE)
    at.selectbox(key="cm_model_b").set_value("Custom id or path…").run()
    at.text_input(key="cm_model_b_custom").set_value(str(tmp_path / "nowhere")).run()
    assert not at.exception
    assert "could not be loaded" in " ".join(e.value for e in at.error)
    assert not at.get("vega_lite_chart")  # no CKA heatmap


def test_few_texts_say_how_little_to_trust_the_values_and_negative_cka_shows() -> None:
    at = open_page(PAGE)
    uploaded(("cm_source", "cm_upload"), "text\n" + "\n".join(
        ["The bank raised rates.", "We sat by the river.", "The striker scored twice.", "Rain fell all day."]))(at)
    at.radio(key="cm_estimator").set_value("debiased CKA").run()
    assert not at.exception
    assert "Only 4 texts" in " ".join(m.value for m in at.info)
    (low, high), cka = heatmap_range(at, "cm_cka"), heatmap(at, "cm_cka")
    assert np.nanmin(cka) < 0 and low <= np.nanmin(cka) and high == 1


@pytest.mark.parametrize("rows, message", [(1, "at least 4"), (3, "at least 4")])
@pytest.mark.slow
def test_a_corpus_too_small_to_compare_says_so(rows: int, message: str) -> None:
    at = open_page(PAGE)
    uploaded(("cm_source", "cm_upload"), "text\n" + "\n".join(f"Sentence {i}." for i in range(rows)))(at)
    assert not at.exception
    shown = " ".join(m.value for m in [*at.error, *at.warning, *at.info])
    assert message in shown


@pytest.mark.slow
def test_models_with_different_lengths_each_say_what_they_cut(family_dirs) -> None:  # noqa: ANN001
    at = open_page(PAGE)
    uploaded(("cm_source", "cm_upload"), "text\n" + "\n".join(
        [f"Short text number {i} about the river bank." for i in range(5)] + [" ".join(["bank"] * 300)]))(at)
    at.selectbox(key="cm_model_b").set_value("Custom id or path…").run()
    at.text_input(key="cm_model_b_custom").set_value(str(family_dirs["bert"])).run()  # 128 positions
    assert not at.exception
    notes = [w.value for w in at.warning if "longer than the model's" in w.value]
    assert len(notes) == 1 and "Model B" in notes[0] and "128 tokens" in notes[0] and "Model A" not in notes[0]
    assert heatmap(at, "cm_cka").shape == (7, 3)  # A's 6 layers and embeddings, B's 2 and embeddings


COMMON = ("the", "river", "bank", "money", "water", "city", "people", "market", "game", "season", "coach", "rain")


@pytest.fixture(scope="module")
def long_models(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """Two tiny random BERTs that read 512 tokens, as the bundled model does, at a fraction of its cost."""
    from tiny_models import save_tiny_bert

    return tuple(str(save_tiny_bert(tmp_path_factory.mktemp(side), layers=3, positions=512)) for side in "ab")


def custom_models(at, first: str, second: str) -> None:  # noqa: ANN001
    """Model A (the sidebar's) and model B, each a folder."""
    at.sidebar.selectbox(key="model").set_value("Custom id or path…").run()
    at.sidebar.text_input(key="custom_model").set_value(first).run()
    at.selectbox(key="cm_model_b").set_value("Custom id or path…").run()
    at.text_input(key="cm_model_b_custom").set_value(second).run()


@pytest.mark.parametrize("texts", [1, 4, 40])
@pytest.mark.slow
def test_long_texts_at_the_word_level_are_compared_or_refused(long_models: tuple[str, str], texts: int) -> None:
    # Issue #52: texts of 600 words put every word compared into the first four, and the half-samples of texts
    # that tell a best layer from noise drew none of them: Streamlit's exception box.
    at = open_page(PAGE)
    if texts > 1:
        custom_models(at, *long_models)
        at.radio(key="cm_level").set_value("words").run()
    uploaded(("cm_source", "cm_upload"), "text\n" + "\n".join(
        " ".join(COMMON[(i + j) % len(COMMON)] for j in range(600)) for i in range(texts)))(at)
    assert not at.exception, at.exception
    if texts == 1:  # under the page's minimum, before any model run (the core's no-verdict case is in test_layer_matches)
        assert "at least 4" in " ".join(e.value for e in at.error)
        return
    story = " ".join(m.value for m in at.info)
    assert "half-samples of the first 4 texts, each with its first 125 words" in story, story
    assert len(table(at, "cm_matches")) == len(heatmap(at, "cm_cka")) == 4
