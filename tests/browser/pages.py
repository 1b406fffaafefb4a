"""What every browser test does through the pages."""

from __future__ import annotations

from typing import Any

from tests.support.client import PASSWORD, unique_name


def register(page: Any, base_url: str) -> str:
    """Register a fresh user with the form (the page lands in the lobby, logged in)."""
    name = unique_name("b")
    page.goto(f"{base_url}/register")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form[action='/register'] button[type=submit]")
    page.wait_for_url(f"{base_url}/")
    return name
