"""2-D maps of sentence vectors (scikit-learn): PCA, and the projection registry, each map scored by its
trustworthiness."""
from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from types import ModuleType

import numpy as np
from sklearn.decomposition import PCA
from sklearn.manifold import trustworthiness

import bertviz_core.checks as checks


def pca_2d(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Project (n, dim) vectors to (n, 2); also return the explained variance ratio of each axis (2,).

    Identical vectors (e.g. [CLS] at the embedding layer) have no variance: the ratio is then 0.
    """
    x = np.asarray(checks.numbers(vectors, "vectors", "(n, dim)"), dtype=np.float64)
    if identical(x):
        return np.zeros((x.shape[0], 2)), np.zeros(2)
    k = min(2, x.shape[0], x.shape[1])
    pca = PCA(n_components=k, random_state=0)
    coords = pca.fit_transform(x)
    ratio = pca.explained_variance_ratio_
    if k < 2:  # a single text or a single dimension: pad the missing axis with zeros
        coords = np.pad(coords, ((0, 0), (0, 2 - k)))
        ratio = np.pad(ratio, (0, 2 - k))
    return coords, ratio


@dataclass(frozen=True)
class Projection:
    """A 2-D map: ``fn`` maps (n, dim) to (n, 2) with a fixed seed; ``code`` does the same in a notebook on an
    array ``vectors`` (its import included). ``min_rows``: the fewest vectors it maps (3 for any map, which
    trustworthiness needs to score)."""

    fn: Callable[[np.ndarray], np.ndarray]
    note: str
    code: str
    min_rows: int = 3


def _tsne(vectors: np.ndarray) -> np.ndarray:
    from sklearn.manifold import TSNE

    perplexity = min(30.0, (len(vectors) - 1) / 3)  # t-SNE needs perplexity < n; 30 is its usual default
    return TSNE(n_components=2, perplexity=perplexity, init="pca", random_state=0).fit_transform(vectors)


@cache
def umap_module() -> ModuleType:
    """umap, imported on use, with numba's on-disk cache turned on for every compiled function of its modules.
    numba compiles them in each new process (about 25 s of CPU: each app server, each precompute map worker, each
    test worker), and umap marks only a few of them ``cache=True`` itself; from the cache a later process loads
    them in about 4 s, the same machine code, so the same coordinates to the last bit."""
    import umap
    from numba.core.caching import NullCache
    from numba.core.dispatcher import Dispatcher

    for name, module in list(sys.modules.items()):
        if name == "umap" or name.startswith("umap."):
            for value in vars(module).values():
                if isinstance(value, Dispatcher) and isinstance(value._cache, NullCache):
                    value.enable_caching()
    return umap


def compile_umap() -> None:
    """Compile umap's functions into numba's on-disk cache once per install (``make``'s install step runs it):
    compiling takes about 50 s of CPU, which otherwise falls on the first map of every fresh install's first
    visitor, precompute or test."""
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):  # the app's vectors, and numpy's default
        _umap(rng.normal(size=(40, 16)).astype(dtype))


def _umap(vectors: np.ndarray) -> np.ndarray:
    umap = umap_module()
    with warnings.catch_warnings():  # "n_jobs overridden by setting random_state": the seed is the point
        warnings.simplefilter("ignore", UserWarning)
        return umap.UMAP(n_components=2, n_neighbors=min(15, len(vectors) - 1), random_state=0).fit_transform(vectors)


PROJECTIONS: dict[str, Projection] = {
    "PCA": Projection(lambda x: pca_2d(x)[0], "linear: the two directions of largest variance",
                      "from sklearn.decomposition import PCA\ncoords = PCA(n_components=2, random_state=0)"
                      ".fit_transform(vectors)"),
    "t-SNE": Projection(_tsne, "non-linear: keeps near neighbours near; distances between clusters mean little",
                        "from sklearn.manifold import TSNE\ncoords = TSNE(n_components=2, perplexity=min(30.0, "
                        "(len(vectors) - 1) / 3), init='pca', random_state=0).fit_transform(vectors)"),
    "UMAP": Projection(_umap, "non-linear: keeps neighbourhoods and more of the global layout than t-SNE",
                       "import umap\ncoords = umap.UMAP(n_components=2, n_neighbors=min(15, len(vectors) - 1), "
                       "random_state=0).fit_transform(vectors)", min_rows=4),  # its spectral start needs 4
}
TRUST_NEIGHBOURS = 5  # k of the trustworthiness score


def trust(vectors: np.ndarray, coords: np.ndarray) -> float:
    """scikit-learn's trustworthiness of a map with k = ``TRUST_NEIGHBOURS`` (fewer for tiny corpora): 1 when
    every point's k nearest neighbours on the map are near it in the full space too, lower as the map
    invents neighbours. NaN for fewer than 3 vectors, where no point has a neighbour to keep."""
    vectors = checks.numbers(vectors, "vectors", "(n, dim)")
    coords = checks.numbers(coords, "coords", "(n, 2)")
    checks.same_rows(vectors, coords, "vectors", "coords")
    k = min(TRUST_NEIGHBOURS, (len(vectors) - 1) // 2)
    return float(trustworthiness(np.asarray(vectors, dtype=np.float64), coords, n_neighbors=k)) if k >= 1 else float("nan")


def project(name: str, vectors: np.ndarray) -> tuple[np.ndarray, float]:
    """``PROJECTIONS[name]`` of (n, dim) vectors: (n, 2) coordinates and their trustworthiness; when every vector
    is the same there is nothing to map: all coordinates 0 and trustworthiness NaN. ``ValueError`` for fewer
    vectors than the projection's ``min_rows``."""
    projection = PROJECTIONS[checks.choice(name, "projection", PROJECTIONS)]
    x = np.asarray(checks.numbers(vectors, "vectors", "(n, dim)"), dtype=np.float64)
    if len(x) < projection.min_rows:
        raise ValueError(f"{name} needs at least {projection.min_rows} vectors to draw a map; there are {len(x)}. "
                         "Add texts.")
    if identical(x):  # nothing to map, and t-SNE's tree code crashes on the NaNs such input gives
        return np.zeros((len(x), 2)), float("nan")
    coords = projection.fn(x)
    return coords, trust(x, coords)


def identical(vectors: np.ndarray) -> bool:
    """True when every row of (n, dim) ``vectors`` is the same (e.g. [CLS] at the embedding layer)."""
    vectors = checks.numbers(vectors, "vectors", "(n, dim)", min_rows=0)
    return len(vectors) == 0 or np.ptp(vectors, axis=0).max(initial=0.0) == 0.0
