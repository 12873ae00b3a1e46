"""Recipes for sentence vectors: pooling, comparing sentences, and the task measures (probe, correlation, map)."""
from __future__ import annotations

from bertviz_core.views.comparison import FIT_ROWS, rows_code
from bertviz_core.model.models import ModelInfo
from bertviz_core.measures.projection import PROJECTIONS, TRUST_NEIGHBOURS
from bertviz_core.recipes.common import pooled_vectors
from bertviz_core.measures.similarity import CORRECTIONS, METRIC_IMPORTS, METRICS, SILHOUETTE_SAMPLE
from bertviz_core.measures.task_measures import WHITEN_AXES_SHARE, probe_code

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


def correction_lines(correction: str) -> str:
    """The lines that correct ``first`` and ``second`` (pairs, hidden) by ``correction``, fitted on ``reference``
    (each distinct sentence once), with the axes whitening keeps said as the page says them; "" for none."""
    fix = CORRECTIONS[correction].code("reference", ("first", "second"), "axes")
    if "axes" in fix:  # the correction keeps axes: say how many, as the page does
        fix = ("# a quarter as many axes as sentences: on all of them every whitened cosine would be the same\n"
               f"axes = min(max(1, int(len(reference) * {WHITEN_AXES_SHARE})), first.shape[1])\n" + fix)
    return fix


def correlation(info: ModelInfo, pairs_code: str, pooling_code: str, layer: int | None, correction: str) -> str:
    """The Spearman correlation of one cell's cosines with the pairs' gold scores, after ``correction``."""
    reference = ("sentences = list(pairs['sentence1']) + list(pairs['sentence2'])\n"
                 "rows = [sentences.index(s) for s in dict.fromkeys(sentences)]   # each distinct sentence once\n"
                 "reference = np.vstack([first, second])[rows]   # the correction is fitted on the pairs' own sentences\n")
    fix = correction_lines(correction)
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


def _sample_rows(folder: str, rows: int, total: int) -> str:
    """The store's ``labels`` (an array) and ``rows``: the stratified sample of ``rows`` of its ``total`` rows that
    the app scores a labelled store on (``measures.labelled_sample``)."""
    pick = ("rows = np.arange(len(labels))   # every row: the store holds no more than the sample\n" if rows >= total else
            "# a stratified random sample: each label keeps its share of the rows\n"
            f"rows = np.sort(resample(np.arange(len(labels)), replace=False, n_samples={rows}, stratify=labels, "
            "random_state=0))\n")
    return ("import numpy as np\nimport pandas as pd\nfrom sklearn.utils import resample\n\n"
            f"store = {folder!r}   # made by: python -m bertviz_core precompute --label-column ...\n"
            "stored = pd.read_parquet(store + '/rows.parquet')\nlabels = stored['label'].to_numpy()\n" + pick)


def store_corpus(folder: str, rows: int, total: int) -> str:
    """``texts`` and ``labels`` of a labelled store's stated sample (``rows`` of ``total``), read from its rows:
    the corpus a recipe encodes to reproduce scores the app read from the store's vectors."""
    return (_sample_rows(folder, rows, total)
            + "texts, labels = stored['text'].to_numpy()[rows].tolist(), list(labels[rows])\n")


def store_sample(folder: str, column: str, rows: int, total: int) -> str:
    """The stratified sample of a labelled store's rows its measures are scored on (``rows`` of ``total``), and
    their stored ``column`` vectors (e.g. "mean@6"), read from disk: no model runs."""
    return (_sample_rows(folder, rows, total)
            + f"vectors = np.load(store + '/vectors/{column}.npy', mmap_mode='r')[rows]   # (rows, hidden)\n"
            "vectors = vectors.astype(np.float64)   # float32 cosines of near-parallel vectors lose digits\n"
            "labels = list(labels[rows])\n")


def store_measures(folder: str, column: str, rows: int, total: int, folds: int | None = None) -> str:
    """The silhouette of one stored column on the store's stated sample, and with ``folds`` the probe before it,
    as the pages score them."""
    probe = "" if folds is None else (
        "keep = [labels.count(label) >= 2 for label in labels]   # a class of one text is left out: it cannot be "
        "both trained on and tested\n"
        "vectors, labels = vectors[keep], [label for label, kept in zip(labels, keep) if kept]\n\n"
        + probe_code("vectors", folds))
    return store_sample(folder, column, rows, total) + probe + SILHOUETTE_CODE


SILHOUETTE_CODE = (
    "from sklearn.metrics import silhouette_score\n"
    f"# above {SILHOUETTE_SAMPLE:,} texts, scikit-learn's own random sample of {SILHOUETTE_SAMPLE:,} (random_state=0)\n"
    f"silhouette = silhouette_score(vectors, labels, metric='cosine', sample_size=min(len(labels), {SILHOUETTE_SAMPLE}),"
    " random_state=0)\n")


def store_map(folder: str, column: str, projection: str, trust_rows: int) -> str:
    """A store's stored ``projection`` map of ``column``, and its trustworthiness on ``trust_rows`` of its points."""
    return ("import numpy as np\nimport pandas as pd\nfrom sklearn.manifold import trustworthiness\n\n"
            f"store = {folder!r}   # made by: python -m bertviz_core precompute --maps {projection}\n"
            f"drawn = pd.read_parquet(store + '/maps/{column}/{projection}.parquet')   # row, x, y: the map as drawn\n"
            f"vectors = np.load(store + '/vectors/{column}.npy', mmap_mode='r')\n"
            f"pick = np.arange(len(drawn)) if len(drawn) <= {trust_rows} else np.sort(np.random.default_rng(0).choice("
            f"len(drawn), {trust_rows}, replace=False))\n"
            "rows = drawn['row'].to_numpy()[pick]\norder = np.argsort(rows)\n"
            "trust = trustworthiness(np.asarray(vectors[rows[order]], dtype=np.float64), "
            f"drawn[['x', 'y']].to_numpy()[pick][order], n_neighbors={TRUST_NEIGHBOURS})\n")
