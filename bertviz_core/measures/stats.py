"""Statistics of hidden-state values: per vector, per layer, and the outlier dimensions.

All functions take one text's hidden states, float32 (layers+1, tokens, hidden), and return
numpy arrays or pandas frames. Nothing here runs the model.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import kurtosis

import bertviz_core.checks as checks

HISTOGRAM_BINS = 200  # as in the BERT word-embedding tutorial
STATES = "(layers+1, tokens, hidden)"


def check_states(hidden_states: np.ndarray, token: int | None = None) -> np.ndarray:
    """One text's hidden states, (layers+1, tokens, hidden) finite numbers with at least one token, or only
    ``token``'s (a whole number from 0 to tokens - 1; None: all), (layers+1, 1, hidden)."""
    h = checks.numbers(hidden_states, "hidden_states", STATES)
    if min(h.shape) < 1:
        raise ValueError(f"hidden_states must be {STATES} with at least one of each; they have shape {h.shape}.")
    return h if token is None else h[:, (t := checks.whole_number(token, "token", 0, h.shape[1] - 1)):t + 1]


def vector_stats(vector: np.ndarray) -> dict[str, float]:
    """min, max, mean, std (population) and L2 norm of one (hidden,) vector."""
    v = np.asarray(checks.numbers(vector, "vector", "(hidden,)"), dtype=np.float64)
    return {"min": float(v.min()), "max": float(v.max()), "mean": float(v.mean()),
            "std": float(v.std()), "l2_norm": float(np.linalg.norm(v))}


def histogram(values: np.ndarray, bins: int = HISTOGRAM_BINS) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.histogram`` of the values (any shape, at least one): (counts (bins,), edges (bins+1,))."""
    values = np.ravel(checks.numbers(values, "values", None))
    if not len(values):
        raise ValueError("There are no values to count: give at least one.")
    return np.histogram(values, bins=checks.whole_number(bins, "bins", 1))


def layer_stats(hidden_states: np.ndarray, token: int | None = None) -> pd.DataFrame:
    """One row per layer (0 = embeddings): mean, std, min, max, kurtosis of the values, mean L2 norm.

    ``token=None`` pools the values of all tokens; an int restricts to that token's vector.
    Kurtosis is Fisher's (excess: 0 for a normal distribution), from scipy.
    """
    h = check_states(hidden_states, token)  # (L+1, T, H)
    flat = h.reshape(h.shape[0], -1).astype(np.float64)  # (L+1, T*H)
    return pd.DataFrame({
        "layer": np.arange(h.shape[0]),
        "mean": flat.mean(axis=1),
        "std": flat.std(axis=1),
        "min": flat.min(axis=1),
        "max": flat.max(axis=1),
        "kurtosis": kurtosis(flat, axis=1, fisher=True, bias=True),
        "mean_l2_norm": np.linalg.norm(h.astype(np.float64), axis=2).mean(axis=1),
    })


def layer_quantiles(hidden_states: np.ndarray, token: int | None = None) -> pd.DataFrame:
    """Per layer: min, p1, q1, median, q3, p99, max of the values (all tokens, or one ``token``)."""
    h = check_states(hidden_states, token)
    flat = h.reshape(h.shape[0], -1)
    q = np.percentile(flat, [0, 1, 25, 50, 75, 99, 100], axis=1)  # (7, L+1)
    return pd.DataFrame({"layer": np.arange(h.shape[0]), **dict(zip(
        ["min", "p1", "q1", "median", "q3", "p99", "max"], q))})


def token_norms(hidden_states: np.ndarray) -> np.ndarray:
    """L2 norm of every token's vector at every layer: (tokens, layers+1)."""
    return np.linalg.norm(check_states(hidden_states).astype(np.float64), axis=2).T


@dataclass(frozen=True)
class OutlierRule:
    """Dimension d is an outlier in layer l when |h[l, t, d] - mean_l| > z * std_l for more than
    ``share`` of the tokens t, where mean_l and std_l are over all tokens and dimensions of layer l."""

    z: float = 3.0
    share: float = 0.5

    def __post_init__(self) -> None:
        checks.real_number(self.z, "z (standard deviations)", 0)
        checks.real_number(self.share, "share (of the tokens)", 0, 1)


def outlier_mask(hidden_states: np.ndarray, rule: OutlierRule = OutlierRule()) -> np.ndarray:
    """Boolean (layers+1, hidden): where dimension d is an outlier in layer l under ``rule``."""
    checks.instance(rule, OutlierRule, "rule", "OutlierRule(z, share)")
    h = check_states(hidden_states).astype(np.float64)
    mean = h.mean(axis=(1, 2), keepdims=True)
    std = h.std(axis=(1, 2), keepdims=True)
    extreme = np.abs(h - mean) > rule.z * np.where(std > 0, std, np.inf)  # (L+1, T, H)
    return extreme.mean(axis=1) > rule.share


def outliers_at(hidden_states: np.ndarray, rule: OutlierRule, layer: int) -> list[int]:
    """The dimensions that are outliers under ``rule`` at ``layer`` (the ``layers`` column of
    ``outlier_dimensions`` lists this layer for exactly these)."""
    mask = outlier_mask(hidden_states, rule)
    return [int(d) for d in np.flatnonzero(mask[checks.whole_number(layer, "layer", 0, len(mask) - 1)])]


def outlier_dimensions(hidden_states: np.ndarray, rule: OutlierRule = OutlierRule()) -> pd.DataFrame:
    """The dimensions that are outliers under ``rule`` in at least one layer, most persistent first.

    Columns: dimension, layers (where it is an outlier), n_layers, mean_value (signed mean over
    tokens and those layers), max_abs_z (largest |value - mean_l| / std_l over tokens and layers).
    """
    mask = outlier_mask(hidden_states, rule)  # (L+1, H)
    h = check_states(hidden_states).astype(np.float64)
    mean = h.mean(axis=(1, 2), keepdims=True)
    std = np.where((s := h.std(axis=(1, 2), keepdims=True)) > 0, s, np.inf)
    z = np.abs(h - mean) / std  # (L+1, T, H)
    rows = []
    for d in np.flatnonzero(mask.any(axis=0)):
        layers = np.flatnonzero(mask[:, d])
        rows.append({
            "dimension": int(d),
            "layers": ", ".join(map(str, layers)),
            "n_layers": len(layers),
            "mean_value": float(h[layers, :, d].mean()),
            "max_abs_z": float(z[:, :, d].max()),
        })
    columns = ["dimension", "layers", "n_layers", "mean_value", "max_abs_z"]
    frame = pd.DataFrame(rows, columns=columns)
    return frame.sort_values(["n_layers", "max_abs_z"], ascending=False, ignore_index=True)
