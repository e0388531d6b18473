"""The relay the harness spawns: a clear error when it cannot start, and always ended."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from harness.cli import TEMPORARY_FOLDER
from harness.limits import poll
from harness.paths import ROOT
from harness.relay import RELAY_CLI, HeldPort, Relay, RelayError


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def relay_processes() -> list[int]:
    pids = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if str(RELAY_CLI).encode() in cmdline.read_bytes():
                pids.append(int(cmdline.parent.name))
        except OSError:
            pass
    return pids


def test_relay_starts_lists_its_own_tools_and_ends(tmp_path):
    before = set(relay_processes())
    with Relay(port=free_port(), widget_origin="http://localhost:1", home=tmp_path) as relay:
        names = {tool.name for tool in relay.list_tools()}
        assert "webmcp_list_tools" in names
        assert set(relay_processes()) - before, "no relay process while the relay is open"
    assert set(relay_processes()) <= before, "the relay process outlived its context"


def test_held_port_is_refused_with_a_reason(tmp_path):
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        with pytest.raises(RelayError, match="already held by a process the harness did not start"):
            Relay(port=holder.getsockname()[1], widget_origin="http://localhost:1", home=tmp_path).__enter__()


def test_a_held_port_is_given_to_no_one_else_until_its_relay_starts_on_it(tmp_path):
    held = HeldPort()
    with socket.socket() as other, pytest.raises(OSError):
        other.bind(("127.0.0.1", held.number))  # another run's relay or server, meanwhile
    with Relay(port=held.number, widget_origin="http://localhost:1", home=tmp_path, held=held) as relay:
        assert "webmcp_list_tools" in {tool.name for tool in relay.list_tools()}


def test_relay_that_does_not_start_gives_its_stderr(tmp_path):
    # A CLI that dies at once, as a broken install would: the error must carry what it printed.
    broken = tmp_path / "cli.js"
    broken.write_text("console.error('relay: cannot bind'); process.exit(3);\n")
    with pytest.raises(RelayError, match="did not start") as failure:
        Relay(
            port=free_port(), widget_origin="http://localhost:1", home=tmp_path, start_timeout=15, cli=broken
        ).__enter__()
    assert "relay: cannot bind" in str(failure.value)


def test_port_outside_tcp_range_is_refused(tmp_path):
    with pytest.raises(RelayError, match="not a TCP port"):
        Relay(port=70000, widget_origin="http://localhost:1", home=tmp_path)


def ctrl_c_once(run: subprocess.Popen, relay_started, timeout: float) -> None:
    """Press Ctrl-C (SIGINT to the run's process group) as soon as its relay is up."""
    try:
        up, _ = poll(relay_started, lambda up: bool(up) or run.poll() is not None, limit=timeout)
        assert up, "the relay never started"
        os.killpg(run.pid, signal.SIGINT)
        run.wait(60)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)


def test_ctrl_c_during_a_relay_scenario_leaves_no_relay(tmp_path):
    before = set(relay_processes())
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "--call-path",
            "relay",
            "scenarios/test_switch.py",
            "-k",
            "registers_exactly and slides",
        ],
        # A file, not a pipe nobody reads: an interrupted run's report must never block on a full pipe.
        cwd=ROOT,
        stdout=(tmp_path / "run.log").open("w"),
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    ctrl_c_once(run, lambda: set(relay_processes()) - before, 60)
    left, ended = poll(lambda: set(relay_processes()) - before, lambda left: not left, limit=10)
    assert ended, f"relay processes left after Ctrl-C: {left}"


def test_relay_dies_with_a_harness_that_is_killed(tmp_path):
    # A CI timeout kills the harness with SIGKILL: nothing of ours gets to end the relay.
    before = set(relay_processes())
    script = (
        f"from pathlib import Path; from harness.relay import Relay\n"
        f"with Relay(port={free_port()}, widget_origin='http://localhost:1', home=Path({str(tmp_path)!r})):\n"
        f"    print('started', flush=True); input()\n"
    )
    run = subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert run.stdout.readline().strip() == "started"
        assert set(relay_processes()) - before, "no relay process while the harness runs"
        run.kill()
        run.wait(10)
    finally:
        if run.poll() is None:
            run.kill()
    left, ended = poll(lambda: set(relay_processes()) - before, lambda left: not left, limit=10)
    assert ended, f"relay processes outlived the killed harness: {left}"


def session_processes(sid: int) -> list[str]:
    """Processes of a session (a process started with start_new_session and what it started)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[3]) == sid and fields[0] != "Z":
                found.append((stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:300])
        except (OSError, ValueError, IndexError):
            pass
    return found


def relays_of_run(run_id: str) -> list[int]:
    found = []
    for pid in relay_processes():
        try:
            if f"HARNESS_RUN_ID={run_id}".encode() in Path(f"/proc/{pid}/environ").read_bytes():
                found.append(pid)
        except OSError:
            pass
    return found


def test_ctrl_c_during_verify_leaves_nothing_running(tmp_path):
    run_id = os.urandom(6).hex()
    # Short: Chromium's SingletonSocket below it must fit a Unix socket's path.
    machine_tmp = Path(tempfile.mkdtemp(prefix="t", dir="/tmp"))
    # A command of its own (not one nested in a selftest), with the machine's /tmp where we can see it.
    env = {k: v for k, v in os.environ.items() if k != TEMPORARY_FOLDER}
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "harness",
            "verify",
            "--out",
            str(tmp_path / "out"),
            "--browser",
            "chromium",
            "--call-path",
            "relay",
            "--",
            "-k",
            "test_turning_on_registers_exactly and slides",
        ],
        cwd=ROOT,
        stdout=(tmp_path / "run.log").open("w"),
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        env={**env, "HARNESS_RUN_ID": run_id, "TMPDIR": str(machine_tmp)},
    )
    ctrl_c_once(run, lambda: relays_of_run(run_id), 120)
    # Everything the run started (pytest and its workers, the relay, Playwright's driver, the
    # browsers) is in its session; other harness runs on the machine are not.
    poll(lambda: session_processes(run.pid) or relays_of_run(run_id), lambda left: not left, limit=15)
    assert not session_processes(run.pid), f"left running after Ctrl-C: {session_processes(run.pid)}"
    assert not relays_of_run(run_id), "the relay (in a session of its own) was left running"
    # The browsers' profiles, Playwright's traces and the relay's HOME went with the command's folder.
    left = sorted(p.name for p in machine_tmp.iterdir())
    shutil.rmtree(machine_tmp)
    assert not left, f"left in /tmp: {left}"


def test_selftest_names_a_process_its_run_left_running():
    from harness.selftest import nothing_left_running, processes_of_run

    run_id = os.urandom(6).hex()
    left = subprocess.Popen(["sleep", "30"], env={**os.environ, "HARNESS_RUN_ID": run_id})
    try:
        # Until the child has exec'd, /proc shows the forking Python's command line: no event to wait on.
        shown, started = poll(
            lambda: processes_of_run(run_id), lambda shown: any(c.startswith("sleep 30") for c in shown), limit=5
        )
        assert started, f"sleep 30 never showed: {shown}"
        assert not nothing_left_running(run_id, grace=0.5)
    finally:
        left.kill()
        left.wait()
    assert nothing_left_running(run_id, grace=5)
