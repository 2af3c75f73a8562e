"""CPUs: pinning processes to cores, measuring their CPU time, and profiling with py-spy."""

from __future__ import annotations

import contextlib
import math
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def parse_cpus(text: str) -> frozenset[int]:
    """A CPU list as taskset -c takes it: "0", "0,2", "0-3"."""
    cpus: set[int] = set()
    for part in text.split(","):
        low, _, high = part.strip().partition("-")
        cpus.update(range(int(low), int(high or low) + 1))
    if not cpus:
        raise ValueError("empty CPU list")
    return frozenset(cpus)


def cpus_text(cpus: frozenset[int] | None) -> str:
    return ",".join(map(str, sorted(cpus))) if cpus else "any"


def threads_of(pid: int) -> list[int]:
    try:
        return [int(tid) for tid in os.listdir(f"/proc/{pid}/task")]
    except FileNotFoundError:
        return []


def children_of(pid: int) -> list[int]:
    children: list[int] = []
    for tid in threads_of(pid):
        with contextlib.suppress(FileNotFoundError):
            children += [
                int(c) for c in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()
            ]
    return children


def pin(pid: int, cpus: frozenset[int], *, tree: bool = False) -> None:
    """Pin every thread of `pid` (and with `tree`, of its descendants) to `cpus`; threads
    started later inherit the affinity of the thread that starts them."""
    for tid in threads_of(pid):
        with contextlib.suppress(ProcessLookupError):
            os.sched_setaffinity(tid, cpus)
    if tree:
        for child in children_of(pid):
            pin(child, cpus, tree=True)


@contextlib.contextmanager
def affinity(cpus: frozenset[int] | None) -> Iterator[None]:
    """This thread on `cpus` for the block (processes started meanwhile inherit it)."""
    if cpus is None:
        yield
        return
    old = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, old)


def process_cpu_seconds(pid: int) -> tuple[float, float]:
    """User and system CPU time of a process (all its threads), from /proc/<pid>/stat."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except (FileNotFoundError, ProcessLookupError):
        return math.nan, math.nan
    return int(fields[11]) / CLOCK_TICKS, int(fields[12]) / CLOCK_TICKS


def server_processes(pid: int) -> Iterator[int]:
    """A server process and its descendants that are not redis-server: the processes of
    `croupier-server --workers N` (its private Redis is measured on its own)."""
    yield pid
    for child in children_of(pid):
        with contextlib.suppress(FileNotFoundError):
            if Path(f"/proc/{child}/comm").read_text().startswith("redis-server"):
                continue
        yield from server_processes(child)


def server_cpu_seconds(pid: int) -> tuple[float, float]:
    """User and system CPU time of a server's processes (`server_processes`)."""
    user, system = process_cpu_seconds(pid)
    for process in list(server_processes(pid))[1:]:
        more = process_cpu_seconds(process)
        if not math.isnan(more[0]):
            user, system = user + more[0], system + more[1]
    return user, system


def server_cpu_clock(pid: int) -> float:
    """CPU seconds of a server's processes (`server_processes`), every thread's, those ended
    included, to the nanosecond: /proc counts whole ticks of 10 ms, too coarse for phases of a
    second or two. Each process's CPU-time clock is the one clock_getcpuclockid(3) names."""
    seconds = 0.0
    for process in server_processes(pid):
        with contextlib.suppress(OSError):
            seconds += time.clock_gettime(_process_cpu_clock(process))
    return seconds


def _process_cpu_clock(pid: int) -> int:
    # The kernel's MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED), as glibc builds it.
    return (~pid << 3) | 2


def context_switches(pid: int) -> int:
    """Context switches so far, voluntary and forced, of every thread of a server's processes
    (`server_processes`). On one core each is a hand-off between the event loop and gRPC's
    threads, and a dear one: docs/decisions.md, "CPU policy"."""
    switches = 0
    for process in server_processes(pid):
        for tid in threads_of(process):
            with contextlib.suppress(FileNotFoundError, ProcessLookupError):
                for line in Path(f"/proc/{process}/task/{tid}/status").read_text().splitlines():
                    if "ctxt_switches:" in line:
                        switches += int(line.split()[1])
    return switches


def cpu_seconds(label: str, pid: int) -> tuple[float, float]:
    """The CPU time of a monitored process: a server's with its workers."""
    return server_cpu_seconds(pid) if label == "server" else process_cpu_seconds(pid)


def rss_bytes(pid: int) -> int | None:
    """Resident memory of a process (VmRSS), None when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None


def find_redis_child(pid: int) -> tuple[int, str] | None:
    """The private redis-server a croupier-server started: its pid and URL."""
    for child in children_of(pid):
        try:
            comm = Path(f"/proc/{child}/comm").read_text().strip()
            argv = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").split()
        except FileNotFoundError:
            continue
        if not comm.startswith("redis-server"):
            continue
        words = [w.decode() for w in argv]
        port = next((words[i + 1] for i, w in enumerate(words[:-1]) if w == "--port"), None)
        if port is None:  # redis rewrites its title to "redis-server host:port"
            port = next((w.rpartition(":")[2] for w in words[1:] if ":" in w), None)
        if port and port.isdigit():
            return child, f"redis://127.0.0.1:{port}/0"
    return None


def py_spy() -> str | None:
    """py-spy on the PATH or next to this Python (a virtualenv's bin/)."""
    beside = Path(sys.executable).parent / "py-spy"
    return shutil.which("py-spy") or (str(beside) if beside.exists() else None)


def start_py_spy(pid: int, seconds: float, output: str) -> subprocess.Popen[bytes]:
    """`py-spy record` of `pid` for `seconds`: a flame graph (.svg), speedscope (.json) or
    collapsed stacks (any other suffix)."""
    fmt = {".svg": "flamegraph", ".json": "speedscope"}.get(Path(output).suffix, "raw")
    return subprocess.Popen(
        [
            *[py_spy() or "py-spy", "record", "--pid", str(pid), "--nonblocking"],
            *["--duration", str(max(1, int(seconds)))],
            *["--rate", "200", "--format", fmt, "--output", output],
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
