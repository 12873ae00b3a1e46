"""The registry of sentence pooling strategies: token states of a batch -> one vector per text.

Every strategy takes a batch's ``BatchStates`` (hidden states, masks, pooler output) and returns
(B, layers, H): ``layers`` is L+1 for per-layer strategies and 1 for layer-independent ones
(``per_layer=False``). Whether a strategy has a layer is decided here and nowhere else:
``Pooling.layer_of`` maps a requested layer to the one it uses (None: no layer choice), and
``Pooling.at`` reads a strategy's vectors at a layer from ``Encoder.embed``'s output.
A new strategy is one entry in ``POOLINGS``; every page, download and recipe picks it up.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import torch

import bertviz_core.checks as checks

Tensor = torch.Tensor


class BatchStates:
    """One batch's token states, with the reductions that several strategies share computed once.

    hidden (B, L+1, T, H); mask and special (B, T), 1 = real token / [CLS] or [SEP]; pooler (B, H) or None.
    """

    def __init__(self, hidden: Tensor, mask: Tensor, special: Tensor, pooler: Tensor | None) -> None:
        self.hidden, self.mask, self.special, self.pooler = hidden, mask, special, pooler

    def weighted_mean(self, weights: Tensor) -> Tensor:
        """Mean over tokens weighted by (B, T) ``weights`` (0 = left out), per layer: (B, L+1, H).

        The weight total is clamped at 1e-9, as sentence-transformers does, so a text with no
        weighted token gives zeros rather than NaN."""
        weights = weights.to(self.hidden.dtype)
        total = torch.einsum("blth,bt->blh", self.hidden, weights)
        return total / weights.sum(1)[:, None, None].clamp(min=1e-9)

    @cached_property
    def mean(self) -> Tensor:
        return self.weighted_mean(self.mask)

    def max(self) -> Tensor:
        floor = torch.finfo(self.hidden.dtype).min
        return self.hidden.masked_fill(self.mask[:, None, :, None] == 0, floor).amax(2)


@dataclass(frozen=True)
class Pooling:
    """One strategy: ``fn(states) -> (B, layers, H)`` and ``code``, its plain-torch expression for one
    text's ``states`` (layers+1, tokens, hidden) in the teaching panel."""

    fn: Callable[[BatchStates], Tensor]
    per_layer: bool
    code: str
    needs_pooler: bool = False
    rescales: str | None = None  # the strategy this one is a per-text multiple of (the same direction)

    def layer_of(self, layer: int) -> int | None:
        """The layer this strategy reads when ``layer`` is asked for: that layer, or None when it has no layer."""
        return layer if self.per_layer else None

    def at(self, pooled: np.ndarray, layer: int | None) -> np.ndarray:
        """This strategy's vectors at ``layer`` from its (texts, layers, H) output of ``embed``: (texts, H).
        A layer-independent strategy ignores ``layer`` (None, as ``layer_of`` gives it)."""
        return pooled[:, layer if self.per_layer else 0]


def _mean_no_special(t: BatchStates) -> Tensor:
    return t.weighted_mean(t.mask * (1 - t.special))


def _mean_sqrt_len(t: BatchStates) -> Tensor:
    count = t.mask.sum(1).to(t.hidden.dtype)[:, None, None]
    return t.mean * count.sqrt()  # = the sum over tokens divided by the square root of their number


POOLINGS: dict[str, Pooling] = {
    "cls": Pooling(lambda t: t.hidden[:, :, 0], True, "states[:, 0]"),
    "mean": Pooling(lambda t: t.mean, True, "states.mean(1)"),  # [CLS] and [SEP] included, as sentence-transformers
    "mean_no_special": Pooling(_mean_no_special, True, "states[:, 1:-1].mean(1)"),
    "max": Pooling(BatchStates.max, True, "states.max(1).values"),
    "mean_sqrt_len": Pooling(_mean_sqrt_len, True, "states.sum(1) / states.shape[1] ** 0.5", rescales="mean"),
    # sentence-transformers' "weightedmean": token i (1-based position, [CLS] = 1) weighted by i, padding left out
    "weightedmean": Pooling(lambda t: t.weighted_mean(t.mask * torch.arange(1, t.mask.shape[1] + 1, device=t.mask.device)),
                            True, "(states * torch.arange(1, states.shape[1] + 1)[:, None]).sum(1) / "
                                  "torch.arange(1, states.shape[1] + 1).sum()"),
    # the trained pooler, tanh(W · last-layer [CLS] + b): one vector, no layer choice
    "pooler": Pooling(lambda t: t.pooler[:, None], False, "outputs.pooler_output[0]", needs_pooler=True),
    # Layer 0 (the embeddings) and the last layer, both mean-pooled. SimCSE's code once took
    # hidden_states[0] where the BERT-flow paper meant the first transformer layer; here it is layer 0.
    "first_last_avg": Pooling(lambda t: ((t.mean[:, 0] + t.mean[:, -1]) / 2)[:, None], False,
                              "(states[0].mean(0) + states[-1].mean(0)) / 2"),
}


def supported_strategies(has_pooler: bool) -> list[str]:
    """The strategies a model can compute, in registry order: all but those needing pooler weights it lacks."""
    return [name for name, p in POOLINGS.items() if has_pooler or not p.needs_pooler]


def check_strategies(strategies: list[str] | None, has_pooler: bool) -> list[str]:
    """The strategies to compute: all that the model supports when ``None``; ValueError for unknown ones, for
    none at all, and for one the model cannot compute."""
    available = supported_strategies(has_pooler)
    if strategies is None:
        return available
    strategies = [checks.choice(s, "pooling strategy", POOLINGS)
                  for s in checks.strings(strategies, "strategies", "pooling strategy names")]
    if not strategies:
        raise ValueError(f"strategies is empty: choose at least one of {', '.join(available)} (or None for all).")
    missing = [s for s in strategies if s not in available]
    if missing:
        raise ValueError(f"'{missing[0]}' needs pooler weights, and this model's checkpoint has none.")
    return list(dict.fromkeys(strategies))


def vectors_at(pooled: dict[str, np.ndarray], strategy: str, layer: int | None, name: str = "pooled") -> np.ndarray:
    """``POOLINGS[strategy].at`` of ``pooled`` (``Encoder.embed``'s output), checked: (texts, dim). ``ValueError``
    for an unknown strategy, one ``pooled`` lacks, a layer it does not have (a whole number for a per-layer
    strategy; ignored by the others), or vectors that hold NaN."""
    strategy = checks.choice(strategy, "pooling strategy", POOLINGS)
    if not isinstance(pooled, dict) or strategy not in pooled:
        held = f"holds only {', '.join(map(str, pooled))}" if isinstance(pooled, dict) else f"is {checks.shown(pooled)}"
        raise ValueError(f"{name} must be Encoder.embed's output holding '{strategy}' vectors; it {held}. Embed with "
                         "that strategy too.")
    vectors = checks.numbers(pooled[strategy], f"{name}['{strategy}']", "(texts, layers, dim)", min_rows=0,
                             finite=False)
    if POOLINGS[strategy].per_layer:
        layer = checks.whole_number(layer, "layer", 0, vectors.shape[1] - 1)
    return checks.numbers(POOLINGS[strategy].at(vectors, layer), f"{name}['{strategy}'] at this layer", "(texts, dim)",
                          min_rows=0)
