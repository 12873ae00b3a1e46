"""Attention, measured: what each head looks at (Clark et al. 2019, "What does BERT look at?"),
aggregations over heads, layers and tokens, and attention rollout (Abnar & Zuidema 2020).

Every function takes one text's weights ``weights``, float32 (layers, heads, tokens, tokens), as
``Encoder.attentions`` returns them: row q is how query token q spreads its attention over the
tokens, and sums to 1. Layer l here is transformer layer l (1-based in labels, index l-1).
"""
from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

import bertviz_core.checks as checks

WEIGHTS = "(layers, heads, tokens, tokens)"


@dataclass(frozen=True)
class TokenRoles:
    """Boolean masks (tokens,) of the keys each statistic counts: [CLS], [SEP], punctuation."""

    cls: np.ndarray
    sep: np.ndarray
    punctuation: np.ndarray


def is_punctuation(token: str) -> bool:
    """A WordPiece token made only of punctuation characters (Unicode category P*), "##" prefix aside."""
    token = checks.text(token, "token")
    text = token[2:] if token.startswith("##") and len(token) > 2 else token
    return bool(text) and all(unicodedata.category(c).startswith("P") for c in text)


def token_roles(tokens: Sequence[str], cls_token: str, sep_token: str) -> TokenRoles:
    """Which of ``tokens`` are the tokenizer's [CLS], its [SEP], and punctuation."""
    tokens = checks.strings(tokens, "tokens", "tokens")
    cls_token, sep_token = checks.text(cls_token, "cls_token"), checks.text(sep_token, "sep_token")
    return TokenRoles(np.array([t == cls_token for t in tokens], dtype=bool),
                      np.array([t == sep_token for t in tokens], dtype=bool),
                      np.array([t not in (cls_token, sep_token) and is_punctuation(t) for t in tokens], dtype=bool))


def check_weights(weights: np.ndarray) -> np.ndarray:
    """One text's attention weights, (layers, heads, tokens, tokens) of finite numbers with at least one token;
    ``ValueError`` saying what is wrong otherwise."""
    weights = checks.numbers(weights, "weights", WEIGHTS)
    if weights.shape[-1] != weights.shape[-2] or weights.shape[-1] < 1 or min(weights.shape[:2]) < 1:
        raise ValueError(f"weights must be {WEIGHTS} with at least one of each, as Encoder.attentions gives them; "
                         f"they have shape {weights.shape}.")
    return weights


def _check_roles(roles: TokenRoles, tokens: int) -> TokenRoles:
    checks.instance(roles, TokenRoles, "roles", "token_roles")
    if len(roles.cls) != tokens:
        raise ValueError(f"roles are for {len(roles.cls)} tokens, the weights for {tokens}: make both from the same "
                         "text.")
    return roles


def _offset_diagonal(weights: np.ndarray, offset: int) -> np.ndarray:
    """Mean over queries q of weights[..., q, q + offset], over the queries where that key exists: (L, H)."""
    return np.diagonal(weights, offset=offset, axis1=-2, axis2=-1).mean(axis=-1) if weights.shape[-1] > abs(offset) \
        else np.full(weights.shape[:2], np.nan)


def _entropy(weights: np.ndarray) -> np.ndarray:
    rows = weights.astype(np.float64)
    return -(rows * np.log(np.where(rows > 0, rows, 1.0))).sum(axis=-1).mean(axis=-1)


@dataclass(frozen=True)
class HeadStatistic:
    """``fn(weights, roles) -> (layers, heads)``, and what it measures."""

    fn: Callable[[np.ndarray, TokenRoles], np.ndarray]
    definition: str


# Every share is the attention a query pays to those keys, averaged over all query tokens of the text,
# [CLS] and [SEP] included as queries (Clark et al. average over all tokens too).
HEAD_STATISTICS: dict[str, HeadStatistic] = {
    "[CLS]": HeadStatistic(lambda w, r: w[..., r.cls].sum(-1).mean(-1), "share of attention paid to [CLS]"),
    "[SEP]": HeadStatistic(lambda w, r: w[..., r.sep].sum(-1).mean(-1),
                           "share of attention paid to [SEP] (every [SEP] of a pair together)"),
    "punctuation": HeadStatistic(lambda w, r: w[..., r.punctuation].sum(-1).mean(-1),
                                 "share of attention paid to punctuation tokens"),
    "self": HeadStatistic(lambda w, r: _offset_diagonal(w, 0), "share of attention a token pays to itself"),
    "previous token": HeadStatistic(lambda w, r: _offset_diagonal(w, -1),
                                    "share paid to the token just before (over queries that have one)"),
    "next token": HeadStatistic(lambda w, r: _offset_diagonal(w, 1),
                                "share paid to the token just after (over queries that have one)"),
    "entropy": HeadStatistic(lambda w, r: _entropy(w),
                             "mean entropy of the attention rows, in nats: 0 = all on one token, "
                             "ln(tokens) = spread evenly"),
}


def head_statistics(weights: np.ndarray, roles: TokenRoles) -> pd.DataFrame:
    """Every statistic of every head, long: layer (1-based), head (1-based), statistic, value. The previous- and
    next-token shares are NaN for a text of one token, where no query has a token before or after it."""
    weights = check_weights(weights)
    roles = _check_roles(roles, weights.shape[-1])
    layers, heads = weights.shape[:2]
    grid_layer, grid_head = np.meshgrid(np.arange(1, layers + 1), np.arange(1, heads + 1), indexing="ij")
    return pd.concat([pd.DataFrame({"layer": grid_layer.ravel(), "head": grid_head.ravel(), "statistic": name,
                                    "value": np.asarray(stat.fn(weights, roles), dtype=np.float64).ravel()})
                      for name, stat in HEAD_STATISTICS.items()], ignore_index=True)


