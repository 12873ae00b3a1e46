"""Downloads for the tools people already use beside this one: the Embedding Projector's pair of TSV files (zipped)
and a Parquet file Embedding Atlas opens with its map. Each file is written only when its button is clicked."""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import streamlit as st

from ui.links import presenting

APP_PROJECTOR_ROWS = 10_000  # rows a store's Projector download holds: 100,000 would be ~400 MB of text to build


def export_downloads(files_of: Callable[[str], dict[str, bytes]], stem: str, key: str, sampled: str = "") -> None:
    """The Projector's and Atlas's downloads of ``files_of(format)`` ({file name: bytes}, see
    ``precompute.export``), named after ``stem``, keyed ``{key}_projector`` and ``{key}_atlas``; ``sampled`` says
    what part of the rows the Projector's holds, when not all. None in presentation mode."""
    from bertviz_core.precompute.export import zipped

    if presenting():
        return
    # Short labels, so a button in a narrow column shows its whole label; the caption says what each file holds.
    st.caption(f"For the Embedding Projector, a .zip of two TSV files (vectors, metadata{sampled}); for Embedding "
               "Atlas, a .parquet with the map.")
    st.download_button("Embedding Projector (.zip)", lambda: zipped(files_of("projector")),
                       file_name=f"{stem}_projector.zip", mime="application/zip", key=f"{key}_projector",
                       on_click="ignore", width="stretch")
    st.download_button("Embedding Atlas (.parquet)", lambda: next(iter(files_of("atlas").values())),
                       file_name=f"{stem}_atlas.parquet", mime="application/vnd.apache.parquet", key=f"{key}_atlas",
                       on_click="ignore", width="stretch")


def corpus_downloads(vectors: np.ndarray, texts: Sequence[str], labels: Sequence[str] | None, coords: np.ndarray,
                     stem: str, key: str) -> None:
    """``export_downloads`` of a page's own corpus: (n, hidden) ``vectors``, their ``texts`` and ``labels`` (n,) or
    None, and a map's (n, 2) ``coords``, every row. The buttons keep copies for the session's life, not views that
    would keep the shared arrays alive, and nothing of the page's namespace."""
    from bertviz_core.precompute.export import export_files

    kept, texts, coords = np.array(vectors, copy=True), list(texts), np.array(coords, copy=True)
    labels = None if labels is None else list(labels)
    export_downloads(lambda to: export_files(kept, texts, labels, coords, to, stem), stem, key)
