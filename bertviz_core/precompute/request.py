"""What a precompute computes: the model and its settings (``Request``), the store's (strategy, layer) columns and
token layers, and ``shard_outputs``, the one model run both engines make of a shard's texts."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

import bertviz_core.checks as checks
from bertviz_core.measures.pooling import POOLINGS, check_strategies
from bertviz_core.precompute.layout import Column
from bertviz_core.precompute.maps import MAP_SAMPLE
from bertviz_core.model.token_index import index_rows

Vectors = dict[Column, np.ndarray]  # {column: (texts, hidden)}
TokenVectors = dict[int, list[np.ndarray]]  # {token layer: one (the text's ordinary tokens, hidden) per text}
ShardVectors = Iterator[tuple[int, Vectors, TokenVectors]]  # (shard, its sentence vectors, its token vectors)


@dataclass(frozen=True)
class Request:
    """What to compute: the model (None = bundled) on ``device``, the strategies and layers (None = defaults), the
    layers whose every ordinary token's vector is stored too (None = none), the 2-D maps of every column
    (``projection.PROJECTIONS`` names; PCA maps every row, the others ``map_sample`` rows at most), and when each
    column gets a search index (``ann.INDEX_CHOICES``: "auto" above ``ann.EXACT_ROWS`` rows)."""

    model: str | None = None
    strategies: list[str] | None = None
    layers: list[int] | None = None
    device: str = "auto"
    token_layers: list[int] | None = None
    maps: list[str] | None = None
    map_sample: int = MAP_SAMPLE
    index: str = "auto"


def layer_numbers(layers: list[int], top: int | None, name: str = "layers") -> list[int]:
    """``layers`` checked (each 0 to ``top``; None: the model's top, not known yet), repeats dropped, in order."""
    return list(dict.fromkeys(checks.whole_number(layer, "A layer" + ("" if top is None else f" (0 to {top})"), 0, top)
                              for layer in checks.items(layers, name, "layer numbers")))


def store_columns(encoder: Any, strategies: list[str] | None, layers: list[int] | None) -> list[Column]:
    """The (strategy, layer) vector files to write: every strategy the model supports when ``strategies`` is None;
    layers 0 (the embeddings) to num_layers, the last one when ``layers`` is None; a strategy without layers once."""
    names = check_strategies(strategies, encoder.info.has_pooler)
    top = encoder.info.num_layers
    layers = [top] if layers is None else layer_numbers(layers, top)
    if not layers:
        raise ValueError(f"layers is empty: choose at least one layer from 0 to {top}.")
    return [(name, layer) for name in names for layer in (layers if POOLINGS[name].per_layer else [None])]


def pooled_columns(pooled: dict[str, np.ndarray], columns: list[Column]) -> Vectors:
    """``Encoder.embed``'s output ({strategy: (texts, layers, hidden)}) as the store's columns: {column: (texts,
    hidden)}, each a copy, so that a shard's columns waiting to be written do not keep every layer alive."""
    return {(name, layer): np.ascontiguousarray(POOLINGS[name].at(pooled[name], layer)) for name, layer in columns}


def shard_outputs(encoder: Any, texts: list[str], columns: list[Column], token_layers: list[int]) -> tuple[
        Vectors, TokenVectors]:
    """One model run over ``texts`` (``Encoder.embed``) for both engines: the store's sentence vectors, and at each
    of ``token_layers`` the hidden state of every ordinary token ([CLS], [SEP] and padding left out, as in
    ``token_index``), one float32 (tokens, hidden) array per text."""
    kept: list[np.ndarray | None] = [None] * len(texts)  # per text: (token layers, ordinary tokens, hidden)

    def keep_tokens(batch: Any) -> None:
        ordinary = batch.mask.bool() & ~batch.special.bool()  # (B, T)
        chosen = batch.hidden[:, token_layers]  # (B, token layers, T, H)
        for row, index in enumerate(batch.indices):
            kept[index] = chosen[row][:, ordinary[row]].cpu().numpy()

    strategies = list(dict.fromkeys(name for name, _ in columns))
    pooled = encoder.embed(texts, strategies, each_batch=keep_tokens if token_layers else None)
    return pooled_columns(pooled, columns), {layer: [states[j] for states in kept]  # type: ignore[index]
                                             for j, layer in enumerate(token_layers)}


def token_rows(encoder: Any, texts: list[str], first: int) -> pd.DataFrame:
    """The rows of ``texts``' ordinary tokens, in the order ``shard_outputs`` gives their vectors: sentence (the
    text's row in the store: ``first`` + its index), position, token, word, key, start, end, word_start, word_end
    (see ``token_index.TokenIndex``)."""
    frame = index_rows(encoder.inputs(texts), texts)
    frame["sentence"] += first
    return frame
