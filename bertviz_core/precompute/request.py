"""What a precompute computes: the model and its settings (``Request``), the store's (strategy, layer) columns, and
the one conversion of ``Encoder.embed``'s output into them that both engines use."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

import bertviz_core.checks as checks
from bertviz_core.pooling import POOLINGS, check_strategies
from bertviz_core.precompute.layout import Column

ShardVectors = Iterator[tuple[int, dict[Column, np.ndarray]]]  # (shard, {column: (shard's rows, hidden)})


@dataclass(frozen=True)
class Request:
    """What to compute: the model (None = bundled) on ``device``, the strategies and layers (None = defaults)."""

    model: str | None = None
    strategies: list[str] | None = None
    layers: list[int] | None = None
    device: str = "auto"


def store_columns(encoder: Any, strategies: list[str] | None, layers: list[int] | None) -> list[Column]:
    """The (strategy, layer) vector files to write: every strategy the model supports when ``strategies`` is None;
    layers 0 (the embeddings) to num_layers, the last one when ``layers`` is None; a strategy without layers once."""
    names = check_strategies(strategies, encoder.info.has_pooler)
    top = encoder.info.num_layers
    layers = [top] if layers is None else [checks.whole_number(layer, f"A layer (0 to {top})", 0, top)
                                          for layer in checks.items(layers, "layers", "layer numbers")]
    if not layers:
        raise ValueError(f"layers is empty: choose at least one layer from 0 to {top}.")
    return [(name, layer) for name in names
            for layer in (dict.fromkeys(layers) if POOLINGS[name].per_layer else [None])]


def pooled_columns(pooled: dict[str, np.ndarray], columns: list[Column]) -> dict[Column, np.ndarray]:
    """``Encoder.embed``'s output ({strategy: (texts, layers, hidden)}) as the store's columns: {column: (texts,
    hidden)}. The one place where both engines turn the model's output into what is stored."""
    return {(name, layer): POOLINGS[name].at(pooled[name], layer) for name, layer in columns}
