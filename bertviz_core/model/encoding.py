"""What one text becomes on its way through the model: its input (``ModelInput``) and its output (``Encoding``).

Plain dataclasses with no model code, so modules that read encodings (word finding, pooling)
need not import the Encoder.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def check_unicode(text: str, what: str = "The text") -> str:
    """``text`` unchanged; ``ValueError`` when it holds a lone surrogate (e.g. "\\ud800"), which is no valid
    Unicode character and which the tokenizer cannot read; ``ValueError`` too when it is no string at all."""
    if not isinstance(text, str):
        shown = repr(text) if len(repr(text)) <= 60 else repr(text)[:59] + "…"
        raise ValueError(f"{what} must be a string; it is {shown}.")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError(f"{what} has a character that is not valid Unicode at position {err.start} "
                         f"(U+{ord(text[err.start]):04X}, a lone surrogate, e.g. half of an emoji). "
                         "Remove it, or copy the text again from its source.") from err
    return text


def trim_offset(text: str, start: int, end: int) -> tuple[int, int]:
    """A token's character span without the whitespace at its ends. SentencePiece-style tokenizers (DeBERTa-v3's
    "▁bank") and byte-level ones without offset trimming (ModernBERT's "Ġbank") count the space before a word
    as part of its first piece; trimmed, every architecture's pieces cover exactly the word's characters. A
    piece that is only whitespace becomes empty, at its end."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


@dataclass(frozen=True)
class ModelInput:
    """One model input, unpadded: ``n`` tokens with their ids, segments and character offsets."""

    tokens: list[str]
    ids: list[int]
    segments: list[int]  # the token type ids the model receives (0 throughout where it uses none)
    sequences: list[int | None]  # which text a token comes from: 0 the first, 1 a pair's second, None a special
    offsets: list[tuple[int, int]]  # (start, end) into the text of its segment, whitespace trimmed; (0, 0) for specials
    word_ids: list[int | None]  # unique across a pair; None for special tokens
    special: list[bool]
    dropped: int  # tokens removed by truncation to the model's maximum length


@dataclass(frozen=True)
class Encoding:
    """One text through the model. ``hidden_states`` is float32 (num_layers+1, n_tokens, hidden)."""

    text: str
    tokens: list[str]
    ids: list[int]
    offsets: list[tuple[int, int]]
    word_ids: list[int | None]
    hidden_states: np.ndarray
    pooler: np.ndarray | None  # (hidden,) trained pooler output, None when the model has none
    dropped: int
