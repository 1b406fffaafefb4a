"""Issue 21: Duell im Felsental drawn as a rocky valley, its figures, tokens and cards.

Positions are set up over the JSON API (tests/browser/studio.py); the pages are real Chromium.
The art lives in one static sprite (static/games/felsental/art.svg) that the board places with
``<use>``: every hex, figure and token is still a ``data-piece`` element the log can light up and
an animation can follow (a dwarf keeps its id when it walks); the three dwarves differ by their
silhouettes, not only by colour; each card effect is an icon with its word, the halves of a dual
card are apart; and on a 390 x 844 phone every legal target is at least 32 px each way.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.pages import log_in
from tests.browser.studio import Studio, User, any_move
from tests.support.server import Server

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 768}
SPRITE = "/static/games/felsental/art.svg"
DWARVES = ("warrior", "crossbowman", "trapper")
MIN_TARGET_PX = 32
ATTACKS = {"bite", "fire", "attack1", "attack2", "crossbow", "net"}

Until = Callable[[dict[str, Any]], bool]


def _offers(prefix: str) -> Until:
    return lambda m: any(x.startswith(prefix) for x in m["legal"])


def _has_dual_card(m: dict[str, Any]) -> bool:
    return bool(m["legal"]) and any(len(c["options"]) > 1 for c in m["view"].get("hand") or ())


def _fight(match: dict[str, Any], rnd: random.Random) -> str:
    """Attacks first and takes every hit: the positions with wounds, nets and fire come soon."""
    legal = match["legal"]
    if "accept" in legal:
        return "accept"
    attacks = [m for m in legal if m.startswith("play:") and m.split(":")[2] in ATTACKS]
    if attacks and rnd.random() < 0.8:
        return rnd.choice(attacks)
    return any_move(match, rnd)


def _wound_the_dragon(match: dict[str, Any], rnd: random.Random) -> str:
    """The dwarves attack, the dragon only walks and never blocks: the dragon's scales fill and
    the wounds beyond them are for the dwarf player to place."""
    legal = match["legal"]
    if "accept" in legal:
        return "accept"
    plays = [m for m in legal if m.startswith("play:")]
    if match["view"]["viewer_role"] == "dwarves":
        attacks = [m for m in plays if m.split(":")[2] in ATTACKS - {"net"}]
        if attacks:
            return rnd.choice(attacks)
    elif plays:
        calm = [m for m in plays if m.split(":")[2] not in ATTACKS]
        if calm and "draw" not in legal:
            return rnd.choice(calm)
    return any_move(match, rnd)


def _playing(*options: str) -> Any:
    """Plays a card for one of ``options`` whenever one is in hand, else any move."""

    def policy(match: dict[str, Any], rnd: random.Random) -> str:
        if "accept" in match["legal"]:
            return "accept"
        plays = [m for m in match["legal"] if m.startswith("play:") and m.split(":")[2] in options]
        return rnd.choice(plays) if plays else any_move(match, rnd)

    return policy


def _keep(match: dict[str, Any], rnd: random.Random) -> str:
    return "keep" if "keep" in match["legal"] else any_move(match, rnd)


PHASES: dict[str, tuple[Until, Any, dict[str, Any], tuple[str, ...]]] = {
    "place": (_offers("place:"), _keep, {"dwarf_setup": "free", "hand_exchange": True}, ("place:",)),
    "exchange": (_offers("exchange"), any_move, {"hand_exchange": True}, ("exchange",)),
    "cards": (_has_dual_card, any_move, {}, ("play:",)),
    "walk": (_offers("to:"), _playing("move", "fly", "move1", "move2"), {}, ("to:",)),
    "pick": (lambda m: _offers("dwarf:")(m) or _offers("target:")(m), _fight, {}, ("dwarf:", "target:")),
    "fire": (_offers("dir:"), _playing("fire"), {}, ("dir:",)),
    "wounds": (_offers("wound:"), _wound_the_dragon, {}, ("wound:",)),
    "defend": (_offers("accept"), _fight, {}, ("accept",)),
}
"""A position per kind of legal target: how to recognise it, how to get there, the match's
options, and the moves its targets carry."""


@pytest.fixture(scope="module")
def positions(server: Server) -> dict[str, tuple[int, User]]:
    studio = Studio(server.base_url, seed=21)
    users = studio.users("fela", "felb")
    found: dict[str, tuple[int, User]] = {}
    # "stroll": a walk of its own, for the test that walks (the others only look).
    for name, (until, policy, options, _) in [*PHASES.items(), ("stroll", PHASES["walk"])]:
        # Hands are dealt at random: a match may end before the position comes; then another.
        for _attempt in range(5):
            match_id = studio.match("felsental", users, options)
            actor = studio.play(match_id, users, 400, policy=policy, until=until)
            if actor is not None and until(studio.view(match_id, actor)):
                found[name] = (match_id, actor)
                break
        else:
            raise AssertionError(f"no match reached the position {name!r}")
    return found


@pytest.fixture
def open_page(browser: Any, server: Server) -> Iterator[Callable[..., Any]]:
    contexts: list[Any] = []

    def open_(path: str, user: User | None, viewport: dict[str, int], locale: str = "en") -> Any:
        context = browser.new_context(viewport=viewport, locale="de-DE" if locale == "de" else "en-US")
        contexts.append(context)
        if user is not None:
            log_in(context, server.base_url, user.name, locale)
        page = context.new_page()
        page.goto(f"{server.base_url}{path}")
        expect(page.locator(".fels-valley")).to_be_visible()
        return page

    yield open_
    for context in contexts:
        context.close()


PIECES = """() => {
    const uses = el => [...el.querySelectorAll('use')].map(u => u.getAttribute('href'));
    const pieces = [...document.querySelectorAll('.fels-valley [data-piece]')];
    return pieces.map(el => ({piece: el.dataset.piece, uses: uses(el), shape: el.dataset.shape || null,
                              box: (r => [r.width, r.height])(el.getBoundingClientRect())}));
}"""

SILHOUETTES = """async ([sprite, names]) => {
    // Each dwarf drawn alone in one colour, black on nothing: what is left is its outline. The
    // symbols are drawn around (0, 0), about 50 units across: centred and scaled to the canvas.
    const text = await (await fetch(sprite)).text();
    const symbols = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement.innerHTML;
    const size = 96;
    const masks = [];
    for (const name of names) {
        const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}">`
            + `<style>*{fill:#000!important;stroke:#000!important;fill-opacity:1!important}</style>`
            + `<defs>${symbols}</defs><g transform="translate(${size / 2} ${size / 2}) scale(${size / 56})">`
            + `<use href="#${name}"/></g></svg>`;
        const img = new Image();
        img.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(svg);
        await img.decode();
        const canvas = document.createElement('canvas');
        canvas.width = canvas.height = size;
        const ctx = canvas.getContext('2d');
        ctx.drawImage(img, 0, 0);
        const data = ctx.getImageData(0, 0, size, size).data;
        const mask = [];
        for (let i = 3; i < data.length; i += 4) mask.push(data[i] > 127 ? 1 : 0);
        masks.push(mask);
    }
    // For each pair: the share of the two outlines' union that only one of them covers.
    const apart = [];
    for (let a = 0; a < masks.length; a++) for (let b = a + 1; b < masks.length; b++) {
        let union = 0, only = 0;
        for (let i = 0; i < masks[a].length; i++) {
            if (masks[a][i] || masks[b][i]) union++;
            if (masks[a][i] !== masks[b][i]) only++;
        }
        apart.push({pair: [names[a], names[b]], share: only / union, union});
    }
    return apart;
}"""

TARGETS = """() => [...document.querySelectorAll('#match-area [data-move]')]
    .filter(el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; })
    .map(el => { const r = el.getBoundingClientRect();
                 return {move: el.dataset.move, cls: el.getAttribute('class'), w: r.width, h: r.height}; })"""

CARDS = """() => [...document.querySelectorAll('.fels-hand .fcard')].map(card => {
    const options = [...card.querySelectorAll('.option:not(.discard)')];
    const box = el => (r => ({top: r.top, bottom: r.bottom, left: r.left, right: r.right}))(
        el.getBoundingClientRect());
    return {
        dual: card.classList.contains('dual'),
        options: options.map(o => {
            const icon = o.querySelector('svg.opt-icon use');
            const word = o.querySelector('.opt-word');
            const svg = o.querySelector('svg.opt-icon');
            const ib = svg && svg.getBoundingClientRect();
            return {cls: o.getAttribute('class'), icon: icon && icon.getAttribute('href'),
                    iconPx: ib ? Math.min(ib.width, ib.height) : 0,
                    word: word ? word.textContent.trim() : '', box: box(o)};
        }),
        divider: [...card.querySelectorAll('.fcard-or')]
            .map(d => ({box: box(d), text: d.textContent.trim()})),
    };
})"""


def test_the_valley_is_drawn_from_the_sprite_and_every_piece_is_addressable(
    positions: dict[str, tuple[int, User]], open_page: Callable[..., Any], server: Server
) -> None:
    match_id, actor = positions["wounds"]
    page = open_page(f"/matches/{match_id}", None, DESKTOP)
    pieces = page.evaluate(PIECES)
    by_id = {p["piece"]: p for p in pieces}
    assert len(by_id) == len(pieces), [p["piece"] for p in pieces]  # no id twice in the valley

    hexes = [p for p in pieces if p["piece"].startswith("hex-")]
    assert len(hexes) == 19
    for h in hexes:
        assert any(u.startswith(f"{SPRITE}#rock-") for u in h["uses"]), h
    assert f"{SPRITE}#dragon" in by_id["dragon"]["uses"]
    view = actor.get(f"/api/matches/{match_id}")["view"]
    alive = [d["name"] for d in view["dwarves"] if d["hex"]]
    assert alive, "every dwarf is dead in the wound position"
    for name in alive:
        figure = by_id[f"dwarf-{name}"]
        assert f"{SPRITE}#{name}" in figure["uses"], figure
        assert min(figure["box"]) >= 30, figure  # a figure, not a dot
    # The net, when thrown, is a token of its own on the dragon; otherwise beside the tableau.
    token = "token-net" in by_id
    assert token == view["netted"]
    assert page.locator('.fels-dwarf-tableau [data-piece="token-fury"]').count() == 1
    assert page.locator('.fels [data-piece="token-net"]').count() == 1
    # Wounds are markers: a wound token per wounded field, with an id of its own.
    wounded = sum(d["wounds"] for d in view["dwarves"]) + sum(t["wounds"] for t in view["dragon"]["tracks"])
    markers = page.locator(f'.fels-tableaus use.field.wounded[href="{SPRITE}#wound"][data-piece^="wound-"]')
    assert wounded > 0 and markers.count() == wounded

    # The drawings are not in the answer: the board carries positions and <use> references.
    html = page.locator("#match-area .fels").evaluate("el => el.outerHTML")
    assert "<symbol" not in html and "<path" not in html, "art inlined into the answer"
    sprite = httpx.get(f"{server.base_url}{SPRITE}")
    assert sprite.status_code == 200 and sprite.headers["content-type"].startswith("image/svg+xml")
    for name in ("rim", "dragon", *DWARVES, "wound", "net", "fury"):
        assert f'id="{name}"' in sprite.text, name


def test_the_three_dwarves_differ_by_shape_not_only_by_colour(
    positions: dict[str, tuple[int, User]], open_page: Callable[..., Any]
) -> None:
    match_id, _ = positions["cards"]
    page = open_page(f"/matches/{match_id}", None, DESKTOP)
    shapes = {
        d: page.locator(f'.fels-valley [data-piece="dwarf-{d}"]').get_attribute("data-shape") for d in DWARVES
    }
    assert len(set(shapes.values())) == 3, shapes
    for pair in page.evaluate(SILHOUETTES, [SPRITE, list(DWARVES)]):
        assert pair["union"] > 1500, pair  # each is a figure of some size
        # A fifth of their outlines at least is one dwarf's only (the plates alone differ so).
        assert pair["share"] > 0.2, pair


def test_cards_show_an_icon_with_a_word_and_a_dual_card_has_its_halves_apart(
    positions: dict[str, tuple[int, User]], open_page: Callable[..., Any]
) -> None:
    match_id, actor = positions["cards"]
    for viewport, locale in ((DESKTOP, "en"), (PHONE, "de")):
        page = open_page(f"/matches/{match_id}", actor, viewport, locale)
        cards = page.evaluate(CARDS)
        assert cards
        for card in cards:
            for option in card["options"]:
                assert option["icon"] and option["icon"].startswith(f"{SPRITE}#i-"), option
                assert option["iconPx"] >= 14 and option["word"], option
            if not card["dual"]:
                assert len(card["options"]) == 1 and not card["divider"], card
        duals = [c for c in cards if c["dual"]]
        assert duals, "the position was chosen for a dual card"
        for card in duals:
            top, bottom = card["options"]
            (divider,) = card["divider"]
            assert divider["text"] == ("oder" if locale == "de" else "or")
            # The halves are apart: the divider lies between them and neither touches it.
            assert top["box"]["bottom"] <= divider["box"]["top"], card
            assert divider["box"]["bottom"] <= bottom["box"]["top"], card
            assert bottom["box"]["top"] - top["box"]["bottom"] >= 8, card
            assert top["icon"] != bottom["icon"] or top["word"] != bottom["word"], card


@pytest.mark.parametrize("phase", list(PHASES))
def test_every_legal_target_is_at_least_32_px_on_a_phone(
    positions: dict[str, tuple[int, User]], open_page: Callable[..., Any], phase: str
) -> None:
    match_id, actor = positions[phase]
    page = open_page(f"/matches/{match_id}", actor, PHONE)
    targets = page.evaluate(TARGETS)
    assert any(t["move"].startswith(PHASES[phase][3]) for t in targets), targets
    small = [t for t in targets if t["w"] < MIN_TARGET_PX or t["h"] < MIN_TARGET_PX]
    assert targets and not small, small


def test_a_dwarf_keeps_its_piece_id_when_it_walks(
    positions: dict[str, tuple[int, User]], open_page: Callable[..., Any], server: Server
) -> None:
    match_id, actor = positions["stroll"]
    view = actor.get(f"/api/matches/{match_id}")["view"]
    play = view["play"]
    walker = "dragon" if play["selected"] is None else f"dwarf-{play['selected']}"
    page = open_page(f"/matches/{match_id}", actor, DESKTOP)
    figure = page.locator(f'.fels-valley [data-piece="{walker}"]')
    expect(figure).to_have_count(1)
    before = figure.get_attribute("transform")
    target = page.locator(".fels-valley g.target[data-move^='to:']").first
    hex_id = str(target.get_attribute("data-move"))[3:]
    target.click()
    expect(page.locator(f'.fels-valley [data-piece="hex-{hex_id}"]')).to_have_count(1)
    expect(figure).not_to_have_attribute("transform", before or "")
    expect(figure).to_have_count(1)
    hex_at = page.locator(f'.fels-valley [data-piece="hex-{hex_id}"]').get_attribute("transform")
    assert figure.get_attribute("transform") == hex_at
