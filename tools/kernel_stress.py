#!/usr/bin/env python3
"""Run many notebooks in many kernels at once, from several processes, and catch a stall.

    python tools/kernel_stress.py [--processes 2] [--kernels 8] [--jobs 2]
                                  [--cells lecture7|lecture7-full|widgets|tiny]
                                  [--stall-after 30] [--cell-timeout 120] [--unpatched] [--out DIR]

``--processes`` worker processes start together, as the main test run and the browser/site run
do; each runs ``--kernels`` notebooks through nbclient, ``--jobs`` kernels at a time (as
``tools/build_site.py`` does), in the test environment (course.py's TEST_ENVIRONMENT), with the
course's kernel client (``tools/kernel_client.py``) or, ``--unpatched``, nbclient's own.
The notebook (``--cells``):

* ``lecture7``: lecture 7's setup cell, its ``detection_demo()`` cell and the cell after it;
* ``lecture7-full``: every code cell of lecture 7;
* ``widgets``: ``--widget-cells`` cells that print into an Output widget, what every explorer
  does: nbclient, standing in for the front end, sends the widget's new state back to the kernel
  on the shell channel while it waits there for the cell's reply (the stall's trigger);
* ``tiny``: no cells but the quick ones (kernel starts, mostly);

then ``--quick-cells`` one-line cells.

A cell (or a kernel start) with no progress for ``--stall-after`` seconds is a stall. The worker
writes ``DIR/stall-<worker>-<kernel>-<n>.txt`` at once, while it is stalled: the kernel's
connection file and who holds each of its ports (every TCP socket on the machine with one at
either end, and its process), the client's shell socket as its event loop sees it (file
descriptor readable? a message waiting in libzmq?), the client's last shell traffic, and
``py-spy dump`` of both sides. The cell then waits on up to ``--cell-timeout``. Every reply's
delivery time (kernel's send stamp to the client's taking it) is kept. ``DIR/summary.json``
counts cells, stalls and failures; the exit code is 1 when anything stalled or failed.

py-spy is not part of the course's environment: ``python -m pip install py-spy`` into the venv
for the stacks (without it the report says so and keeps the rest).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import concurrent.futures
import json
import os
import select
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tools"), str(ROOT)]
from course import TEST_ENVIRONMENT  # noqa: E402
from kernel_client import notebook_client  # noqa: E402

LECTURE = ROOT / "lectures" / "07_mixed_feedback.ipynb"
DEFAULT_OUT = ROOT / ".test-artifacts" / "kernel-stress"
PORT_NAMES = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")
SPY_TIMEOUT = 30  # seconds one py-spy dump may take
LOOK_TIMEOUT = 10  # seconds the client's event loop may take to look at its socket
# What an explorer does, in a few lines: it draws into an Output widget.
OUTPUT_WIDGET_CELL = """\
import ipywidgets
from IPython.display import display
out = ipywidgets.Output()
display(out)
with out:
    for line in range(4):
        print("captured", line)
