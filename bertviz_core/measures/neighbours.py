"""Similar contexts: a corpus' token index (``token_index``) and pooled sentences searched by similarity, and how
contextual each layer is (Ethayarajh 2019, "How Contextual are Contextualized Word Representations?"). What the page
shows of a search (contexts, the share of same-word neighbours) is ``views.similar_contexts``.

Every score is computed in float32 from the index's float16 values.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

import bertviz_core.checks as checks
from bertviz_core.measures.pooling import vectors_at
from bertviz_core.measures.similarity import METRICS
from bertviz_core.model.token_index import TokenIndex, check_index

MIN_CONTEXTS = 5  # a word counts in the corpus' self-similarity when it occurs in this many sentences, as in the paper
BASELINE_PAIRS = 2000  # random token pairs behind the anisotropy baseline
MIN_TEXTS = 2  # sentences a corpus needs: other contexts, and random pairs for the baseline


def _top(scores: np.ndarray, k: int, similar_high: bool, allowed: np.ndarray | None = None) -> np.ndarray:
    """Indices of the ``k`` best scores among the ``allowed`` ones (a boolean mask; None = all), best first;
    equal scores keep corpus order."""
    order = np.argsort(-scores if similar_high else scores, kind="stable")
    return (order if allowed is None else order[allowed[order]])[:k]


def own_sentences(texts: Sequence[str], sentence: str) -> list[int]:
    """The corpus sentences that are ``sentence`` itself (spaces around it ignored): left out of its
    neighbours, where they would only find the query again."""
    texts, wanted = checks.strings(texts, "texts"), checks.text(sentence, "The sentence").strip()
    return [i for i, text in enumerate(texts) if text.strip() == wanted]


def scores_against(candidates: np.ndarray, query: np.ndarray, metric: str) -> np.ndarray:
    """``metric`` between each row of ``candidates`` (n, dim) and ``query`` (dim,), in float32: (n,)."""
    candidates = checks.numbers(candidates, "candidates", "(n, dim)", min_rows=0)
    return _scores(candidates, checks.vector(query, "The query vector", candidates.shape[1]), metric)


def _scores(candidates: np.ndarray, query: np.ndarray, metric: str) -> np.ndarray:
    """``scores_against`` of checked input (the candidates may be the index's own, checked when it was made)."""
    checks.choice(metric, "metric", METRICS)
    return METRICS[metric].between(np.asarray(candidates, dtype=np.float32),
                                   np.asarray(query, dtype=np.float32)[None])[:, 0]


def check_k(k: int, available: int, what: str) -> int:
    """``k`` when at least 1; more than ``available`` gives ``available`` (the caller says so)."""
    if not checks.is_whole(k) or k < 1:
        raise ValueError(f"k must be a whole number of at least 1 {what}.")
    return min(int(k), available)


def nearest_tokens(index: TokenIndex, vector: np.ndarray, layer: int, k: int, metric: str = "cosine",
                   exclude: Sequence[int] = ()) -> pd.DataFrame:
    """The ``k`` corpus tokens nearest to ``vector`` (hidden,) at ``layer``, best first: rank, score, and the
    token's row of ``index.tokens``; tokens of the sentences ``exclude`` are left out. ``k`` above the
    number of tokens gives every token."""
    layer = checks.whole_number(layer, "layer", 0, check_index(index).vectors.shape[0] - 1)
    vector = checks.vector(vector, "vector", index.vectors.shape[2])
    exclude = checks.indices(exclude, "exclude (sentence numbers)", len(index.texts), allow_empty=True)
    scores = _scores(index.vectors[layer], vector, metric)
    allowed = ~index.tokens["sentence"].isin(exclude).to_numpy() if len(exclude) else None
    available = len(scores) if allowed is None else int(allowed.sum())
    order = _top(scores, check_k(k, available, "neighbour"), METRICS[metric].similar_high, allowed)
    found = index.tokens.iloc[order].reset_index(drop=True)
    found.insert(0, "score", scores[order])
    found.insert(0, "rank", np.arange(1, len(order) + 1))
    return found


def nearest_sentences(pooled: dict[str, np.ndarray], query: dict[str, np.ndarray], strategy: str,
                      layer: int | None, k: int, metric: str = "cosine", exclude: Sequence[int] = ()) -> pd.DataFrame:
    """The ``k`` corpus sentences nearest to a query sentence, best first: rank, sentence (index), score;
    the sentences ``exclude`` left out.

    ``pooled`` is ``Encoder.embed`` of the corpus, ``query`` of the one query text; ``layer`` as
    ``Pooling.at`` reads it (ignored by a layer-independent strategy).
    """
    candidates = vectors_at(pooled, strategy, layer, "pooled")  # (n, dim)
    query = vectors_at(query, strategy, layer, "query")
    if len(query) != 1:
        raise ValueError(f"query holds {len(query)} texts' vectors; embed the one query text alone.")
    scores = _scores(candidates, checks.vector(query[0], "The query vector", candidates.shape[1]), metric)
    allowed = ~np.isin(np.arange(len(scores)), checks.indices(exclude, "exclude", len(scores), allow_empty=True))
    order = _top(scores, check_k(k, int(allowed.sum()), "sentence"), METRICS[metric].similar_high, allowed)
    return pd.DataFrame({"rank": np.arange(1, len(order) + 1), "sentence": order, "score": scores[order]})


# ---- contextuality (Ethayarajh 2019) ---------------------------------------------------------------

def _unit(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=-1, keepdims=True), 1e-12)


