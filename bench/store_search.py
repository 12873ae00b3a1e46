"""A precomputed store's sentence search at 20,000 real rows and at 100,000 and 1,000,000 synthetic ones, side by
side in one run: the memory opening adds, the median milliseconds of a query by exact search and through the store's
index, and the index's recall@10 against exact search on held-out queries.

    .venv/bin/python bench/store_search.py [--texts 20000] [--rows 100000,1000000] [--queries 50] [--work DIR]

The real store is a precompute of ``--texts`` short texts (the bundled model, mean pooling, last layer); the queries
are ``--queries`` other texts of the same kind, embedded once, never stored. Embedding a million texts takes hours on
this CPU, so the larger stores are synthetic: each row a mixture w·a + (1-w)·b of two real rows (w in [0.5, 1)),
its text the first one's, marked "(synthetic)". Each store is opened and queried in a fresh process; goals (issue
#30): memory at most idle + 1.2 × the vectors searched, and p50 ≤ 50 ms at recall@10 ≥ 0.95 on a million rows.
``--work DIR`` keeps the stores there, and a second run reuses them.
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
import pandas as pd  # noqa: E402

K = 10
CHUNK = 65536  # synthetic rows made and written at a time


def mixtures(real: np.ndarray, rows: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``rows`` synthetic vectors w·a + (1-w)·b of two rows a, b of ``real`` (n, hidden), w in [0.5, 1): the
    vectors (rows, hidden) float32, and each one's a and b (rows,)."""
    generator = np.random.default_rng(seed)
    first, second = generator.integers(0, len(real), (2, rows))
    weight = generator.uniform(0.5, 1.0, (rows, 1)).astype(np.float32)
    return weight * real[first] + (1 - weight) * real[second], first, second


def synthetic_store(real_folder: Path, rows: int, out: Path) -> None:
    """A store of ``rows`` mixtures of the real store's mean@6 rows, its rows' texts and labels the first real
    row's, with an index (``ann.build_index``); its manifest says it is synthetic."""
    from bertviz_core.precompute.ann import build_index, index_path
    from bertviz_core.precompute.layout import MANIFEST, ROWS, read_json, write_json
    from bertviz_core.precompute.maps import MAP_SAMPLE, write_maps

    manifest = read_json(real_folder / MANIFEST)
    last = f"mean@{manifest['model']['num_layers']}"  # the column the pages open a store on
    column = last if last in manifest["columns"] else manifest["columns"][0]
    real = np.load(real_folder / "vectors" / f"{column}.npy")
    (out / "vectors").mkdir(parents=True, exist_ok=True)
    written = np.lib.format.open_memmap(out / "vectors" / f"{column}.npy", "w+", np.float32, (rows, real.shape[1]))
    firsts = []
    for start in range(0, rows, CHUNK):
        block, first, _ = mixtures(real, min(CHUNK, rows - start), seed=start)
        written[start:start + len(block)] = block
        firsts.append(first)
    written.flush()
    del written
    source = pd.read_parquet(real_folder / ROWS).iloc[np.concatenate(firsts)].reset_index(drop=True)
    source["text"] = source["text"] + " (synthetic)"
    source["row"] = np.arange(rows)
    source.to_parquet(out / ROWS, index=False)
    vectors = np.load(out / "vectors" / f"{column}.npy", mmap_mode="r")
    facts = build_index(vectors, index_path(out, column))
    strategy, _, layer = column.partition("@")
    stored = (strategy, int(layer) if layer else None)  # its PCA map, which a page draws with every row
    maps = write_maps(out, [stored], ["PCA"], MAP_SAMPLE, {stored: vectors})
    write_json(out / MANIFEST, {**manifest, "rows": rows, "columns": [column], "strategies": [strategy],
                                "token_layers": [], "tokens": 0, "maps": maps, "map_names": ["PCA"],
                                "indexes": {column: facts},
                                "synthetic": {"from": str(real_folder), "kind": "w*a + (1-w)*b, w in [0.5, 1)"}})


