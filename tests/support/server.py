"""A real uvicorn server process for HTTP tests: ``uvicorn app.main:create_app --factory``.

It runs against the test database on a free port, offers the toy game
(``DRACHENHORT_EXTRA_GAMES``), and can be stopped and started again (a restart). ``env``
adds or overrides environment variables (the per-address limits are lifted by default);
``workers`` runs that many worker processes.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

import httpx

ROOT = Path(__file__).resolve().parents[2]
SECRET_KEY = "test-secret-key-for-the-web-tests"
READY_TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Server:
    """One uvicorn process; ``start``/``stop``/``restart``, or use it as a context manager."""

    def __init__(
        self,
        database_url: str,
        data_dir: Path,
        *,
        port: int | None = None,
        env: dict[str, str] | None = None,
        set_base_url: bool = True,
        workers: int = 1,
        host: str = "127.0.0.1",
        wrapper: Sequence[str] = (),
        ready_timeout: float = READY_TIMEOUT,
    ) -> None:
        self.database_url = database_url
        self.set_base_url = set_base_url
        """False: no ``DRACHENHORT_BASE_URL``, as ``make run`` starts it."""
        self.data_dir = data_dir
        self.workers = workers
        """More than one: uvicorn's own worker processes behind one port (as in production)."""
        self.env = env or {}
        self.host = host
        self.wrapper = list(wrapper)
        """A command the server runs under (``ip netns exec NAME``: a host of its own)."""
        self.ready_timeout = ready_timeout
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = data_dir / f"uvicorn-{self.port}.log"

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> None:
        if self.process is not None:
            raise RuntimeError("the server is already running")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        env = {
            **os.environ,
            "DRACHENHORT_DATABASE_URL": self.database_url,
            "DRACHENHORT_SECRET_KEY": SECRET_KEY,
            "DRACHENHORT_DATA_DIR": str(self.data_dir),
            "DRACHENHORT_BASE_URL": self.base_url,
            "DRACHENHORT_EXTRA_GAMES": "tests.support.toygame_register",
            # The suites register and log in hundreds of users from 127.0.0.1, and reuse
            # them for many tables and lines; the throttle and limit tests start servers with
            # the real limits.
            "DRACHENHORT_REGISTRATIONS_PER_HOUR": "1000000",
            "DRACHENHORT_FAILED_LOGINS_PER_ADDRESS": "1000000",
            "DRACHENHORT_OPEN_TABLES_PER_USER": "1000000",
            "DRACHENHORT_BOT_MATCHES_PER_USER": "1000000",
            "DRACHENHORT_INVITATIONS_PER_HOUR": "1000000",
            "DRACHENHORT_CHAT_LINES_PER_MINUTE": "1000000",
            **self.env,
        }
        env.pop("DATABASE_URL", None)
        if not self.set_base_url:
            env.pop("DRACHENHORT_BASE_URL")
        command = [
            *self.wrapper, sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory",
            "--host", self.host, "--port", str(self.port),
            "--log-level", "warning", "--timeout-graceful-shutdown", "2",
            # httpx keeps an idle connection 5 s, uvicorn by default as long: a test client that
            # reuses one just as the server closes it gets a ReadError (browsers retry such a
            # request; a proxy in front keeps its connections longer than its clients do).
            "--timeout-keep-alive", "30",
        ]  # fmt: skip
        if self.workers > 1:
            command += ["--workers", str(self.workers)]
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        self._wait_ready()

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)

    def restart(self) -> None:
        self.stop()
        self.start()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.ready_timeout
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}:\n{self.log()}")
            try:
                if httpx.get(f"{self.base_url}/healthz", timeout=1.0).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the server did not become ready in {self.ready_timeout} s:\n{self.log()}")

    def __enter__(self) -> Server:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
