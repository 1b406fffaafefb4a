"""Settings: database URL spellings, the generated secret key."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from pydantic import ValidationError

from app.config import Settings, normalise_database_url


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("postgresql://u:p@db:5432/x", "postgresql+asyncpg://u:p@db:5432/x"),
        ("postgres://db/x", "postgresql+asyncpg://db/x"),
        ("postgresql+asyncpg://db/x", "postgresql+asyncpg://db/x"),
        ("sqlite:///./var/d.db", "sqlite+aiosqlite:///./var/d.db"),
        ("sqlite+aiosqlite:///d.db", "sqlite+aiosqlite:///d.db"),
    ],
)
def test_database_urls_are_normalised(given: str, expected: str) -> None:
    assert normalise_database_url(given) == expected


def test_unknown_database_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="unsupported database URL 'mysql'"):
        Settings(database_url="mysql://x/y", data_dir=tmp_path)


def test_secret_key_is_generated_once_and_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DRACHENHORT_SECRET_KEY", raising=False)
    first = Settings(data_dir=tmp_path / "var")
    second = Settings(data_dir=tmp_path / "var")
    assert len(first.secret_key) >= 32 and first.secret_key == second.secret_key
    key_file = tmp_path / "var" / "secret_key"
    assert key_file.stat().st_mode & 0o077 == 0  # owner only
    assert Settings(data_dir=tmp_path / "other").secret_key != first.secret_key


def test_defaults_work_embedded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DRACHENHORT_DATABASE_URL", "DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings(data_dir=tmp_path, base_url="https://games.example/")
    assert settings.database_url == f"sqlite+aiosqlite:///{tmp_path}/drachenhort.db"
    assert Settings(secret_key="k" * 32).database_url == "sqlite+aiosqlite:///var/drachenhort.db"  # ./var
    assert not settings.is_postgres and not settings.smtp_enabled
    assert settings.base_url == "https://games.example"


def test_workers_starting_at_once_read_one_whole_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers that start at once agree on the key, and none reads the key file while it is
    still empty (an O_EXCL create left that moment open: a replica failed to start in CI)."""
    monkeypatch.delenv("DRACHENHORT_SECRET_KEY", raising=False)
    for attempt in range(20):
        data_dir = tmp_path / str(attempt)
        start = threading.Barrier(8)

        def settle(data_dir: Path = data_dir, start: threading.Barrier = start) -> str:
            start.wait()
            return Settings(data_dir=data_dir).secret_key

        with ThreadPoolExecutor(max_workers=8) as pool:
            keys = list(pool.map(lambda _: settle(), range(8)))
        assert len(set(keys)) == 1 and len(keys[0]) >= 32
        assert [p.name for p in data_dir.iterdir()] == ["secret_key"]  # no draft left behind


def test_a_kept_key_is_only_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the key is there nothing is written into the data folder (it may be read-only),
    and an emptied key file is refused rather than replaced."""
    monkeypatch.delenv("DRACHENHORT_SECRET_KEY", raising=False)
    data_dir = tmp_path / "var"
    first = Settings(data_dir=data_dir).secret_key
    written = data_dir.stat().st_mtime_ns
    time.sleep(0.01)
    assert Settings(data_dir=data_dir).secret_key == first
    assert data_dir.stat().st_mtime_ns == written
    (data_dir / "secret_key").write_text("\n")
    with pytest.raises(ValidationError, match="is empty"):
        Settings(data_dir=data_dir)
