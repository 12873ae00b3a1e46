"""The precompute (issue #29) with the local engine: its store equals Encoder.embed (and, at its token layers,
Encoder.encode), keeps the upload rules' rows and counts, resumes after an interruption to the same store, refuses
another model's Encoder, and says what is wrong with each bad input. The Ray engine is in test_precompute_ray.py."""
from __future__ import annotations

import json
import os
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.decomposition import PCA

from bertviz_core import Encoder, open_store
from bertviz_core.corpora import news_topics
from bertviz_core.precompute import layout, maps
from bertviz_core.precompute.request import Request
from bertviz_core.precompute.run import precompute
from bertviz_core.measures.projection import PROJECTIONS
from bertviz_core.model.token_index import index_rows

REQUEST = Request(strategies=["mean", "cls", "pooler"], layers=[3, 6], token_layers=[0, 4], maps=["PCA"])
LONG = " ".join(["word"] * 700) + "."  # longer than the bundled model's 512 tokens


def store_columns(store) -> dict[str, np.ndarray]:  # noqa: ANN001 - a VectorStore
    """Every vector file of a store, by its column name."""
    return {name: store.vectors(*(name.split("@")[0], int(name.split("@")[1]) if "@" in name else None))
            for name in store.manifest["columns"]}


@pytest.fixture(scope="module")
def corpus_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """40 news sentences (10 per label), a blank line, a label-only row and one text over 512 tokens."""
    frame = pd.concat([news_topics().iloc[::4], pd.DataFrame({"text": ["", "", LONG], "label": ["", "sports", "food"]})])
    path = tmp_path_factory.mktemp("corpus") / "news.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def whole(corpus_csv: Path, tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201 - (Report, VectorStore)
    out = tmp_path_factory.mktemp("stores") / "whole"
    report = precompute(str(corpus_csv), str(out), REQUEST, shard_rows=8)
    return report, open_store(str(out))


@pytest.mark.slow
def test_the_store_equals_embed_and_keeps_the_upload_rules(whole, bundled: Encoder) -> None:
    report, store = whole
    texts = [*news_topics()["text"].iloc[::4], LONG]
    assert store.texts == texts and store.labels == [*news_topics()["label"].iloc[::4], "food"]
    assert store.rows["row"].tolist() == [*range(40), 42]  # the blank line (40) and the label-only row (41) left out
    assert (report.summary.rows, report.summary.used, report.summary.blank_lines, report.summary.label_only) == (43, 41, 1, 1)
    lengths = bundled.lengths(texts)
    assert store.rows["tokens"].tolist() == lengths[:, 0].tolist()
    assert store.rows["truncated"].tolist() == [False] * 40 + [True] and "1 of the 41 texts" in report.cut
    assert store.manifest["counts"]["truncated"] == 1 and store.manifest["model"]["identity"] == bundled.info.identity
    reference = bundled.embed(texts, ["mean", "cls", "pooler"])
    for name, vectors in store_columns(store).items():
        strategy, _, layer = name.partition("@")
        expected = reference[strategy][:, int(layer) if layer else 0]
        assert isinstance(vectors, np.memmap) and not vectors.flags.writeable
        # shards of 8 texts are batched otherwise than one call on all 41: float32 kernels round differently by
        # up to ~4e-6 on values of up to ~10 (measured); bit equality holds for the same batches (next test)
        np.testing.assert_allclose(vectors, expected, rtol=1e-5, atol=1e-5)


def ordinary_tokens(encoder: Encoder, texts: list[str], layer: int) -> np.ndarray:
    """Every ordinary token's hidden state at ``layer``, text after text: (tokens, hidden), from Encoder.encode."""
    return np.concatenate([encoding.hidden_states[layer][[not special for special in item.special]]
                           for encoding, item in zip(encoder.encode(texts), encoder.inputs(texts))])


@pytest.mark.slow
def test_the_token_layers_hold_every_ordinary_token_with_its_word(whole, bundled: Encoder) -> None:
    store = whole[1]
    texts = store.texts
    expected_rows = index_rows(bundled.inputs(texts), texts)
    pd.testing.assert_frame_equal(store.token_rows, expected_rows)
    assert store.manifest["tokens"] == len(expected_rows) == int((store.rows["tokens"] - 2).sum())
    assert store.token_rows.loc[store.token_rows["sentence"] == 40, "position"].max() == 510  # the cut text
    for layer in (0, 4):
        vectors = store.token_vectors(layer)
        assert isinstance(vectors, np.memmap) and vectors.shape == (len(expected_rows), 384)
        np.testing.assert_allclose(vectors, ordinary_tokens(bundled, texts, layer), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="no token vectors at layer 6; it holds token vectors at layer.s. 0, 4"):
        store.token_vectors(6)


