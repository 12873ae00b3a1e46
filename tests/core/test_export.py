"""Export for the Embedding Projector and Embedding Atlas (issue #30): the TSV pair reads back as the vectors and
their rows, metadata cells cannot break a line, a large store is a stated seeded sample, and Atlas's Parquet holds
every row with the store's map."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bertviz_core.__main__ import main
from bertviz_core.precompute import export
from bertviz_core.precompute.maps import sample_rows


def test_the_projector_pair_reads_back_as_the_vectors_and_their_rows() -> None:
    vectors = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    meta = pd.DataFrame({"text": ["a\tb", "line\nbreak", "  plain ", None, "é"], "label": list("xyzxy")})
    vector_tsv, meta_tsv = export.projector_files(vectors, meta)
    np.testing.assert_array_equal(np.loadtxt(vector_tsv.decode().splitlines(), delimiter="\t", dtype=np.float32),
                                  vectors)  # every float32 exactly
    lines = meta_tsv.decode().splitlines()
    assert lines == ["text\tlabel", "a b\tx", "line break\ty", "plain\tz", "\tx", "é\ty"]
    one_column = export.projector_files(vectors, meta[["label"]])[1].decode().splitlines()
    assert one_column == list("xyzxy")  # one column: no header, as the Projector reads it
    with pytest.raises(ValueError, match="5 vectors but 2 metadata rows"):
        export.projector_files(vectors, meta.head(2))


def test_a_store_goes_to_the_projector_as_a_seeded_sample(news_store, tmp_path: Path) -> None:  # noqa: ANN001
    written = export.export_store(news_store, "mean@6", "projector", str(tmp_path), sample=50)
    assert [path.name for path in written] == ["vectors.tsv", "metadata.tsv"]
    chosen = sample_rows(160, 50)
    meta = pd.read_csv(tmp_path / "metadata.tsv", sep="\t")
    assert meta["row"].tolist() == chosen.tolist() and meta["text"].tolist() == [news_store.texts[i] for i in chosen]
    assert meta["label"].tolist() == [news_store.labels[i] for i in chosen]
    np.testing.assert_array_equal(np.loadtxt(tmp_path / "vectors.tsv", delimiter="\t", dtype=np.float32),
                                  news_store.vectors("mean", 6)[chosen])


def test_a_store_goes_to_atlas_whole_with_its_map(news_store, tmp_path: Path) -> None:  # noqa: ANN001
    export.export_store(news_store, "mean@6", "atlas", str(tmp_path))
    frame = pd.read_parquet(tmp_path / "atlas.parquet")
    placed = news_store.map("PCA", "mean", 6)
    assert frame["text"].tolist() == news_store.texts and frame["label"].tolist() == news_store.labels
    np.testing.assert_array_equal(frame[["x", "y"]].to_numpy(), placed[["x", "y"]].to_numpy(np.float64))
    export.export_store(news_store, "mean@6", "atlas", str(tmp_path / "no-map"), projection="UMAP")
    assert list(pd.read_parquet(tmp_path / "no-map" / "atlas.parquet").columns) == ["row", "text", "label"]


def test_the_command_writes_the_files_or_says_what_is_wrong(news_store, tmp_path: Path, capsys) -> None:  # noqa: ANN001
    assert main(["export", str(news_store.folder), "--column", "mean@6", "--to", "projector", "--out",
                 str(tmp_path / "p")]) == 0
    assert capsys.readouterr().out.split() == [str(tmp_path / "p" / "vectors.tsv"), str(tmp_path / "p" / "metadata.tsv")]
    assert len((tmp_path / "p" / "vectors.tsv").read_text().splitlines()) == 160
    assert main(["export", str(news_store.folder), "--column", "cls@6", "--to", "atlas", "--out",
                 str(tmp_path / "a")]) == 2
    assert capsys.readouterr().err.strip() == "export: The store holds no 'cls@6' column; it holds mean@6."


def test_the_apps_downloads_hold_the_same_files(news_store, tmp_path: Path) -> None:  # noqa: ANN001
    import io
    import zipfile

    export.export_store(news_store, "mean@6", "projector", str(tmp_path), sample=40)
    files = export.store_export(news_store, "mean@6", "projector", 40)
    with zipfile.ZipFile(io.BytesIO(export.zipped(files))) as archive:
        assert {name: archive.read(name) for name in archive.namelist()} == {
            name: (tmp_path / name).read_bytes() for name in ("vectors.tsv", "metadata.tsv")}
    vectors = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    coords = np.arange(6.0).reshape(3, 2)
    made = export.export_files(vectors, ["a", "b", "c"], ["x", "y", "x"], coords, "projector")
    assert made["metadata.tsv"].decode().splitlines() == ["text\tlabel", "a\tx", "b\ty", "c\tx"]
    np.testing.assert_array_equal(np.loadtxt(made["vectors.tsv"].decode().splitlines(), delimiter="\t",
                                             dtype=np.float32), vectors)
    (name, parquet), = export.export_files(None, ["a", "b", "c"], None, coords, "atlas", "mean").items()
    frame = pd.read_parquet(io.BytesIO(parquet))
    assert name == "mean.parquet" and frame["text"].tolist() == ["a", "b", "c"] and "label" not in frame
    np.testing.assert_array_equal(frame[["x", "y"]].to_numpy(), coords)
    with pytest.raises(ValueError, match="export format"):
        export.export_files(vectors, ["a", "b", "c"], None, None, "csv")
