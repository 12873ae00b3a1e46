"""A store's search (issue #30): exact search equals a brute-force sort on every metric; the approximate index finds
what exact search finds at its measured recall, scores its rows exactly, opens memory-mapped, and a damaged file is
said to be damaged."""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bertviz_core import open_store
from bertviz_core.corpora import news_topics
from bertviz_core.precompute import ann
from bertviz_core.precompute.reader import INDEXED_METRICS
from bertviz_core.precompute.request import Request
from bertviz_core.precompute.run import precompute
from bertviz_core.measures.similarity import METRICS


def clustered(rows: int, hidden: int = 32, seed: int = 0) -> np.ndarray:
    """float32 (rows, hidden): points around 100 centres, lengths varying, so the metrics rank differently."""
    generator = np.random.default_rng(seed)
    centres = generator.standard_normal((100, hidden))
    points = centres[generator.integers(0, 100, rows)] + 0.6 * generator.standard_normal((rows, hidden))
    return (points * generator.uniform(0.5, 2.0, (rows, 1))).astype(np.float32)


def brute_force(vectors: np.ndarray, query: np.ndarray, k: int, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """The k best rows by ``metric``, best first, ties in row order, and their scores: sorted in full."""
    scores = METRICS[metric].between(vectors, query[None])[:, 0]
    order = np.lexsort((np.arange(len(scores)), -scores if METRICS[metric].similar_high else scores))[:k]
    return order, scores[order]


@pytest.mark.parametrize("metric", list(METRICS))
def test_exact_search_is_a_full_sort_in_chunks(metric: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ann, "CHUNK_ROWS", 300)  # several chunks, the best rows spread over them
    vectors = clustered(1000)
    vectors[700] = vectors[20]  # a tie: the earlier row comes first
    queries = vectors[[20, 5, 999]] + 0.01
    rows, scores = ann.exact_best(vectors, queries, 7, metric)
    for query, found, said in zip(queries, rows, scores):
        expected, expected_scores = brute_force(vectors, query, 7, metric)
        assert found.tolist() == expected.tolist()
        np.testing.assert_allclose(said, expected_scores, rtol=1e-5, atol=1e-5)
    left_out = ann.exact_best(vectors, vectors[[3]], 5, metric, np.array([3]))[0][0]
    assert 3 not in left_out and left_out.tolist() == [row for row in brute_force(vectors, vectors[3], 6, metric)[0]
                                                       if row != 3][:5]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[np.ndarray, Path, dict]:
    vectors = clustered(20_000)
    folder = tmp_path_factory.mktemp("ann")
    np.save(folder / "vectors.npy", vectors)
    mapped = np.load(folder / "vectors.npy", mmap_mode="r")
    return mapped, folder / "index" / "x.faiss", ann.build_index(mapped, folder / "index" / "x.faiss")


@pytest.mark.slow
def test_the_index_states_its_measured_recall_and_reaches_it(built) -> None:  # noqa: ANN001
    vectors, path, facts = built
    assert facts["lists"] == 128 and ann.MIN_PROBES <= facts["probes"] <= facts["lists"]
    assert set(facts["recall"]) == set(METRICS) and facts["recall"]["cosine"] >= ann.TARGET_RECALL
    index = ann.open_index(path)
    generator = np.random.default_rng(1)
    asked = generator.choice(len(vectors), 50, replace=False)  # other rows than the build's sample
    for metric in METRICS:
        hits = 0
        for row in asked:
            truth = brute_force(vectors, vectors[row], 11, metric)[0]
            found, scores = ann.approximate_top(index, vectors, np.asarray(vectors[row]), 10, metric, facts["probes"],
                                                leave_out=row)
            hits += len(set(found.tolist()) & (set(truth.tolist()) - {row}))
            np.testing.assert_allclose(scores, METRICS[metric].between(vectors[found], vectors[row][None])[:, 0],
                                       rtol=1e-5, atol=1e-5)  # the rows found are scored exactly
            assert list(scores) == sorted(scores, reverse=METRICS[metric].similar_high)
        assert hits / (10 * len(asked)) >= facts["recall"][metric] - 0.05


def test_a_damaged_index_is_said_to_be_damaged(built, tmp_path: Path) -> None:  # noqa: ANN001
    damaged = tmp_path / "x.faiss"
    damaged.write_bytes(built[1].read_bytes()[:1000])
    with pytest.raises(ValueError, match="could not be read as a search index.*damaged"):
        ann.open_index(damaged)


@pytest.mark.parametrize("metric", list(METRICS))
@pytest.mark.slow
def test_a_store_searches_through_its_index_as_exact_search_does(news_store, metric: str) -> None:  # noqa: ANN001
    method = news_store.search_method("mean", 6, metric)
    if metric in INDEXED_METRICS:
        assert method["kind"] == "approximate" and method["recall"] == method_recall(news_store, metric)
    else:  # not ranked by direction alone: searched exactly (reader.INDEXED_METRICS)
        assert method == {"kind": "exact", "rows": 160, "not_by_direction": metric}
    query = np.asarray(news_store.vectors("mean", 6)[7]) + 0.05
    found = news_store.search(query, k=10, strategy="mean", layer=6, metric=metric)
    exact = news_store.search(query, k=10, strategy="mean", layer=6, metric=metric, exact=True)
    # 160 rows are fewer than the candidates a query takes: the approximate answer is the exact one
    pd.testing.assert_frame_equal(found, exact)
    expected, scores = brute_force(np.asarray(news_store.vectors("mean", 6)), query, 10, metric)
    assert found["index"].tolist() == expected.tolist()
    np.testing.assert_allclose(found["score"], scores, rtol=1e-5, atol=1e-5)


def method_recall(store, metric: str) -> float:  # noqa: ANN001 - a VectorStore
    return store.manifest["indexes"]["mean@6"]["recall"][metric]


def test_a_store_below_the_exact_limit_gets_no_index_by_default(tmp_path: Path) -> None:
    news_topics().iloc[:40].to_csv(tmp_path / "news.csv", index=False)
    store = open_store(precompute(str(tmp_path / "news.csv"), str(tmp_path / "s"), Request(strategies=["mean"]))
                       .store)
    assert store.manifest["indexes"] == {} and store.search_method("mean")["kind"] == "exact"
    assert not (tmp_path / "s" / "index").exists()


def test_a_damaged_vector_file_is_said_to_be_damaged(news_store, tmp_path: Path) -> None:  # noqa: ANN001
    copy = tmp_path / "copy"
    shutil.copytree(news_store.folder, copy)
    vectors = copy / "vectors" / "mean@6.npy"
    vectors.write_bytes(vectors.read_bytes()[:-4096])  # cut short, as by a full disk or a copy stopped midway
    store = open_store(str(copy))
    with pytest.raises(ValueError, match="mean@6.npy could not be read .*the store is damaged"):
        store.search("a query", k=3)
    np.save(vectors, np.zeros((5, 384), dtype=np.float32))  # readable, but not what the manifest says
    with pytest.raises(ValueError, match=r"holds float32 \(5, 384\) where the manifest promises float32 \(160, 384\)"):
        store.vectors("mean", 6)


@pytest.mark.parametrize("part, read", [
    ("tokens/6.npy", lambda store: store.token_vectors(6)),
    ("tokens/rows/000000.parquet", lambda store: store.token_rows),
    ("maps/mean@6/PCA.parquet", lambda store: store.map("PCA", "mean", 6)),
    ("rows.parquet", lambda store: store.rows),
])
def test_every_damaged_file_of_a_store_is_said_to_be_damaged(news_store, tmp_path: Path, part: str,  # noqa: ANN001
                                                             read) -> None:  # noqa: ANN001
    copy = tmp_path / "copy"
    shutil.copytree(news_store.folder, copy)
    os.truncate(copy / part, 1000)  # as the issue cut it (#52): numpy's and pyarrow's own errors said nothing of it
    with pytest.raises(ValueError, match=f"{re.escape(part)} could not be read .*the store is damaged"):
        read(open_store(str(copy)))


def test_the_command_says_when_it_builds_an_index() -> None:
    from bertviz_core.__main__ import parser

    help_text = " ".join(parser()._subparsers._group_actions[0].choices["precompute"].format_help().split())
    assert f"above {ann.EXACT_ROWS:,} rows" in help_text
