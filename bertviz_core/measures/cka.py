"""How alike two models' (or two layers') representations of the same texts are: linear CKA and RSA.

Both compare what each representation says about the relations between the texts, so they can compare
vectors of different widths (384 and 768) and of different models. Nothing here runs a model: the inputs are
the arrays ``Encoder.embed`` returns, (n texts, layers, hidden), or word vectors aligned across two tokenizers
(``word_alignment``).

Linear CKA (Kornblith et al., ICML 2019), for X (n, d1) and Y (n, d2) with every column centred:

    CKA(X, Y) = ||Yᵀ X||_F² / (||Xᵀ X||_F · ||Yᵀ Y||_F)
              = HSIC(K, L) / sqrt(HSIC(K, K) · HSIC(L, L)),  K = X Xᵀ, L = Y Yᵀ, HSIC(K, L) = tr(K H L H) / (n-1)²

It is 1 for X against itself, and unchanged by rotating or reflecting either side (an orthogonal transform) and by
scaling either side as a whole; it changes when the axes are scaled unequally. The debiased form (Nguyen, Raghu &
Kornblith, ICLR 2021) puts in HSIC's unbiased estimator (Song et al., 2012), with K̃ and L̃ the kernels with their
diagonals set to zero:

    HSIC₁(K, L) = [tr(K̃ L̃) + (1ᵀK̃1)(1ᵀL̃1) / ((n-1)(n-2)) - 2/(n-2) · 1ᵀK̃L̃1] / (n (n-3))

which needs n ≥ 4 texts, can be a little below 0, and does not drift upwards on few texts as the plain form does.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata

import bertviz_core.checks as checks

DEBIASED_MIN_TEXTS = 4  # HSIC₁ divides by n (n - 3)
# A layer whose vectors spread less than this share of their length is treated as one point (e.g. [CLS] at the
# embedding layer, the same vector for every text, up to float32 rounding): its CKA is undefined (NaN).
CONSTANT_SHARE = 1e-10
GRAM_ROWS = 2_000  # up to this many texts the traces go through n×n kernels when that costs less
LAYERED = "(n texts, layers, hidden)"


def _centred(x: np.ndarray) -> np.ndarray:
    """(n, d) float64 with each column's mean taken away."""
    x = np.asarray(x, dtype=np.float64)
    return x - x.mean(axis=0, keepdims=True)


def _cross_traces(xs: list[np.ndarray], ys: list[np.ndarray]) -> np.ndarray:
    """(len(xs), len(ys)): tr(K_i L_j) = ||Y_jᵀ X_i||_F² for (n, d) arrays, through the n×n kernels or through the
    d1×d2 products, whichever costs fewer multiplications."""
    n = xs[0].shape[0]
    width_x, width_y = sum(x.shape[1] for x in xs), sum(y.shape[1] for y in ys)
    if n <= GRAM_ROWS and n * (width_x + width_y) < width_x * width_y:
        kernels_x = np.stack([(x @ x.T).ravel() for x in xs])  # (layers_x, n²)
        return np.stack([kernels_x @ (y @ y.T).ravel() for y in ys], axis=1)
    return np.array([[float(np.sum((x.T @ y) ** 2)) for y in ys] for x in xs])


def _self_traces(xs: list[np.ndarray]) -> np.ndarray:
    """(len(xs),): tr(K_i K_i) = ||X_iᵀ X_i||_F², through the smaller of the two products."""
    return np.array([float(np.sum((x @ x.T) ** 2)) if x.shape[0] < x.shape[1] else float(np.sum((x.T @ x) ** 2))
                     for x in xs])


def _unbiased(traces: np.ndarray, rows_x: np.ndarray, rows_y: np.ndarray, n: int) -> np.ndarray:
    """HSIC₁ · n (n-3) for centred X and Y, from tr(K L) and each text's squared length (rows_x (layers_x, n),
    rows_y (layers_y, n)). Centred columns make K 1 = 0, so K̃ 1 = -diag(K) and 1ᵀK̃1 = -Σ diag(K); and
    tr(K̃ L̃) = tr(K L) - Σ diag(K)·diag(L). Written out, the formula above becomes this."""
    return (traces - n / (n - 2) * (rows_x @ rows_y.T)
            + np.outer(rows_x.sum(axis=1), rows_y.sum(axis=1)) / ((n - 1) * (n - 2)))


