"""Cost of the Task measures page's probe grid on a large labelled corpus, cell by cell.

    .venv/bin/python bench/probe_cost.py [--rows 5000]

Encodes ``--rows`` texts made from the built-in news topics (each with a number, so none repeats), then
times the stated probe (``task_measures.probe``) on every cell the page shows first: mean, cls and max at
every layer. Prints the encoding time, the median and total probe time, and the budget they set.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from bertviz_core import load_encoder  # noqa: E402
from bertviz_core.corpora import news_topics  # noqa: E402
from bertviz_core.measures.pooling_grid import cell_vectors, grid_cells  # noqa: E402
from bertviz_core.measures.task_measures import DEFAULT_STRATEGIES, probe  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5000)
    args = parser.parse_args()
    news = news_topics()
    texts = [f"{news.text[i % len(news)]} ({i})" for i in range(args.rows)]
    labels = [news.label[i % len(news)] for i in range(args.rows)]
    encoder = load_encoder(device="cpu")
    start = time.perf_counter()
    pooled = encoder.embed(texts, list(DEFAULT_STRATEGIES))
    encoded = time.perf_counter() - start
    cells = [cell for row in grid_cells(DEFAULT_STRATEGIES, range(encoder.info.num_layers + 1),
                                        encoder.info.num_layers) for cell in row]
    times = []
    for cell in cells:
        start = time.perf_counter()
        probe(cell_vectors(pooled, cell), labels)
        times.append(time.perf_counter() - start)
    print(f"{args.rows:,} texts: encoding {encoded:.1f} s; probe of {len(cells)} cells: median {statistics.median(times):.2f} s "
          f"a cell (max {max(times):.2f}), {sum(times):.1f} s in all")


if __name__ == "__main__":
    main()
