"""``drachenhort admin create NAME`` in a real process (the password on standard input)."""

from __future__ import annotations

import os
import subprocess
import sys

from sqlalchemy.ext.asyncio import AsyncSession

from app.services import accounts
from tests.conftest import unique_name
from tests.support.server import ROOT


def _run(database_url: str, tmp: str, *args: str, password: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DRACHENHORT_DATABASE_URL": database_url, "DRACHENHORT_DATA_DIR": tmp}
    env.pop("DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "admin", *args],
        input=password + "\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
        check=False,
    )


async def test_admin_create_makes_an_administrator_who_can_log_in(
    database_url: str, db: AsyncSession, tmp_path: object
) -> None:
    name = unique_name("root")
    done = _run(database_url, str(tmp_path), "create", name, password="a long admin password")
    assert done.returncode == 0, done.stderr
    assert f"{name} (id " in done.stdout and "is an administrator" in done.stdout
    user, _ = await accounts.log_in(db, name=name, password="a long admin password")
    assert user.is_admin
    short = _run(database_url, str(tmp_path), "create", unique_name("x"), password="short")
    assert short.returncode == 1 and "too short" in short.stderr
