"""The precomputed store's vector format, measured side by side: the store's .npy with numpy's exact search (what
open_store does), faiss (an exact flat index, and HNSW), and Lance (an exact scan, and its IVF_PQ index).

    .venv/bin/python bench/store_formats.py [--texts 20000] [--rows 200000] [--queries 100]

On real sentence vectors (the bundled model's mean pooling of the last layer, ``--texts`` short texts) and on
``--rows`` synthetic ones (mixtures of two real vectors, since embedding that many texts here takes an hour), it
prints for each format: the seconds to build it, its size on disk, the memory a fresh process adds by opening it and
then by answering the queries, the median milliseconds of one query (k=10, cosine), and recall@10 against numpy's
exact answer. Each format is opened and queried in a process of its own.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

K = 10
HNSW_LINKS, HNSW_SEARCH = 32, 64  # faiss's usual M, and an efSearch that keeps recall high
LANCE_PROBES, LANCE_REFINE = 20, 10  # IVF partitions searched, and candidates re-ranked exactly per result


def unit(vectors: np.ndarray) -> np.ndarray:
    """float32 (n, dim) rows scaled to length 1: cosine becomes the inner product for faiss."""
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def build_npy(vectors: np.ndarray, folder: Path) -> None:
    np.save(folder / "vectors.npy", vectors)


def build_faiss_flat(vectors: np.ndarray, folder: Path) -> None:
    import faiss

    index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(unit(vectors))
    faiss.write_index(index, str(folder / "flat.faiss"))


def build_faiss_hnsw(vectors: np.ndarray, folder: Path) -> None:
    import faiss

    index = faiss.IndexHNSWFlat(vectors.shape[1], HNSW_LINKS, faiss.METRIC_INNER_PRODUCT)
    index.add(unit(vectors))
    faiss.write_index(index, str(folder / "hnsw.faiss"))


def _lance_table(vectors: np.ndarray):
    import pyarrow as pa

    flat = pa.array(vectors.reshape(-1), type=pa.float32())
    return pa.table({"row": pa.array(np.arange(len(vectors))),
                     "vector": pa.FixedSizeListArray.from_arrays(flat, vectors.shape[1])})


def build_lance(vectors: np.ndarray, folder: Path) -> None:
    import lance

    lance.write_dataset(_lance_table(vectors), str(folder / "vectors.lance"))


def build_lance_ivf_pq(vectors: np.ndarray, folder: Path) -> None:
    import lance

    dataset = lance.write_dataset(_lance_table(vectors), str(folder / "vectors.lance"))
    dataset.create_index("vector", index_type="IVF_PQ", metric="cosine",
                         num_partitions=max(1, int(np.sqrt(len(vectors)))), num_sub_vectors=vectors.shape[1] // 8)


FORMATS = {  # name: (build, the probe's way to open it and answer one query)
    "npy + numpy exact (the store's)": (build_npy, "npy"),
    "faiss IndexFlatIP (exact)": (build_faiss_flat, "faiss_flat"),
    f"faiss HNSW (M={HNSW_LINKS}, efSearch={HNSW_SEARCH})": (build_faiss_hnsw, "faiss_hnsw"),
    "Lance, exact scan": (build_lance, "lance"),
    f"Lance IVF_PQ (nprobes={LANCE_PROBES}, refine={LANCE_REFINE})": (build_lance_ivf_pq, "lance_ivf_pq"),
}

# Run in a fresh process: resident memory before and after opening the format and after answering every query,
# each query's time, and the rows it found.
PROBE = """
import json, sys, time
import numpy as np
way, folder, queries = sys.argv[1], sys.argv[2], np.load(sys.argv[3])
K, HNSW_SEARCH, LANCE_PROBES, LANCE_REFINE = (int(value) for value in sys.argv[4:8])
def rss():
    return next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith("VmRSS:"))
if way == "npy":
    from bertviz_core.precompute.ann import exact_best
elif way.startswith("faiss"):
    import faiss
else:
    import lance
before = rss()
if way == "npy":
    vectors = np.load(folder + "/vectors.npy", mmap_mode="r")
    def search(query):
        return exact_best(vectors, query[None], K, "cosine")[0][0]