def test_every_column_has_its_pca_map_of_every_row(whole) -> None:
    store = whole[1]
    for name, vectors in store_columns(store).items():
        strategy, _, layer = name.partition("@")
        drawn = store.map("PCA", strategy, int(layer) if layer else None)
        reference = PCA(n_components=2, svd_solver="full")
        expected = reference.fit_transform(np.asarray(vectors, dtype=np.float64))
        assert drawn["row"].tolist() == list(range(41))
        np.testing.assert_allclose(drawn[["x", "y"]].to_numpy(), expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())
        np.testing.assert_allclose(store.manifest["maps"][name]["PCA"]["explained_variance_ratio"],
                                   reference.explained_variance_ratio_, atol=1e-6)


def test_maps_drawn_in_worker_processes_equal_the_maps_drawn_here(whole, tmp_path: Path) -> None:
    """The local engine draws a large store's maps on every core (``map_processes``); PCA maps take the same path
    as UMAP's, so two processes drawing the store's PCA maps check it without a UMAP fit."""
    store = whole[1]
    columns = [(name.split("@")[0], int(name.split("@")[1]) if "@" in name else None)
               for name in store.manifest["columns"]]
    vectors_of = {column: store.vectors(*column) for column in columns}
    said = maps.write_maps(tmp_path, columns, ["PCA"], 100, vectors_of,
                           drawer=partial(maps.local_maps, vectors_of=vectors_of, sample=100, processes=2))
    assert said == {name: store.manifest["maps"][name] for name in store.manifest["columns"]}
    for column in columns:
        pd.testing.assert_frame_equal(pd.read_parquet(maps.map_path(tmp_path, column, "PCA")), store.map("PCA", *column))
    cores = min(5, os.cpu_count() or 1)
    assert maps.map_processes(5, 41, ["PCA"]) == 1 and maps.map_processes(5, 41, ["PCA", "UMAP"]) == cores
    assert maps.map_processes(1, 41, ["UMAP"]) == 1 and maps.map_processes(5, maps.CHUNK_ROWS, ["PCA"]) == cores


@pytest.mark.slow
def test_a_umap_of_a_stated_sample_is_the_apps_umap_of_those_rows(corpus_csv: Path, tmp_path: Path) -> None:
    request = Request(strategies=["mean"], layers=[6], maps=["umap"], map_sample=30)
    store = open_store(precompute(str(corpus_csv), str(tmp_path / "s"), request).store)
    drawn = store.map("UMAP", "mean", 6)
    rows = drawn["row"].to_numpy()
    assert len(rows) == 30 and (np.diff(rows) > 0).all() and rows.max() <= 40
    assert store.manifest["maps"]["mean@6"]["UMAP"] == {"rows": 30, "sampled": True, "seed": 0}
    expected = PROJECTIONS["UMAP"].fn(np.asarray(store.vectors("mean", 6)[rows], dtype=np.float64))
    np.testing.assert_allclose(drawn[["x", "y"]].to_numpy(), expected, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="no 'PCA' map of mean@6; it holds UMAP"):
        store.map("PCA", "mean", 6)


@pytest.mark.slow
def test_one_shard_is_bit_equal_to_embed_of_its_texts(whole, bundled: Encoder, tmp_path: Path) -> None:
    texts = whole[1].texts[:8]
    pd.DataFrame({"text": texts}).to_csv(tmp_path / "eight.csv", index=False)
    store = open_store(precompute(str(tmp_path / "eight.csv"), str(tmp_path / "s"), REQUEST, shard_rows=8).store)
    np.testing.assert_array_equal(store.vectors("mean", 6), bundled.embed(texts, ["mean"])["mean"][:, 6])


def test_search_finds_a_stored_text_first(whole, bundled: Encoder) -> None:
    store = whole[1]
    found = store.search(store.texts[5], k=3, strategy="mean", layer=6)
    assert found["index"].tolist()[0] == 5 and found["score"].iloc[0] == pytest.approx(1.0, abs=1e-5)
    by_vector = store.search(np.asarray(store.vectors("mean", 6)[5]), k=3, strategy="mean", layer=6)
    assert by_vector["index"].tolist() == found["index"].tolist()


class Stop(Exception):
    """Stands for Ctrl-C or a kill in the middle of a run."""


