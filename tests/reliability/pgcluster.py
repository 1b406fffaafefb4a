"""A private, throwaway PostgreSQL server for the restart test.

The test restarts PostgreSQL in the middle of load. Doing that to the shared server on
127.0.0.1:5432 would break every other test (and every other developer) using it at the same
moment, so this starts its own cluster from the same PostgreSQL binaries on a free port, in a
temporary directory, and restarts that one (``pg_ctl restart -m fast``, which is what
``pg_ctlcluster ... restart`` runs).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

from tests.support.server import free_port


def pg_bin_dir() -> Path | None:
    """The newest installed PostgreSQL's ``bin`` directory (Debian layout), or None."""
    root = Path("/usr/lib/postgresql")
    versions = sorted((p for p in root.glob("*/bin") if (p / "initdb").exists()), reverse=True)
    return versions[0] if versions else None


class PrivateCluster:
    """``initdb`` + ``pg_ctl start`` on a free port; ``restart()``; removed on exit."""

    def __init__(self) -> None:
        bin_dir = pg_bin_dir()
        if bin_dir is None:
            raise RuntimeError("no PostgreSQL binaries under /usr/lib/postgresql")
        self.bin_dir = bin_dir
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="drachenhort-pg-"))
        self.data = self.root / "data"
        self.log_path = self.root / "postgres.log"

    @property
    def url(self) -> str:
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        if os.geteuid() == 0:
            # PostgreSQL refuses to run as root: the cluster belongs to the postgres user.
            shutil.chown(self.root, "postgres", "postgres")
            self.root.chmod(0o700)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8")
        self._pg_ctl("start")

    def restart(self, down_for: float = 0.0) -> None:
        """``pg_ctl restart -m fast``; with ``down_for`` the server stays down that long in between."""
        if not down_for:
            self._pg_ctl("restart", "-m", "fast")
            return
        self._pg_ctl("stop", "-m", "fast")
        time.sleep(down_for)
        self._pg_ctl("start")

    def pause(self) -> None:
        """Shut the server down (``pg_ctl stop -m fast``), keeping its data for ``resume()``."""
        self._pg_ctl("stop", "-m", "fast")

    def resume(self) -> None:
        self._pg_ctl("start")

    def stop(self) -> None:
        if self.data.exists():
            self._pg_ctl("stop", "-m", "immediate", check=False)
        shutil.rmtree(self.root, ignore_errors=True)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def _pg_ctl(self, action: str, *args: str, check: bool = True) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c max_connections=100"
        self._run("pg_ctl", action, "-D", str(self.data), "-w", "-t", "30", "-l", str(self.log_path),
                  "-o", options, *args, check=check)  # fmt: skip

    def _run(self, program: str, *args: str, check: bool = True) -> None:
        command = [str(self.bin_dir / program), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=check, capture_output=True, cwd=self.root)

    def __enter__(self) -> PrivateCluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
