"""Shared fixtures and helpers: the bundled encoder, tiny random BERT checkpoints saved to temp dirs,
counting model runs, and reading an AppTest page's charts and tables by their keys."""
from __future__ import annotations

import base64
import dataclasses
import json
import os
import time
from collections.abc import Callable, Iterable
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

# Under pytest-xdist each worker takes its share of the cores, for its own threads and for the app servers and
# worker processes it starts: thread pools sized for the whole machine in every worker would spin against each
# other (OpenMP threads wait busily) and run many times slower.
if "PYTEST_XDIST_WORKER_COUNT" in os.environ:
    SHARE = str(max(1, (os.cpu_count() or 1) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"])))
    for threads in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(threads, SHARE)

import numpy as np  # noqa: E402 - after the thread counts
import pandas as pd
import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# No background warm-up in AppTest or the test servers: its model runs would land in the tests' counts.
os.environ.setdefault("BERTVIZ_WARM_UP", "0")

# Every AppTest scans the installed packages' metadata for Streamlit components (about 0.5 s, 400 times a suite);
# the installed packages cannot change while the tests run, so one scan serves them all.
import streamlit.components.v2.manifest_scanner as _manifest_scanner  # noqa: E402

_manifest_scanner.scan_component_manifests = cache(_manifest_scanner.scan_component_manifests)

from call_counter import counting_model_runs  # noqa: E402
from model_family import EXTRAS, FAMILY, build_family  # noqa: E402
from tiny_models import save_tiny_bert  # noqa: E402,F401 - tests import it from here

from bertviz_core import Encoder, load_encoder  # noqa: E402
from ui.layout import html_table  # noqa: E402

APP = str(Path(__file__).resolve().parents[1] / "app.py")
# The tutorial sentence's token ids in bert-base-uncased's vocabulary, from [CLS] to [SEP].
TUTORIAL_IDS = [101, 2044, 11065, 2769, 2013, 1996, 2924, 11632, 1010, 1996, 2924, 27307, 2001,
                2464, 5645, 2006, 1996, 5900, 2314, 2924, 1012, 102]

# pytest.approx's tolerance for float32 results compared with another computation: float32 kernels differ
# from one CPU to another by more than approx's default (1e-6 relative).
F32 = {"rel": 1e-5, "abs": 1e-6}
# The device the encoder fixtures run on; set BERTVIZ_TEST_DEVICE=cuda to run the core tests on a GPU.
DEVICE = os.environ.get("BERTVIZ_TEST_DEVICE", "cpu")


def assert_top_k(picked: list[int], picked_scores: np.ndarray, scores: np.ndarray, high: bool = True,
                 atol: float = 1e-5) -> None:
    """``picked`` (best first, scored ``picked_scores``) are the top of ``scores``, every candidate's score by a
    reference computation (NaN: left out): no item twice, each picked score equal to the reference's for that
    item and to the reference's k best in order, within ``atol``. Candidates closer than ``atol`` may come in
    either order: float32 kernels on another device (or CPU) break near-ties differently."""
    reference = np.where(np.isnan(scores), -np.inf if high else np.inf, np.asarray(scores, dtype=np.float64))
    best = np.sort(reference)[::-1] if high else np.sort(reference)
    assert len(set(picked)) == len(picked)
    np.testing.assert_allclose(picked_scores, reference[list(picked)], atol=atol)
    np.testing.assert_allclose(picked_scores, best[:len(picked)], atol=atol)


def token_rows(tokens: pd.DataFrame, found: pd.DataFrame) -> list[int]:
    """The rows of a token index's ``tokens`` that ``found`` (e.g. ``nearest_tokens``'s result) names by sentence and
    position."""
    row_of = {key: row for row, key in enumerate(zip(tokens["sentence"], tokens["position"]))}
    return [row_of[key] for key in zip(found["sentence"], found["position"])]


@pytest.fixture(scope="session")
def bundled() -> Encoder:
    return load_encoder(device=DEVICE)


@pytest.fixture(scope="session")
def news_pooled(bundled: Encoder) -> dict[str, np.ndarray]:
    """The built-in corpus (160 texts) pooled by every strategy at every layer on the bundled model, embedded once a
    session: {strategy: (160, layers+1 or 1, hidden)}. Read-only: tests index it, never write to it."""
    from bertviz_core.corpora import news_topics

    pooled = bundled.embed(list(news_topics()["text"]))
    for vectors in pooled.values():
        vectors.flags.writeable = False
    return pooled


@pytest.fixture(scope="session")
def news_store(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201 - a VectorStore
    """The built-in corpus (160 labelled texts) precomputed on the bundled model: mean pooling at layer 6, every
    token at layers 3 and 6, the PCA map, and search indexes although it is small (``index="always"``). Read-only."""
    from bertviz_core import open_store
    from bertviz_core.corpora import news_topics
    from bertviz_core.precompute.request import Request
    from bertviz_core.precompute.run import precompute

    folder = tmp_path_factory.mktemp("news_store")
    news_topics().to_csv(folder / "news.csv", index=False)
    return open_store(precompute(str(folder / "news.csv"), str(folder / "news"), Request(
        strategies=["mean"], layers=[6], token_layers=[3, 6], index="always", maps=["PCA"]), shard_rows=64).store)


@pytest.fixture(scope="session")
def labelled_store(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201 - a VectorStore
    """``stores.topics_store``, opened: two strategies at two layers with their PCA maps and two token layers. Read-only."""
    from stores import topics_store

    from bertviz_core import open_store

    return open_store(topics_store(tmp_path_factory.mktemp("labelled_store")))


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_bert(tmp_path_factory.mktemp("tiny12"))


@pytest.fixture(scope="session")
def tiny(tiny_dir: Path) -> Encoder:
    return load_encoder(str(tiny_dir), device=DEVICE)


@pytest.fixture(scope="session")
def tiny_no_pooler(tmp_path_factory: pytest.TempPathFactory) -> Encoder:
    return load_encoder(str(save_tiny_bert(tmp_path_factory.mktemp("nopool"), layers=2, pooler=False)), device=DEVICE)


@pytest.fixture(scope="session")
def mlm_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random BERT with a masked-language-model head (the Masked words tests, core, page and browser)."""
    return save_tiny_bert(tmp_path_factory.mktemp("mlm"), heads=12, mlm=True)


@pytest.fixture(scope="session")
def mlm(mlm_dir: Path) -> Encoder:
    return load_encoder(str(mlm_dir), device=DEVICE)


FAMILY_NAMES = [name for m in FAMILY for name in (m.name, f"{m.name}-mlm") if name == m.name or m.mlm] + list(EXTRAS)
MLM_NAMES = [f"{m.name}-mlm" for m in FAMILY if m.mlm]
# Every architecture and odd case once, without the ``-mlm`` twins: a twin has its base's tokenizer and architecture
# with a head beside it, so only loading (the twins' own tests) and the head tell them apart. Tests of tokenizing,
# of a recipe's text or of a page loop over these; tests of loading and of the head loop over FAMILY_NAMES.
BASE_NAMES = [m.name for m in FAMILY] + list(EXTRAS)


@pytest.fixture(scope="session")
def family_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every model of the model-family fixture (``tests/model_family.py``), saved once: {name: folder}."""
    return build_family(tmp_path_factory.mktemp("family"))


@pytest.fixture(scope="session")
def family_encoders(family_dirs: dict[str, Path]) -> dict[str, Encoder]:
    """Each family model loaded once, by name, for the tests that loop over the family."""
    return {name: load_encoder(str(folder), device=DEVICE) for name, folder in family_dirs.items()}


@pytest.fixture(scope="session")
def bad_input(bundled: Encoder, tiny: Encoder, tiny_no_pooler: Encoder, tmp_path_factory: pytest.TempPathFactory):
    """The encoders and the inputs the core made from them, that the bad-input cases call with (``c`` in
    tests/core/test_bad_input_*.py): built once a session for the three tables."""
    from bad_input import inputs

    return inputs(bundled, tiny, tiny_no_pooler, tmp_path_factory)


@pytest.fixture(scope="session")
def browser():  # noqa: ANN201 - a playwright Browser
    """One headless chromium for every real-browser test of the session: playwright's sync API runs one event
    loop per thread, so a second ``sync_playwright()`` beside a live one fails."""
    from live_app import CHROMIUM, CHROMIUM_ARGS
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def screen_150(browser):  # noqa: ANN001, ANN201 - a playwright Browser in, a Page out
    """One tab at 1280 x 720 and 150 % zoom (853 x 480 CSS px) for every audit of the session: each view is a new
    page load and so a new Streamlit session, and the tab keeps only the browser's cache of the app's scripts, which
    a fresh context would fetch and compile again (about a second a view)."""
    from browser_views import still_context
    from test_presentation import HEIGHT, WIDTH

    context = still_context(browser, viewport={"width": WIDTH, "height": HEIGHT}, device_scale_factor=1.5)
    yield context.new_page()
    context.close()


# Where the session's app server is written down (url, pid): a folder the controlling pytest process makes, which
# its test workers (pytest-xdist) inherit through the environment, so that they all share one server.
SHARED_SERVER = "BERTVIZ_TEST_SERVER_DIR"


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # the controlling process (or the only one)
        import tempfile

        os.environ[SHARED_SERVER] = tempfile.mkdtemp(prefix="bertviz-server-")


def pytest_unconfigure(config: pytest.Config) -> None:
    """The controlling process stops the shared server once every worker is done with it."""
    import shutil

    from live_app import stop_app

    folder = os.environ.get(SHARED_SERVER)
    if hasattr(config, "workerinput") or not folder:
        return
    written = Path(folder) / "server.json"
    if written.exists():
        stop_app(json.loads(written.read_text())["pid"])
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def server() -> str:
    """The app served by ``streamlit run`` for the real-browser tests: one server for the whole test session, all
    test workers included (its caches warm once), started by the first test that needs it, stopped by
    ``pytest_unconfigure``. It takes the threads of the worker that starts it (its share of the cores): OpenMP
    threads for every core beside busy workers wait busily and ran probe cells 9x slower. Its output goes to
    ``server_log``, unbuffered. It warms up as a deployed server does (its first visit starts the background
    warm-up of every page's default view), and writes its model runs to ``server_runs``."""
    from filelock import FileLock
    from live_app import start_app

    written = Path(os.environ[SHARED_SERVER]) / "server.json"
    with FileLock(str(written) + ".lock"):
        if not written.exists():
            with (written.parent / "server.log").open("w") as sink:  # the child keeps its own copy of the file
                app = start_app(env={"PYTHONUNBUFFERED": "1", "BERTVIZ_WARM_UP": "1",
                                     "BERTVIZ_RUN_LOG": str(written.parent / "runs.log")}, sink=sink)
            written.write_text(json.dumps({"url": app.url, "pid": app.pid}))
    return json.loads(written.read_text())["url"]


@pytest.fixture(scope="session")
def server_log(server: str) -> Path:
    """Everything the shared ``server`` has written to stdout and stderr since it started."""
    return Path(os.environ[SHARED_SERVER]) / "server.log"


@pytest.fixture(scope="session")
def server_runs(server: str) -> Path:
    """The shared ``server``'s run log (``BERTVIZ_RUN_LOG``): a line per model run, and "warm-up done"."""
    return Path(os.environ[SHARED_SERVER]) / "runs.log"


@pytest.fixture(scope="session")
def mlm_folder(mlm_dir: Path) -> str:
    """conftest's tiny model with a masked-language-model head, as a link gives it, for the page that needs one."""
    from urllib.parse import quote

    return quote(str(mlm_dir))


@pytest.fixture
def model_calls():
    """Counts model runs (Encoder._forward, behind encode, embed and word_vectors) while a test runs:
    one entry per run, holding how many texts it was given."""
    with counting_model_runs() as runs:
        yield runs


# ---- AppTest helpers ----------------------------------------------------------------------------

def until(holds: Callable[[], bool], seconds: float = 10) -> bool:
    """Whether ``holds()`` came true within ``seconds`` (polled): a bound on a thread or process, not a timing."""
    deadline = time.monotonic() + seconds
    while not holds():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def same_result(here: object, there: object) -> None:
    """The same result computed in two places (a worker process and here): same arrays (within float32's spread
    between processes), tables and everything else, field by field."""
    if isinstance(here, np.ndarray):
        assert isinstance(there, np.ndarray) and here.shape == there.shape and here.dtype == there.dtype
        np.testing.assert_allclose(np.asarray(there, np.float32), np.asarray(here, np.float32), atol=1e-5, rtol=1e-3)
    elif isinstance(here, pd.DataFrame):
        pd.testing.assert_frame_equal(here, there, check_exact=False, atol=1e-5, rtol=1e-3)
    elif dataclasses.is_dataclass(here):
        assert type(here) is type(there)
        for field in dataclasses.fields(here):
            same_result(getattr(here, field.name), getattr(there, field.name))
    elif isinstance(here, dict):
        assert here.keys() == there.keys()
        for name in here:
            same_result(here[name], there[name])
    elif isinstance(here, (list, tuple)):
        assert len(here) == len(there)
        for mine, theirs in zip(here, there, strict=True):
            same_result(mine, theirs)
    elif isinstance(here, float):
        assert np.isclose(here, there, atol=1e-5, rtol=1e-3, equal_nan=True)
    else:
        assert here == there


def open_page(page: str | None = None, timeout: float = 120) -> AppTest:
    """The app run once, switched to ``page`` (e.g. "pages/tokenization.py"), with no exception."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.run()
    if page:
        at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def open_code_panels(at: AppTest) -> AppTest:
    """Open every teaching panel ``at`` shows (a panel draws its code only while open) and rerun."""
    keys = [key for panel in at.expander if (key := panel.proto.id.split("-", 2)[-1]).startswith("code_")]
    assert keys, "the page shows no teaching panel"
    for key in keys:
        at.session_state[key] = True
    return at.run()


def open_tab(at: AppTest, key: str, label: str) -> AppTest:
    """The page rerun with its tabs keyed ``key`` on ``label``: only the open tab is drawn, and AppTest sets a tab
    by its key."""
    at.session_state[key] = label
    return at.run()


def open_vocabulary(at: AppTest) -> None:
    """Open Tokenization's Vocabulary tab."""
    open_tab(at, "tok_tab", "Vocabulary")


def _keyed(element, key: str) -> bool:
    return str(getattr(getattr(element, "proto", None), "id", "")).endswith(f"-{key}")


def charts(at: AppTest) -> dict[str, dict]:
    """Every plotly figure on the page, by its widget key."""
    return {str(el.proto.id).rsplit("-", 1)[-1]: json.loads(el.proto.spec) for el in at.get("plotly_chart")}


def chart(at: AppTest, key: str) -> dict:
    """The plotly figure drawn with ``key``; KeyError naming the keys present when there is none."""
    found = charts(at)
    if key not in found:
        raise KeyError(f"no chart with key {key!r}; the page has {sorted(found)}")
    return found[key]


def canvas_chart(at: AppTest, key: str) -> tuple[dict, pd.DataFrame]:
    """The spec and the one dataset of the chart ``ui.canvas_chart`` or ``ui.canvas_heatmap`` drew with ``key``."""
    block = _keyed_block(at, key)  # the container the chart is drawn in carries the key
    drawn = block.get("vega_lite_chart") if block is not None else []
    if not drawn:
        raise KeyError(f"no canvas chart with key {key!r}")
    (data,) = [pa.ipc.open_stream(d.data.data).read_all().to_pandas() for d in drawn[0].proto.datasets]
    return json.loads(drawn[0].proto.spec), data


def canvas_heatmap(at: AppTest, key: str) -> tuple[dict, pd.DataFrame]:
    """The spec and the cells (row, column, value, hover, text, dark, best, and the title) of the
    ``ui.canvas_heatmap`` drawn with ``key``."""
    return canvas_chart(at, key)


def drawn_title(at: AppTest, key: str) -> str | list[str]:
    """The title the canvas chart drawn with ``key`` shows (drawn from its data: ``ui.canvas_heatmap``, and a
    ``ui.canvas_chart`` whose view is redrawn in place): one line, or its lines."""
    lines = canvas_heatmap(at, key)[1]["title"].iloc[0].split("\n")
    return lines[0] if len(lines) == 1 else lines


def heatmap_range(at: AppTest, key: str) -> tuple[float, float]:
    """The colour scale's fixed ends of the ``ui.canvas_heatmap`` drawn with ``key``, which travel with its cells (the
    scale reads them from the first)."""
    spec, cells = canvas_heatmap(at, key)
    scale = spec["layer"][0]["encoding"]["color"]["scale"]
    assert "expr" in scale["domainMin"] and "expr" in scale["domainMax"], "the colour scale's ends are not fixed"
    return float(cells["low"].iloc[0]), float(cells["high"].iloc[0])


def canvas_values(at: AppTest, key: str) -> np.ndarray:
    """The values of the canvas heatmap drawn with ``key``, (rows, columns)."""
    spec, cells = canvas_heatmap(at, key)
    return cells["value"].to_numpy(dtype=float).reshape(len(spec["encoding"]["y"]["sort"]), -1)


def canvas_keys(at: AppTest, keys: Iterable[str]) -> set[str]:
    """Those of ``keys`` that a canvas chart (``ui.canvas_heatmap``, ``ui.canvas_chart``) is drawn with."""
    return {key for key in keys if (block := _keyed_block(at, key)) is not None and block.get("vega_lite_chart")}


def scatter_grid(at: AppTest) -> tuple[dict, dict[str, pd.DataFrame]]:
    """The page's one grid of scatters (``ui.scatter_grid``, a Vega-Lite chart): its spec, and its datasets by
    name ("points": gx, gy, label, text; "tiles": a row per panel with its title)."""
    grids = [grid for grid in at.get("vega_lite_chart") if any(d.name == "points" for d in grid.proto.datasets)]
    assert len(grids) == 1, f"{len(grids)} scatter grids on the page"
    proto = grids[0].proto
    return json.loads(proto.spec), {d.name: pa.ipc.open_stream(d.data.data).read_all().to_pandas()
                                    for d in proto.datasets}


def chart_title(figure: dict) -> str:
    return figure["layout"].get("title", {}).get("text", "")


class _ShownTable(HTMLParser):
    """The header and cells of a ``ui.table`` drawn as HTML (``html_table``), as the browser shows them, except that a
    float is its exact value (its title) and a number is a number."""

    def __init__(self) -> None:
        super().__init__()
        self.header: list[str] = []
        self.rows: list[list[Any]] = []
        self.texts: list[list[str]] = []  # the cells' text as drawn
        self.cell: tuple[str, dict] | None = None
        self.text = ""

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "tr" and self.header:
            self.rows.append([])
            self.texts.append([])
        if tag in ("th", "td"):
            self.cell, self.text = (tag, dict(attrs)), ""

    def handle_data(self, data: str) -> None:
        self.text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "th":
            self.header.append(self.text)
        elif tag == "td" and self.cell:
            attrs = self.cell[1]
            self.texts[-1].append(self.text)
            if attrs.get("class") == html_table.TRUTH_CLASS:
                value: Any = self.text == "True"
            elif attrs.get("class") != html_table.NUMBER_CLASS:
                value = None if self.text == html_table.MISSING else self.text
            elif self.text == html_table.MISSING:
                value = np.nan
            else:
                value = float(attrs["title"]) if "title" in attrs else int(self.text)
            self.rows[-1].append(value)


def _shown_table(at: AppTest, key: str) -> _ShownTable | pd.DataFrame:
    """The ``ui.table`` drawn with ``key``: parsed when static, its data when it scrolls."""
    block = _keyed_block(at, key)
    if block is None:
        raise KeyError(f"no table with key {key!r}")
    static, scrolling = block.get("html"), block.get("dataframe")
    if not static:
        return scrolling[0].value
    shown = _ShownTable()
    shown.feed(static[0].proto.body)
    return shown


def table(at: AppTest, key: str) -> pd.DataFrame:
    """The data of the ``ui.table`` drawn with ``key``, as shown (static or scrolling)."""
    shown = _shown_table(at, key)
    return shown if isinstance(shown, pd.DataFrame) else pd.DataFrame(shown.rows, columns=shown.header)


def table_text(at: AppTest, key: str) -> pd.DataFrame:
    """The text of each cell of the static ``ui.table`` drawn with ``key``, as the browser shows it."""
    shown = _shown_table(at, key)
    assert isinstance(shown, _ShownTable), f"the table {key!r} scrolls: it is not static"
    return pd.DataFrame(shown.texts, columns=shown.header)


def static_tables(at: AppTest) -> int:
    """How many ``ui.table`` tables the page draws as static HTML."""
    return sum(element.proto.body.startswith(f'<div class="{html_table.TABLE_CLASS}"') for element in at.get("html"))


def _keyed_block(at: AppTest, key: str) -> Any:
    """The container (block) keyed ``key`` on the page, or None."""
    blocks = [at._tree]
    while blocks:
        block = blocks.pop()
        if _keyed(block, key):
            return block
        blocks.extend(child for child in block.children.values() if hasattr(child, "children"))
    return None


def plotly_array(value: list | dict) -> np.ndarray:
    """A plotly trace array as numpy: plain lists, or the base64 'bdata' form plotly uses for numpy input."""
    if isinstance(value, dict):
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        return flat.reshape([int(n) for n in str(value.get("shape", len(flat))).split(",")])
    return np.asarray(value)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that drive a real browser (through the ``browser`` fixture, directly or not) are marked ``browser``, so
    ``make test-fast`` can leave them out, and run in one xdist group: one worker and one chromium drive them one
    after another while the other workers take the rest. A view costs the browser's main thread 3-4 s of CPU and
    the app server its run; two chromiums on two cores ran the same views 2-3x slower each.

    Tests that run on every model of the model-family fixture are marked ``slow`` too: each case is cheap, but 8-19
    models of them made half of ``make test-fast``'s time; the bundled model's own tests stay in it."""
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if "browser" in fixtures:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.xdist_group("browser"))
        if fixtures & {"family_dirs", "family_encoders"}:
            item.add_marker(pytest.mark.slow)
