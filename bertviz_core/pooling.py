"""The registry of sentence pooling strategies: token states of a batch -> one vector per text.

Every strategy takes a batch's ``Tokens`` (hidden states, masks, pooler output) and returns
(B, layers, H): ``layers`` is L+1 for per-layer strategies and 1 for layer-independent ones
(``per_layer=False``), which pages show once instead of per layer.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import torch

Tensor = torch.Tensor


class Tokens:
    """One batch's token states, with the reductions that several strategies share computed once.

    hidden (B, L+1, T, H); mask and special (B, T), 1 = real token / [CLS] or [SEP]; pooler (B, H) or None.
    """

    def __init__(self, hidden: Tensor, mask: Tensor, special: Tensor, pooler: Tensor | None) -> None:
        self.hidden, self.mask, self.special, self.pooler = hidden, mask, special, pooler

    def masked_sum(self, mask: Tensor) -> tuple[Tensor, Tensor]:
        """Sum over the tokens where ``mask`` is 1, per layer, and their count: (B, L+1, H), (B, 1, 1)."""
        weights = mask.to(self.hidden.dtype)
        return torch.einsum("blth,bt->blh", self.hidden, weights), weights.sum(1)[:, None, None].clamp(min=1e-9)

    @cached_property
    def total(self) -> tuple[Tensor, Tensor]:
        return self.masked_sum(self.mask)

    @cached_property
    def mean(self) -> Tensor:
        total, count = self.total
        return total / count

    def max(self) -> Tensor:
        floor = torch.finfo(self.hidden.dtype).min
        return self.hidden.masked_fill(self.mask[:, None, :, None] == 0, floor).amax(2)


@dataclass(frozen=True)
class Pooling:
    """One strategy: ``fn(tokens) -> (B, layers, H)``, a description, and its plain-torch expression
    for one text's ``states`` (layers+1, tokens, hidden) in the teaching panel."""

    fn: Callable[[Tokens], Tensor]
    per_layer: bool
    description: str
    code: str
    needs_pooler: bool = False


def _mean_no_special(t: Tokens) -> Tensor:
    total, count = t.masked_sum(t.mask * (1 - t.special))
    return total / count


POOLINGS: dict[str, Pooling] = {
    "cls": Pooling(lambda t: t.hidden[:, :, 0], True, "the [CLS] token's hidden state", "states[:, 0]"),
    "mean": Pooling(lambda t: t.mean, True,
                    "mean over all tokens, [CLS] and [SEP] included (as sentence-transformers does)",
                    "states.mean(1)"),
    "mean_no_special": Pooling(_mean_no_special, True, "mean over the tokens without [CLS] and [SEP]",
                               "states[:, 1:-1].mean(1)"),
    "max": Pooling(Tokens.max, True, "element-wise max over all tokens", "states.max(1).values"),
    "mean_sqrt_len": Pooling(lambda t: t.total[0] / t.total[1].sqrt(), True,
                             "sum over tokens divided by the square root of their number",
                             "states.sum(1) / states.shape[1] ** 0.5"),
    "pooler": Pooling(lambda t: t.pooler[:, None], False,
                      "the trained pooler: tanh(W · last-layer [CLS] + b); one vector, no layer choice",
                      "outputs.pooler_output[0]", needs_pooler=True),
    "first_last_avg": Pooling(lambda t: ((t.mean[:, 0] + t.mean[:, -1]) / 2)[:, None], False,
                              "average of the embedding layer's (hidden_states[0]) and the last layer's mean pools. "
                              "SimCSE's code once took hidden_states[0] where the BERT-flow paper meant the first "
                              "transformer layer, hidden_states[1]; here it is explicitly layer 0 and layer L",
                              "(states[0].mean(0) + states[-1].mean(0)) / 2"),
}


def check_strategies(strategies: list[str] | None, has_pooler: bool) -> list[str]:
    """The strategies to compute: all that the model supports when ``None``; ValueError for unknown ones."""
    available = [name for name, p in POOLINGS.items() if has_pooler or not p.needs_pooler]
    if strategies is None:
        return available
    unknown = [s for s in strategies if s not in POOLINGS]
    if unknown:
        raise ValueError(f"Unknown pooling strategy '{unknown[0]}'. Choose from: {', '.join(POOLINGS)}.")
    missing = [s for s in strategies if s not in available]
    if missing:
        raise ValueError(f"'{missing[0]}' needs pooler weights, and this model's checkpoint has none.")
    return list(dict.fromkeys(strategies))
