"""Debian's HAProxy in front of several app hosts, configured as the README recommends for SSE.

``config()`` is the README's HAProxy example with the test's addresses; the proxy adds
``X-Served-By`` (the server's name) to every answer so that the test can tell which host served
a request or holds a stream. ``restart()`` stops it hard (SIGTERM: every connection, streams
included, is closed at once) and starts it again on the same port.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from types import TracebackType

import httpx

HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"


def config(port: int, backends: list[tuple[str, str]]) -> str:
    servers = "\n".join(f"    server {name} {address} check" for name, address in backends)
    return f"""\
global
    maxconn 4096

defaults
    mode http
    timeout connect 2s
    timeout http-request 10s
    timeout http-keep-alive 10s
    # Streams stay open for hours; the app pings every 15 s.
    timeout client 1h
    timeout server 1h
    # A request that found no connection goes to another host.
    retries 2
    option redispatch

frontend drachenhort
    bind 127.0.0.1:{port}
    default_backend hosts

backend hosts
    balance roundrobin
    option httpchk GET /healthz
    default-server inter 1s fall 2 rise 2
    option forwardfor
    http-response set-header X-Served-By %s
{servers}
"""


class Proxy:
    """One HAProxy process listening on 127.0.0.1:``port``."""

    def __init__(self, directory: Path, port: int, backends: list[tuple[str, str]]) -> None:
        self.port = port
        self.path = directory / "haproxy.cfg"
        self.path.write_text(config(port, backends))
        self.log_path = directory / "haproxy.log"
        self.process: subprocess.Popen[bytes] | None = None
        self._checked = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        if self.process is None and not self._checked:
            checked = subprocess.run(
                [HAPROXY, "-c", "-q", "-f", str(self.path)], capture_output=True, text=True
            )
            if checked.returncode != 0:
                raise RuntimeError(f"haproxy refused its configuration: {checked.stderr}")
            self._checked = True
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [HAPROXY, "-db", "-f", str(self.path)], stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"haproxy exited: {self.log_path.read_text(errors='replace')}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        raise RuntimeError("haproxy did not start answering in 10 s")

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)

    def restart(self) -> None:
        self.stop()
        self.start()

    def __enter__(self) -> Proxy:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
