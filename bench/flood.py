"""Issue 19.5's flood replayed: what one user can pile up, and what everybody then fetches.

A server of its own (PostgreSQL, one worker). One user opens 110 tables each inviting one
victim, starts 300 matches against the computer and posts 300 chat lines at one table, as fast
as the answers come. With ``--lifted`` the per-user limits are lifted (the server as it was
before them); by default they hold. Printed: how many of each were accepted (and how the rest
were answered), then the size and the median time of what others fetch afterwards: the lobby,
the victim's notifications, the anonymous profile of "Bot easy 1", a chat page.

    .venv/bin/python -m bench.flood [--lifted]
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import time
from collections import Counter
from pathlib import Path

import httpx

from app.services import limits
from bench import load
from bench.appserver import ROOT, AppServer

TABLES, BOT_MATCHES, CHAT_LINES, SAMPLES = 110, 300, 300, 20
DEFAULTS = {
    "DRACHENHORT_OPEN_TABLES_PER_USER": str(limits.OPEN_TABLES),
    "DRACHENHORT_BOT_MATCHES_PER_USER": str(limits.BOT_MATCHES),
    "DRACHENHORT_INVITATIONS_PER_HOUR": str(limits.INVITATIONS_PER_HOUR),
    "DRACHENHORT_CHAT_LINES_PER_MINUTE": str(limits.CHAT_LINES_PER_MINUTE),
}


async def flood(lifted: bool, log_dir: Path) -> None:
    database = f"bench_flood_{secrets.token_hex(3)}"
    async with AppServer(database, 1, log_dir, env=None if lifted else DEFAULTS) as server:
        base = f"http://127.0.0.1:{server.port}"
        flooder, victim, partner = [
            await load.register(server.port, f"f{n}x{secrets.token_hex(3)}", n) for n in range(3)
        ]
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:

            async def post(who: load.Account, path: str, body: dict[str, object]) -> int:
                return (await http.post(path, json=body, headers=who.headers)).status_code

            answers: dict[str, Counter[int]] = {}
            table = {"game": "felsental", "seats": 2, "invite": [victim.name]}
            answers["tables inviting the victim"] = Counter(
                [await post(flooder, "/api/matches", table) for _ in range(TABLES)]
            )
            bots = {"game": "felsental", "seats": 2, "bots": "easy"}
            answers["bot matches"] = Counter(
                [await post(flooder, "/api/matches", bots) for _ in range(BOT_MATCHES)]
            )
            duel = {"game": "felsental", "seats": 2}
            chat_table = (await http.post("/api/matches", json=duel, headers=partner.headers)).json()["id"]
            await post(flooder, f"/api/matches/{chat_table}/join", {})
            path = f"/api/matches/{chat_table}/messages"
            answers["chat lines"] = Counter(
                [await post(flooder, path, {"text": "x" * 300}) for _ in range(CHAT_LINES)]
            )
            print(f"limits {'lifted' if lifted else 'as set by default'}:")
            for what, statuses in answers.items():
                print(
                    f"  {what:28} " + ", ".join(f"{n} × {status}" for status, n in sorted(statuses.items()))
                )

            fetches = {
                "GET / (lobby, anonymous)": ("/", {}),
                "GET /api/me/notifications (victim)": ("/api/me/notifications", victim.headers),
                "GET /api/users/Bot easy 1 (anonymous)": ("/api/users/Bot easy 1", {}),
                "GET chat page (partner)": (path, partner.headers),
            }
            print(f"  {'fetch':40} {'bytes':>9} {'median ms':>10}")
            for name, (url, headers) in fetches.items():
                sizes, times = [], []
                for _ in range(SAMPLES):
                    started = time.perf_counter()
                    answer = await http.get(url, headers=headers)
                    times.append(time.perf_counter() - started)
                    sizes.append(len(answer.content))
                print(f"  {name:40} {max(sizes):>9,} {1000 * statistics.median(times):>10.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--lifted", action="store_true", help="lift the per-user limits (the server before them)"
    )
    args = parser.parse_args()
    asyncio.run(flood(args.lifted, ROOT / "var" / "bench"))


if __name__ == "__main__":
    main()
