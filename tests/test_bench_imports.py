"""Every bench script imports and says what it measures: a bench is run by hand (`make bench-…`), so a name it
imports that moved elsewhere would otherwise be found only by the next person who measures."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.mark.parametrize("script", sorted(p.name for p in BENCH.glob("*.py")))
def test_the_bench_script_imports(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, script: str) -> None:
    from streamlit.runtime.scriptrunner.script_runner import ScriptRunner

    monkeypatch.syspath_prepend(str(BENCH))
    # timed_streamlit wraps Streamlit's script runs at import, writing each one's time where this says: both are
    # given back when the test ends, so no later AppTest of this process is timed
    monkeypatch.setattr(ScriptRunner, "_run_script", ScriptRunner._run_script)
    monkeypatch.setenv("BERTVIZ_SCRIPT_TIMES", str(tmp_path / "script_times.txt"))
    spec = importlib.util.spec_from_file_location(f"bench_{Path(script).stem}", BENCH / script)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)  # a bench's work is under ``if __name__ == "__main__"``; the two apps draw bare
    assert (module.__doc__ or "").strip(), f"{script} does not say what it measures (its docstring)"
