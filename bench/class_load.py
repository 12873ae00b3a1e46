"""The class server under a class: ``--class-sessions`` (30) sessions change Compare sentences' layer at the same
instant, 5 times, through `make serve`'s proxy (bertviz_core/runtime/class_server.py), with 1 and 2 Streamlit
processes. Run by bench/server_load.py (`make bench-load`; ``--parts class-server`` alone).

Each session first sends texts of its own (a marker word per session, one short model run each), then the bursts;
every change's messages must hold the session's own marker and no other's: nothing lost, nothing mixed. Printed
for each number of processes: where the sessions landed (the affinity cookie of each websocket), p50 and p95 of a
change timed at the client, the CPU seconds per change (user + system time of the Streamlit processes over the
bursts, divided by the changes), the cores the Streamlit processes, the bench's own client and the proxy kept busy
over the bursts, each process's memory (RSS) after the default page and after the bursts; then the ratio of the
p95s, and from the CPU seconds per change the p95 expected on 8 and 16 cores, on paper.
"""
from __future__ import annotations

import math
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "tests")]

from server_load import Session, burst_pattern, open_sessions, percentile  # noqa: E402

from bertviz_core.runtime.class_server import COOKIE, class_server  # noqa: E402

PROCESSES = (1, 2)
ROUNDS = 5
PAPER_CORES = (1, 2, 8, 16)
TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def marker(index: int) -> str:
    """Session ``index``'s own word: no marker is part of another."""
    return f"qx{index:03d}zz"


def own_texts(index: int) -> str:
    return "\n".join(f"{marker(index)} {text}" for text in
                     ("The river bank was quiet.", "She went to the bank.", "The bank lent her money."))


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds the processes ``pids`` (every thread) have used so far."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime: fields 14 and 15 of proc(5)
    return total * TICK_S


def rss_mb(pid: int) -> float:
    """The resident memory of process ``pid``, in MB."""
    line = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


def joined(values: list[float]) -> str:
    return " + ".join(f"{v:.0f}" for v in values)


def process_of(session: Session) -> str:
    """Which Streamlit process the proxy put ``session``'s websocket on: the affinity cookie it set."""
    cookie = session.ws.response.headers.get("Set-Cookie", "")
    return cookie.split(f"{COOKIE}=", 1)[1].split(";")[0] if f"{COOKIE}=" in cookie else "?"


def own_results(sessions: list[Session], wrong: list[str]) -> Callable[[Session], None]:
    """A check of each change: its messages hold its session's marker and no other's, else a line in ``wrong``."""
    mine = {id(session): marker(i).encode() for i, session in enumerate(sessions)}

    def check(session: Session) -> None:
        received = b"".join(session.received)
        others = [m.decode() for key, m in mine.items() if key != id(session) and m in received]
        if mine[id(session)] not in received or others:
            wrong.append(f"{mine[id(session)].decode()}: own marker {'seen' if mine[id(session)] in received else 'missing'}"
                         f", others seen: {others}")

    return check


def measure(processes: int, count: int, top: int) -> dict:
    """The burst through a class server of ``processes`` processes: times, landing, CPU and memory."""
    with class_server(processes, env={"BERTVIZ_WARM_UP": "0"}) as server:
        pids = list(server.pids.values())
        home = open_sessions(server.url, processes, page="")  # the default page, one per process (leastconn)
        rss_home = [rss_mb(pid) for pid in pids]
        for session in home:
            session.close()
        sessions = open_sessions(server.url, count)
        for i, session in enumerate(sessions):
            session.set_texts(own_texts(i))
        wrong: list[str] = []
        proxy = [server.processes["haproxy"].pid]
        before, proxy_before, client_before = cpu_seconds(pids), cpu_seconds(proxy), cpu_seconds([os.getpid()])
        start = time.perf_counter()
        times = burst_pattern(sessions, top, ROUNDS, check=own_results(sessions, wrong))
        wall = time.perf_counter() - start
        used = cpu_seconds(pids) - before
        cpu = used / len(times)
        # cores each party kept busy over the bursts: what the Streamlit processes could use is what the bench's
        # own client (30 websockets reading every message) and the proxy left them on this machine
        cores = {"Streamlit": used / wall, "client": (cpu_seconds([os.getpid()]) - client_before) / wall,
                 "haproxy": (cpu_seconds(proxy) - proxy_before) / wall}
        landed = Counter(process_of(session) for session in sessions)
        rss_after = [rss_mb(pid) for pid in pids]
        for session in sessions:
            session.close()
    return {"times": times, "cpu": cpu, "landed": landed, "rss_home": rss_home, "rss_after": rss_after,
            "wrong": wrong, "cores": cores}


def expected_p95(cpu_per_change: float, sessions: int, cores: int) -> float:
    """On paper: one process per core, the sessions spread evenly (leastconn), each process running its share of
    the changes one after another at ``cpu_per_change`` each; the 95th percentile change waits for 95 % of a
    process's share."""
    return math.ceil(0.95 * math.ceil(sessions / cores)) * cpu_per_change


def class_server_load(top: int, count: int = 30) -> None:
    """Measure and print the class server's burst with 1 and 2 processes (see the module's docstring)."""
    runs = {processes: measure(processes, count, top) for processes in PROCESSES}
    print(f"\nClass server (make serve): {count} sessions change Compare sentences' layer at the same instant, "
          f"{ROUNDS} times, through HAProxy; timed at the client (ms); {os.cpu_count()} cores here")
    print(f"{'processes':>9} {'landed':>14} {'p50':>7} {'p95':>7} {'CPU s/change':>13} "
          f"{'RSS MB, default page':>21} {'RSS MB, after':>14} {'own results':>12}")
    for processes, run in runs.items():
        landed = ", ".join(f"{name} {n}" for name, n in sorted(run["landed"].items()))
        own = f"{len(run['times']) - len(run['wrong'])}/{len(run['times'])}"
        print(f"{processes:9} {landed:>14} {statistics.median(run['times']) * 1e3:7.0f} "
              f"{percentile(run['times'], 95) * 1e3:7.0f} {run['cpu']:13.3f} {joined(run['rss_home']):>21} "
              f"{joined(run['rss_after']):>14} {own:>12}")
        print(f"{'':9} cores busy over the bursts: " + ", ".join(f"{who} {n:.2f}" for who, n in run["cores"].items()))
        for line in run["wrong"][:5]:
            print(f"  NOT its own results: {line}")
    one, two = (percentile(runs[p]["times"], 95) for p in PROCESSES)
    print(f"p95 with 1 process / with 2: {one / two:.2f}x (goal: at least 2x, the cores 2 processes can use here: "
          f"{'met' if one / two >= 2 else 'NOT met'}; one process's busy cores beyond one are its thread pools "
          f"waiting, as the interpreter's lock runs one rerun at a time)")
    cpu = runs[2]["cpu"]
    paper = ", ".join(f"{cores} cores {expected_p95(cpu, count, cores) * 1e3:.0f} ms" for cores in PAPER_CORES)
    print(f"expected p95 on paper at {cpu:.3f} CPU s a change (2 processes' figure), one process per core: {paper}")
