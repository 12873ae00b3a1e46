"""How contextual each of a store's token layers is (Ethayarajh 2019, as ``neighbours.contextuality`` measures a
page's own corpus), on a stated random sample of its sentences: every occurrence of every word of a million
sentences would not be read per click.

The sample's tokens become a ``TokenIndex`` whose first axis is the store's token layers (not layers 0 to L), so the
corpus measures are ``neighbours``' own; their "layer" column is then set to the stored layers.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

import bertviz_core.checks as checks
from bertviz_core.measures.neighbours import Contextuality, contextuality, word_contextuality
from bertviz_core.precompute.reader import VectorStore
from bertviz_core.model.token_index import TokenIndex

CONTEXT_SENTENCES = 2_000  # sentences the measures read at most: ~55,000 tokens of short texts, ~1 s a layer
SEED = 0


def _held(store: VectorStore) -> list[int]:
    checks.instance(store, VectorStore, "store", "open_store(path)")
    held = store.manifest["token_layers"]
    if not held:
        raise ValueError("This store holds no token vectors, and contextuality compares tokens: precompute it with "
                         "--token-layers to keep them.")
    return held


def sampled_index(store: VectorStore, sentences: np.ndarray) -> TokenIndex:
    """The store's tokens of ``sentences`` (stored rows) as a ``TokenIndex``: vectors float32 (token layers, tokens,
    hidden), one per stored token layer in the manifest's order, and their rows of ``token_rows``."""
    held = _held(store)
    rows = store.token_rows
    where = np.flatnonzero(np.isin(rows["sentence"].to_numpy(), np.asarray(sentences)))
    vectors = np.stack([np.asarray(store.token_vectors(layer)[where], dtype=np.float32) for layer in held])
    return TokenIndex(vectors, rows.iloc[where].reset_index(drop=True), ())


def sentence_sample(store: VectorStore, size: int = CONTEXT_SENTENCES, word: str | None = None) -> np.ndarray:
    """Stored rows (sorted): every sentence, or those holding ``word`` (any case), or a random ``size`` of them
    (seed 0) when there are more."""
    _held(store)
    size = checks.whole_number(size, "size", 2)
    rows = store.token_rows
    if word is None:
        found = np.arange(store.manifest["rows"])
    else:
        key = checks.text(word, "The word").lower()
        found = np.unique(rows.loc[rows["key"].to_numpy() == key, "sentence"].to_numpy())
    if len(found) > size:
        found = np.sort(np.random.default_rng(SEED).choice(found, size, replace=False))
    return found


def store_contextuality(store: VectorStore, size: int = CONTEXT_SENTENCES) -> tuple[Contextuality, int]:
    """``neighbours.contextuality`` of a random ``size`` of the store's sentences (all when it holds no more), at its
    token layers: the measures (the table's "layer" is the stored layer) and how many sentences they read."""
    sentences = sentence_sample(store, size)
    measured = contextuality(sampled_index(store, sentences))
    table = measured.table.assign(layer=_held(store))
    return Contextuality(table, measured.words, measured.min_contexts), len(sentences)


def store_word_contextuality(store: VectorStore, word: str, corpus: Contextuality,
                             size: int = CONTEXT_SENTENCES) -> tuple[pd.DataFrame, int]:
    """``neighbours.word_contextuality`` of ``word`` over a random ``size`` of the stored sentences that hold it
    (all when there are no more), beside ``corpus`` (``store_contextuality``'s): its rows, and how many sentences."""
    sentences = sentence_sample(store, size, word)
    if len(sentences) < 2:
        found = "does not occur" if not len(sentences) else "occurs in only one sentence"
        raise ValueError(f"“{word}” {found} in the store; self-similarity compares a word's occurrences in "
                         "different sentences, so it needs at least two. Pick another token.")
    checks.instance(corpus, Contextuality, "corpus", "store_contextuality(store)")
    return word_contextuality(sampled_index(store, sentences), word, corpus), len(sentences)


def contextuality_note(store: VectorStore, sentences: int, word: str | None, word_sentences: int) -> str:
    """What the store's contextuality measures read, as a caption says it."""
    total = store.manifest["rows"]
    read = (f"all {total:,} stored sentences" if sentences == total else
            f"a random {sentences:,} of the store's {total:,} sentences (seed {SEED})")
    mine = "" if word is None else f"; “{word}”'s self-similarity on {word_sentences:,} sentences that hold it" + (
        "" if word_sentences < CONTEXT_SENTENCES else f" (a random {CONTEXT_SENTENCES:,}, seed {SEED})")
    return f"Measured on {read}{mine}, at the layers the store keeps every token of. No model runs here."
