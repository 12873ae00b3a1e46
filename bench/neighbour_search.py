"""Nearest-token search over a token index: a plain matrix product against scikit-learn's NearestNeighbors.

    .venv/bin/python bench/neighbour_search.py [--tokens 80000] [--repeats 20]

All search the same float16 index layer for the k = 10 nearest by cosine and must return the same tokens:
the matrix product converts the layer to float32 on every search (``nearest_tokens``); NearestNeighbors
keeps a float32 copy of what it is fitted on, so it either fits on every search (the index's memory) or
is fitted once per layer (a float32 copy of the index besides it: three times the memory). Prints the
median time of each and its ratio to the matrix product.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.neighbors import NearestNeighbors  # noqa: E402

from bertviz_core.measures.neighbours import nearest_tokens  # noqa: E402
from bertviz_core.model.token_index import TokenIndex  # noqa: E402


def timed(run, repeats: int) -> tuple[float, object]:  # noqa: ANN001
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=80_000, help="80,781 = a 5,000-row upload's tokens")
    parser.add_argument("--hidden", type=int, default=384)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(1, args.tokens, args.hidden)).astype(np.float16)
    index = TokenIndex(vectors, pd.DataFrame({"sentence": np.arange(args.tokens)}), ())
    query = rng.normal(size=args.hidden).astype(np.float32)
    def searcher() -> NearestNeighbors:
        return NearestNeighbors(n_neighbors=10, metric="cosine", algorithm="brute")

    fitted = searcher().fit(vectors[0].astype(np.float32))
    product_ms, found = timed(lambda: nearest_tokens(index, query, 0, 10), args.repeats)
    refit_ms, (_, refit) = timed(lambda: searcher().fit(vectors[0]).kneighbors(query[None]), args.repeats)
    fitted_ms, (_, kept) = timed(lambda: fitted.kneighbors(query[None]), args.repeats)
    same = found["sentence"].tolist() == refit[0].tolist() == kept[0].tolist()
    print(f"{args.tokens:,} tokens x {args.hidden}, k = 10, cosine, median of {args.repeats}")
    print(f"{'matrix product (nearest_tokens), same memory':52} {product_ms:8.1f} ms")
    print(f"{'NearestNeighbors fitted per search, same memory':52} {refit_ms:8.1f} ms   {refit_ms / product_ms:.2f}x")
    print(f"{'NearestNeighbors fitted once, + a float32 copy':52} {fitted_ms:8.1f} ms   {fitted_ms / product_ms:.2f}x")
    print(f"same neighbours: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
