"""Cost of the probe on a large labelled corpus: the Task measures page's grid cell by cell, or (``--compare``)
two models' cells one at a time as before, one at a time now, and on every core, in one run.

    .venv/bin/python bench/probe_cost.py [--rows 5000]                  (make bench-probe)
    .venv/bin/python bench/probe_cost.py --compare [--rows 2000] [--vectors cells.npz]     (make bench-probe-models)

Encodes ``--rows`` texts made from the built-in news topics (each with a number, so none repeats). Without
``--compare``, times the stated probe (``task_measures.probe``) on every cell the Task measures page shows first
(mean, cls and max at every layer of the bundled model) and prints the encoding time, the median and total probe
time. With ``--compare`` (2,000 texts unless ``--rows`` says), the labels are 8 classes (each of the 4 topics split
in two), the texts are encoded on the bundled model and its untrained twin, and the probe of mean and [CLS] at
every layer of both (2 × 14 cells, the Which model page's default) is timed three ways: one cell after another with
the BLAS library's own threads, as the probe ran before it asked for one thread;
one cell after another through ``probe`` (one BLAS thread); and through ``probe_cells`` (every core, its time
including the start of the worker processes). Prints the times with the load average after each (the machine may
be shared), the ratios against the first, and checks that every score is the same.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from contextlib import nullcontext
from pathlib import Path
from unittest.mock import patch

import numpy as np


ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from bertviz_core import load_encoder  # noqa: E402
from bertviz_core.corpora import news_topics  # noqa: E402
from bertviz_core.measures.pooling_grid import cell_vectors, grid_cells  # noqa: E402
import bertviz_core.measures.task_measures as task_measures  # noqa: E402
from bertviz_core.measures.task_measures import (  # noqa: E402
    DEFAULT_STRATEGIES, ProbePlan, ProbeScore, probe, probe_plan)
from bertviz_core.model.models import UNTRAINED_TWIN  # noqa: E402
from bertviz_core.model_choice import probe_cells  # noqa: E402

COMPARED = ("mean", "cls")  # the Which model page's default cells, at every layer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int)
    parser.add_argument("--compare", action="store_true", help="two models' cells, one at a time and on every core")
    parser.add_argument("--vectors", type=Path, help="with --compare: the cells' vectors, read when the file exists, "
                                                     "else encoded and written there (.npz)")
    parser.add_argument("--device", default="cpu", help="where the texts are encoded: cpu (default), cuda or auto; "
                                                        "the probe itself runs on the CPU cores either way")
    args = parser.parse_args()
    if args.compare:
        compare(args.rows or 2000, args.vectors, args.device)
        return
    args.rows = args.rows or 5000
    news = news_topics()
    texts = [f"{news.text[i % len(news)]} ({i})" for i in range(args.rows)]
    labels = [news.label[i % len(news)] for i in range(args.rows)]
    encoder = load_encoder(device=args.device)
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


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def compare(rows: int, vectors: Path | None = None, device: str = "cpu") -> None:
    """Two models' probe cells three ways (see the module's docstring), on the same vectors."""
    news = news_topics()
    texts = [f"{news.text[i % len(news)]} ({i})" for i in range(rows)]
    # 8 classes: each topic split in two by the text's place in the corpus (160 texts, an even count, so a text
    # keeps its class however often it repeats)
    labels = [f"{news.label[i % len(news)]}-{i % len(news) % 2}" for i in range(rows)]
    if vectors is not None and vectors.exists():  # a rerun times the probes alone
        cells = list(np.load(vectors)["cells"])
        print(f"{len(cells)} cells read from {vectors}")
    else:
        cells = []
        for model in (None, UNTRAINED_TWIN):
            encoder = load_encoder(model, device=device)
            start = time.perf_counter()
            pooled = encoder.embed(texts, list(COMPARED))
            print(f"{encoder.info.name} on {encoder.info.device}: {rows:,} texts encoded in {time.perf_counter() - start:.1f} s")
            cells += [pooled[s][:, layer] for s in COMPARED for layer in range(encoder.info.num_layers + 1)]
        if vectors is not None:
            np.savez(vectors, cells=np.stack(cells))
    plan = probe_plan(labels)
    print(f"{len(cells)} cells, {len(set(labels))} classes, {os.cpu_count()} cores; {load()}")
    timed = {}
    for name, run in (("one cell at a time, BLAS's own threads (before)", lambda: [threaded(x, labels, plan)
                                                                                   for x in cells]),
                      ("one cell at a time, one BLAS thread (probe)", lambda: [probe(x, labels, plan) for x in cells]),
                      ("every core (probe_cells)", lambda: probe_cells(cells, labels, plan))):
        start = time.perf_counter()
        scores = run()
        timed[name] = (time.perf_counter() - start, scores)
        print(f"{name:<50} {timed[name][0]:6.1f} s, {timed[name][0] / len(cells):.2f} s a cell; {load()}")
    before, expected = next(iter(timed.values()))
    for name, (seconds, scores) in list(timed.items())[1:]:
        print(f"{name}: {before / seconds:.1f}x faster than before; every score the same: {scores == expected}")
        if scores != expected:
            raise SystemExit(f"{name} changed a score")


def threaded(vectors: np.ndarray, labels: list[str], plan: ProbePlan) -> ProbeScore:
    """``probe`` with the BLAS library's own threads, as it ran before it asked for one."""
    with patch.object(task_measures, "threadpool_limits", lambda *args, **kwargs: nullcontext()):
        return probe(vectors, labels, plan)


if __name__ == "__main__":
    main()