"""


def probe_notebook(cells: str, quick_cells: int, widget_cells: int = 0):
    """The notebook every kernel runs (module docstring)."""
    import nbformat

    new = nbformat.v4.new_notebook()
    new.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                  "language": "python"}
    if cells in ("lecture7", "lecture7-full"):
        lecture = nbformat.read(LECTURE, as_version=4)
        code = [i for i, cell in enumerate(lecture.cells) if cell.cell_type == "code"]
        if cells == "lecture7":
            demo = next(i for i in code if lecture.cells[i].source.strip() == "detection_demo()")
            after = next(i for i in code if i > demo)
            code = [code[0], demo, after]
        new.cells = [nbformat.v4.new_code_cell(lecture.cells[i].source) for i in code]
    elif cells == "widgets":
        new.cells = [nbformat.v4.new_code_cell(OUTPUT_WIDGET_CELL) for _ in range(widget_cells)]
    new.cells += [nbformat.v4.new_code_cell(f"probe_{k} = {k} * 2\nprobe_{k}")
                  for k in range(quick_cells)]
    return new


def sockets_on(ports: set[int]) -> list[str]:
    """Every TCP socket on the machine with one of ``ports`` at either end, with its process."""
    import psutil

    rows = []
    for conn in psutil.net_connections(kind="tcp"):
        ends = [end for end in (conn.laddr, conn.raddr) if end]
        if not any(end.port in ports for end in ends):
            continue
        try:
            who = f"{conn.pid} {' '.join(psutil.Process(conn.pid).cmdline())[:110]}"
        except (psutil.Error, TypeError):
            who = f"{conn.pid} ?"
        remote = f"{conn.raddr.ip}:{conn.raddr.port}" if conn.raddr else "-"
        rows.append(f"{conn.laddr.ip}:{conn.laddr.port} -> {remote} {conn.status} pid {who}")
    return sorted(rows)


def stack_dump(pid: int | None) -> str:
    if pid is None:
        return "(no pid)\n"
    spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")
    if spy is None:
        return "(py-spy not installed: python -m pip install py-spy)\n"
    try:
        done = subprocess.run([spy, "dump", "--pid", str(pid)], capture_output=True, text=True,
                              timeout=SPY_TIMEOUT)
        return done.stdout + done.stderr
    except subprocess.TimeoutExpired:
        return f"(py-spy dump --pid {pid} took over {SPY_TIMEOUT} s)\n"


class Watch:
    """What one kernel and its client are doing now, for the watchdog thread."""

    def __init__(self, worker: int, index: int):
        self.worker, self.index = worker, index
        self.lock = threading.Lock()
        self.phase, self.since = "creating the kernel manager", time.monotonic()
        self.flagged = False
        self.stalls: list[str] = []
        self.client = None
        self.loop: asyncio.AbstractEventLoop | None = None
        # (wall time, what) of the client's shell-channel traffic, the last few only
        self.traffic: collections.deque = collections.deque(maxlen=12)

    def enter(self, phase: str) -> None:
        with self.lock:
            self.phase, self.since, self.flagged = phase, time.monotonic(), False

    def stalled(self, stall_after: float) -> float | None:
        """Seconds without progress when that makes a new stall, else None."""
        with self.lock:
            waited = time.monotonic() - self.since
            if self.flagged or self.phase == "done" or waited < stall_after:
                return None
            self.flagged = True
            self.stalls.append(self.phase)
            return waited

    def kernel(self) -> tuple[int | None, dict, str]:
        km = getattr(self.client, "km", None)
        pid = getattr(getattr(km, "provisioner", None), "pid", None)
        info = km.get_connection_info() if km is not None else {}
        return pid, info, getattr(km, "connection_file", "")


def client_socket_state(watch: Watch) -> str:
    """The client's shell socket, looked at from its own event loop: is its file descriptor
    readable (what the loop waits on), and does libzmq hold a message for it (ZMQ_EVENTS)?

    Read through a plain shadow of the socket, so the look wakes nobody: the stall goes on as it
    would have.
    """
    import zmq

    def look() -> str:
        raw = zmq.Socket.shadow(watch.client.kc.shell_channel.socket.underlying)
        readable = bool(select.select([raw.get(zmq.FD)], [], [], 0)[0])
        waiting = bool(raw.get(zmq.EVENTS) & zmq.POLLIN)
        return (f"client shell socket: file descriptor readable {readable}, "
                f"a message waiting in it (ZMQ_EVENTS & POLLIN) {waiting}")

    if watch.loop is None or getattr(watch.client, "kc", None) is None:
        return "client shell socket: (no kernel client yet)"
    answer: concurrent.futures.Future = concurrent.futures.Future()

    def on_loop() -> None:
        try:
            answer.set_result(look())
        except Exception as error:  # noqa: BLE001 - said in the report
            answer.set_result(f"client shell socket: could not look ({error!r})")

    watch.loop.call_soon_threadsafe(on_loop)
    try:
        return answer.result(timeout=LOOK_TIMEOUT)
    except concurrent.futures.TimeoutError:
        return f"client shell socket: its event loop did not answer in {LOOK_TIMEOUT} s"


def describe_stall(watch: Watch, out: Path, waited: float) -> None:
    socket_state = client_socket_state(watch)
    pid, info, connection_file = watch.kernel()
    info = {key: (value.decode() if isinstance(value, bytes) else value)
            for key, value in info.items() if key not in ("key", "signature_scheme")}
    ports = {int(info[name]) for name in PORT_NAMES if name in info}
    lines = [f"worker {watch.worker} (client pid {os.getpid()}), kernel {watch.index} "
             f"(kernel pid {pid}): no progress for {waited:.0f} s in: {watch.phase}",
             f"connection file {connection_file}: {json.dumps(info, sort_keys=True)}",
             socket_state, "", "the client's last shell-channel traffic (wall time):",
             *(f"  {stamp:.3f} {what}" for stamp, what in list(watch.traffic)),
             "", "TCP sockets on the kernel's ports:", *sockets_on(ports),
             "", f"== py-spy dump of the client (pid {os.getpid()}) ==", stack_dump(os.getpid()),
             f"== py-spy dump of the kernel (pid {pid}) ==", stack_dump(pid)]
    path = out / f"stall-{watch.worker}-{watch.index}-{len(watch.stalls)}.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"kernel_stress: STALL worker {watch.worker} kernel {watch.index} ({watch.phase}); "
          f"{socket_state}; evidence in {path}", file=sys.stderr, flush=True)


def watchdog(watches: list[Watch], stall_after: float, out: Path, stop: threading.Event) -> None:
    while not stop.wait(1.0):
        for watch in list(watches):
            waited = watch.stalled(stall_after)
            if waited is not None:
                describe_stall(watch, out, waited)


async def run_one(worker: int, index: int, args, watch: Watch) -> dict:
    from nbclient import NotebookClient

    nb = probe_notebook(args.cells, args.quick_cells, args.widget_cells)
    environment = {**os.environ, **TEST_ENVIRONMENT}
    make = NotebookClient if args.unpatched else notebook_client
    client = make(nb, timeout=args.cell_timeout, startup_timeout=args.cell_timeout,
                  kernel_name="python3", record_timing=False,
                  resources={"metadata": {"path": str(LECTURE.parent)}})
    watch.client, watch.loop = client, asyncio.get_running_loop()
    cell_seconds: list[float] = []
    deliveries: list[float] = []  # kernel's reply stamp to the client taking it, per cell

    def cell_started(cell, cell_index, **_):
        watch.enter(f"cell {cell_index}: {cell.source.splitlines()[0][:60]!r}")

    def cell_done(cell, cell_index, execute_reply, **_):
        cell_seconds.append(time.monotonic() - watch.since)
        sent = execute_reply["header"]["date"].timestamp()
        deliveries.append(time.time() - sent)
        watch.traffic.append((time.time(), f"took execute_reply (the kernel sent it at "
                                           f"{sent:.3f})"))

    def kernel_ready(**_):
        watch.enter("between kernel start and first cell")
        shell = client.kc.shell_channel
        send = shell.send

        def logged_send(msg):
            watch.traffic.append((time.time(), f"sent {msg['header']['msg_type']}"))
            return send(msg)

        shell.send = logged_send

    client.on_cell_execute = cell_started
    client.on_cell_executed = cell_done
    client.on_notebook_start = kernel_ready
    started = time.monotonic()
    result = {"worker": worker, "kernel": index}
    try:
        watch.enter("starting the kernel and waiting for its kernel_info reply")
        async with client.async_setup_kernel(env=environment):
            result["kernel_pid"], info, _ = watch.kernel()
            result["ports"] = {name: info.get(name) for name in PORT_NAMES}
            result["transport"] = info.get("transport")
            result["shell_channel"] = type(client.kc.shell_channel).__name__
            result["startup_s"] = round(time.monotonic() - started, 2)
            for cell_index, cell in enumerate(nb.cells):
                await client.async_execute_cell(cell, cell_index)
        result["outcome"] = "ok"
    except Exception as error:  # noqa: BLE001 - every failure is counted and said
        result["outcome"] = type(error).__name__
        result["error"] = str(error).splitlines()[0][:200] if str(error) else ""
    watch.enter("done")
    result["seconds"] = round(time.monotonic() - started, 2)
    result["cells"] = len(cell_seconds)
    result["slowest_cell_s"] = round(max(cell_seconds, default=0.0), 2)
    # near zero unless the client missed the reply and found it only at the timeout
    result["slowest_reply_delivery_s"] = round(max(deliveries, default=0.0), 2)
    result["stalls"] = watch.stalls
    return result


async def worker_main(worker: int, args) -> list[dict]:
    watches: list[Watch] = []
    stop = threading.Event()
    dog = threading.Thread(target=watchdog, args=(watches, args.stall_after, Path(args.out),
                                                  stop), daemon=True)
    dog.start()
    limit = asyncio.Semaphore(args.jobs)

    async def limited(index: int) -> dict:
        async with limit:
            watch = Watch(worker, index)
            watches.append(watch)
            result = await run_one(worker, index, args, watch)
            print(json.dumps(result), flush=True)
            return result

    try:
        return await asyncio.gather(*(limited(i) for i in range(args.kernels)))
    finally:
        stop.set()
        dog.join(timeout=SPY_TIMEOUT * 2 + LOOK_TIMEOUT)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--kernels", type=int, default=8, help="kernel starts per process")
    parser.add_argument("--jobs", type=int, default=2, help="kernels at once per process")
    parser.add_argument("--cells", choices=["lecture7", "lecture7-full", "widgets", "tiny"],
                        default="lecture7")
    parser.add_argument("--widget-cells", type=int, default=40,
                        help="Output-widget cells of --cells widgets")
    parser.add_argument("--quick-cells", type=int, default=10)
    parser.add_argument("--stall-after", type=float, default=30.0)
    parser.add_argument("--cell-timeout", type=int, default=120)
    parser.add_argument("--unpatched", action="store_true",
                        help="nbclient's own kernel client instead of tools/kernel_client.py's")
    parser.add_argument("--out", default=str(DEFAULT_OUT))
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.worker is not None:
        asyncio.run(worker_main(args.worker, args))
        return 0

    for old in out.glob("stall-*.txt"):
        old.unlink()
    # At worst every cell of a worker's every kernel waits the whole cell timeout.
    cells = len(probe_notebook(args.cells, args.quick_cells, args.widget_cells).cells) + 1
    worker_limit = args.cell_timeout * cells * -(-args.kernels // args.jobs) + 120
    started = time.monotonic()
    workers = [subprocess.Popen([sys.executable, __file__, *sys.argv[1:], "--worker", str(w)],
                                cwd=ROOT, stdout=subprocess.PIPE, text=True)
               for w in range(args.processes)]
    results, killed = [], 0
    for process in workers:
        try:
            stdout, _ = process.communicate(
                timeout=max(1.0, worker_limit - (time.monotonic() - started)))
        except subprocess.TimeoutExpired:
            process.kill()
            stdout, _ = process.communicate(timeout=30)
            killed += 1
        results += [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    stalled = [r for r in results if r["stalls"]]
    failed = [r for r in results if r["outcome"] != "ok"]
    client = "nbclient's own client" if args.unpatched else "tools/kernel_client.py"
    summary = {
        "client": client, "processes": args.processes, "kernels_per_process": args.kernels,
        "jobs": args.jobs, "cells": args.cells, "widget_cells": args.widget_cells,
        "quick_cells": args.quick_cells, "stall_after_s": args.stall_after,
        "cell_timeout_s": args.cell_timeout, "kernel_starts": len(results),
        "cells_run": sum(r["cells"] for r in results),
        "stalls": sum(len(r["stalls"]) for r in results),
        "kernels_with_a_stall": len(stalled), "failures": len(failed),
        "workers_killed": killed, "wall_s": round(time.monotonic() - started, 1),
        "slowest_reply_delivery_s": max((r["slowest_reply_delivery_s"] for r in results),
                                        default=None),
        "stalled": stalled, "failed": failed,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    print(f"kernel_stress ({client}): {summary['kernel_starts']} kernel starts "
          f"({args.processes} processes x {args.kernels}, {args.jobs} at a time each), "
          f"{summary['cells_run']} cells: {summary['stalls']} stalls in "
          f"{len(stalled)} kernels, {len(failed)} failed, {killed} workers killed; slowest "
          f"reply delivery {summary['slowest_reply_delivery_s']} s; {summary['wall_s']} s "
          f"({out / 'summary.json'})", flush=True)
    return 1 if summary["stalls"] or failed or killed else 0


if __name__ == "__main__":
    sys.exit(main())
