"""Cached core calls: each wraps one bertviz_core function in a bounded ``st.cache_data``.

Small results (a token table, a grid cell, a map) live here, keyed by the model and a content digest;
the large ones (encodings, pooled corpora, token indexes) live in ``ui.results``' shared store.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import streamlit as st

from bertviz_core.model.lengths import Lengths
from bertviz_core.runtime.store import digest as corpus_digest
from bertviz_core.words.word_vectors import Occurrence, occurrences

from ui.picker import get_encoder
from ui.results import encode_texts, takes_handed

if TYPE_CHECKING:  # imported where used: scikit-learn and plotly would add most of a second to the first page
    from bertviz_core.views.comparison import Comparison
    from bertviz_core.model.encoding import Encoding
    from bertviz_core.measures.masked import MaskLens, Masks
    from bertviz_core.measures.neighbours import Contextuality
    from bertviz_core.model.token_index import TokenIndex
    from bertviz_core.measures.pooling_grid import Cell, CellResult, SeparationScores
    from bertviz_core.measures.task_measures import ProbePlan, ProbeScore
    from bertviz_core.model_choice import Scoring



@st.cache_data(max_entries=4, show_spinner=False)
def vocabulary(key: tuple[str, str]) -> pd.DataFrame:
    """Cached ``vocab.vocabulary_table`` of the model's tokenizer: id, token, kind."""
    from bertviz_core.words.vocab import vocabulary_table

    return vocabulary_table(get_encoder(*key).tokenizer)


@st.cache_data(max_entries=64, show_spinner=False)
def masks(key: tuple[str, str], text: str) -> Masks:
    """Cached ``masked.masks``: where a text's masks are, or ValueError saying what to change."""
    from bertviz_core.measures.masked import masks as find

    return find(get_encoder(*key), text)


@st.cache_data(max_entries=32, show_spinner="Loading the masked-language-model head and running the model…")
def masked_lens(key: tuple[str, str], text: str, hidden_ids: tuple[int | None, ...]) -> list[MaskLens]:
    """Cached ``masked.logit_lens`` at its largest k, so a smaller k or another layer is read from it."""
    from bertviz_core.measures.masked import MAX_TOP_K, logit_lens

    return logit_lens(get_encoder(*key), text, MAX_TOP_K, hidden_ids)


@st.cache_data(max_entries=64, show_spinner=False)
def neighbour_summary(key: tuple[str, str], corpus_id: str, sentence: str, token: int, k: int, metric: str,
                      word: str, _index: TokenIndex, _states: np.ndarray) -> pd.DataFrame:
    """Cached ``similar_contexts.layer_summary`` of one token of ``sentence`` (``_states``, its hidden states (layers+1,
    tokens, hidden), which the page reads from the shared store on every run, so that a setting change finds
    them there or recomputes them before, never inside, this call) over the corpus ``corpus_id`` (the sentence
    itself left out of it)."""
    from bertviz_core.measures.neighbours import own_sentences
    from bertviz_core.views.similar_contexts import layer_summary

    return layer_summary(_index, _states[:, token], word, k, metric, own_sentences(_index.texts, sentence))


@st.cache_data(max_entries=16, show_spinner="Measuring how contextual each layer is…")
@takes_handed  # the warm-up hands its worker's result here (ui.warm)
def corpus_contextuality(key: tuple[str, str], corpus_id: str, _index: TokenIndex) -> Contextuality:
    """Cached ``neighbours.contextuality`` of the corpus ``corpus_id``."""
    from bertviz_core.measures.neighbours import contextuality

    return contextuality(_index)


@st.cache_data(max_entries=64, show_spinner=False)
def word_contextuality(key: tuple[str, str], corpus_id: str, word: str, _index: TokenIndex,
                       _corpus: Contextuality) -> pd.DataFrame:
    """Cached ``neighbours.word_contextuality`` of ``word`` in the corpus ``corpus_id`` (``_corpus``, its
    ``corpus_contextuality``): about 10-20 ms on the built-in corpus, on every rerun of Similar contexts before."""
    from bertviz_core.measures.neighbours import word_contextuality as measured

    return measured(_index, word, _corpus)


def word_occurrences(key: tuple[str, str], texts: tuple[str, ...], word: str, subword: str) -> list[Occurrence]:
    """Occurrences of ``word`` from the shared encodings: a new word or rule runs no model."""
    return _occurrences(key, corpus_digest(texts), word, subword, encode_texts(key, texts))


