"""A class server that no visitor can stall or fill: one test per finding of the hostile-visitor review, in
sections named by the finding: catastrophic regexes, unreachable hub models, broken local models and server
paths, autolinks, text that is not valid Unicode, uploads that lose data (with the store's budget in bytes; the
store itself is checked in test_result_store.py and test_concurrency.py).
"""
from __future__ import annotations

import json
import re
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest
from conftest import open_code_panels, open_page, open_vocabulary, scatter_grid

from bertviz_core import Encoder, load_encoder
from bertviz_core.corpora import news_topics, read_table
from bertviz_core.model.models import bundled_model_dir, hub_reachable
from bertviz_core.measures.pooling_grid import MAX_COLOURS, OTHER, check_labels
from bertviz_core.words.vocab import MAX_PATTERN, search_vocabulary, vocabulary_table

ROOT = Path(__file__).resolve().parents[1]
CATASTROPHIC = [r"(.*.*)*$x", r"^(\w+\s?)*$X", r"(a|aa)*$b", r"(x+x+)+y"]
CLOSED_HUB = "http://127.0.0.1:9"  # loopback, nothing listens: an unreachable hub that answers at once


# ---- catastrophic regexes -----------------------------------------------------------------------

def test_catastrophic_regexes_answer_while_other_requests_complete(bundled: Encoder) -> None:
    vocab = vocabulary_table(bundled.tokenizer)
    answers: dict[str, int] = {}
    others: list[int] = []

    def evil() -> None:
        for pattern in CATASTROPHIC:
            answers[pattern] = len(search_vocabulary(vocab, pattern, regex=True))

    def small_requests() -> None:
        for _ in range(20):
            others.append(len(search_vocabulary(vocab, "bank")))

    threads = [threading.Thread(target=evil, daemon=True), threading.Thread(target=small_requests, daemon=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)  # a backtracking engine would still be running: the counts below fail
    assert set(answers) == set(CATASTROPHIC) and answers[CATASTROPHIC[0]] == 0
    assert others == [10] * 20


def test_regex_limits_are_messages(bundled: Encoder) -> None:
    vocab = vocabulary_table(bundled.tokenizer)
    with pytest.raises(ValueError, match="linear time"):
        search_vocabulary(vocab, r"(?<=b)ank", regex=True)
    with pytest.raises(ValueError, match=f"the limit is {MAX_PATTERN}"):
        search_vocabulary(vocab, "a" * (MAX_PATTERN + 1))
    at = open_page("pages/tokenization.py")
    open_vocabulary(at)
    at.toggle(key="voc_re").set_value(True).run()
    at.text_input(key="voc_q").set_value(CATASTROPHIC[0]).run()
    assert not at.exception and "0 entries match" in " ".join(c.value for c in at.caption)


# ---- unreachable hub models ---------------------------------------------------------------------

@pytest.fixture
def unreachable_hub(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The environment of `make run` (no HF_HUB_OFFLINE) with a hub that cannot be reached; counts loads."""
    import ui
    from bertviz_core.model import encoder

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", CLOSED_HUB)
    loads: list[str] = []
    original = encoder.load_pretrained

    def counting(source, device):  # noqa: ANN001
        loads.append(source.name)
        return original(source, device)

    monkeypatch.setattr(encoder, "load_pretrained", counting)
    ui.failed_models.clear()
    yield loads
    ui.failed_models.clear()


def test_an_unreachable_hub_is_refused_with_a_clear_message(unreachable_hub: list[str]) -> None:
    assert not hub_reachable()
    with pytest.raises(ValueError, match="Could not load model 'bert-base-uncased'"):
        load_encoder("bert-base-uncased", device="cpu")


def test_an_unreachable_hub_model_is_tried_once_and_the_picker_returns(unreachable_hub: list[str]) -> None:
    at = open_page("pages/tokenization.py")
    at.sidebar.selectbox(key="model").set_value("bert-base-uncased").run()
    assert not at.exception and "Could not load model" in at.sidebar.error[0].value
    assert at.sidebar.selectbox(key="model").value == "all-MiniLM-L6-v2 (bundled)"  # back on the model in use
    assert at.metric[0].value == "22"
    for _ in range(3):  # other clicks, and the same choice again, do not try the hub again
        at.toggle(key="tok_pad").set_value(not at.toggle(key="tok_pad").value).run()
    at.sidebar.selectbox(key="model").set_value("bert-base-uncased").run()
    assert "Not tried again" in at.sidebar.error[0].value
    second = open_page("pages/tokenization.py")  # another visitor: the failure is remembered for everyone
    second.sidebar.selectbox(key="model").set_value("bert-base-uncased").run()
    assert not second.exception and unreachable_hub == ["bert-base-uncased"]


# ---- broken local models and server paths -------------------------------------------------------

def broken_copy(tiny_dir: Path, folder: Path, config: str | None) -> Path:
    shutil.copytree(tiny_dir, folder)
    if config is not None:
        (folder / "config.json").write_text(config, encoding="utf-8")
    return folder


def choose_model(at, value: str) -> None:  # noqa: ANN001
    at.sidebar.selectbox(key="model").set_value("Custom id or path…").run()
    at.sidebar.text_input(key="custom_model").set_value(value).run()


def without_positions(folder: Path) -> str:
    settings = json.loads((folder / "config.json").read_text())
    del settings["max_position_embeddings"]
    return json.dumps(settings)


@pytest.mark.parametrize(("model", "config", "expect"), [
    ("tiny", "[]", "holds a JSON list"),
    ("tiny", "{not json", "is not valid JSON (Expecting property name"),
    # no max_position_embeddings: the library's default (512) fits the bundled weights, not the tiny model's 128
    ("bundled", without_positions(bundled_model_dir()), None),
    ("tiny", None, "weights do not fit the sizes its config.json states"),
])
def test_broken_local_models_give_a_message_and_keep_the_page(tiny_dir: Path, tmp_path: Path, model: str,
                                                             config: str | None, expect: str | None) -> None:
    source = tiny_dir if model == "tiny" else bundled_model_dir()
    folder = broken_copy(source, tmp_path / "broken", config or without_positions(tiny_dir))
    for page in ("pages/layer_values.py", "pages/overview.py"):
        at = open_page(page)
        choose_model(at, str(folder))
        assert not at.exception and at.title, page
        errors = " ".join(e.value for e in at.sidebar.error).replace("\\", "")
        assert (expect in errors) if expect else not errors, errors


def test_a_path_longer_than_the_file_system_allows_is_a_message() -> None:
    at = open_page("pages/tokenization.py")
    choose_model(at, "/" + "x" * 3000)
    assert not at.exception and "not a model directory" in at.sidebar.error[0].value
    assert len(at.sidebar.error[0].value) < 1000


@pytest.mark.slow
def test_no_code_panel_or_message_shows_a_server_path(tiny_dir: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copytree(tiny_dir, tmp_path / "my-bert")
    server_paths = [str(ROOT), str(tmp_path), "site-packages"]
    at = open_page("pages/compare_sentences.py")
    at.radio(key="cs_correct").set_value("whitening").run()
    choose_model(at, "./my-bert")
    assert not at.exception and not at.sidebar.error
    code = " ".join(c.value for c in open_code_panels(at).code)
    assert "name = './my-bert'" in code and "news_topics()" in code
    choose_model(at, "../no-such-folder/model")
    shown = code + " ".join(str(m.value) for m in [*at.code, *at.sidebar.error, *at.error, *at.warning])
    assert "../no-such-folder/model" in shown.replace("\\", "")
    assert not [p for p in server_paths if p in shown], [p for p in server_paths if p in shown]


# ---- autolinks ----------------------------------------------------------------------------------

def test_bare_urls_and_addresses_are_not_turned_into_links() -> None:
    import ui

    text = "see http://evil.example/x, https://a.b, WWW.evil.example and bob@evil.example"
    shown = ui.literal(text)
    assert shown.replace("\u2060", "").replace("\\", "") == text  # reads the same
    autolink = re.compile(r"(?i)https?://|www\.|[\w.+-]@[\w-]")  # what GFM's autolink literal starts from
    assert not autolink.search(shown.replace("\\", ""))


# ---- text that is not valid Unicode -------------------------------------------------------------

@pytest.mark.parametrize("call", ["tokenize", "encode", "embed", "word_vectors", "word"])
def test_lone_surrogates_are_a_clear_message(bundled: Encoder, call: str) -> None:
    bad = "the bank \ud800 vault"
    run = {
        "tokenize": lambda: bundled.tokenize(bad),
        "encode": lambda: bundled.encode(["fine", bad]),
        "embed": lambda: bundled.embed(["fine", bad], ["mean"]),
        "word_vectors": lambda: bundled.word_vectors(["the bank", bad], "bank"),
        "word": lambda: bundled.word_vectors(["the bank"], "ba\udc00nk"),
    }[call]
    with pytest.raises(ValueError, match="not valid Unicode at position"):
        run()
    assert len(bundled.word_vectors(["the bank", "a bank"], "bank")) == 2  # the encoder is not poisoned


# ---- uploads that lose data ---------------------------------------------------------------------

def test_a_csv_without_a_header_row_keeps_its_first_text() -> None:
    data = b"The cat sat on the mat today.,pets\nStocks fell sharply this morning.,money\nDogs bark.,pets\n"
    table = read_table(data)
    assert list(table.frame["column 1"])[0] == "The cat sat on the mat today." and len(table.frame) == 3
    assert table.note and "first row" in table.note
    assert read_table(b"text,label\nThe cat sat on the mat.,a\nThe dog barks.,b\n").note is None


@pytest.mark.slow
def test_uploads_warn_about_truncation_and_cap_label_colours(monkeypatch: pytest.MonkeyPatch) -> None:
    from conftest import open_page as fresh

    at = fresh("pages/sentence_pooling.py")
    at.radio(key="sp_source").set_value("Upload a CSV").run()
    rows = "\n".join([f"Short text number {i} here,{i % 3}" for i in range(10)] + ["word " * 700 + ",1"])
    at.file_uploader(key="sp_upload").set_value(("long.csv", f"text,label\n{rows}\n".encode(), "text/csv")).run()
    assert not at.exception and "1 of the 11 texts is longer than the model's 512 tokens" in at.warning[0].value

    corpus = news_topics().head(60)
    labels = [f"label {i % 30}" for i in range(60)]  # 30 labels, two texts each
    check = check_labels(labels)
    assert len(set(check.colour)) == MAX_COLOURS and OTHER in check.colour and check.scored == labels
    csv = corpus.assign(label=labels).to_csv(index=False).encode()
    at.file_uploader(key="sp_upload").set_value(("many.csv", csv, "text/csv")).run()
    assert not at.exception and "the other 11 are drawn as “other”" in " ".join(i.value for i in at.info)
    legend = scatter_grid(at)[0]["layer"][-1]["encoding"]["color"]["scale"]["domain"]
    assert len(legend) == MAX_COLOURS


def test_the_store_budget_is_stated_and_bounds_five_large_corpora(monkeypatch: pytest.MonkeyPatch) -> None:
    import ui

    monkeypatch.setenv("BERTVIZ_CACHE_MB", "2")
    ui.result_store.clear()
    store = ui.result_store()
    for i in range(5):  # five uploads of 2,000 vectors, 1 MiB each once pooled
        store.put(("embed", i), {"mean": np.zeros((2000, 1, 128), dtype=np.float32)})
    assert store.used <= store.budget == 2 << 20 and len(store) == 2
    ui.result_store.clear()
