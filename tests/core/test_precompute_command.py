"""``python -m bertviz_core precompute`` as a person runs it (issue #52): the output folder and every setting are
checked before any work (before the model loads, before Ray starts); each failure is one line on stderr and status 2,
never a traceback; Ctrl-C says that the same command goes on from where it stopped, status 130."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from bertviz_core.__main__ import main
from bertviz_core.precompute import run
from bertviz_core.precompute.layout import PLAN

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def corpus(tmp_path: Path) -> str:
    (tmp_path / "texts.csv").write_text("text\nThe cat sat on the mat.\nA dog lay on the rug.\n", encoding="utf-8")
    return str(tmp_path / "texts.csv")


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    """A folder this process cannot write in: its mode for a user, immutable for root (whom modes do not stop)."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    immutable = os.geteuid() == 0 and shutil.which("chattr") is not None and subprocess.run(
        ["chattr", "+i", str(folder)], capture_output=True).returncode == 0
    try:
        if os.geteuid() == 0 and not immutable:
            pytest.skip("root writes in any folder, and chattr +i is not available on this file system")
        yield folder
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        folder.chmod(0o755)


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any model load, corpus read or Ray import fails the test: the settings must be refused before them."""
    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("work began before the settings were checked")

    monkeypatch.setattr(run, "load_encoder", forbidden)
    monkeypatch.setattr(run, "read_corpus_file", forbidden)
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError


def said(capsys: pytest.CaptureFixture) -> str:
    """What the command wrote to stderr: one line, no traceback."""
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in lines[0], lines
    return lines[0]


UNWRITABLE = {  # where --out points: (the path, given the read-only folder and a file; what is said, a pattern)
    "a read-only folder": (lambda folder, _: folder / "store",
                           "making a folder in {folder} failed \\((Operation not permitted|Permission denied)\\)"),
    "a path under a file": (lambda _, file: file / "store", "making a folder in {file} failed \\(Not a directory\\)"),
    "a file": (lambda _, file: file, "{file} is a file: choose a new or empty folder as --out"),
    "/proc": (lambda *_: Path("/proc/bertviz-store"),
              "making a folder in /proc failed \\(No such file or directory\\)"),
    "/sys": (lambda *_: Path("/sys/bertviz-store/s"), "making a folder in /sys failed \\(Operation not permitted\\)"),
}


@pytest.mark.parametrize("case", UNWRITABLE)
def test_an_out_that_cannot_be_written_is_one_line_before_any_work(
        request: pytest.FixtureRequest, tmp_path: Path, corpus: str, no_work: None, capsys,  # noqa: ANN001
        case: str) -> None:
    folder = request.getfixturevalue("read_only") if case == "a read-only folder" else tmp_path
    file = tmp_path / "a-file"
    file.write_text("not a folder")
    where, message = UNWRITABLE[case]
    out = where(folder, file)
    assert main(["precompute", corpus, "--out", str(out)]) == 2
    assert re.search(message.format(folder=re.escape(str(folder)), file=re.escape(str(file))), said(capsys))
    assert not out.exists() or out == file


@pytest.mark.parametrize("arguments, message", [
    (["--engine", "ray", "--actors", "0"], "actors must be a whole number of at least 1; it is 0"),
    (["--strategies", "mean,meen"], "meen"),
    (["--maps", "tsne"], "no map called 'tsne'"),
    (["--layers", "-1"], "A layer must be a whole number of at least 0; it is -1"),
    (["--map-sample", "0"], "map_sample must be a whole number of at least 1"),  # 0 meant the default before #52
    (["--shard-rows", "0"], "shard_rows must be a whole number of at least 1"),
], ids=["ray without actors", "an unknown strategy", "an unknown map", "a negative layer", "no map sample",
        "no shard rows"])
def test_settings_are_refused_before_the_model_loads_or_ray_starts(
        tmp_path: Path, corpus: str, no_work: None, capsys, arguments: list[str], message: str) -> None:  # noqa: ANN001
    assert main(["precompute", corpus, "--out", str(tmp_path / "store"), *arguments]) == 2
    assert message in said(capsys)
    assert not (tmp_path / "store" / PLAN).exists()


# ``python -m bertviz_core`` with Ctrl-C's handler as in a terminal, set by the child itself: a function run between
# fork and exec (preexec_fn) is unsafe in a parent with threads, as the suite's processes are.
AS_IN_A_TERMINAL = ("import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
                    "runpy.run_module('bertviz_core', run_name='__main__', alter_sys=True)")


def command(*arguments: str) -> subprocess.Popen:
    """The precompute command running, with Ctrl-C's signal handled as in a terminal: a suite started in the
    background by a shell (``make test &``) has SIGINT ignored, and a child would inherit that."""
    return subprocess.Popen([sys.executable, "-c", AS_IN_A_TERMINAL, "precompute", *arguments], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})


@pytest.mark.slow
def test_the_process_says_one_line_and_exits_2_where_it_cannot_write(corpus: str) -> None:
    done = command(corpus, "--out", "/proc/bertviz-store")
    out, err = done.communicate(timeout=120)
    assert done.returncode == 2 and "Traceback" not in err, err
    assert [line for line in err.splitlines() if line.strip()] == [
        "precompute: The store cannot be written at /proc/bertviz-store: making a folder in /proc failed (No such file "
        "or directory). Choose an --out on a disk this user can write to."]


def test_a_file_the_command_reads_is_never_said_to_be_uploaded(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    for name, content in (("latin.csv", "text\nCafé au lait.\n".encode("latin-1")), ("blank.txt", b"\n \n")):
        (tmp_path / name).write_bytes(content)
        assert main(["precompute", str(tmp_path / name), "--out", str(tmp_path / f"store-{name}")]) == 2
        assert "upload" not in said(capsys).lower()


@pytest.mark.slow
def test_ctrl_c_says_the_same_command_goes_on_and_exits_130(tmp_path: Path, tiny_dir: Path) -> None:
    pd.DataFrame({"text": [f"Sentence number {i} of a corpus long enough to be stopped." for i in range(4000)]}).to_csv(
        tmp_path / "big.csv", index=False)
    out = tmp_path / "store"
    running = command(str(tmp_path / "big.csv"), "--out", str(out), "--model", str(tiny_dir), "--device", "cpu",
                      "--shard-rows", "16")
    seen, started = [], threading.Event()

    def read() -> None:  # the bar is redrawn with carriage returns, not lines: read it as it comes
        while chunk := running.stderr.read(1):
            seen.append(chunk)
            if "precompute:" in "".join(seen[-40:]) or "texts/s" in "".join(seen[-40:]):
                started.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert started.wait(120), "".join(seen)
    running.send_signal(signal.SIGINT)
    assert running.wait(60) == 130
    reader.join(10)
    err = "".join(seen)
    last = [line for line in err.replace("\r", "\n").splitlines() if line.strip()][-1]
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert last == (f"precompute: stopped. The shards finished so far are kept in {out}: run the same command again "
                    "to go on from there.")
    assert (out / PLAN).exists() and not (out / "manifest.json").exists()
