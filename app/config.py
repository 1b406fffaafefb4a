"""Settings: one typed place, read from the environment (prefix ``DRACHENHORT_``) or ``.env``.

Nothing is read at import time: call ``get_settings()``.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from functools import lru_cache
from pathlib import Path

from pydantic import AliasChoices, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

LOCAL_URL = "http://127.0.0.1:8000"
"""What ``make run`` serves by default."""
DATABASE_FILE = "drachenhort.db"
"""The embedded SQLite database's file name inside ``data_dir`` (the default database)."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="DRACHENHORT_", env_file=".env", extra="ignore")

    database_url: str = Field(
        default="",
        validation_alias=AliasChoices("DRACHENHORT_DATABASE_URL", "DATABASE_URL", "database_url"),
    )
    secret_key: str = ""
    """Keys the CSRF tokens (HMAC); when unset, generated once and kept in ``<data_dir>/secret_key``."""
    data_dir: Path = Path("./var")
    db_pool_size: int = Field(default=5, ge=1, le=100)
    """SQLAlchemy's connections per process (everything but the move path); as many again may
    open for a burst."""
    move_pool_size: int = Field(default=10, ge=1, le=200)
    """The move path's own connections per process (PostgreSQL)."""
    bot_think_ms: float | None = Field(default=None, gt=0, le=10_000)
    """Override the bots' thinking time (strong's; normal gets a quarter). None: 2 s and 0.5 s."""
    base_url: str = ""
    """The public address (``https://games.example.org``). Empty: pages link to the address they
    are served on; mail, which has no request to follow, then links to ``LOCAL_URL``."""
    smtp_host: str | None = None
    smtp_port: int = 587
    smtp_user: str | None = None
    smtp_password: str | None = None
    smtp_from: str | None = None
    smtp_starttls: bool = True
    registrations_per_hour: int = 10
    """Registrations one address may attempt per hour before it waits ever longer."""
    failed_logins_per_address: int = 30
    """Failed logins one address may make (whatever the names) before it waits ever longer."""
    max_body_bytes: int = Field(default=64 * 1024, ge=1024)
    """The largest request body accepted (413 beyond, before it is read); no form or JSON
    request of the app needs more than a few KiB."""
    body_timeout_seconds: float = Field(default=10.0, gt=0)
    """How long a request body may take to arrive after the request began (408 after)."""
    open_tables_per_user: int = Field(default=10, ge=1)
    """Waiting tables one user may have opened at once (``app.services.limits``)."""
    bot_matches_per_user: int = Field(default=20, ge=1)
    """Open or running matches against the computer one user may have opened at once."""
    invitations_per_hour: int = Field(default=30, ge=1)
    """Players one user may invite per hour (each reserved seat counts)."""
    chat_lines_per_minute: int = Field(default=20, ge=1)
    """Chat messages one user may post per minute."""
    opentelemetry: bool = False
    """FastAPI's own OpenTelemetry spans and metrics, for a server whose operator configures
    OpenTelemetry providers. Off, no request asks whether any are configured (~3 % of a move)."""

    @field_validator("database_url")
    @classmethod
    def _normalise_database_url(cls, value: str) -> str:
        return normalise_database_url(value) if value.strip() else ""

    @field_validator("base_url")
    @classmethod
    def _strip_slash(cls, value: str) -> str:
        return value.rstrip("/")

    @model_validator(mode="after")
    def _default_database(self) -> Settings:
        if not self.database_url:
            self.database_url = f"sqlite+aiosqlite:///{self.data_dir / DATABASE_FILE}"
        return self

    @model_validator(mode="after")
    def _ensure_secret_key(self) -> Settings:
        if not self.secret_key:
            self.secret_key = _stored_secret_key(self.data_dir / "secret_key")
        elif len(self.secret_key) < 16:
            raise ValueError("DRACHENHORT_SECRET_KEY is too short: use at least 16 characters")
        return self

    @property
    def is_postgres(self) -> bool:
        return is_postgres_url(self.database_url)

    @property
    def mail_base_url(self) -> str:
        """Where links in mails point (set ``DRACHENHORT_BASE_URL`` when mail is on)."""
        return self.base_url or LOCAL_URL

    @property
    def smtp_enabled(self) -> bool:
        return bool(self.smtp_host and self.smtp_from)


def normalise_database_url(url: str) -> str:
    """Accept the plain spellings people paste and pick our async drivers.

    ``postgres://`` and ``postgresql://`` become ``postgresql+asyncpg://``; ``sqlite://``
    becomes ``sqlite+aiosqlite://``.
    """
    url = url.strip()
    for plain in ("postgres://", "postgresql://", "postgresql+psycopg://", "postgresql+psycopg2://"):
        if url.startswith(plain):
            return "postgresql+asyncpg://" + url[len(plain) :]
    if url.startswith("sqlite://"):
        return "sqlite+aiosqlite://" + url[len("sqlite://") :]
    if url.startswith(("postgresql+asyncpg://", "sqlite+aiosqlite://")):
        return url
    raise ValueError(f"unsupported database URL {url.split('://')[0]!r}: use postgresql:// or sqlite://")


def is_postgres_url(url: str) -> bool:
    return url.startswith("postgresql")


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process's settings, read once on first use."""
    return Settings()


def _stored_secret_key(path: Path) -> str:
    with contextlib.suppress(FileNotFoundError):
        return _read_key(path)  # a data folder may be read-only once its key is there
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    # The key is written to a file of its own and then linked into place: when several workers
    # start at once, exactly one link succeeds and nobody reads a key file before its key is in
    # it (an O_EXCL create left a moment when the file existed empty). Owner-only permissions
    # (mkstemp's) because the key signs every session cookie.
    fd, draft = tempfile.mkstemp(dir=path.parent, prefix=".secret_key.")
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(key + "\n")
        os.link(draft, path)
    except FileExistsError:
        return _read_key(path)  # another worker's key came first
    finally:
        os.unlink(draft)
    return key


def _read_key(path: Path) -> str:
    stored = path.read_text().strip()
    if not stored:
        raise ValueError(f"{path} is empty: delete it or set DRACHENHORT_SECRET_KEY")
    return stored
