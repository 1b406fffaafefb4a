"""What a tournament's notifications and mails say: a round has started and whom you play (with
the match's link), or the tournament has ended (with its podium)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import MatchSeat, User
from app.db.tournaments import Tournament, TournamentMatch

PAIRED = "t_paired"
ENDED = "t_ended"
KINDS = (PAIRED, ENDED)
"""The notification kinds of tournaments (``app.services.notify`` shows them through here)."""


@dataclass
class Notice:
    tournament_id: int
    name: str
    round: int
    opponents: list[str] = field(default_factory=list)
    podium: list[str] = field(default_factory=list)


async def describe(db: AsyncSession, user_id: int, match_ids: Sequence[int]) -> dict[int, Notice]:
    """For each tournament match of ``match_ids``: its tournament, round, the user's opponents
    and (once finished) the podium, by name. Three queries however many lines."""
    if not match_ids:
        return {}
    rows = (
        await db.execute(
            select(TournamentMatch.match_id, TournamentMatch.round, Tournament)
            .join(Tournament, Tournament.id == TournamentMatch.tournament_id)
            .where(TournamentMatch.match_id.in_(match_ids))
        )
    ).tuples()
    found = list(rows)
    seats = (
        await db.execute(
            select(MatchSeat.match_id, MatchSeat.user_id).where(
                MatchSeat.match_id.in_([m for m, _, _ in found]), MatchSeat.user_id.is_not(None)
            )
        )
    ).tuples()
    by_match: dict[int, list[int]] = {}
    for match_id, seat_user in seats:
        if seat_user is not None:
            by_match.setdefault(match_id, []).append(seat_user)
    ids = {u for users in by_match.values() for u in users} | {u for _, _, t in found for u in t.podium or []}
    names = dict((await db.execute(select(User.id, User.name).where(User.id.in_(ids)))).tuples().all())
    return {
        match_id: Notice(
            tournament_id=t.id,
            name=t.name,
            round=number,
            opponents=[names.get(u, "?") for u in by_match.get(match_id, []) if u != user_id],
            podium=[names.get(u, "?") for u in t.podium or []],
        )
        for match_id, number, t in found
    }


async def mail_text(
    db: AsyncSession, *, user_id: int, match_id: int, kind: str, lang: str, base_url: str
) -> tuple[str, str] | None:
    """The subject and body of a tournament notification's mail (None: not a tournament's)."""
    notice = (await describe(db, user_id, [match_id])).get(match_id)
    if notice is None or kind not in KINDS:
        return None
    match_link = f"{base_url}/matches/{match_id}"
    link = f"{base_url}/tournaments/{notice.tournament_id}"
    settings_link = f"{base_url}/settings"
    opponents = ", ".join(notice.opponents)
    podium = ", ".join(f"{i}. {name}" for i, name in enumerate(notice.podium, start=1))
    if lang == "de":
        if kind == PAIRED:
            subject = f"Turnier {notice.name}: Runde {notice.round} hat begonnen"
            lead = f"{subject}. Du spielst gegen {opponents}.\n\nZur Partie: {match_link}"
        else:
            subject = f"Turnier {notice.name} ist zu Ende"
            lead = f"{subject}. Siegertreppchen: {podium}."
        return subject, f"{lead}\n\nZum Turnier: {link}\n\nKeine Mails mehr? {settings_link}\n"
    if kind == PAIRED:
        subject = f"Tournament {notice.name}: round {notice.round} has started"
        lead = f"{subject}. You play {opponents}.\n\nGo to the match: {match_link}"
    else:
        subject = f"Tournament {notice.name} has ended"
        lead = f"{subject}. Podium: {podium}."
    return subject, f"{lead}\n\nGo to the tournament: {link}\n\nNo more mails? {settings_link}\n"
