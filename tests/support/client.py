"""HTTP helpers for web tests: register or log in over the JSON API and carry the CSRF token."""

from __future__ import annotations

import secrets
from typing import Any

import httpx

PASSWORD = "correct horse battery"


def unique_name(prefix: str = "w") -> str:
    return f"{prefix}{secrets.token_hex(4)}"


def request_id() -> str:
    return secrets.token_hex(12)


class ApiUser:
    """A logged-in API client: its own cookies, its CSRF token, its user record."""

    def __init__(self, client: httpx.AsyncClient, user: dict[str, Any], csrf: str) -> None:
        self.client = client
        self.user = user
        self.csrf = csrf

    @property
    def id(self) -> int:
        return int(self.user["id"])

    @property
    def name(self) -> str:
        return str(self.user["name"])

    async def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return await self.client.get(path, **kwargs)

    async def post(self, path: str, json: Any = None, **kwargs: Any) -> httpx.Response:
        headers = {"X-CSRF-Token": self.csrf, **kwargs.pop("headers", {})}
        return await self.client.post(path, json=json, headers=headers, **kwargs)

    async def aclose(self) -> None:
        await self.client.aclose()


async def csrf_for(client: httpx.AsyncClient) -> str:
    """The token for this client's session or visitor cookie."""
    response = await client.get("/api/auth/csrf")
    response.raise_for_status()
    return str(response.json()["csrf_token"])


async def register(base_url: str, name: str | None = None, locale: str = "en") -> ApiUser:
    """A fresh client with a newly registered, logged-in user."""
    client = httpx.AsyncClient(base_url=base_url, timeout=10.0)
    csrf = await csrf_for(client)
    response = await client.post(
        "/api/auth/register",
        json={"name": name or unique_name(), "password": PASSWORD, "locale": locale},
        headers={"X-CSRF-Token": csrf},
    )
    if response.status_code != 201:
        await client.aclose()
        raise AssertionError(f"register failed: {response.status_code} {response.text}")
    body = response.json()
    return ApiUser(client, body["user"], body["csrf_token"])


async def log_in(base_url: str, name: str, password: str = PASSWORD) -> ApiUser:
    """A fresh client logged in as an existing user."""
    client = httpx.AsyncClient(base_url=base_url, timeout=10.0)
    csrf = await csrf_for(client)
    response = await client.post(
        "/api/auth/login", json={"name": name, "password": password}, headers={"X-CSRF-Token": csrf}
    )
    if response.status_code != 200:
        await client.aclose()
        raise AssertionError(f"login failed: {response.status_code} {response.text}")
    body = response.json()
    return ApiUser(client, body["user"], body["csrf_token"])
