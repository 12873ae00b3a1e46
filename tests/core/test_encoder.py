"""The Encoder against plain transformers: tokenization, hidden states, batching, threads, bad input."""
from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import AutoModel, AutoTokenizer

from conftest import DEVICE, TUTORIAL_IDS

from bertviz_core import Encoder, describe, load_encoder
from bertviz_core.corpora import TUTORIAL
from bertviz_core.model.encoder import BATCH_LIMITS
from bertviz_core.model.models import DEVICES, bundled_model_dir
from bertviz_core.words.vocab import kind_counts, search_vocabulary, vocabulary_table

ODD_TEXTS = [
    "", "   \n\t ", "I 💙 BERT 🤖!", "自然语言处理很有趣", "مرحبا بالعالم", "zero\u200bwidth\u200djoin",
    "ctrl\x00\x07\x1b[31m chars", "<script>alert('x')</script> <b>bold</b>", "[a link](http://example.com) **md**",
]


def plain_hidden_states(folder: str | Path, text: str) -> np.ndarray:
    """The reference: transformers alone, one text, no padding. (layers+1, tokens, hidden)."""
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder).eval()
    inputs = tokenizer(text, return_tensors="pt", truncation=True, max_length=512)
    with torch.no_grad():
        out = model(**inputs, output_hidden_states=True)
    return torch.stack(out.hidden_states)[:, 0].numpy()


def test_info_of_bundled_model(bundled: Encoder) -> None:
    info = bundled.info
    assert (info.num_layers, info.hidden_size, info.vocab_size, info.max_length) == (6, 384, 30522, 512)
    assert info.device == DEVICE and info.model_type == "bert"
    assert info.has_pooler  # all-MiniLM-L6-v2's checkpoint holds pooler.dense.*


def test_describe_reads_the_same_facts_from_files(bundled: Encoder, tiny: Encoder, tiny_no_pooler: Encoder) -> None:
    for encoder in (bundled, tiny, tiny_no_pooler):  # device "auto" resolves as the fixtures' device on CPU runs
        described = describe(None if encoder.info.kind == "bundled" else encoder.info.source, encoder.info.device)
        assert described == replace(encoder.info, identity="")
    assert describe("bert-base-uncased") is None  # a hub id: only loading it tells
    with pytest.raises(ValueError, match="not a model directory"):
        describe("/no/such/folder")


@pytest.mark.slow
def test_importing_the_core_leaves_transformers_for_later() -> None:
    code = "import sys, bertviz_core, bertviz_core.model.models; bertviz_core.describe(); print('transformers' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_tiny_model_shapes_and_pooler_flag(tiny: Encoder, tiny_no_pooler: Encoder) -> None:
    assert tiny.info.num_layers == 12 and tiny.info.has_pooler
    assert not tiny_no_pooler.info.has_pooler
    (encoding,) = tiny.encode(["a tiny model"])
    assert encoding.hidden_states.shape == (13, 5, 48) and encoding.hidden_states.dtype == np.float32
    assert tiny_no_pooler.encode(["x"])[0].pooler is None


def test_tutorial_sentence_tokens(bundled: Encoder) -> None:
    df = bundled.tokenize(TUTORIAL)
    assert df["id"].tolist() == TUTORIAL_IDS
    assert df["token"].iloc[11] == "robber" and df.attrs["dropped"] == 0
    assert df["segment"].eq(0).all() and df["attention_mask"].eq(1).all()
    assert [w is None for w in df["word_index"]] == [True] + [False] * 20 + [True]
    for _, row in df.iloc[1:-1].iterrows():  # offsets point back at the source text
        assert TUTORIAL[row.start:row.end].lower() == row.token


def test_word_pieces_share_a_word_index(bundled: Encoder) -> None:
    df = bundled.tokenize("embeddings rock")
    assert df["token"].tolist()[1:5] == ["em", "##bed", "##ding", "##s"]
    assert df["word_index"].tolist()[1:6] == [0, 0, 0, 0, 1]


