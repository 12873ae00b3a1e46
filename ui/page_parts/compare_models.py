"""Compare models' Streamlit glue: model B's picker, both models' vectors through the shared store, and the cached
layer tables. The page only lays them out."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import streamlit as st

from bertviz_core.views.layer_matches import RESAMPLES
from bertviz_core.model.models import UNTRAINED_TWIN
from bertviz_core.runtime.store import digest
from ui.cached import corpus_lengths
from ui.display import cut_warning, literal, with_progress
from ui.picker import CUSTOM, allowed_models, get_encoder, load_or_remember_failure, model_choices
from ui.results import embed_corpus, model_of, shared

if TYPE_CHECKING:
    from bertviz_core.views.layer_matches import MatchEvidence
    from bertviz_core.views.model_comparison import LayerComparison
    from bertviz_core.model.models import ModelInfo

MODEL_B = "cm_model_b"
WORD_UNITS = 2_000  # words compared at the word level: the first texts' words up to this many


def model_b_choices() -> list[str]:
    """Model B's choices: the bundled model's untrained twin first (what pre-training built, offline), then the
    sidebar's choices, under the same BERTVIZ_MODELS allowlist, and a custom id or path where the server allows any."""
    allowed = allowed_models()
    return list(dict.fromkeys([UNTRAINED_TWIN, *model_choices(allowed), *([CUSTOM] if allowed is None else [])]))


def pick_model_b(device: str, container: Any) -> tuple[str, str] | None:
    """Model B's picker (bound to the link) and its loading; None, with the reason shown, while it cannot load."""
    choice = container.selectbox("Model B", model_b_choices(), key=MODEL_B, bind="query-params",
                                 help="Model A is the sidebar's model. The untrained twin is the bundled model's "
                                      "configuration with random weights: beside it, what pre-training built shows. "
                                      "The bundled model itself is the sanity view (a diagonal of 1). With a hub "
                                      "connection, try bert-base-uncased: 12 layers against the bundled model's 6, "
                                      "with the same vocabulary.")
    if choice == CUSTOM:
        choice = container.text_input("Model B: hub id or local folder", key=f"{MODEL_B}_custom",
                                      bind="query-params", placeholder="e.g. bert-base-uncased").strip()
        if not choice:
            st.info("Enter model B's hub id or folder, or choose one in the list.")
            return None
    wanted = (choice, device)
    try:
        with st.spinner(f"Loading model B, {choice}…"):
            load_or_remember_failure(wanted)
    except ValueError as err:
        st.error(f"Model B, {literal(choice)}, could not be loaded, so nothing is compared: {literal(str(err))}",
                 icon="⚠️")
        return None
    return wanted


def pooled_pair(key_a: tuple[str, str], key_b: tuple[str, str], texts: tuple[str, ...]) -> tuple[dict, dict]:
    """Both models' pooled vectors of the texts, {strategy: (n, layers+1 or 1, hidden)}, from the shared store."""
    return (with_progress("Model A", lambda progress: embed_corpus(key_a, texts, progress)),
            with_progress("Model B", lambda progress: embed_corpus(key_b, texts, progress)))


def aligned_pair(key_a: tuple[str, str], key_b: tuple[str, str],
                 texts: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, int, int, np.ndarray]:
    """Both models' word vectors of the first texts, up to ``WORD_UNITS`` words (``word_alignment.aligned_words``),
    from the shared store: A's (words, layers_a+1, d1), B's (words, layers_b+1, d2), the words left out as
    truncated, the texts read, and (words,) the text each word is in."""
    from bertviz_core.words.word_alignment import aligned_words

    def compute(progress: Any) -> dict[str, np.ndarray]:
        found = aligned_words(get_encoder(*key_a), get_encoder(*key_b), list(texts), progress, WORD_UNITS)
        return {"first": found.first, "second": found.second, "counts": np.array([found.left_out, found.texts_read]),
                "text_of": np.array([unit.text for unit in found.units], dtype=np.int64)}

    kept = with_progress("Both models, word by word", lambda progress: shared(
        ("aligned words", model_of(key_a), model_of(key_b), digest(texts), WORD_UNITS), lambda: compute(progress)))
    return kept["first"], kept["second"], int(kept["counts"][0]), int(kept["counts"][1]), kept["text_of"]


@st.cache_data(max_entries=32, show_spinner="Ranking every pair of texts in every layer (RSA)…")
def _rsa(models: tuple, corpus_id: str, strategy: str | None, level: str, _a: np.ndarray,
         _b: np.ndarray) -> pd.DataFrame:
    from bertviz_core.views.model_comparison import rsa_table

    return rsa_table(_a, _b, level)


