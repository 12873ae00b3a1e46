"""The command line: ``python -m bertviz_core precompute INPUT --out STORE [...]`` (``--help`` for every option)."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

DESCRIPTION = """\
Compute the sentence vectors of a corpus once, into a store a notebook opens without recomputing:

    python -m bertviz_core precompute tickets.csv --out tickets-store
    python -m bertviz_core precompute tickets.csv --out tickets-store --engine ray --address auto
    python -m bertviz_core precompute tickets.csv --out tickets-store --token-layers 6 --maps PCA,UMAP

then, in Python:

    from bertviz_core import open_store
    store = open_store("tickets-store")
    store.search("my printer is on fire", k=5, strategy="mean")
    store.vectors("mean", 6)                 # (rows, hidden), memory-mapped
    store.token_vectors(6), store.token_rows # with --token-layers: every token's vector and its word
    store.map("PCA", "mean", 6)              # with --maps: row, x, y

INPUT is a .csv or .tsv (separator sniffed, columns guessed, as the app reads an upload), .parquet, .jsonl (JSON
Lines), .txt (one text per line), or the folder of a Hugging Face dataset saved with save_to_disk (needs the
'datasets' package). Rows are cleaned as uploads are (spaces stripped, empty texts left out, counted); there is no
row limit. Texts longer than the model's limit are cut, and said so. Stopped (Ctrl-C or a kill)? Run the same
command again: it goes on from the last finished shard. The store is complete only once its manifest.json is written.
"""


def _numbers(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of layer numbers, e.g. 0,6") from None


def parser() -> argparse.ArgumentParser:
    """The command's arguments."""
    root = argparse.ArgumentParser(prog="python -m bertviz_core")
    commands = root.add_subparsers(dest="command", required=True)
    run = commands.add_parser("precompute", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
                              help="compute a corpus's sentence vectors into a store")
    run.add_argument("input", metavar="INPUT", help="the corpus file (or a saved dataset's folder)")
    run.add_argument("--out", required=True, metavar="STORE", help="the store's folder: new, empty, or a stopped run's")
    run.add_argument("--model", default=None, help="a model folder or hub id (default: the bundled all-MiniLM-L6-v2)")
    run.add_argument("--strategies", default=None, type=lambda t: [s.strip() for s in t.split(",") if s.strip()],
                     help="pooling strategies, comma-separated, e.g. mean,cls (default: every one the model has)")
    run.add_argument("--layers", default=None, type=_numbers,
                     help="layers, comma-separated, 0 = the embeddings (default: the last layer)")
    run.add_argument("--token-layers", default=None, type=_numbers,
                     help="layers whose every token's vector is stored too, with its word and position, e.g. 6 "
                          "(default: none; a token takes as much disk as a text's vector)")
    run.add_argument("--maps", default=None, type=lambda t: [s.strip() for s in t.split(",") if s.strip()],
                     help="2-D maps of every stored column, comma-separated: PCA (of every row), UMAP, t-SNE "
                          "(default: none)")
    run.add_argument("--map-sample", type=int, default=None,
                     help="rows a UMAP or t-SNE map places at most, chosen at random with a fixed seed (default: "
                          "10000; PCA maps every row)")
    run.add_argument("--index", choices=("auto", "always", "never"), default="auto",
                     help="a search index of every stored column, for approximate search with its recall measured: "
                          "auto (default) builds one above 50,000 rows, where exact search takes over ~50 ms")
    run.add_argument("--text-column", default=None, help="the column of texts (default: guessed)")
    run.add_argument("--label-column", default=None, help="the column of labels (default: guessed, or none)")
    run.add_argument("--engine", choices=("local", "ray"), default="local",
                     help="local: this process (default); ray: Ray Data actors, on this machine or a cluster")
    run.add_argument("--address", default=None,
                     help="with --engine ray: a running Ray cluster ('auto', or ray://HEAD:10001); "
                          "default: start a local Ray for this run")
    run.add_argument("--actors", type=int, default=None,
                     help="with --engine ray: model copies working at once (default: one per GPU, else 1)")
    run.add_argument("--device", default="auto", help="cpu, cuda, mps or auto (default: auto)")
    run.add_argument("--shard-rows", type=int, default=None,
                     help="rows per shard, the most a stop loses (default: 1024)")
    export = commands.add_parser("export", help="write a store's vectors for the Embedding Projector or Embedding Atlas",
                                 description="Write one column of a store for the TensorFlow Embedding Projector "
                                             "(vectors.tsv and metadata.tsv, a seeded sample of at most 100,000 rows) "
                                             "or Embedding Atlas (atlas.parquet of every row: text, label, and x, y "
                                             "from the store's map when it holds one).")
    export.add_argument("store", metavar="STORE", help="a finished store's folder")
    export.add_argument("--column", required=True, help="the stored column, e.g. mean@6 (see the manifest's columns)")
    export.add_argument("--to", required=True, choices=("projector", "atlas"))
    export.add_argument("--out", required=True, metavar="FOLDER", help="where the files go")
    export.add_argument("--sample", type=int, default=None, help="projector: rows at most (default: 100000)")
    export.add_argument("--map", default="PCA", help="atlas: the stored map for x, y (default: PCA)")
    return root


