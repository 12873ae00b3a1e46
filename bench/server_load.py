"""Server-side load for a class: N sessions changing settings at once, and fairness during a big encode.

    .venv/bin/python bench/server_load.py [--seconds 30] [--sessions 1 8 30]

Each session is a websocket client speaking Streamlit's own protocol (the BackMsg and ForwardMsg
protobufs shipped in the streamlit package), with no browser: what is timed is the server, from
sending a rerun with the changed setting to receiving its ``script_finished``, over loopback. Drawing
30 pages in 30 browsers on this 2-core machine would otherwise dominate.

The interaction is the Compare sentences page's layer slider (no model call; the page is rebuilt and
every chart is sent). Two patterns per class size N:
- class: every session changes the layer after a random think time (exponential, mean 2 s, fixed
  seeds), for ``--seconds``: students clicking on their own;
- burst: all N sessions change the layer at the same instant, five times: a teacher saying "now
  move the slider".
Fairness: one session's layer changes while idle, then while another session's page encodes
``--big`` new sentences (the model runs for tens of seconds), as the ratio of their medians.
"""
from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from live_app import running_app  # noqa: E402
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402
from streamlit.proto.WidgetStates_pb2 import WidgetState  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

from bertviz_core import describe  # noqa: E402

PAGE = "compare_sentences"
FINISHED_EARLY_FOR_RERUN = 2  # ScriptFinishedStatus: the script asked for another run


class Session:
    """One browser tab's worth of protocol: a websocket, the page's widget ids, and timed reruns."""

    def __init__(self, url: str) -> None:
        self._open = contextlib.ExitStack()
        self.ws = self._open.enter_context(connect(url.replace("http", "ws", 1) + "/_stcore/stream",
                                                   subprotocols=["streamlit"], max_size=None, open_timeout=60))
        self.widgets: dict[str, str] = {}  # key -> widget id

    def rerun(self, states: tuple[WidgetState, ...] = ()) -> float:
        """Seconds from sending a rerun to the end of the script run (and of any rerun it asked for)."""
        msg = BackMsg()
        msg.rerun_script.page_name = PAGE
        msg.rerun_script.widget_states.widgets.extend(states)
        start = time.perf_counter()
        self.ws.send(msg.SerializeToString())
        while True:
            forward = ForwardMsg()
            forward.ParseFromString(self.ws.recv(timeout=600))
            kind = forward.WhichOneof("type")
            if kind == "delta" and forward.delta.WhichOneof("type") == "new_element":
                element = forward.delta.new_element
                widget_id = getattr(getattr(element, element.WhichOneof("type")), "id", "")
                if widget_id:
                    self.widgets[widget_id.rsplit("-", 1)[-1]] = widget_id
            elif kind == "script_finished" and forward.script_finished != FINISHED_EARLY_FOR_RERUN:
                return time.perf_counter() - start

    def set_layer(self, layer: int) -> float:
        state = WidgetState(id=self.widgets["cs_layer"])
        state.double_array_value.data.append(layer)
        return self.rerun(states=(state,))

    def close(self) -> None:
        self._open.close()


def open_sessions(url: str, count: int) -> list[Session]:
    sessions = [Session(url) for _ in range(count)]
    for session in sessions:
        session.rerun()  # first render: widget ids, cached vectors
    return sessions


def class_pattern(sessions: list[Session], seconds: float, top: int) -> list[float]:
    """Every session changes the layer after exponential think times (mean 2 s) for ``seconds``."""
    times: list[float] = []
    lock = threading.Lock()
    stop = time.perf_counter() + seconds

    def student(index: int, session: Session) -> None:
        rng = random.Random(index)
        while (pause := rng.expovariate(1 / 2.0)) and time.perf_counter() + pause < stop:
            time.sleep(pause)
            elapsed = session.set_layer(rng.randint(0, top))
            with lock:
                times.append(elapsed)

    threads = [threading.Thread(target=student, args=(i, s)) for i, s in enumerate(sessions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return times


def burst_pattern(sessions: list[Session], top: int, rounds: int = 5) -> list[float]:
    """All sessions change the layer at the same instant, ``rounds`` times."""
    times: list[float] = []
    lock = threading.Lock()
    for round_ in range(rounds):
        barrier = threading.Barrier(len(sessions))

        def student(session: Session, layer: int = round_ % (top + 1)) -> None:
            barrier.wait()
            elapsed = session.set_layer(layer)
            with lock:
                times.append(elapsed)

        threads = [threading.Thread(target=student, args=(s,)) for s in sessions]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return times


def fairness(url: str, top: int, big: int) -> tuple[list[float], list[float]]:
    """A session's layer changes while idle, then while another session encodes ``big`` new sentences."""
    small, heavy = open_sessions(url, 2)
    idle = [small.set_layer(i % (top + 1)) for i in range(15)]
    texts = WidgetState(id=heavy.widgets["cs_texts"], string_value="\n".join(
        f"Sentence {i} about topic {i % 17} for the load test, number {i * 7919 % 10007}." for i in range(big)))
    encoding = threading.Thread(target=heavy.rerun, kwargs={"states": (texts,)})
    encoding.start()
    time.sleep(1.0)  # the encode is under way
    during = []
    while encoding.is_alive():
        during.append(small.set_layer(len(during) % (top + 1)))
        time.sleep(0.2)
    encoding.join()
    small.close()
    heavy.close()
    return idle, during


def percentile(times: list[float], q: float) -> float:
    return statistics.quantiles(times, n=100)[int(q) - 1] if len(times) > 1 else times[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 8, 30])
    parser.add_argument("--big", type=int, default=3000, help="sentences the other session encodes (fairness)")
    args = parser.parse_args()
    top = describe().num_layers
    rows: list[tuple[str, int, list[float]]] = []
    with running_app() as app:
        open_sessions(app.url, 1)[0].close()  # load the model and the reference corpus once
        for count in args.sessions:
            sessions = open_sessions(app.url, count)
            rows.append(("class", count, class_pattern(sessions, args.seconds, top)))
            rows.append(("burst", count, burst_pattern(sessions, top)))
            for session in sessions:
                session.close()
        idle, during = fairness(app.url, top, args.big)
    print(f"Compare sentences, a layer change, timed at the server (ms); {args.seconds:g} s per class run")
    print(f"{'pattern':8} {'sessions':>8} {'changes':>8} {'p50':>8} {'p95':>8} {'p95 / 1-session p95':>20}")
    base = {kind: percentile(times, 95) for kind, count, times in rows if count == 1}
    for kind, count, times in rows:
        p95 = percentile(times, 95)
        ratio = f"{p95 / base[kind]:.2f}x" if kind in base else ""
        print(f"{kind:8} {count:8} {len(times):8} {statistics.median(times) * 1e3:8.0f} {p95 * 1e3:8.0f} {ratio:>20}")
    print(f"fairness: a layer change idle {statistics.median(idle) * 1e3:.0f} ms (median of {len(idle)}), during "
          f"another session's {args.big:,}-sentence encode {statistics.median(during) * 1e3:.0f} ms (median of "
          f"{len(during)}): {statistics.median(during) / statistics.median(idle):.2f}x (goal: at most 2x)")


if __name__ == "__main__":
    main()