@st.cache_data(max_entries=64, show_spinner=False)
def _occurrences(key: tuple[str, str], texts_id: str, word: str, subword: str,
                 _encodings: list[Encoding]) -> list[Occurrence]:
    return occurrences(_encodings, word, subword)


@st.cache_data(max_entries=64, show_spinner=False)
def tokenize_text(key: tuple[str, str], text: str, text_pair: str | None, pad_to: int | None) -> pd.DataFrame:
    """Cached ``Encoder.tokenize``."""
    return get_encoder(*key).tokenize(text, text_pair, pad_to)


@st.cache_data(max_entries=64, show_spinner=False)
def annotated_tokens(key: tuple[str, str], text: str, text_pair: str | None, pad_to: int | None) -> pd.DataFrame:
    """Cached ``tokens.annotate_tokens`` of ``tokenize_text``, pieces named by the model's own scheme."""
    from bertviz_core.words.tokens import annotate_tokens, token_scheme

    continuation = token_scheme(get_encoder(*key).tokenizer).continuation
    return annotate_tokens(tokenize_text(key, text, text_pair, pad_to), text, text_pair, continuation)


@st.cache_data(max_entries=64, show_spinner=False)
def token_highlight(key: tuple[str, str], text: str, text_pair: str | None, pad_to: int | None,
                    sequence: int) -> str:
    """Cached ``tokens.highlight_html`` of ``annotated_tokens``: the text (``sequence`` 0) or the pair's second
    (1) with each token's span shaded."""
    from bertviz_core.words.tokens import highlight_html

    shown = text if sequence == 0 else text_pair
    return highlight_html(annotated_tokens(key, text, text_pair, pad_to), shown or "", get_encoder(*key).tokenizer.unk_token,
                          sequence)


@st.cache_data(max_entries=16, show_spinner="Counting tokens…")
def corpus_lengths(key: tuple[str, str], corpus_id: str, _texts: tuple[str, ...]) -> Lengths:
    """``Encoder.lengths`` of a corpus (tokenizing only, no model run), keyed by its digest ``corpus_id``."""
    return Lengths.of(get_encoder(*key).lengths(list(_texts)))


@st.cache_data(max_entries=16, show_spinner=False)
def parse_pairs(data: bytes) -> pd.DataFrame:
    """Cached ``corpora.read_pairs`` of an uploaded file's bytes."""
    from bertviz_core.corpora import read_pairs

    return read_pairs(data)


@st.cache_data(max_entries=512, show_spinner=False)
@takes_handed  # the warm-up hands its worker's result here (ui.warm)
def pooling_cell(key: tuple[str, str], corpus_id: str, labels_id: str | None, cell: Cell,
                 _pooled: dict[str, np.ndarray], _labels: list[str] | None) -> CellResult:
    """Cached ``pooling_grid.score_cell`` of one (strategy, layer) of a pooled corpus.

    Keyed by content digests (``corpus_id``, ``labels_id``, None when unscored) computed once per run:
    hashing the vectors or labels on every call of a 20-panel grid would cost more than the lookup saves.
    """
    from bertviz_core.measures.pooling_grid import cell_vectors, score_cell

    return score_cell(cell_vectors(_pooled, cell), _labels if labels_id else None)


@st.cache_data(max_entries=256, show_spinner=False)
def pooling_cells(key: tuple[str, str], corpus_id: str, labels_id: str | None, cells: tuple[Cell, ...],
                  _pooled: dict[str, np.ndarray], _labels: list[str] | None) -> list[CellResult]:
    """``pooling_cell`` of each of ``cells``, in order, in one lookup: a grid of 20 panels redrawn made 20, each
    hashing its arguments and reading the function's signature (half of Sentence pooling's script on a change)."""
    return [pooling_cell(key, corpus_id, labels_id, cell, _pooled, _labels) for cell in cells]


@st.cache_data(max_entries=2048, show_spinner=False)
@takes_handed  # the warm-up hands its worker's result here (ui.warm)
def probe_cell(key: tuple[str, str], corpus_id: str, labels_id: str, cell: Cell, _pooled: dict[str, np.ndarray],
               _labels: list[str], _plan: ProbePlan) -> ProbeScore:
    """Cached ``task_measures.probe`` of one (strategy, layer) of a pooled corpus, keyed as ``pooling_cell``."""
    from bertviz_core.measures.pooling_grid import cell_vectors
    from bertviz_core.measures.task_measures import probe

    return probe(cell_vectors(_pooled, cell), _labels, _plan)