def test_sentence_pair_segments_and_padding(bundled: Encoder) -> None:
    df = bundled.tokenize("the cat sat", "it was happy", pad_to=12)
    assert df["segment"].tolist() == [0] * 5 + [1] * 4 + [0] * 3
    assert df["token"].tolist()[-4:] == ["[SEP]", "[PAD]", "[PAD]", "[PAD]"]
    assert df["attention_mask"].tolist() == [1] * 9 + [0] * 3
    assert df["word_index"].tolist()[1:8] == [0, 1, 2, None, 3, 4, 5]
    assert "it was happy"[df.start[5]:df.end[5]] == "it"
    with pytest.raises(ValueError, match="pad_to"):
        bundled.tokenize("the cat sat", pad_to=3)


def test_encode_matches_plain_transformers(bundled: Encoder, tiny: Encoder, tiny_dir: Path) -> None:
    (encoding,) = bundled.encode([TUTORIAL])
    assert encoding.ids == TUTORIAL_IDS
    np.testing.assert_allclose(encoding.hidden_states, plain_hidden_states(bundled_model_dir(), TUTORIAL), atol=1e-5)
    text = "embeddings of a tiny twelve layer model"
    np.testing.assert_allclose(tiny.encode([text])[0].hidden_states, plain_hidden_states(tiny_dir, text), atol=1e-5)


def test_padding_in_a_batch_changes_nothing(bundled: Encoder) -> None:
    texts = [TUTORIAL, "Short.", "A somewhat longer sentence about river banks and money.", "x " * 60]
    batched = bundled.encode(texts)
    for text, encoding in zip(texts, batched):
        alone = bundled.encode([text])[0]
        assert encoding.text == text and encoding.tokens == alone.tokens
        assert np.abs(encoding.hidden_states - alone.hidden_states).max() <= 1e-5


def test_long_text_is_truncated_and_counted(bundled: Encoder) -> None:
    text = " ".join(["word"] * 5000)
    df = bundled.tokenize(text)
    assert len(df) == 512 and df.attrs["dropped"] == 5002 - 512
    (encoding,) = bundled.encode([text])
    assert encoding.hidden_states.shape == (7, 512, 384) and encoding.dropped == 4490
    assert encoding.tokens[-1] == "[SEP]"


@pytest.mark.parametrize("text", ODD_TEXTS)
def test_odd_text_gives_a_result(bundled: Encoder, text: str) -> None:
    df = bundled.tokenize(text)
    (encoding,) = bundled.encode([text])
    assert df["token"].iloc[0] == "[CLS]" and df["token"].iloc[-1] == "[SEP]"
    assert encoding.hidden_states.shape == (7, len(df), 384) and np.isfinite(encoding.hidden_states).all()
    assert df["id"].tolist() == encoding.ids


def test_unknown_characters_become_unk(bundled: Encoder) -> None:
    df = bundled.tokenize("I 💙 BERT")
    assert "[UNK]" in df["token"].tolist()
    unk = df[df.token == "[UNK]"].iloc[0]
    assert "I 💙 BERT"[unk.start:unk.end] == "💙"


@pytest.mark.parametrize("bad", ["just one string", [1, 2], [None]])
def test_encode_rejects_non_lists_of_strings(bundled: Encoder, bad: object) -> None:
    with pytest.raises(ValueError):
        bundled.encode(bad)  # type: ignore[arg-type]


