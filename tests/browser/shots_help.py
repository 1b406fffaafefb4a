"""Screenshot scenes of issue 20.11 and 20.15 (``make screenshots``, tests/browser/screenshots.py):
a long log scrolled part way, and the explanation of a Felsental card option and of a Drachenland
tile, open under the mouse."""

from __future__ import annotations

from typing import Any

from tests.browser.studio import Shot, Studio, any_move, scene


def _scroll_log(page: Any) -> None:
    log = page.locator("#log-list")
    log.scroll_into_view_if_needed()
    box = log.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, 150)
    page.wait_for_timeout(600)  # the box settles on a line
    log.scroll_into_view_if_needed()


def _hover(selector: str) -> Any:
    def prepare(page: Any) -> None:
        host = page.locator(selector).first
        host.scroll_into_view_if_needed()
        host.hover()
        page.locator(f"#{host.get_attribute('data-tip')}").wait_for()

    return prepare


@scene("help")
def help_and_log(studio: Studio) -> list[Shot]:
    players = studio.users("vera", "wim")
    fels = studio.match("felsental", players)
    actor = studio.play(fels, players, 80, policy=any_move, until=lambda m: len(m["log"]) > 40)
    shots = [
        Shot("log-scrolled", f"/matches/{fels}", actor, _scroll_log),
        Shot("tip-felsental", f"/matches/{fels}", actor, _hover(".fels-cards .option[data-tip]")),
    ]
    more = studio.users("xena", "yuri")
    land = studio.match("drachenland", more)
    shots.append(
        Shot("tip-drachenland", f"/matches/{land}", studio.to_act(land, more), _hover(".dl-mine [data-tip]"))
    )
    return shots
