"""App hosts in network namespaces of their own, with links that can be cut (the several-hosts test).

Each host ``i`` gets a namespace and two veth pairs to the root namespace, each a /30 of one
random 10.x.y.0/24:

- the *front* link, which the reverse proxy (root namespace) reaches the host's server by;
- the *back* link, which the host reaches PostgreSQL by: the machine's PostgreSQL listens on
  127.0.0.1 only, so a small TCP forwarder (``tests/reliability/forward.py``) in the root
  namespace listens on the back link's root-side address and passes the bytes on.

``cut(i)`` takes the root side of host i's back link down: the host keeps its address and route,
and whatever it sends to the database is dropped without an answer, as when a cable or switch
fails (no reset, no "unreachable"), while its front link (the proxy, the test) still works.
Names carry a random tag, so runs side by side do not collide, and ``close()`` removes
everything it made, even after a failure half-way.
"""

from __future__ import annotations

import ipaddress
import os
import random
import secrets
import shutil
import subprocess
from dataclasses import dataclass
from types import TracebackType

IP = shutil.which("ip") or "/usr/sbin/ip"


def netns_unavailable() -> str | None:
    """Why network namespaces cannot be used here, or None when they can."""
    if os.geteuid() != 0:
        return "network namespaces need root (ip netns add)"
    if not os.path.exists(IP):
        return "iproute2's ip is not installed"
    probe = f"dhprobe{secrets.token_hex(3)}"
    made = subprocess.run([IP, "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"ip netns add is not allowed here: {made.stderr.strip()}"
    subprocess.run([IP, "netns", "del", probe], capture_output=True)
    return None


def ip(*args: str, netns: str | None = None) -> None:
    command = [IP, *(("-n", netns) if netns else ()), *args]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: {done.stderr.strip()}")


@dataclass(frozen=True)
class HostLinks:
    """One host's namespace and addresses."""

    netns: str
    front_veth: str
    """Root side of the front link."""
    back_veth: str
    """Root side of the back link (down while the host is cut off from the database)."""
    proxy_side: str
    """Root-side address of the front link (the proxy's address as the host sees it)."""
    address: str
    """The host's own address on the front link (its server listens there)."""
    database_side: str
    """Root-side address of the back link (the forwarder to PostgreSQL listens there)."""

    def run(self, *command: str) -> list[str]:
        """``command`` run inside the host's namespace."""
        return [IP, "netns", "exec", self.netns, *command]


class Network:
    """``hosts`` namespaces with front and back links; see the module doc."""

    def __init__(self, hosts: int) -> None:
        self.tag = secrets.token_hex(3)
        self.subnet = _free_subnet()
        self.hosts: list[HostLinks] = []
        self._count = hosts

    def build(self) -> Network:
        base = int(self.subnet.network_address)
        for i in range(self._count):
            netns = f"dh{self.tag}h{i}"
            ip("netns", "add", netns)
            at = base + 8 * (i + 1)
            front, back = f"dh{self.tag}f{i}", f"dh{self.tag}b{i}"
            links = HostLinks(
                netns=netns,
                front_veth=front,
                back_veth=back,
                proxy_side=str(ipaddress.IPv4Address(at + 1)),
                address=str(ipaddress.IPv4Address(at + 2)),
                database_side=str(ipaddress.IPv4Address(at + 5)),
            )
            self.hosts.append(links)
            ip("link", "set", "lo", "up", netns=netns)
            for root_side, peer, root_addr, inner_addr in (
                (front, "eth0", links.proxy_side, links.address),
                (back, "eth1", links.database_side, str(ipaddress.IPv4Address(at + 6))),
            ):
                ip("link", "add", root_side, "type", "veth", "peer", "name", f"{root_side}p")
                ip("link", "set", f"{root_side}p", "netns", netns)
                ip("link", "set", f"{root_side}p", "name", peer, netns=netns)
                ip("addr", "add", f"{root_addr}/30", "dev", root_side)
                ip("addr", "add", f"{inner_addr}/30", "dev", peer, netns=netns)
                ip("link", "set", root_side, "up")
                ip("link", "set", peer, "up", netns=netns)
        return self

    def cut(self, i: int) -> None:
        """Host i's packets to the database are dropped from now on (its front link still works)."""
        ip("link", "set", self.hosts[i].back_veth, "down")

    def restore(self, i: int) -> None:
        ip("link", "set", self.hosts[i].back_veth, "up")

    def close(self) -> None:
        """Remove the namespaces and links (deleting a namespace deletes its veth pairs)."""
        for links in self.hosts:
            subprocess.run([IP, "netns", "del", links.netns], capture_output=True)
            for veth in (links.front_veth, links.back_veth):
                subprocess.run([IP, "link", "del", veth], capture_output=True)
        self.hosts = []

    def __enter__(self) -> Network:
        try:
            return self.build()
        except BaseException:
            self.close()
            raise

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _free_subnet() -> ipaddress.IPv4Network:
    """A random 10.x.y.0/24 that no interface of the machine uses yet."""
    used = subprocess.run([IP, "-4", "-o", "addr"], capture_output=True, text=True).stdout
    routes = subprocess.run([IP, "-4", "route"], capture_output=True, text=True).stdout
    for _ in range(200):
        net = ipaddress.IPv4Network(f"10.{random.randint(100, 250)}.{random.randint(0, 255)}.0/24")
        prefix = str(net.network_address).rsplit(".", 1)[0] + "."
        if prefix not in used and prefix not in routes:
            return net
    raise RuntimeError("no free 10.x.y.0/24 for the test network")
