"""AppTest runs of the app shell and the Overview page: the first page opens before the model loads, the sidebar's
facts, the bundled model explained where students look."""
from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import APP, open_page
from page_checks import PageChecks


CHECKS = PageChecks()  # no settings, no text: the loops over the registry pass it by


PRELOAD_PROBE = """
import sys, threading
import bertviz_core.model.encoder as encoder
loads, original = [], encoder.load_encoder
def recording(*args, **kwargs):
    loads.append(threading.current_thread().name)
    return original(*args, **kwargs)
encoder.load_encoder = recording
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1]).run(timeout=60)
assert not at.exception
for thread in threading.enumerate():
    if thread.name == "preload-encoder":
        thread.join(60)
print(at.title[0].value, "|", ",".join(loads))
"""


@pytest.mark.slow
def test_the_first_page_opens_without_loading_the_model() -> None:
    """Cold start: the overview and the sidebar read the model's facts from its files; the model
    (transformers, seconds to import, and the weights) loads afterwards in a background thread."""
    out = subprocess.run([sys.executable, "-c", PRELOAD_PROBE, APP], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "BERT Embedding Explorer | preload-encoder"


def test_overview_and_sidebar_facts() -> None:
    at = open_page()
    assert "BERT Embedding Explorer" in at.title[0].value
    facts = " ".join(m.value for m in at.sidebar.markdown)
    assert "6 layers" in facts and "hidden 384" in facts and "vocab 30,522" in facts


def test_the_bundled_model_is_explained_where_students_look() -> None:
    overview = " ".join(i.value for i in open_page().info)
    assert "bert-base-uncased's vocabulary" in overview and "(7, 22, 384)" in overview
    assert "layers 3–6 of 6" in overview and "[CLS] is nearly the same vector" in overview
    words = open_page("pages/word_similarity.py")
    assert any("bert-base-uncased's vocabulary" in c.value for c in words.caption)
    values = open_page("pages/layer_values.py")
    assert any("(7, 22, 384)" in c.value for c in values.caption)
    rows = " ".join(m.value for m in open_page().markdown).replace("\\", "")
    assert "0.93 (bert-base-uncased, in a Q&A thread)" in rows and "what does the loaded model give" in rows
