"""``drachenhort admin create NAME``: make (or promote) an administrator from the shell.

The password is read from standard input (one line) or asked for on a terminal, never taken
from the command line, where other users of the host could read it.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from typing import Any


def add_admin_parser(commands: Any) -> None:
    """Add ``admin create NAME`` to the ``drachenhort`` command's subparsers."""
    admin = commands.add_parser("admin", help="administrators")
    actions = admin.add_subparsers(required=True, metavar="action")
    create = actions.add_parser("create", help="create an administrator, or promote an existing user")
    create.add_argument("name")
    create.set_defaults(run=run_create)


def run_create(args: argparse.Namespace) -> int:
    password = _read_password()
    if not password:
        print("no password given", file=sys.stderr)
        return 2
    from app.services.errors import DomainError

    try:
        user = asyncio.run(_create(args.name, password))
    except DomainError as error:
        print(f"cannot create {args.name!r}: {error.reason}", file=sys.stderr)
        return 1
    print(f"{user.name} (id {user.id}) is an administrator")
    return 0


async def _create(name: str, password: str) -> Any:
    from app.config import get_settings
    from app.db.session import dispose, make_engine, make_sessionmaker
    from app.services import admin

    engine = make_engine(get_settings().database_url)
    try:
        async with make_sessionmaker(engine)() as db:
            return await admin.create_admin(db, name=name, password=password)
    finally:
        await dispose(engine)


def _read_password() -> str:
    if sys.stdin.isatty():
        return getpass.getpass("password: ")
    return sys.stdin.readline().rstrip("\n")
