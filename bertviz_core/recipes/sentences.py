"""Recipes for sentence vectors: pooling, comparing sentences, and the task measures (probe, correlation, map)."""
from __future__ import annotations

from bertviz_core.comparison import FIT_ROWS, rows_code
from bertviz_core.models import ModelInfo
from bertviz_core.projection import PROJECTIONS, TRUST_NEIGHBOURS
from bertviz_core.recipes.common import pooled_vectors
from bertviz_core.similarity import CORRECTIONS, METRIC_IMPORTS, METRICS
from bertviz_core.task_measures import WHITEN_AXES_SHARE, probe_code

NEWS_TOPICS_CODE = ("from bertviz_core.corpora import news_topics  # the built-in corpus; or your own texts and labels\n"
                    "corpus = news_topics()\ntexts, labels = list(corpus['text']), list(corpus['label'])\n")
UPLOADED_CODE = "texts, labels = [...], [...]   # your CSV's text and label columns, empty rows left out\n"
UPLOADED_TEXTS_CODE = "texts = [...]   # your CSV's text column, empty rows left out\n"
BUILT_IN_PAIRS_CODE = "from bertviz_core.corpora import sentence_pairs\npairs = sentence_pairs()   # or pd.read_csv(...)\n"


def sentence_pooling(info: ModelInfo, texts: list[str], pooling_code: str, layer: int | None) -> str:
    """Sentence vectors for one pooling strategy (at ``layer``, or layer-independent), then PCA."""
    return (
        pooled_vectors(info, texts, pooling_code, layer)
        + "from sklearn.decomposition import PCA\ncoords = PCA(n_components=2).fit_transform(vectors)\n"
        "# separation: sklearn.metrics.silhouette_score(vectors, labels, metric='cosine')\n"
    )


def compare_sentences(info: ModelInfo, texts: list[str], pooling_code: str, layer: int | None,
                      correction: str, axes: int | None = None, metric: str = "cosine") -> str:
    """Sentence vectors for one pooling strategy and layer, optionally corrected, then the ``metric`` matrix.

    Corrections are fitted, as in the app, on the built-in corpus' ``FIT_ROWS``.
    """
    reference = (
        "from bertviz_core.corpora import news_topics  # the app's built-in corpus; or a list of your own texts\n"
        "corpus = news_topics()\n"
        f"reference = pooled(list(corpus['text']){rows_code(FIT_ROWS)})\n"
    )
    fix = CORRECTIONS[correction].code("reference", ("vectors",),
                                       str(axes or "min(reference.shape[0] - 1, reference.shape[1])"))
    fix = reference + fix if fix else ""
    return (
        pooled_vectors(info, texts, pooling_code, layer) + fix
        + f"{METRIC_IMPORTS}\nmatrix = {METRICS[metric].code}   # {metric}\nprint(matrix.round(3))\n"
    )


def probe(info: ModelInfo, corpus_code: str, pooling_code: str, layer: int | None, folds: int) -> str:
    """The classification probe of one cell, as the page scores it."""
    return (pooled_vectors(info, None, pooling_code, layer) + corpus_code + "vectors = pooled(texts)\n"
            "keep = [labels.count(label) >= 2 for label in labels]   # a class of one text is left out: it cannot be "
            "both trained on and tested\n"
            "vectors, labels = vectors[keep], [label for label, kept in zip(labels, keep) if kept]\n\n"
            + probe_code("vectors", folds))


def correlation(info: ModelInfo, pairs_code: str, pooling_code: str, layer: int | None, correction: str) -> str:
    """The Spearman correlation of one cell's cosines with the pairs' gold scores, after ``correction``."""
    reference = ("sentences = list(pairs['sentence1']) + list(pairs['sentence2'])\n"
                 "rows = [sentences.index(s) for s in dict.fromkeys(sentences)]   # each distinct sentence once\n"
                 "reference = np.vstack([first, second])[rows]   # the correction is fitted on the pairs' own sentences\n")
    fix = CORRECTIONS[correction].code("reference", ("first", "second"), "axes")
    if "axes" in fix:  # the correction keeps axes: say how many, as the page does
        fix = ("# a quarter as many axes as sentences: on all of them every whitened cosine would be the same\n"
               f"axes = min(max(1, int(len(reference) * {WHITEN_AXES_SHARE})), first.shape[1])\n" + fix)
    fix = reference + fix if fix else ""
    return (pooled_vectors(info, None, pooling_code, layer) + "from scipy.stats import spearmanr\n\n" + pairs_code
            + "first = pooled(list(pairs['sentence1'])).astype(np.float64)\n"
            "second = pooled(list(pairs['sentence2'])).astype(np.float64)\n" + fix
            + "cosines = (first * second).sum(1) / (np.linalg.norm(first, axis=1) * np.linalg.norm(second, axis=1))\n"
            "rho = spearmanr(cosines, pairs['score']).statistic\n")


def projection_map(info: ModelInfo, corpus_code: str, pooling_code: str, layer: int | None, projection: str) -> str:
    """One cell's 2-D map and its trustworthiness."""
    return (pooled_vectors(info, None, pooling_code, layer) + corpus_code
            + "vectors = pooled(texts).astype(np.float64)\n" + PROJECTIONS[projection].code + "\n"
            "from sklearn.manifold import trustworthiness\n"
            f"trust = trustworthiness(vectors, coords, n_neighbors={TRUST_NEIGHBOURS})\n")