@st.cache_data(max_entries=512, show_spinner=False)
def map_cell(key: tuple[str, str], corpus_id: str, cell: Cell, projection: str,
             _pooled: dict[str, np.ndarray]) -> tuple[np.ndarray, float]:
    """Cached ``projection.project`` of one cell: its (n, 2) map and trustworthiness."""
    from bertviz_core.measures.pooling_grid import cell_vectors
    from bertviz_core.measures.projection import project

    return project(projection, cell_vectors(_pooled, cell))


@st.cache_data(max_entries=64, show_spinner=False)
def correlation_scores(key: tuple[str, str], pairs_id: str, correction: str, cells: tuple[Cell, ...],
                       _first: dict[str, np.ndarray], _second: dict[str, np.ndarray],
                       _gold: tuple[float, ...], _reference_rows: list[int]) -> SeparationScores:
    """Cached Spearman correlations of every cell of scored pairs, judged on a bootstrap of the pairs
    (``task_measures.correlation_grid``)."""
    from bertviz_core.measures.task_measures import correlation_grid

    return correlation_grid(cells, _first, _second, _gold, correction, _reference_rows)


@st.cache_data(max_entries=64, show_spinner=False)
def compared(key: tuple[str, str], texts_id: str, strategy: str, layer: int | None, metric: str, correction: str,
             axes: int | None, _sentences: np.ndarray, _reference: np.ndarray) -> Comparison:
    """Cached ``comparison.compare`` of the texts ``texts_id`` pooled by ``strategy`` at ``layer`` (the
    reference corpus is fixed, so the model and those settings name it): fits the correction once per setting."""
    from bertviz_core.views.comparison import compare

    return compare(_sentences, _reference, metric, correction, axes)


@st.cache_data(max_entries=64, show_spinner=False)
def token_neighbours(key: tuple[str, str], corpus_id: str, sentence: str, token: int, layer: int, k: int,
                     metric: str, _index: TokenIndex, _states: np.ndarray) -> pd.DataFrame:
    """Cached ``neighbours.nearest_tokens`` of one token of ``sentence`` (``_states``, as in
    ``neighbour_summary``) at ``layer``, in context (``similar_contexts.in_context``), over the corpus ``corpus_id``
    with the sentence itself left out of it."""
    from bertviz_core.measures.neighbours import nearest_tokens, own_sentences
    from bertviz_core.views.similar_contexts import in_context

    found = nearest_tokens(_index, _states[layer, token], layer, k, metric, own_sentences(_index.texts, sentence))
    return in_context(found, _index.texts)


@st.cache_data(max_entries=64, show_spinner=False)
def sentence_neighbours(key: tuple[str, str], corpus_id: str, sentence: str, strategy: str, layer: int | None,
                        k: int, metric: str, _pooled: dict[str, np.ndarray], _texts: tuple[str, ...],
                        _query: dict[str, np.ndarray]) -> pd.DataFrame:
    """Cached ``neighbours.nearest_sentences`` of ``sentence`` (``_query``, its pooled vectors, read by the page
    from the shared store on every run, as in ``neighbour_summary``) over the corpus ``corpus_id`` (``_texts``,
    pooled as ``_pooled``), the sentence itself left out, with each neighbour's text."""
    from bertviz_core.measures.neighbours import nearest_sentences, own_sentences

    near = nearest_sentences(_pooled, _query, strategy, layer, k, metric, own_sentences(_texts, sentence))
    return near.assign(text=[_texts[s] for s in near["sentence"]])


@st.cache_data(max_entries=64, show_spinner=False)
def task_scoring(measure: str, n: int, labels: tuple[str, ...] | None = None,
                 pairs: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None, correction: str = "none") -> Scoring:
    """Cached ``model_choice.scoring``: how Which model? scores ``measure`` on ``n`` texts with ``labels`` or
    ``pairs`` (its folds or resamples, the same for every model), or ValueError saying what to change."""
    from bertviz_core.model_choice import scoring

    return scoring(measure, n, labels, pairs, correction)