def _occurrences(tokens: pd.DataFrame) -> tuple[np.ndarray, pd.DataFrame]:
    """Tokens grouped into word occurrences: (occurrence of each token (tokens,), one row per occurrence
    with sentence and key), an occurrence being one whole word at one place of one sentence."""
    where = tokens[["sentence", "word_start", "key"]]
    codes = where.groupby(list(where.columns), sort=False).ngroup().to_numpy()  # numbered in order of appearance
    return codes, where.drop_duplicates().reset_index(drop=True)


def _occurrence_vectors(layer_vectors: np.ndarray, codes: np.ndarray, count: int) -> np.ndarray:
    """Each occurrence's vector: the mean of its pieces' vectors (count, hidden), float32."""
    members = sparse.csr_matrix((np.ones(len(codes), dtype=np.float32), (codes, np.arange(len(codes)))),
                                shape=(count, len(codes)))
    sizes = np.asarray(members.sum(axis=1))
    return np.asarray(members @ np.asarray(layer_vectors, dtype=np.float32)) / sizes


def mean_cosine_across_sentences(units: np.ndarray, groups: np.ndarray, sentences: np.ndarray) -> np.ndarray:
    """For each group g: the mean cosine between its unit vectors ``units`` (n, dim) over all ordered pairs
    that lie in different sentences; NaN when it has no such pair. ``groups``, ``sentences``: (n,) ints.

    Computed without forming the pairs: the sum over pairs of u_j · u_k is |Σ u|² minus, for each sentence,
    |Σ of the group's vectors in it|², and the pair count is n² minus the sum of the per-sentence n².
    """
    units = checks.numbers(units, "units", "(n, dim)", min_rows=0)
    groups, sentences = (checks.numbers(v, name, "(n,)", min_rows=0).astype(int) for v, name in ((groups, "groups"),
                                                                                                  (sentences, "sentences")))
    checks.same_rows(units, groups, "units", "groups")
    checks.same_rows(units, sentences, "units", "sentences")
    n_groups = int(groups.max()) + 1 if len(groups) else 0
    per_group = sparse.csr_matrix((np.ones(len(groups)), (groups, np.arange(len(groups)))),
                                  shape=(n_groups, len(groups)))
    cells, cell_of = np.unique(np.stack([groups, sentences], 1), axis=0, return_inverse=True)
    per_cell = sparse.csr_matrix((np.ones(len(groups)), (cell_of.ravel(), np.arange(len(groups)))),
                                 shape=(len(cells), len(groups)))
    total, within = per_group @ units, per_cell @ units
    cell_sizes = np.asarray(per_cell.sum(axis=1)).ravel()
    sizes = np.asarray(per_group.sum(axis=1)).ravel()
    pair_sum = (total ** 2).sum(1) - np.bincount(cells[:, 0], (within ** 2).sum(1), minlength=n_groups)
    pairs = sizes ** 2 - np.bincount(cells[:, 0], cell_sizes ** 2, minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pairs > 0, pair_sum / np.where(pairs > 0, pairs, 1), np.nan)