def _constant(x: np.ndarray, raw: np.ndarray) -> bool:
    """Whether the centred (n, d) ``x`` is only rounding around one point (``raw`` is x before centring)."""
    return float(np.sum(x ** 2)) <= CONSTANT_SHARE * max(float(np.sum(np.asarray(raw, np.float64) ** 2)), 1e-300)


def _layers(array: np.ndarray, name: str, min_rows: int) -> list[np.ndarray]:
    """The layers of ``array`` (n, layers, hidden) as raw (n, hidden) arrays, after checking it."""
    array = checks.numbers(array, name, LAYERED, min_rows=min_rows)
    if min(array.shape) < 1:
        raise ValueError(f"{name} must be {LAYERED} with at least one layer and one dimension; it has shape "
                         f"{array.shape}.")
    return [array[:, layer] for layer in range(array.shape[1])]


def _tables(raw_a: list[np.ndarray], raw_b: list[np.ndarray]) -> dict[bool, tuple[np.ndarray, np.ndarray]]:
    """{debiased: (CKA table, chance table)} of raw (n, d) layers, the traces shared by both estimators; the
    debiased tables NaN below ``DEBIASED_MIN_TEXTS`` texts."""
    xs, ys = [_centred(x) for x in raw_a], [_centred(y) for y in raw_b]
    n = len(xs[0])
    cross, self_x, self_y = _cross_traces(xs, ys), _self_traces(xs), _self_traces(ys)
    rows_x = np.stack([np.einsum("ij,ij->i", x, x) for x in xs])  # each text's squared length, (layers_a, n)
    rows_y = np.stack([np.einsum("ij,ij->i", y, y) for y in ys])
    spread_x = np.array([not _constant(x, r) for x, r in zip(xs, raw_a)])
    spread_y = np.array([not _constant(y, r) for y, r in zip(ys, raw_b)])
    tables = {}
    for debiased in (False, True):
        if debiased and n < DEBIASED_MIN_TEXTS:
            tables[debiased] = (np.full(cross.shape, np.nan),) * 2
            continue
        traces, sx, sy = cross, self_x, self_y
        expected = np.outer(rows_x.sum(axis=1), rows_y.sum(axis=1)) / (n - 1)  # tr(K) tr(L) / (n-1)
        if debiased:
            traces = _unbiased(cross, rows_x, rows_y, n)
            sx = np.array([_unbiased(self_x[i:i + 1, None], rows_x[i:i + 1], rows_x[i:i + 1], n)[0, 0]
                           for i in range(len(xs))])
            sy = np.array([_unbiased(self_y[j:j + 1, None], rows_y[j:j + 1], rows_y[j:j + 1], n)[0, 0]
                           for j in range(len(ys))])
            expected = np.zeros(cross.shape)
        usable = np.outer(spread_x & (sx > 0), spread_y & (sy > 0))
        scale = np.sqrt(np.where(usable, np.outer(sx, sy), 1.0))
        tables[debiased] = (np.where(usable, traces / scale, np.nan), np.where(usable, expected / scale, np.nan))
    return tables


def _checked_layers(a: np.ndarray, b: np.ndarray, needed: int = 2,
                    why: str = "") -> tuple[list[np.ndarray], list[np.ndarray]]:
    raw_a, raw_b = _layers(a, "a", 1), _layers(b, "b", 1)
    checks.same_rows(raw_a[0], raw_b[0], "texts in a", "b")
    if len(raw_a[0]) < needed:
        raise ValueError(f"CKA compares the relations between texts: it needs at least {needed} texts{why}; there "
                         f"{'is' if len(raw_a[0]) == 1 else 'are'} {len(raw_a[0])}.")
    return raw_a, raw_b


