"""Drachenhort as it runs in production: ``uvicorn`` subprocess(es) on a fresh, migrated database.

``uvicorn app.main:create_app --factory --workers N --no-access-log`` (what ``drachenhort serve``
starts, minus the access log, which the issue measured at 1.6 % of a worker's CPU) on a free
loopback port. ``cpu_seconds`` sums the user and system CPU of the master and its workers.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import psutil  # type: ignore[import-untyped]

from app.db.migrate import upgrade_to_head
from bench import pgstats

ROOT = Path(__file__).resolve().parents[1]
SECRET_KEY = "bench-secret-key-not-for-production"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def process_tree_cpu(root: psutil.Process) -> float:
    """User + system CPU seconds of ``root`` and its descendants that are alive now."""
    total = 0.0
    for process in [root, *root.children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess):
            times = process.cpu_times()
            total += times.user + times.system
    return total


class AppServer:
    """One database and one uvicorn for one run; ``async with`` creates, serves, stops and drops.

    ``template``: the database starts as a copy of that one (the users the bench registered
    through the API once, with their sessions); ``keep``: it is not dropped at the end.
    """

    def __init__(
        self,
        database: str,
        workers: int,
        log_dir: Path,
        *,
        template: str | None = None,
        keep: bool = False,
        log_statements: bool = False,
        profile: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.database = database
        self.workers = workers
        self.log_dir = log_dir
        self.template = template
        self.keep = keep
        self.log_statements = log_statements
        self.profile = profile
        """pyinstrument the one worker (``bench/profile_app.py``) and write the report here."""
        self.env = dict(env or {})
        """Settings over the bench's own (``bench/flood.py`` puts the per-user limits back)."""
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    async def __aenter__(self) -> AppServer:
        await pgstats.fresh_database(
            self.database, template=self.template, log_statements=self.log_statements
        )
        await asyncio.to_thread(upgrade_to_head, pgstats.sqlalchemy_url(self.database))
        await asyncio.to_thread(self._start)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.stop)
        if not self.keep:
            await pgstats.drop_database(self.database)

    def _start(self) -> None:
        env = {
            **os.environ,
            "DRACHENHORT_DATABASE_URL": pgstats.sqlalchemy_url(self.database),
            "DRACHENHORT_SECRET_KEY": SECRET_KEY,
            "DRACHENHORT_DATA_DIR": str(self.log_dir),
            "DRACHENHORT_REGISTRATIONS_PER_HOUR": "1000000",
            "DRACHENHORT_FAILED_LOGINS_PER_ADDRESS": "1000000",
            "DRACHENHORT_OPEN_TABLES_PER_USER": "1000000",
            "DRACHENHORT_BOT_MATCHES_PER_USER": "1000000",
            "DRACHENHORT_INVITATIONS_PER_HOUR": "1000000",
            "DRACHENHORT_CHAT_LINES_PER_MINUTE": "1000000",
            **self.env,
        }
        env.pop("DATABASE_URL", None)
        target = "app.main:create_app"
        if self.profile is not None:
            target = "bench.profile_app:create"
            env["BENCH_PROFILE"] = str(self.profile)
        command = [
            sys.executable, "-m", "uvicorn", target, "--factory",
            "--host", "127.0.0.1", "--port", str(self.port), "--workers", str(self.workers),
            "--no-access-log", "--log-level", "warning", "--timeout-graceful-shutdown", "3",
        ]  # fmt: skip
        self.log_dir.mkdir(parents=True, exist_ok=True)
        log = (self.log_dir / f"uvicorn-{self.database}.log").open("ab")
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"uvicorn exited; see {log.name}")
            if self._answers() and len(self.master().children()) >= (self.workers if self.workers > 1 else 0):
                return
            time.sleep(0.2)
        raise RuntimeError("uvicorn did not become ready in 60 s")

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n")
                return sock.recv(64).startswith(b"HTTP/1.1 200")
        except OSError:
            return False

    def master(self) -> psutil.Process:
        assert self.process is not None
        return psutil.Process(self.process.pid)

    def cpu_seconds(self) -> float:
        return process_tree_cpu(self.master())

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=120 if self.profile else 15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