def self_similarity(index: TokenIndex, word: str) -> np.ndarray:
    """Self-similarity of ``word`` at each layer (layers+1,): the mean cosine between the vectors of its
    occurrences in different sentences (every ordered pair of occurrences from two different sentences;
    a word of several pieces is the mean of its pieces). ``ValueError`` when it occurs in fewer than two
    sentences."""
    key = checks.text(word, "The word").lower()
    mine = check_index(index).tokens["key"].to_numpy() == key
    if index.tokens.loc[mine, "sentence"].nunique() < 2:
        found = "does not occur" if not mine.any() else "occurs in only one sentence"
        raise ValueError(f"“{word}” {found} in the corpus; self-similarity compares a word's occurrences in "
                         "different sentences, so it needs at least two. Pick another token.")
    codes, places = _occurrences(index.tokens[mine])
    sentences = places["sentence"].to_numpy()
    return np.array([mean_cosine_across_sentences(
        _unit(_occurrence_vectors(index.vectors[layer][mine], codes, len(places))),
        np.zeros(len(places), dtype=int), sentences)[0] for layer in range(index.vectors.shape[0])])


def corpus_self_similarity(index: TokenIndex, min_contexts: int = MIN_CONTEXTS) -> tuple[np.ndarray, int]:
    """The mean self-similarity (see ``self_similarity``) of every word that occurs in at least
    ``min_contexts`` sentences, at each layer (layers+1,), and how many words that is (NaN, 0 when none).
    Punctuation ("." "-" "'": a key without a letter or digit) is no word and is left out, as in Ethayarajh's
    code. ``min_contexts`` is a whole number of at least 2 (self-similarity compares different sentences)."""
    min_contexts = checks.whole_number(min_contexts, "min_contexts (sentences a word must occur in)", 2)
    codes, places = _occurrences(check_index(index).tokens)
    spread = places[places["key"].str.contains(r"\w", regex=True)].groupby("key")["sentence"].nunique()
    eligible = spread.index[spread >= min_contexts]
    if not len(eligible):
        return np.full(index.vectors.shape[0], np.nan), 0
    chosen = places["key"].isin(eligible).to_numpy()
    groups = pd.factorize(places.loc[chosen, "key"])[0]
    sentences = places.loc[chosen, "sentence"].to_numpy()
    means = [np.nanmean(mean_cosine_across_sentences(
        _unit(_occurrence_vectors(index.vectors[layer], codes, len(places))[chosen]), groups, sentences))
        for layer in range(index.vectors.shape[0])]
    return np.array(means), len(eligible)


def intra_sentence_similarity(index: TokenIndex) -> np.ndarray:
    """At each layer (layers+1,): for each sentence, the mean cosine between its tokens' vectors and their
    mean vector (the sentence's ordinary tokens, [CLS] and [SEP] left out), averaged over sentences with at
    least two tokens; NaN when no sentence has two."""
    sentence = check_index(index).tokens["sentence"].to_numpy()
    starts = np.flatnonzero(np.r_[True, sentence[1:] != sentence[:-1]])  # tokens are in corpus order
    sizes = np.diff(np.r_[starts, len(sentence)])
    result = []
    for layer in range(index.vectors.shape[0]):
        vectors = np.asarray(index.vectors[layer], dtype=np.float32)
        means = _unit(np.add.reduceat(vectors, starts, axis=0))
        cosines = (_unit(vectors) * np.repeat(means, sizes, axis=0)).sum(1)
        per_sentence = np.add.reduceat(cosines, starts) / sizes
        result.append(per_sentence[sizes >= 2].mean() if (sizes >= 2).any() else np.nan)
    return np.array(result)