@pytest.mark.slow
def test_a_stopped_run_resumes_to_the_same_store(whole, corpus_csv: Path, tmp_path: Path) -> None:
    out = tmp_path / "resumed"

    def stop_after_two_shards(done: int, total: int) -> None:
        if done >= 16:
            raise Stop

    with pytest.raises(Stop):
        precompute(str(corpus_csv), str(out), REQUEST, shard_rows=8, progress=stop_after_two_shards)
    with pytest.raises(ValueError, match="stopped before the end: run the same command again"):
        open_store(str(out))
    # a kill in the middle of the third shard's writes: half its rows written, no marker
    with open(out / "vectors" / "mean@6.npy", "r+b") as file:
        file.seek(-100, 2)
        file.write(b"\xff" * 100)
    report = precompute(str(corpus_csv), str(out), REQUEST, shard_rows=8)
    assert (report.resumed, report.computed) == (2, 4)
    resumed = open_store(str(out))
    for name, vectors in store_columns(whole[1]).items():
        np.testing.assert_array_equal(store_columns(resumed)[name], vectors)
    pd.testing.assert_frame_equal(resumed.rows, whole[1].rows)
    pd.testing.assert_frame_equal(resumed.token_rows, whole[1].token_rows)
    for layer in (0, 4):
        np.testing.assert_array_equal(resumed.token_vectors(layer), whole[1].token_vectors(layer))
    pd.testing.assert_frame_equal(resumed.map("PCA", "cls", 3), whole[1].map("PCA", "cls", 3))
    blank = {"created": 0, "speed": 0}  # when, and how fast this run went
    assert {**resumed.manifest, **blank} == {**whole[1].manifest, **blank}
    # the speed of the texts each run encoded and wrote, on the device it ran on: the rerun did the last 25 of 41
    speeds = [store.manifest["speed"] for store in (whole[1], resumed)]
    assert [speed["texts"] for speed in speeds] == [41, 25] and all(speed["seconds"] > 0 for speed in speeds)
    assert {speed["device"] for speed in speeds} == {whole[1].manifest["model"]["device"]}
    again = precompute(str(corpus_csv), str(out), REQUEST, shard_rows=8)  # finished: nothing to compute
    assert (again.computed, again.resumed) == (0, 6)


def test_another_models_encoder_is_refused_naming_both(whole, tiny: Encoder) -> None:
    store = whole[1]
    with pytest.raises(ValueError) as refused:
        open_store(str(store.folder), encoder=tiny)
    assert store.manifest["model"]["identity"] in str(refused.value) and tiny.info.identity in str(refused.value)


@pytest.mark.slow
def test_every_input_format_gives_the_same_rows(whole, tmp_path: Path) -> None:
    frame = pd.DataFrame({"sentence": whole[1].texts[:6], "topic": whole[1].labels[:6]})
    frame.to_parquet(tmp_path / "c.parquet")
    frame.to_json(tmp_path / "c.jsonl", orient="records", lines=True)
    frame.to_csv(tmp_path / "c.tsv", sep="\t", index=False)
    (tmp_path / "c.txt").write_text("\n".join(frame["sentence"]) + "\n\n", encoding="utf-8")
    for name in ("c.parquet", "c.jsonl", "c.tsv", "c.txt"):
        store = open_store(precompute(str(tmp_path / name), str(tmp_path / f"store-{name}"), REQUEST).store)
        assert store.texts == frame["sentence"].tolist(), name
        assert store.labels == (None if name == "c.txt" else frame["topic"].tolist()), name


def _write(path: Path, content: bytes) -> str:
    path.write_bytes(content)
    return str(path)


BAD_INPUTS = {
    "empty file": (lambda d: _write(d / "e.csv", b""), {}, "is empty"),
    "not UTF-8": (lambda d: _write(d / "l.csv", "text\nCafé au lait, très bien.\n".encode("latin-1")), {},
                  "not UTF-8"),
    "missing column": (lambda d: _write(d / "m.csv", b"text\nThe cat sat on the mat.\n"), {"text_column": "body"},
                       "no column 'body'; its columns are text"),
    "no sentences": (lambda d: _write(d / "n.csv", b"a,b\n1,2\n3,4\n"), {}, "No column holds sentences"),
    "unknown format": (lambda d: _write(d / "x.docx", b"PK"), {}, "not a format the precompute reads"),
    "broken parquet": (lambda d: _write(d / "b.parquet", b"not parquet at all"), {}, "could not be read as Parquet"),
    "broken JSON Lines": (lambda d: _write(d / "b.jsonl", b'{"text": "a b c"}\n{oops\n'), {},
                          "could not be read as JSON Lines"),
    "no such file": (lambda d: str(d / "absent.csv"), {}, "no file or folder"),
    "a model that fails to load": (lambda d: _write(d / "ok.csv", b"text\nThe cat sat on the mat.\n"),
                                   {"request": Request(model="/nonexistent/model")}, "is not a model directory"),
    "a layer out of range": (lambda d: _write(d / "ok.csv", b"text\nThe cat sat on the mat.\n"),
                             {"request": Request(layers=[9])}, "0 to 6"),
    "a token layer out of range": (lambda d: _write(d / "ok.csv", b"text\nThe cat sat on the mat.\n"),
                                   {"request": Request(token_layers=[-1])}, "at least 0; it is -1"),
    "an unknown map": (lambda d: _write(d / "ok.csv", b"text\nThe cat sat on the mat.\n"),
                       {"request": Request(maps=["tsne"])}, "no map called 'tsne': choose from PCA, t-SNE, UMAP"),
}


