"""A corpus' token index: every ordinary token at every layer, the data Similar contexts searches.

The index keeps the corpus' ordinary tokens ([CLS], [SEP] and padding left out: they are not words of any
sentence) in float16. Float16 halves the memory of float32, which decides whether a 5,000-row upload fits
the server's cache; its 11-bit mantissa moves a cosine by under 1e-3, far below the gaps that order
neighbours.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

import bertviz_core.checks as checks
from bertviz_core.model.encoding import Encoding, ModelInput
from bertviz_core.words.word_vectors import word_owners, word_span

if TYPE_CHECKING:
    from bertviz_core.model.encoder import Encoder

INDEX_DTYPE = np.float16


@dataclass(frozen=True)
class TokenIndex:
    """Every ordinary token of ``texts`` at every layer.

    ``vectors``: float16 (layers+1, tokens, hidden), layer 0 = the embeddings. ``tokens``: one row per token,
    in corpus order: sentence (index into texts), position (in the model's input, [CLS] = 0), token, word
    (the whole word as written), key (the word lowercased), start, end (the token's characters) and
    word_start, word_end (its word's).
    """

    vectors: np.ndarray
    tokens: pd.DataFrame
    texts: tuple[str, ...]

    @property
    def theoretical_bytes(self) -> int:
        """tokens × (layers+1) × hidden × bytes per value: what the vectors take."""
        layers, count, hidden = self.vectors.shape
        return count * layers * hidden * self.vectors.itemsize


def index_rows(inputs: Iterable[ModelInput], texts: Iterable[str]) -> pd.DataFrame:
    """The ``tokens`` frame of a ``TokenIndex`` for tokenized texts (see there). A token's word is found by its
    characters (``word_vectors.word_span``), not by the tokenizer's word ids, which differ by architecture
    (SentencePiece keeps "bank!" as one word), so a word is the same on every model."""
    rows = []
    for sentence, (item, text) in enumerate(zip(inputs, texts)):
        owners = word_owners(text)
        for position, (token, (start, end), special) in enumerate(zip(item.tokens, item.offsets, item.special)):
            if not special:
                word_start, word_end = word_span(owners, start, end)
                rows.append((sentence, position, token, text[word_start:word_end], start, end, word_start, word_end))
    frame = pd.DataFrame(rows, columns=["sentence", "position", "token", "word", "start", "end", "word_start",
                                        "word_end"])
    frame.insert(4, "key", frame["word"].str.lower())
    return frame


def build_index(texts: Iterable[str], inputs: list[ModelInput], encodings: Iterable[tuple[int, Encoding]],
                layers: int, hidden: int) -> TokenIndex:
    """A ``TokenIndex`` filled from ``encodings`` ((text index, Encoding) pairs in any order, e.g. as
    ``Encoder.encode_each`` yields them) of the tokenized ``inputs``; only one text's float32 states are
    held at a time besides the index itself."""
    texts = tuple(texts)
    kept = [[i for i, special in enumerate(item.special) if not special] for item in inputs]
    first = np.cumsum([0] + [len(positions) for positions in kept])
    vectors = np.empty((layers, int(first[-1]), hidden), dtype=INDEX_DTYPE)
    for index, encoding in encodings:
        vectors[:, first[index]:first[index + 1]] = encoding.hidden_states[:, kept[index]]
    return TokenIndex(vectors, index_rows(inputs, texts), texts)


def check_index(index: TokenIndex) -> TokenIndex:
    """``index`` when it is a ``TokenIndex`` (``token_index`` makes one)."""
    return checks.instance(index, TokenIndex, "index", "token_index")


def token_index(encoder: Encoder, texts: Sequence[str],
                progress: Callable[[int, int], None] | None = None) -> TokenIndex:
    """Every ordinary token of ``texts`` at every layer of ``encoder``'s model, float16 (see ``TokenIndex``),
    filled batch by batch; ``progress(texts done, total)`` after each batch."""
    checks.encoder(encoder)
    texts, progress = checks.texts(texts), checks.callback(progress)
    if not texts:
        raise ValueError("The corpus is empty: give at least one text to index.")
    items = encoder.inputs(texts)  # tokenized once, for the index's rows and the model
    if all(all(item.special) for item in items):
        raise ValueError("The corpus holds no words to index: every text is empty or blank.")
    return build_index(texts, items, encoder.encode_inputs(items, texts, progress),
                       encoder.info.num_layers + 1, encoder.info.hidden_size)
