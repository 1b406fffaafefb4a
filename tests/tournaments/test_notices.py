"""A tournament's notifications and mails: the round has started (whom you play, the match's
link) and the tournament has ended (the podium), in English and German, through a real SMTP
server."""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models import User
from app.services import admin, mail, notify
from app.services.tournaments import service
from tests.conftest import MakeUser
from tests.services.async_support import mail_settings, settle, smtp_sink
from tests.tournaments.support import play_all, round_matches


async def test_round_started_and_tournament_ended_are_notified_and_mailed_in_both_languages(
    db: AsyncSession, make_user: MakeUser, sessionmaker: async_sessionmaker[AsyncSession], database_url: str
) -> None:
    creator = await make_user()
    players = [await make_user() for _ in range(4)]
    users = {u.id: u for u in players}
    german = players[1]
    await db.execute(update(User).where(User.id == german.id).values(locale="de"))
    await db.commit()
    with smtp_sink() as (sink, port):
        settings = mail_settings(database_url, port)
        for u in players:
            await admin.update_settings(
                db, settings, user_id=u.id, email=f"{u.name}@example.org", mail_opt_out=False
            )
        tid = await service.create_tournament(
            db,
            creator_id=creator.id,
            name="Herbstpokal",
            game="toy",
            options={},
            table_size=2,
            format="swiss",
            rounds=2,
            places=4,
        )
        for u in players:
            await service.sign_up(db, tournament_id=tid, user_id=u.id)
        t = await service.get_tournament(db, tournament_id=tid, viewer_id=None)
        [first_match, _] = await round_matches(db, tid, 1)
        table = next(table for table in t.rounds[0].tables if table.match_id == first_match)
        me = next(u for u in players if u.name == table.players[0])
        lines = (await notify.list_notifications(db, user_id=me.id)).items
        [paired] = [n for n in lines if n.kind == "t_paired" and n.match_id == first_match]
        assert paired.tournament_id == tid and paired.round == 1 and paired.tournament_name == "Herbstpokal"
        assert paired.opponents == [table.players[1]]

        assert await mail.send_pending(sessionmaker, settings) == 4  # one per player, not per turn too
        await settle()
        [english] = sink.to(f"{me.name}@example.org")
        assert english["Subject"] == "Tournament Herbstpokal: round 1 has started"
        body = english.get_content()
        assert f"You play {table.players[1]}" in body and f"/matches/{first_match}" in body
        [deutsch] = sink.to(f"{german.name}@example.org")
        assert deutsch["Subject"] == "Turnier Herbstpokal: Runde 1 hat begonnen"
        assert "Du spielst gegen" in deutsch.get_content()

        await play_all(db, tid, users, seed=3)
        t = await service.get_tournament(db, tournament_id=tid, viewer_id=None)
        assert t.status == "finished"
        lines = (await notify.list_notifications(db, user_id=german.id)).items
        [ended] = [n for n in lines if n.kind == "t_ended"]
        assert ended.podium == t.podium and len(ended.podium) == 3
        await mail.send_pending(sessionmaker, settings)
        await settle()
        [over] = [
            m
            for m in sink.to(f"{german.name}@example.org")
            if m["Subject"].startswith("Turnier") and "zu Ende" in m["Subject"]
        ]
        assert over["Subject"] == "Turnier Herbstpokal ist zu Ende"
        assert f"1. {t.podium[0]}, 2. {t.podium[1]}, 3. {t.podium[2]}" in over.get_content()
        assert f"/tournaments/{tid}" in over.get_content()
