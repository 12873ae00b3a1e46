"""Streamlit's own command line, with every script run timed on the server: one line per run, its seconds,
appended to the file named by $BERTVIZ_SCRIPT_TIMES. bench/latency_parts.py serves the app with it.

    BERTVIZ_SCRIPT_TIMES=/tmp/runs.txt python bench/timed_streamlit.py run app.py --server.port 8601
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from streamlit.runtime.scriptrunner.script_runner import ScriptRunner
from streamlit.web import cli

LOG = Path(os.environ["BERTVIZ_SCRIPT_TIMES"])
_run_script = ScriptRunner._run_script


def timed_run(self: ScriptRunner, rerun_data) -> None:  # noqa: ANN001 - streamlit's RerunData
    """The script run, reruns it asks for included (streamlit loops over them inside ``_run_script``)."""
    start = time.perf_counter()
    try:
        _run_script(self, rerun_data)
    finally:
        with LOG.open("a") as log:
            log.write(f"{time.perf_counter() - start:.4f}\n")


ScriptRunner._run_script = timed_run

if __name__ == "__main__":
    sys.argv[0] = "streamlit"
    sys.exit(cli.main())