elif way.startswith("faiss"):
    index = faiss.read_index(folder + ("/flat.faiss" if way == "faiss_flat" else "/hnsw.faiss"), faiss.IO_FLAG_MMAP)
    if way == "faiss_hnsw":
        index.hnsw.efSearch = HNSW_SEARCH
    def search(query):
        return index.search((query / np.linalg.norm(query))[None].astype(np.float32), K)[1][0]
else:
    dataset = lance.dataset(folder + "/vectors.lance")
    options = {"nprobes": LANCE_PROBES, "refine_factor": LANCE_REFINE} if way == "lance_ivf_pq" else {"use_index": False}
    def search(query):
        return dataset.to_table(columns=["row"], nearest={"column": "vector", "q": query, "k": K, "metric": "cosine",
                                                          **options})["row"].to_numpy()
opened = rss()
found, seconds = [], []
for query in queries:
    began = time.perf_counter()
    found.append([int(row) for row in search(query)])
    seconds.append(time.perf_counter() - began)
print(json.dumps({"open": opened - before, "queried": rss() - before, "ms": 1000 * float(np.median(seconds[1:])),
                  "found": found}))
"""


def measure(vectors: np.ndarray, queries: np.ndarray, folder: Path) -> list[dict]:
    """Each format's figures on ``vectors`` (n, dim), the ``queries`` (q, dim) answered in a process of its own."""
    np.save(folder / "queries.npy", queries)
    exact = None
    results = []
    for name, (build, way) in FORMATS.items():
        place = folder / way
        place.mkdir()
        began = time.perf_counter()
        build(vectors, place)
        built = time.perf_counter() - began
        probe = subprocess.run([sys.executable, "-c", PROBE, way, str(place), str(folder / "queries.npy"),
                                str(K), str(HNSW_SEARCH), str(LANCE_PROBES), str(LANCE_REFINE)],
                               capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parents[1])
        figures = json.loads(probe.stdout.strip().splitlines()[-1])
        exact = figures["found"] if exact is None else exact  # the first format is numpy's exact search
        recall = np.mean([len(set(got) & set(truth)) / K for got, truth in zip(figures["found"], exact)])
        disk = sum(path.stat().st_size for path in place.rglob("*") if path.is_file())
        results.append({"format": name, "build": built, "disk": disk, "recall": recall, **figures})
        shutil.rmtree(place)
    return results


def show(title: str, results: list[dict]) -> None:
    mib = 2 ** 20
    print(f"\n{title}")
    print(f"{'':44}{'build s':>8}{'disk MiB':>9}{'open MiB':>9}{'+queries MiB':>13}{'query ms':>9}{'recall@10':>10}")
    for row in results:
        print(f"{row['format']:44}{row['build']:8.1f}{row['disk'] / mib:9.1f}{row['open'] / mib:9.1f}"
              f"{row['queried'] / mib:13.1f}{row['ms']:9.2f}{row['recall']:10.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=20_000, help="real sentence vectors to index")
    parser.add_argument("--rows", type=int, default=200_000, help="synthetic vectors to index (0: skip)")
    parser.add_argument("--queries", type=int, default=100)
    arguments = parser.parse_args()
    from precompute_throughput import corpus
    from store_search import mixtures

    from bertviz_core import load_encoder
    from bertviz_core.measures.pooling import vectors_at

    encoder = load_encoder(None, "cpu")
    texts = corpus(arguments.texts + arguments.queries)
    began = time.perf_counter()
    real = vectors_at(encoder.embed(texts, ["mean"]), "mean", encoder.info.num_layers, "texts")  # (texts, hidden)
    print(f"{len(texts):,} texts embedded in {time.perf_counter() - began:.0f} s ({encoder.info.name}, mean pooling, "
          f"layer {encoder.info.num_layers}); {os.cpu_count()} cores; k={K}, cosine")
    stored, queries = real[:arguments.texts], real[arguments.texts:]  # the queries are texts not in the store
    folder = Path(tempfile.mkdtemp(prefix="bench-formats-"))
    try:
        show(f"{len(stored):,} real sentence vectors, {len(queries)} held-out queries", measure(stored, queries, folder))
        if arguments.rows:
            mixed = mixtures(stored, arguments.rows)[0]  # (rows, hidden)
            show(f"{arguments.rows:,} synthetic vectors (w*a + (1-w)*b of two real ones, w in [0.5, 1)), the same "
                 "queries", measure(mixed, queries, folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