def anisotropy_baseline(index: TokenIndex, pairs: int = BASELINE_PAIRS, seed: int = 0) -> np.ndarray:
    """At each layer (layers+1,): the mean cosine between ``pairs`` random pairs of corpus tokens from
    different sentences, drawn uniformly with a fixed ``seed``: what two unrelated tokens score, the
    baseline the paper subtracts. ``pairs`` is a whole number of at least 1."""
    pairs, seed = checks.whole_number(pairs, "pairs", 1), checks.whole_number(seed, "seed", 0)
    sentence = check_index(index).tokens["sentence"].to_numpy()
    if len(np.unique(sentence)) < 2:
        raise ValueError("The anisotropy baseline pairs tokens from different sentences: the corpus needs at "
                         "least two sentences.")
    rng = np.random.default_rng(seed)
    first, second = np.empty(0, dtype=int), np.empty(0, dtype=int)
    while len(first) < pairs:
        a, b = rng.integers(0, len(sentence), size=(2, pairs))
        apart = sentence[a] != sentence[b]
        first, second = np.r_[first, a[apart]][:pairs], np.r_[second, b[apart]][:pairs]
    return np.array([(_unit(index.vectors[layer][first]) * _unit(index.vectors[layer][second])).sum(1).mean()
                     for layer in range(index.vectors.shape[0])])


@dataclass(frozen=True)
class Contextuality:
    """The corpus' measures by layer: ``table`` has layer, self-similarity (words in ≥ ``min_contexts``
    sentences; ``words`` of them), intra-sentence similarity and the anisotropy baseline, raw and adjusted
    (minus the baseline, as the paper reports them)."""

    table: pd.DataFrame
    words: int
    min_contexts: int


def adjusted(raw: np.ndarray, baseline: np.ndarray) -> np.ndarray:
    """A measure minus the anisotropy baseline of the same layer, both (layers+1,): NaN where the measure is NaN."""
    raw = checks.numbers(raw, "raw", "(layers+1,)", finite=False)
    baseline = checks.numbers(baseline, "baseline", "(layers+1,)")
    checks.same_rows(raw, baseline, "layers of the measure", "baseline")
    return raw - baseline


def contextuality(index: TokenIndex, min_contexts: int = MIN_CONTEXTS) -> Contextuality:
    """Self-similarity, intra-sentence similarity and the baseline of the whole corpus, by layer. Self-similarity
    is NaN when no word occurs in ``min_contexts`` sentences, intra-sentence similarity when no sentence has two
    tokens (see ``corpus_self_similarity``, ``intra_sentence_similarity``)."""
    baseline = anisotropy_baseline(index)
    selfsim, words = corpus_self_similarity(index, min_contexts)
    intra = intra_sentence_similarity(index)
    table = pd.DataFrame({"layer": range(len(baseline)), "self-similarity": selfsim,
                          "intra-sentence similarity": intra, "anisotropy baseline": baseline,
                          "self-similarity, adjusted": adjusted(selfsim, baseline),
                          "intra-sentence similarity, adjusted": adjusted(intra, baseline)})
    return Contextuality(table, words, min_contexts)


def word_contextuality(index: TokenIndex, word: str, corpus: Contextuality) -> pd.DataFrame:
    """``word``'s self-similarity by layer, raw and adjusted, beside the corpus' (layer, four columns)."""
    checks.instance(corpus, Contextuality, "corpus", "contextuality")
    raw = self_similarity(index, word)
    baseline = corpus.table["anisotropy baseline"].to_numpy()
    return pd.DataFrame({"layer": corpus.table["layer"], f"self-similarity of “{word}”": raw,
                         f"self-similarity of “{word}”, adjusted": adjusted(raw, baseline)})