def statistic_grid(statistics: pd.DataFrame, name: str) -> pd.DataFrame:
    """One statistic as a layer x head table (rows "layer 1".., columns "h1"..)."""
    checks.frame(statistics, "statistics", ("layer", "head", "statistic", "value"))
    one = statistics[statistics["statistic"] == checks.choice(name, "statistic", HEAD_STATISTICS)]
    grid = one.pivot(index="layer", columns="head", values="value")
    return grid.rename(index=lambda l: f"layer {l}", columns=lambda h: f"h{h}")


def mean_weights(weights: np.ndarray, layers: Sequence[int] | None = None,
                 heads: Sequence[int] | None = None) -> np.ndarray:
    """The mean over the chosen layers and heads (0-based indices; None = all): (tokens, tokens)."""
    weights = check_weights(weights)
    chosen = weights[checks.indices(layers, "layers", weights.shape[0]) if layers is not None else slice(None)]
    return chosen[:, checks.indices(heads, "heads", weights.shape[1]) if heads is not None else slice(None)].mean(
        axis=(0, 1))


def from_tokens(weights: np.ndarray, tokens: Sequence[int]) -> np.ndarray:
    """What the chosen query tokens attend to, averaged over them: (layers, heads, tokens)."""
    weights = check_weights(weights)
    return weights[:, :, checks.indices(tokens, "tokens", weights.shape[-1])].mean(axis=2)


def token_view(weights: np.ndarray, rolled: np.ndarray, token: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Where ``token`` looks, layer by layer: raw attention (the mean over each layer's heads) and
    rollout (``rollout``'s row for it), each a (layers, tokens) table with rows "layer 1".."""
    weights = check_weights(weights)
    token = checks.whole_number(token, "token", 0, weights.shape[-1] - 1)
    rolled = checks.numbers(rolled, "rolled", "(layers, tokens, tokens)")
    if rolled.shape != (weights.shape[0], *weights.shape[2:]):
        raise ValueError(f"rolled has shape {rolled.shape}; the rollout of these weights has "
                         f"{(weights.shape[0], *weights.shape[2:])}: make both from the same text.")
    rows = [f"layer {l}" for l in range(1, weights.shape[0] + 1)]
    return (pd.DataFrame(from_tokens(weights, [token]).mean(axis=1), index=rows),
            pd.DataFrame(rolled[:, token], index=rows))


def rollout(weights: np.ndarray) -> np.ndarray:
    """Attention rollout (Abnar & Zuidema 2020) after each layer: (layers, tokens, tokens).

    With A_l the mean over heads of layer l, and the residual connection counted as half the flow,
    Â_l = rownorm(0.5 · A_l + 0.5 · I), and R_1 = Â_1, R_l = Â_l · R_{l-1}. Row q of R_l is how much
    of what token q holds after layer l came from each input token; rows sum to 1.
    """
    weights = check_weights(weights)
    layers, tokens = weights.shape[0], weights.shape[-1]
    flow = 0.5 * weights.astype(np.float64).mean(axis=1) + 0.5 * np.eye(tokens)  # (L, T, T)
    flow /= flow.sum(axis=-1, keepdims=True)
    result = np.empty_like(flow)
    result[0] = flow[0]
    for layer in range(1, layers):
        result[layer] = flow[layer] @ result[layer - 1]
    return result


def thumbnails(weights: np.ndarray, max_tokens: int) -> np.ndarray:
    """Every head's weights for a small multiple: (layers, heads, m, m) with m = min(tokens, max_tokens).

    Past ``max_tokens`` tokens, consecutive tokens are grouped into m blocks (sizes differ by at most
    one) and each cell is the mean over the block's query rows of the sum over its key columns, so
    every row still sums to 1.
    """
    weights, max_tokens = check_weights(weights), checks.whole_number(max_tokens, "max_tokens", 1)
    tokens = weights.shape[-1]
    if tokens <= max_tokens:
        return weights
    edges = np.linspace(0, tokens, max_tokens + 1).round().astype(int)
    summed = np.add.reduceat(weights, edges[:-1], axis=-1)  # sum over each block of keys
    counts = np.diff(edges).astype(weights.dtype)
    return np.add.reduceat(summed, edges[:-1], axis=-2) / counts[:, None]  # mean over each block of queries


THUMBNAIL_TOKENS = 48  # tokens per side of a model-view thumbnail; longer texts are grouped into blocks


@dataclass(frozen=True)
class AttentionSummary:
    """What the Attention page shows besides one head's weights: ``statistics`` (head_statistics' long
    frame), ``rollout`` (layers, tokens, tokens) and ``thumbnails`` (layers, heads, m, m)."""

    statistics: pd.DataFrame
    rollout: np.ndarray
    thumbnails: np.ndarray


def summarize(weights: np.ndarray, roles: TokenRoles) -> AttentionSummary:
    """Statistics, rollout and model-view thumbnails of one text's (layers, heads, tokens, tokens) weights. As in
    ``head_statistics``, the previous- and next-token shares are NaN for a text of one token."""
    return AttentionSummary(head_statistics(weights, roles), rollout(weights), thumbnails(weights, THUMBNAIL_TOKENS))