def test_encode_of_nothing_is_empty(bundled: Encoder) -> None:
    assert bundled.encode([]) == []


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("/no/such/model/dir", "not a model directory"),
        ("./also-missing", "not a model directory"),
        ("bert-base-uncased", "HF_HUB_OFFLINE"),
        ("no-such-org/no-such-model-xyz", "Could not load model"),
    ],
)
def test_models_that_cannot_load_raise_a_clear_value_error(model: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_encoder(model)


def test_folder_without_weights_is_refused(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{"model_type": "bert"}')
    with pytest.raises(ValueError, match="Could not load model"):
        load_encoder(str(tmp_path))


def test_remote_code_models_are_refused(tiny_dir: Path, tmp_path: Path) -> None:
    import json
    import shutil

    folder = tmp_path / "needs_code"
    shutil.copytree(tiny_dir, folder)
    config = json.loads((folder / "config.json").read_text())
    config["auto_map"] = {"AutoModel": "modeling_evil.EvilModel"}
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "modeling_evil.py").write_text("raise SystemExit('remote code ran')\n")
    with pytest.raises(ValueError, match="never runs remote code"):
        load_encoder(str(folder))


def test_every_device_has_batch_limits() -> None:
    assert set(BATCH_LIMITS) == set(DEVICES) - {"auto"}
    assert all(budget >= batch > 0 for budget, batch in BATCH_LIMITS.values())


def test_unknown_device_is_refused() -> None:
    with pytest.raises(ValueError, match="Unknown device"):
        load_encoder(device="tpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA GPU"):
            load_encoder(device="cuda")


@pytest.mark.slow
def test_eight_threads_share_one_encoder(bundled: Encoder) -> None:
    texts = [f"Thread {i} asks about the bank by the river number {i}." for i in range(8)]
    serial_tok = [bundled.tokenize(t, "a pair") for t in texts]
    serial = [bundled.encode([t, TUTORIAL]) for t in texts]

    def work(i: int) -> tuple:
        return bundled.tokenize(texts[i], "a pair"), bundled.encode([texts[i], TUTORIAL])

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(work, list(range(8)) * 3))
    for k, (df, encs) in enumerate(results):
        i = k % 8
        assert df.equals(serial_tok[i])
        for got, want in zip(encs, serial[i]):
            assert got.ids == want.ids
            assert np.abs(got.hidden_states - want.hidden_states).max() <= 1e-5


def test_vocabulary_kinds_and_search(bundled: Encoder) -> None:
    vocab = vocabulary_table(bundled.tokenizer)
    assert len(vocab) == 30522 and vocab["id"].tolist() == list(range(30522))
    counts = kind_counts(vocab)
    assert counts.sum() == 30522 and counts["special"] == 5 and counts["[unused]"] == 994
    assert counts["## piece"] == vocab["token"].str.startswith("##").sum()
    assert vocab.set_index("token").loc["bank", "id"] == 2924
    assert set(search_vocabulary(vocab, "^##bed", regex=True)["token"]) >= {"##bed"}
    assert (search_vocabulary(vocab, "bank")["token"].str.contains("bank")).all()
    with pytest.raises(ValueError, match="regular expression"):
        search_vocabulary(vocab, "([", regex=True)


@pytest.mark.slow
def test_only_loading_a_model_imports_transformers() -> None:
    """Pages import the core while a background thread may be importing transformers, whose lazy
    module breaks when two threads import it at once: only models.load_pretrained imports it, under
    a lock, so a page's own imports never race the preload."""
    code = ("import sys, bertviz_core.model.encoder, bertviz_core.words.vocab, bertviz_core.words.tokens, bertviz_core.measures.stats, "
            "bertviz_core.measures.similarity, bertviz_core.figures, bertviz_core.recipes, bertviz_core.corpora; "
            "print('transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_pair_encoding_equals_plain_transformers(bundled: Encoder) -> None:
    (pair,) = bundled.encode(["what is your age?"], ["Today is monday"])
    tokenizer = AutoTokenizer.from_pretrained(bundled_model_dir())
    model = AutoModel.from_pretrained(bundled_model_dir()).eval()
    inputs = tokenizer("what is your age?", "Today is monday", return_tensors="pt")
    with torch.no_grad():
        out = model(**inputs, output_hidden_states=True)
    assert pair.tokens[6] == "[SEP]" and inputs["token_type_ids"][0].tolist() == [0] * 7 + [1] * 4
    np.testing.assert_allclose(pair.hidden_states, torch.stack(out.hidden_states)[:, 0].numpy(), atol=1e-5)
    np.testing.assert_allclose(pair.pooler, out.pooler_output[0].numpy(), atol=1e-5)
    with pytest.raises(ValueError, match="one pair per text"):
        bundled.encode(["a", "b"], ["c"])
    assert bundled.lengths(["short", "word " * 600]).tolist() == [[3, 0], [512, 90]]
