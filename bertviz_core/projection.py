"""PCA of sentence vectors (scikit-learn)."""
from __future__ import annotations

import numpy as np
from sklearn.decomposition import PCA


def pca_2d(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Project (n, dim) vectors to (n, 2); also return the explained variance ratio of each axis (2,).

    Identical vectors (e.g. [CLS] at the embedding layer) have no variance: the ratio is then 0.
    """
    x = np.asarray(vectors, dtype=np.float64)
    if np.ptp(x, axis=0).max(initial=0.0) == 0.0:
        return np.zeros((x.shape[0], 2)), np.zeros(2)
    k = min(2, x.shape[0], x.shape[1])
    pca = PCA(n_components=k, random_state=0)
    coords = pca.fit_transform(x)
    ratio = pca.explained_variance_ratio_
    if k < 2:  # a single text or a single dimension: pad the missing axis with zeros
        coords = np.pad(coords, ((0, 0), (0, 2 - k)))
        ratio = np.pad(ratio, (0, 2 - k))
    return coords, ratio