def cka_matrix(a: np.ndarray, b: np.ndarray, debiased: bool = False) -> np.ndarray:
    """Linear CKA of every layer of ``a`` (n, layers_a, d1) against every layer of ``b`` (n, layers_b, d2), the same
    n texts in the same order: (layers_a, layers_b) float64 in [0, 1] (debiased: may dip a little below 0). NaN
    where a layer holds one point for every text. Needs 2 texts, or 4 when ``debiased``."""
    if not isinstance(debiased, bool | np.bool_):
        raise ValueError(f"debiased must be True or False; it is {checks.shown(debiased)}.")
    raw_a, raw_b = _checked_layers(a, b, DEBIASED_MIN_TEXTS if debiased else 2,
                                   " for the debiased estimator" if debiased else "")
    return _tables(raw_a, raw_b)[bool(debiased)][0]


def cka_tables(a: np.ndarray, b: np.ndarray) -> dict[bool, tuple[np.ndarray, np.ndarray]]:
    """{debiased: (``cka_matrix`` of a and b, chance)} for both estimators at the cost of one: a (n, layers_a, d1)
    and b (n, layers_b, d2), n ≥ 2 texts (the debiased tables are NaN below 4). Chance (layers_a, layers_b) is the
    exact mean CKA over every way of pairing B's rows with A's at random: tr(K) tr(L) / ((n-1) ‖K‖_F ‖L‖_F) with
    centred kernels for linear CKA (so it grows as n falls), and 0 for the debiased estimator, whose HSIC₁ has
    mean 0 over the pairings. NaN where a layer holds one point for every text."""
    return _tables(*_checked_layers(a, b))


def linear_cka(x: np.ndarray, y: np.ndarray, debiased: bool = False) -> float:
    """Linear CKA of x (n, d1) against y (n, d2), the same n texts in the same order (module docstring): a float in
    [0, 1] (debiased: may dip a little below 0). ``ValueError`` when either side holds one point for every text,
    for which CKA is undefined."""
    x, y = checks.numbers(x, "x", "(n, d1)"), checks.numbers(y, "y", "(n, d2)")
    value = float(cka_matrix(x[:, None, :], y[:, None, :], debiased)[0, 0])
    if np.isnan(value):
        raise ValueError("CKA is undefined here: one side gives (nearly) the same vector for every text, so it "
                         "holds no relations between the texts to compare.")
    return value


def _cosine_ranks(x: np.ndarray) -> np.ndarray | None:
    """The ranks of the n (n-1) / 2 pairwise cosines of x's rows (upper triangle, row by row), centred and scaled
    to length 1; None when they are all equal (or a row is zero, which has no direction)."""
    norms = np.linalg.norm(x, axis=1)
    if not np.all(norms > 0):
        return None
    unit = x / norms[:, None]
    ranks = rankdata((unit @ unit.T)[np.triu_indices(len(x), 1)])
    ranks -= ranks.mean()
    length = float(np.linalg.norm(ranks))
    return ranks / length if length > 0 else None


