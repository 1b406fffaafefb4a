"""Look-alike names (issue 11.4): width and case folded, one script, no confusable of a taken name."""

from __future__ import annotations

import secrets

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from app.services import accounts, names
from app.services.errors import InvalidInput, NameTaken
from tests.conftest import TEST_PASSWORD


def _digits() -> str:
    return str(secrets.randbelow(10**8)).zfill(8)


async def _register(db: AsyncSession, name: str) -> str:
    return (await accounts.register(db, name=name, password=TEST_PASSWORD, locale="en")).name


async def test_look_alikes_of_a_taken_name_are_refused(db: AsyncSession) -> None:
    """Beside ``admin…``: Cyrillic а (mixed scripts), fullwidth ａ (the same name once widths are
    folded), capitals (the same name), ``rn`` for ``m`` (a TS #39 confusable) are all refused."""
    name = f"admin{_digits()}"
    await _register(db, name)
    with pytest.raises(InvalidInput, match="may not mix"):
        await _register(db, "\u0430" + name[1:])
    for same in ("\uff41" + name[1:], name.upper(), "\uff21\uff24\uff2d\uff29\uff2e" + name[5:]):
        with pytest.raises(NameTaken, match="already taken"):
            await _register(db, same)
    with pytest.raises(NameTaken, match="looks too much like"):
        await _register(db, "adrnin" + name[5:])


async def test_a_name_wholly_in_another_script_that_looks_the_same_is_refused(db: AsyncSession) -> None:
    """``сеор`` in Cyrillic letters only is no mixture, yet it reads as the Latin ``ceop``."""
    digits = _digits()
    await _register(db, f"ceop{digits}")
    with pytest.raises(NameTaken, match="looks too much like"):
        await _register(db, f"\u0441\u0435\u043e\u0440{digits}")


async def test_a_capital_i_that_reads_as_an_l_is_refused(db: AsyncSession) -> None:
    digits = _digits()
    await _register(db, f"alice{digits}")
    with pytest.raises(NameTaken, match="looks too much like"):
        await _register(db, f"AIice{digits}")


async def test_names_in_one_script_and_allowed_mixtures_register(db: AsyncSession) -> None:
    """Other scripts are welcome, one at a time (or the mixtures TS #39 allows: Han with kana)."""
    digits = _digits()
    for name in (f"Сергей{digits}", f"Ελένη{digits}", f"山田タロウ{digits}", f"Jörg_{digits}.x-y"):
        assert await _register(db, name) == name


async def test_a_fullwidth_name_is_kept_and_found_folded(db: AsyncSession) -> None:
    digits = _digits()
    kept = await _register(db, f"\uff22\uff4f\uff42{digits}")  # Ｂｏｂ
    assert kept == f"Bob{digits}"
    user, _ = await accounts.log_in(db, name=f"\uff42\uff4f\uff42{digits}", password=TEST_PASSWORD)
    assert user.name == kept


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("x²y", "letters, digits"),
        ("a\u200db", "letters, digits"),
        ("bad name", "letters, digits"),
        ("x", "2 to 24 characters"),
        ("Ωmega", "may not mix"),
        ("abc१२", "may not mix"),
    ],
)
def test_names_outside_the_rules_are_refused(name: str, reason: str) -> None:
    with pytest.raises(InvalidInput, match=reason):
        names.allowed(name)


def test_keys_fold_width_and_case_and_skeletons_catch_look_alikes() -> None:
    assert names.key("ＡＤＭＩＮ") == names.key("Admin") == "admin"
    assert names.key("Straße") == "strasse"
    assert names.skeleton("admin") == names.skeleton("аdmin") == names.skeleton("adrnin")
    assert names.skeleton("Jörg") != names.skeleton("Jorg")