@st.cache_data(max_entries=32, show_spinner="Comparing every layer of A with every layer of B…")
def layer_comparison(models: tuple, corpus_id: str, strategy: str | None, level: str, estimator: str,
                     _a: np.ndarray, _b: np.ndarray, left_out: int) -> LayerComparison:
    """Cached ``model_comparison.compare_layers`` of ``_a`` and ``_b``, which ``models`` (both identities),
    ``corpus_id``, ``strategy`` (None at the word level) and ``level`` name; RSA is kept across estimators."""
    from bertviz_core.views.model_comparison import compare_layers

    return compare_layers(_a, _b, estimator, level, left_out, _rsa(models, corpus_id, strategy, level, _a, _b))


@st.cache_data(max_entries=32, show_spinner=f"Recomputing CKA on {RESAMPLES} half-samples of the texts, to tell a "
                                            "best layer from noise…")
def match_evidence(models: tuple, corpus_id: str, strategy: str | None, level: str, _a: np.ndarray, _b: np.ndarray,
                   _text_of: np.ndarray | None) -> MatchEvidence:
    """Cached ``layer_matches.match_evidence`` of ``_a`` and ``_b`` (keyed as ``layer_comparison``), for both
    estimators at once, so that changing the estimator recomputes nothing."""
    from bertviz_core.views import layer_matches

    return layer_matches.match_evidence(_a, _b, level, _text_of)


@st.cache_data(max_entries=32, show_spinner=False)
def judged_matches(models: tuple, corpus_id: str, strategy: str | None, level: str, estimator: str, left_out: int,
                   _comparison: LayerComparison, _evidence: MatchEvidence) -> tuple[list[str], pd.DataFrame]:
    """Cached ``layer_matches.layer_story`` and ``best_matches`` of ``layer_comparison``'s result (keyed as it is)
    with ``match_evidence``'s: a page's rerun judges each layer against the noise once."""
    from bertviz_core.views import layer_matches

    return layer_matches.layer_story(_comparison, _evidence), layer_matches.best_matches(_comparison, _evidence)


def identities(key_a: tuple[str, str], key_b: tuple[str, str]) -> tuple:
    """What the two models' cached results are keyed by."""
    return model_of(key_a), model_of(key_b)


@st.cache_data(max_entries=16, show_spinner=False)
def _tokenization(models: tuple, corpus_id: str, key_a: tuple[str, str], key_b: tuple[str, str],
                  _texts: tuple[str, ...]) -> pd.DataFrame:
    from bertviz_core.views.model_comparison import tokenization_summary

    rows = {}
    for side, key in (("A", key_a), ("B", key_b)):
        model = get_encoder(*key)
        rows[f"model {side}: {model.info.name}"] = tokenization_summary(_texts, model.inputs(list(_texts)),
                                                                        model.tokenizer.unk_token)
    return pd.DataFrame(rows).T.reset_index(names="model")


def tokenization_table(key_a: tuple[str, str], key_b: tuple[str, str], texts: tuple[str, ...]) -> pd.DataFrame:
    """Both models' ``model_comparison.tokenization_summary`` of the corpus, a row each (cached)."""
    return _tokenization(identities(key_a, key_b), digest(texts), key_a, key_b, texts)


def comparison_code(info_a: ModelInfo, info_b: ModelInfo, corpus_code: str, level: str, strategy: str,
                    estimator: str) -> str:
    """The plain transformers and numpy code that reproduces the CKA table shown (``corpus_code``: the corpus'
    ``Corpus.code``)."""
    from bertviz_core import recipes
    from bertviz_core.views.model_comparison import ESTIMATORS
    from bertviz_core.measures.pooling import POOLINGS

    if level == "sentences":
        return recipes.compare_models(info_a, info_b, corpus_code, POOLINGS[strategy].code, ESTIMATORS[estimator])
    return recipes.compare_models_words(info_a, info_b, corpus_code, ESTIMATORS[estimator], WORD_UNITS)


def cut_warnings(key_a: tuple[str, str], key_b: tuple[str, str], texts: tuple[str, ...]) -> None:
    """What truncation cut, in one warning: two models may take different lengths (512 and 128 tokens, say), so
    one may see the whole of a text the other cuts; when both cut alike, it says so once."""
    from bertviz_core.model.lengths import cut_note

    notes = {}
    for side, key in (("A", key_a), ("B", key_b)):
        info = get_encoder(*key).info
        notes[f"Model {side} ({info.name})"] = cut_note(info.max_length,
                                                        corpus_lengths(key, digest(texts), texts).dropped)
    found = {name: note for name, note in notes.items() if note}
    if len(found) == 2 and len(set(found.values())) == 1:
        cut_warning(f"Both models: {next(iter(found.values()))}")
    else:
        cut_warning("\n\n".join(f"{literal(name)}: {note}" for name, note in found.items()) or None)