def measure(folder: str, queries: str, exact_queries: int) -> dict:
    """In this (fresh) process: memory idle (the libraries imported), after opening the store and its first query, after every query;
    p50 ms of exact and of approximate search; recall@10 of approximate against exact on the queries."""
    import faiss  # noqa: F401 - the libraries a search uses, imported (as a server has them) before idle
    import pyarrow.parquet  # noqa: F401
    import sklearn.metrics.pairwise  # noqa: F401

    from bertviz_core import open_store

    def rss() -> int:
        return next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith("VmRSS:"))

    asked = np.load(queries)
    idle = rss()
    store = open_store(folder)
    vectors = store.vectors("mean")
    store.search(asked[0], K, "mean")  # the index opens on the first query
    opened = rss()
    timings, found = [], []
    for query in asked:
        began = time.perf_counter()
        found.append(store.search(query, K, "mean")["index"].tolist())
        timings.append(time.perf_counter() - began)
    approximate_rss = rss()
    exact_timings, hits = [], 0
    for number, query in enumerate(asked):
        began = time.perf_counter()
        truth = store.search(query, K, "mean", exact=True)["index"].tolist()
        exact_timings.append(time.perf_counter() - began)
        hits += len(set(truth) & set(found[number]))
        if number + 1 == exact_queries:
            break
    method = store.search_method("mean")
    return {"rows": len(vectors), "vectors": vectors.nbytes, "idle": idle, "opened": opened,
            "approximate_rss": approximate_rss, "exact_rss": rss(), "approximate_ms": 1000 * np.median(timings),
            "exact_ms": 1000 * np.median(exact_timings), "recall": hits / (K * len(exact_timings)),
            "probes": method.get("probes"), "lists": method.get("lists"),
            "built_recall": method.get("recall"), "exact_queries": len(exact_timings)}


def _in_fresh_process(call: str) -> dict:
    code = f"import json, store_search as bench; print(json.dumps(bench.{call}))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parent)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=20_000)
    parser.add_argument("--rows", default="100000,1000000", help="synthetic store sizes, comma-separated")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--work", default=None, help="keep the stores in this folder (default: a temporary one)")
    arguments = parser.parse_args()
    from precompute_throughput import corpus

    from bertviz_core import load_encoder
    from bertviz_core.measures.pooling import vectors_at
    from bertviz_core.precompute.request import Request
    from bertviz_core.precompute.run import precompute

    work = Path(arguments.work or tempfile.mkdtemp(prefix="bench-store-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        texts = corpus(arguments.texts + arguments.queries)
        real = work / f"real-{arguments.texts}"
        began = time.perf_counter()
        if not (real / "manifest.json").exists():
            pd.DataFrame({"text": texts[:arguments.texts]}).to_csv(work / "real.csv", index=False)
            precompute(str(work / "real.csv"), str(real), Request(strategies=["mean"], index="always"))
        encoder = load_encoder(None, "cpu")
        asked = vectors_at(encoder.embed(texts[arguments.texts:], ["mean"]), "mean", encoder.info.num_layers, "q")
        np.save(work / "queries.npy", asked)
        print(f"real store of {arguments.texts:,} texts ready in {time.perf_counter() - began:.0f} s; "
              f"{len(asked)} held-out queries; {os.cpu_count()} cores; k={K}, cosine, mean pooling, last layer")
        stores = [real]
        for rows in (int(part) for part in arguments.rows.split(",") if part.strip()):
            folder = work / f"synthetic-{rows}"
            if not (folder / "manifest.json").exists():
                began = time.perf_counter()
                synthetic_store(real, rows, folder)
                print(f"synthetic store of {rows:,} rows with its index built in {time.perf_counter() - began:.0f} s")
            stores.append(folder)
        show([_in_fresh_process(f"measure({str(folder)!r}, {str(work / 'queries.npy')!r}, "
                                f"{min(arguments.queries, 20)})") for folder in stores])
    finally:
        if arguments.work is None:
            shutil.rmtree(work, ignore_errors=True)


def show(results: list[dict]) -> None:
    mib = 2 ** 20
    print(f"\n{'rows':>10} {'vectors MiB':>11} {'opened +MiB':>11} {'after queries +MiB':>18} {'goal +MiB':>9} "
          f"{'index p50 ms':>12} {'exact p50 ms':>12} {'ratio':>6} {'recall@10':>9} {'at build':>8} {'probes':>11}")
    for row in results:
        goal = 1.2 * row["vectors"]
        after = max(row["approximate_rss"], row["exact_rss"]) - row["idle"]
        print(f"{row['rows']:>10,} {row['vectors'] / mib:>11,.0f} {(row['opened'] - row['idle']) / mib:>11,.1f} "
              f"{after / mib:>18,.0f} {goal / mib:>9,.0f} {row['approximate_ms']:>12.2f} {row['exact_ms']:>12.1f} "
              f"{row['exact_ms'] / row['approximate_ms']:>6.0f} {row['recall']:>9.3f} "
              f"{row['built_recall'] if row['built_recall'] is not None else '-':>8} "
              f"{row['probes'] or '-':>5}/{row['lists'] or '-':<5}")
    print("opened: after open_store, reading the vectors' header and one query (the index maps in); after queries: "
          "the largest after the approximate queries or the exact ones (which read every row, file-backed); "
          f"recall@10 against exact search on the held-out queries (exact timed on {results[0]['exact_queries']}); "
          "at build: the recall the index measured on stored rows as queries")


if __name__ == "__main__":
    main()
