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


def cka_matrix(a: np.ndarray, b: np.ndarray, debiased: bool = False) -> np.ndarray:
    """Linear CKA of every layer of ``a`` (n, layers_a, d1) against every layer of ``b`` (n, layers_b, d2), the same
    n texts in the same order: (layers_a, layers_b) float64 in [0, 1] (debiased: may dip a little below 0). NaN
    where a layer holds one point for every text. Needs 2 texts, or 4 when ``debiased``."""
    if not isinstance(debiased, bool | np.bool_):
        raise ValueError(f"debiased must be True or False; it is {checks.shown(debiased)}.")
    raw_a, raw_b = _layers(a, "a", 1), _layers(b, "b", 1)
    checks.same_rows(raw_a[0], raw_b[0], "texts in a", "b")
    if len(raw_a[0]) < (needed := DEBIASED_MIN_TEXTS if debiased else 2):
        raise ValueError(f"CKA compares the relations between texts: it needs at least {needed} texts"
                         + (" for the debiased estimator" if debiased else "") + f"; there are {len(raw_a[0])}.")
    xs, ys = [_centred(x) for x in raw_a], [_centred(y) for y in raw_b]
    n = len(xs[0])
    cross, self_x, self_y = _cross_traces(xs, ys), _self_traces(xs), _self_traces(ys)
    if debiased:
        rows_x = np.stack([np.einsum("ij,ij->i", x, x) for x in xs])
        rows_y = np.stack([np.einsum("ij,ij->i", y, y) for y in ys])
        cross = _unbiased(cross, rows_x, rows_y, n)
        self_x = np.array([_unbiased(self_x[i:i + 1, None], rows_x[i:i + 1], rows_x[i:i + 1], n)[0, 0]
                           for i in range(len(xs))])
        self_y = np.array([_unbiased(self_y[j:j + 1, None], rows_y[j:j + 1], rows_y[j:j + 1], n)[0, 0]
                           for j in range(len(ys))])
    usable_x = np.array([not _constant(x, r) for x, r in zip(xs, raw_a)]) & (self_x > 0)
    usable_y = np.array([not _constant(y, r) for y, r in zip(ys, raw_b)]) & (self_y > 0)
    scale = np.sqrt(np.outer(np.where(usable_x, self_x, 1.0), np.where(usable_y, self_y, 1.0)))
    return np.where(np.outer(usable_x, usable_y), cross / scale, np.nan)


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