def rsa_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Representational similarity of every layer of ``a`` (n, layers_a, d1) against every layer of ``b``
    (n, layers_b, d2), the same n ≥ 3 texts: the Spearman correlation between the two layers' pairwise cosine
    similarities over the n (n-1) / 2 pairs of texts, (layers_a, layers_b) float64 in [-1, 1]. NaN where a layer's
    cosines are all equal or a vector is zero."""
    raw_a, raw_b = _layers(a, "a", 3), _layers(b, "b", 3)
    checks.same_rows(raw_a[0], raw_b[0], "texts in a", "b")
    ranks_a = [_cosine_ranks(np.asarray(x, np.float64)) for x in raw_a]
    ranks_b = [_cosine_ranks(np.asarray(y, np.float64)) for y in raw_b]
    return np.array([[np.nan if ra is None or rb is None else float(np.clip(ra @ rb, -1.0, 1.0))
                      for rb in ranks_b] for ra in ranks_a])



@dataclass(frozen=True)
class _Resampled:
    """One layer's kernel K (m, m) under R resamples given as weights (R, m), a row's weight the times it is drawn:
    ``mean`` (R, m) each row's mean kernel value over the resample, ``grand`` (R,) the mean of all, ``diagonal``
    (R, m) the resample's centred kernel's diagonal (each text's squared length after centring)."""

    kernel: np.ndarray
    mean: np.ndarray
    grand: np.ndarray
    diagonal: np.ndarray


def _resampled(x: np.ndarray, weights: np.ndarray, count: np.ndarray) -> _Resampled:
    x = np.asarray(x, np.float64)
    kernel = x @ x.T
    mean = weights @ kernel / count[:, None]
    grand = np.einsum("ri,ri->r", weights, mean) / count
    return _Resampled(kernel, mean, grand, np.diag(kernel)[None, :] - 2 * mean + grand[:, None])


def _resampled_traces(x: _Resampled, y: _Resampled, weights: np.ndarray, count: np.ndarray) -> np.ndarray:
    """(2, R): tr(K L) of each resample's centred kernels (a row drawn c times counts as c rows), and its
    HSIC₁ · n (n-3) (the debiased estimator's): the centring written with weights, so no resampled (m, m) kernel is
    gathered."""
    quadratic = np.einsum("ri,ri->r", weights @ (x.kernel * y.kernel), weights)  # Σ cᵢ cⱼ Kᵢⱼ Lᵢⱼ
    traces = (quadratic - 2 * count * np.einsum("ri,ri,ri->r", weights, x.mean, y.mean)
              + count ** 2 * x.grand * y.grand)
    rows = np.einsum("ri,ri,ri->r", weights, x.diagonal, y.diagonal)
    sums = np.einsum("ri,ri->r", weights, x.diagonal) * np.einsum("ri,ri->r", weights, y.diagonal)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.stack([traces, traces - count / (count - 2) * rows + sums / ((count - 1) * (count - 2))])


def cka_replicates(a: np.ndarray, b: np.ndarray, weights: np.ndarray) -> dict[bool, np.ndarray]:
    """CKA of every layer of ``a`` (m, layers_a, d1) against every layer of ``b`` (m, layers_b, d2) in each of R
    resamples of the rows, given as ``weights`` (R, m): how many times each row is drawn (a bootstrap, or a cluster
    bootstrap that draws whole texts of words). {debiased: (R, layers_a, layers_b)} for both estimators, which
    share the work: each replicate equals ``cka_matrix`` of the resampled arrays, a row drawn twice being two rows.
    NaN where a resample leaves a layer without spread, or fewer than ``DEBIASED_MIN_TEXTS`` rows (debiased)."""
    raw_a, raw_b = _layers(a, "a", 1), _layers(b, "b", 1)
    checks.same_rows(raw_a[0], raw_b[0], "texts in a", "b")
    weights = checks.numbers(weights, "weights", "(resamples, rows)").astype(np.float64)
    if weights.ndim != 2 or weights.shape[1] != len(raw_a[0]) or (weights < 0).any():
        raise ValueError(f"weights must be (resamples, {len(raw_a[0])}) counts of at least 0, one column a row of a "
                         f"and b; they are {checks.shown(weights)}.")
    count = weights.sum(axis=1)
    if (count < 1).any():
        raise ValueError("Every resample must draw at least one row (a row of weights sums to 0).")
    side_a = [_resampled(x, weights, count) for x in raw_a]
    side_b = [_resampled(y, weights, count) for y in raw_b]
    usable = np.outer([not _constant(_centred(x), x) for x in raw_a], [not _constant(_centred(y), y) for y in raw_b])
    self_a = np.stack([_resampled_traces(x, x, weights, count) for x in side_a], axis=2)  # (2, R, layers_a)
    self_b = np.stack([_resampled_traces(y, y, weights, count) for y in side_b], axis=2)
    cross = np.stack([np.stack([_resampled_traces(x, y, weights, count) for y in side_b], axis=2)
                      for x in side_a], axis=2)  # (2, R, layers_a, layers_b)
    scale = self_a[..., :, None] * self_b[..., None, :]
    replicates = {}
    for debiased in (False, True):
        keep = (usable[None] & (scale[int(debiased)] > 0)
                & (count >= (DEBIASED_MIN_TEXTS if debiased else 2))[:, None, None])
        with np.errstate(invalid="ignore", divide="ignore"):
            replicates[debiased] = np.where(keep, cross[int(debiased)] / np.sqrt(np.where(keep, scale[int(debiased)],
                                                                                            1.0)), np.nan)
    return replicates
