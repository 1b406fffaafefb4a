"""The dependency lock (issue 11.7): every dependency of pyproject.toml pinned, in its range,
with hashes; the development lock installs the very same runtime."""

from __future__ import annotations

import re
import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.support.server import ROOT

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)")


def _lock(name: str) -> dict[str, tuple[Version, int]]:
    """Package -> (pinned version, number of hashes)."""
    pins: dict[str, tuple[Version, int]] = {}
    current = None
    for line in (ROOT / "requirements" / name).read_text().splitlines():
        found = PIN.match(line)
        if found:
            current = canonicalize_name(found.group(1))
            pins[current] = (Version(found.group(2)), 0)
        elif current and line.strip().startswith("--hash=sha256:"):
            version, hashes = pins[current]
            pins[current] = (version, hashes + 1)
    return pins


PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
RUNTIME = [Requirement(r) for r in PROJECT["project"]["dependencies"]]
DEV = [Requirement(r) for r in PROJECT["project"]["optional-dependencies"]["dev"]]
BUILD = [Requirement(r) for r in PROJECT["build-system"]["requires"]]


def test_every_dependency_is_pinned_within_its_range_with_hashes() -> None:
    for lock, wanted in [("run.txt", RUNTIME + BUILD), ("dev.txt", RUNTIME + DEV + BUILD)]:
        pins = _lock(lock)
        for requirement in wanted:
            name = canonicalize_name(requirement.name)
            assert name in pins, f"{lock} does not pin {name}"
            version, _ = pins[name]
            assert requirement.specifier.contains(version, prereleases=True), f"{lock}: {name} {version}"
        assert all(hashes > 0 for _, hashes in pins.values()), f"{lock}: a pin without a hash"


def test_the_development_lock_holds_the_runtime_lock() -> None:
    run, dev = _lock("run.txt"), _lock("dev.txt")
    assert {name: version for name, (version, _) in run.items()} == {name: dev[name][0] for name in run}, (
        "run.txt and dev.txt disagree on a runtime version"
    )
