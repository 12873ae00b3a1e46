"""Similar contexts' views of a neighbour search (``neighbours.nearest_tokens``): the neighbours in their
contexts, and at every layer the share of them that are the query's own word, with its count and the most it
could be (a corpus holding 5 other "crane" tokens caps the share at 5 of 10 neighbours)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

import bertviz_core.checks as checks
from bertviz_core.measures.neighbours import nearest_tokens
from bertviz_core.model.token_index import TokenIndex, check_index
from bertviz_core.words.word_vectors import snippet


def in_context(found: pd.DataFrame, texts: tuple[str, ...]) -> pd.DataFrame:
    """``nearest_tokens`` results as a reader sees them: rank, score, the token and its context with the
    token between « », and the whole sentence."""
    checks.frame(found, "found", ("rank", "score", "token", "sentence", "start", "end"))
    texts = checks.strings(texts, "texts")
    if len(found) and found["sentence"].max() >= len(texts):
        raise ValueError(f"found names sentence {found['sentence'].max()}, but texts has {len(texts)}: pass the "
                         "texts of the index that was searched (index.texts).")
    return pd.DataFrame({
        "rank": found["rank"], "score": found["score"], "token": found["token"],
        "context": [snippet(texts[s], a, b, ("«", "»"), words=5)
                    for s, a, b in zip(found["sentence"], found["start"], found["end"])],
        "sentence": [texts[s] for s in found["sentence"]],
    })


def tokens_of_word(tokens: pd.DataFrame, word: str, left_out: Sequence[int] = ()) -> int:
    """How many of a corpus' ``tokens`` (a token table: a row per token with its sentence and key, its word
    lowercased) belong to ``word`` (compared lowercased), outside the sentences ``left_out``: the most neighbours
    of that word a search of the corpus can find."""
    checks.frame(tokens, "tokens", ("sentence", "key"))
    key = checks.text(word, "The word").lower()
    left_out = [checks.whole_number(s, "Each of left_out (sentence numbers)", 0)
                for s in checks.items(left_out, "left_out", "sentence numbers")]
    return int(((tokens["key"] == key) & ~tokens["sentence"].isin(left_out)).sum())


def share_of_word(layer: int, keys: pd.Series, word: str, held: int, common: int = 3) -> dict:
    """One row of a layer summary, for the neighbours whose ``keys`` (their words, lowercased) are given: the share
    (NaN when there are none) and the number of them that are ``word``, how many neighbours there are, the most of
    them that could be ``word`` (``held``: the word's tokens the search could find, see ``tokens_of_word``), and the
    ``common`` most frequent words ("river ×3, money ×2")."""
    keys, word = pd.Series(checks.strings(keys, "keys"), dtype=object), checks.text(word, "The word")
    held = checks.whole_number(held, "held (the word's tokens in the corpus)", 0)
    counts, same = keys.value_counts(sort=True), int((keys == word.lower()).sum())
    return {"layer": layer, "same word": same / len(keys) if len(keys) else np.nan, "same-word neighbours": same,
            "neighbours": len(keys), "most possible": min(len(keys), held),
            "most common neighbour words": ", ".join(f"{w} ×{n}" for w, n in counts.head(common).items())}


def layer_summary(index: TokenIndex, vectors: np.ndarray, word: str, k: int, metric: str = "cosine",
                  exclude: Sequence[int] = (), common: int = 3) -> pd.DataFrame:
    """For the query token's ``vectors`` (layers+1, hidden), at every layer, ``share_of_word`` of its ``k``
    nearest corpus tokens (see ``nearest_tokens``; the sentences ``exclude`` left out): a row per layer."""
    vectors = checks.numbers(vectors, "vectors", "(layers+1, hidden)")
    if vectors.shape != (check_index(index).vectors.shape[0], index.vectors.shape[2]):
        raise ValueError(f"vectors must be the query token's vector at every layer, {index.vectors.shape[0]} rows of "
                         f"{index.vectors.shape[2]}; they have shape {vectors.shape}.")
    held = tokens_of_word(index.tokens, word, exclude)
    return pd.DataFrame([share_of_word(layer, nearest_tokens(index, vectors[layer], layer, k, metric, exclude)["key"],
                                       word, held, common) for layer in range(index.vectors.shape[0])])


def share_said(row: pd.Series | dict, word: str) -> str:
    """A layer's share of same-word neighbours as a reader needs it (``share_of_word``'s ``row``): the count beside
    the share, and the most it could be when the corpus caps it, e.g. "5 of 10 (50%) are “crane”; at most 5 of 10:
    the corpus holds only 5 “crane” tokens outside your sentence"."""
    columns = ("same word", "same-word neighbours", "neighbours", "most possible")
    if not isinstance(row, dict | pd.Series) or not set(columns) <= set(row.keys()):
        raise ValueError(f"row must be a row of share_of_word, with {', '.join(columns)}.")
    word = checks.text(word, "The word")
    same, listed, most = (checks.whole_number(row[c], c, 0) for c in columns[1:])
    said = f"{same} of {listed} ({row['same word']:.0%}) are “{word}”"
    if most >= listed:
        return said
    held = f"only {most} “{word}” token{'s' if most != 1 else ''}" if most else f"no “{word}” token"
    return f"{said}; at most {most} of {listed}: the corpus holds {held} outside your sentence"