@pytest.mark.parametrize("case", BAD_INPUTS)
def test_every_bad_input_says_what_is_wrong_and_leaves_no_store(case: str, tmp_path: Path) -> None:
    make, options, message = BAD_INPUTS[case]
    with pytest.raises(ValueError, match=message):
        precompute(make(tmp_path), str(tmp_path / "out"), **options)
    assert not (tmp_path / "out" / layout.MANIFEST).exists()


def test_a_full_disk_is_said_before_any_model_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_calls) -> None:
    (tmp_path / "c.csv").write_text("text\nThe cat sat on the mat.\nA dog barked twice.\n", encoding="utf-8")
    monkeypatch.setattr(layout.shutil, "disk_usage", lambda _: type("Usage", (), {"free": 1000})())
    with pytest.raises(ValueError, match="The disk holding .* is full: it needs .* MiB more"):
        precompute(str(tmp_path / "c.csv"), str(tmp_path / "out"), REQUEST)
    assert not model_calls and not (tmp_path / "out" / layout.MANIFEST).exists()


def test_a_write_that_finds_the_disk_full_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "c.csv").write_text("text\nThe cat sat on the mat.\nA dog barked twice.\n", encoding="utf-8")

    def full(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(layout.os, "fsync", full)
    with pytest.raises(ValueError, match="is full"):
        precompute(str(tmp_path / "c.csv"), str(tmp_path / "out"), REQUEST)
    assert not (tmp_path / "out" / layout.MANIFEST).exists()


def test_a_store_is_not_resumed_with_other_settings_nor_written_over_other_files(whole, corpus_csv: Path,
                                                                                  tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="started with another columns"):
        precompute(str(corpus_csv), str(whole[1].folder), Request(strategies=["mean"], layers=[3, 6]), shard_rows=8)
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="holds other files and no store"):
        precompute(str(corpus_csv), str(tmp_path), REQUEST)


def test_opening_what_is_not_a_store_or_asking_what_it_lacks_is_refused(whole, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is not a finished store"):
        open_store(str(tmp_path))
    (tmp_path / layout.MANIFEST).write_text(json.dumps({"format": "other/9"}))
    with pytest.raises(ValueError, match="format 'other/9'"):
        open_store(str(tmp_path))
    store = whole[1]
    with pytest.raises(ValueError, match="holds no max@6 vectors"):
        store.vectors("max", 6)
    with pytest.raises(ValueError, match="k must be a whole number"):
        store.search("a text", k=0)
    with pytest.raises(ValueError, match="384"):
        store.search(np.ones(5), k=2)


@pytest.mark.slow
def test_the_command_reports_counts_or_one_message(whole, corpus_csv: Path, tmp_path: Path, capsys) -> None:  # noqa: ANN001
    from bertviz_core.__main__ import main

    assert main(["precompute", str(corpus_csv), "--out", str(tmp_path / "s"), "--strategies", "mean,cls",
                 "--layers", "3,6", "--token-layers", "4", "--shard-rows", "16", "--maps", "PCA"]) == 0
    said = capsys.readouterr()
    assert "41 texts of 43 rows (1 blank" in said.out and "cut to fit" in said.out and "texts/s" in said.err
    # before any model run: the columns it read (both guessed here) and how many maps it will draw, and where
    assert said.out.startswith(
        "Texts: the column 'text' (guessed; --text-column names another).\n"
        "Labels: the column 'label' (guessed; --label-column names another).\n"
        "Maps: 4 to draw (PCA of each of the 4 columns), one at a time in this process.\n")
    made = open_store(str(tmp_path / "s"))
    np.testing.assert_allclose(made.vectors("mean", 6), whole[1].vectors("mean", 6), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(made.token_vectors(4), whole[1].token_vectors(4), rtol=1e-5, atol=1e-5)
    assert made.manifest["token_layers"] == [4]
    assert main(["precompute", str(tmp_path / "absent.csv"), "--out", str(tmp_path / "t")]) == 2
    assert capsys.readouterr().err.strip() == f"precompute: There is no file or folder at {tmp_path / 'absent.csv'}."