def export(arguments: argparse.Namespace) -> int:
    """The export command: the files written."""
    from bertviz_core.precompute.export import export_store
    from bertviz_core.precompute.reader import open_store

    written = export_store(open_store(arguments.store), arguments.column, arguments.to, arguments.out,
                           arguments.sample, arguments.map)
    print("\n".join(map(str, written)))
    return 0


def precompute(arguments: argparse.Namespace) -> int:
    """The precompute command: the store computed, its counts printed, each stage with its progress bar."""
    from tqdm import tqdm

    from bertviz_core.precompute.maps import MAP_SAMPLE
    from bertviz_core.precompute.request import Request
    from bertviz_core.precompute.run import SHARD_ROWS, precompute as compute

    bars: dict[str, tqdm] = {}

    def bar(desc: str, unit: str) -> Callable[[int, int], None]:
        def progress(done: int, total: int) -> None:
            if desc not in bars:  # made at the first report: rows a stopped run finished start the bar, not its rate
                for earlier in bars.values():  # its stage is over: its rate stops here
                    earlier.close()
                bars[desc] = tqdm(total=total, initial=done, unit=unit, dynamic_ncols=True, desc=desc)
            bars[desc].update(done - bars[desc].n)  # tqdm shows the rate and the time left
        return progress

    # given as 0, a number is refused, not taken for its default
    sample, shard_rows = (default if given is None else given for given, default in (
        (arguments.map_sample, MAP_SAMPLE), (arguments.shard_rows, SHARD_ROWS)))
    request = Request(arguments.model, arguments.strategies, arguments.layers, arguments.device, arguments.token_layers,
                      arguments.maps, sample, arguments.index)
    try:
        report = compute(
            arguments.input, arguments.out, request, arguments.text_column, arguments.label_column, arguments.engine,
            shard_rows, bar("precompute", " texts"), bar("maps", " maps"), bar("search indexes", " columns"),
            said=lambda line: print(line, flush=True),
            **({"address": arguments.address, "actors": arguments.actors} if arguments.engine == "ray" else {}))
    finally:
        for shown in bars.values():
            shown.close()
    summary = report.summary
    print(f"{report.store}: {summary.used:,} texts of {summary.rows:,} rows ({summary.blank_lines:,} blank, "
          f"{summary.empty_texts:,} without text, {summary.label_only:,} with a label only: left out; "
          f"{summary.duplicates:,} repeated texts kept). Shards: {report.computed} computed, {report.resumed} found "
          f"done, in {report.seconds:,.1f} s.")
    if report.cut:
        print(report.cut)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command. A bad input, model or disk prints its one message and exits with status 2; a stop (Ctrl-C)
    says so (and, for a precompute, that the same command resumes it) and exits with 130, as a shell reports SIGINT.
    Never a traceback."""
    arguments = parser().parse_args(argv)
    said = f"\n{arguments.command}:"  # on a line of its own, below any progress bar
    try:
        return (export if arguments.command == "export" else precompute)(arguments)
    except ValueError as err:
        print(said, err, file=sys.stderr)
    except OSError as err:  # the disk failed under a run its checks let start: a folder removed, a disk unplugged
        print(said, f"{err.strerror or err} ({err.filename}). Run the same command again once it can be written.",
              file=sys.stderr)
    except KeyboardInterrupt:
        print(said, "stopped." + (f" The shards finished so far are kept in {arguments.out}: run the same command "
                                  "again to go on from there." if arguments.command == "precompute" else ""),
              file=sys.stderr)
        return 130
    return 2


if __name__ == "__main__":
    sys.exit(main())
