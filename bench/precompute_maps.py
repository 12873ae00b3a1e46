"""The precompute's maps drawn on one core and on every core, side by side in one run on the same store.

    .venv/bin/python bench/precompute_maps.py [--rows 2737] [--maps PCA,UMAP] [--strategies mean,cls] [--layers 3,6]
    (make bench-precompute-maps)

Writes a store of ``--rows`` labelled texts from the built-in news topics (each with a number, so none repeats) with no
maps, with the precompute's default columns (8 on the bundled model: 16 maps with PCA and UMAP) unless ``--strategies``
and ``--layers`` name others (issue #51 item 10 found 76 maps, of 38 columns). Then draws every map of ``--maps`` of
every column twice, with ``maps.write_maps``: in this process one at a time, and in one worker process per core (the
precompute's default for such maps; its time includes starting the workers, and each worker's first UMAP loading
its compiled functions from numba's cache, as this process's first does, or compiling them on a new install). Prints both wall times with the load average after each (the machine may be
shared), the ratio (goal: at least 1.7 on 2 cores), and checks that both drew the same maps to the last bit.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pandas as pd  # noqa: E402

from bertviz_core import open_store  # noqa: E402
from bertviz_core.corpora import news_topics  # noqa: E402
from bertviz_core.precompute import maps  # noqa: E402
from bertviz_core.precompute.request import Request  # noqa: E402
from bertviz_core.precompute.run import precompute  # noqa: E402


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def listed(text: str | None) -> list[str] | None:
    return None if text is None else [part.strip() for part in text.split(",") if part.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2737)
    parser.add_argument("--maps", default="PCA,UMAP")
    parser.add_argument("--strategies", default=None)
    parser.add_argument("--layers", default=None)
    args = parser.parse_args()
    names = maps.check_maps(listed(args.maps))
    news = news_topics()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        pd.DataFrame({"text": [f"{news.text[i % len(news)]} ({i})" for i in range(args.rows)],
                      "label": [news.label[i % len(news)] for i in range(args.rows)]}).to_csv(root / "c.csv",
                                                                                              index=False)
        layers = None if args.layers is None else [int(layer) for layer in listed(args.layers)]
        started = time.perf_counter()
        store = open_store(precompute(str(root / "c.csv"), str(root / "store"),
                                      Request(strategies=listed(args.strategies), layers=layers)).store)
        columns = [(name.split("@")[0], int(name.split("@")[1]) if "@" in name else None)
                   for name in store.manifest["columns"]]
        vectors_of = {column: store.vectors(*column) for column in columns}
        print(f"{args.rows:,} rows encoded in {time.perf_counter() - started:.1f} s; {len(columns)} columns, "
              f"{len(columns) * len(names)} maps ({', '.join(names)}), {os.cpu_count()} cores; {load()}", flush=True)
        timed = {}
        for label, processes in (("one core", 1), ("every core", maps.map_processes(len(columns) * len(names),
                                                                                     args.rows, names))):
            out = root / label.replace(" ", "-")
            started = time.perf_counter()
            maps.write_maps(out, columns, names, maps.MAP_SAMPLE, vectors_of, drawer=partial(
                maps.local_maps, vectors_of=vectors_of, sample=maps.MAP_SAMPLE, processes=processes))
            timed[label] = time.perf_counter() - started
            print(f"{label} ({processes} process{'es' if processes > 1 else ''}): {timed[label]:7.1f} s; {load()}",
                  flush=True)
        same = all(pd.read_parquet(maps.map_path(root / "one-core", column, name)).equals(
            pd.read_parquet(maps.map_path(root / "every-core", column, name))) for column in columns for name in names)
        print(f"every core: {timed['one core'] / timed['every core']:.2f}x faster than one core (goal >= 1.7); "
              f"every map the same: {same}")
        if not same:
            raise SystemExit("the maps drawn in worker processes differ from this process's")


if __name__ == "__main__":
    main()
