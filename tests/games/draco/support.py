"""Small helpers to build Draco positions for tests (through the position string)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from app.engine.protocol import Event, Game, Move
from app.engine.rng import Rng
from app.engine.selfplay import derive_seed, play_random_game
from app.games.draco.board import ALL_CARDS, DRAGON_BY_ID, DRAGONS
from app.games.draco.notation import format_cards, parse_cards, parse_position
from app.games.draco.state import DracoState

RNG_SEED = derive_seed("draco-tests", 0)


def rng() -> Rng:
    return Rng(RNG_SEED)


def position(
    *,
    hands: list[str],
    piles: list[str],
    at: dict[str, int] | None = None,
    scores: list[int] | None = None,
    active: int = 0,
    phase: str = "play",
    play: str = "-",
    deck: str | None = None,
) -> DracoState:
    """A state with the given hands and piles (card codes like ``R3``), dragons placed by id.

    The draw pile gets every card not named (in a fixed order) unless ``deck`` is given.
    """
    players = len(hands)
    positions = [0] * len(DRAGONS)
    for dragon, space in (at or {}).items():
        positions[DRAGON_BY_ID[dragon].index] = space
    named = Counter(c for text in [*hands, *piles] for c in parse_cards(text or "-"))
    if play != "-" and phase == "mount":
        named.update(parse_cards(play.split(":")[0]))
    if deck is None:
        rest = Counter(ALL_CARDS) - named
        deck = format_cards(tuple(sorted(rest.elements())))
    text = " ".join(
        [
            "draco",
            str(players),
            f"a={active}",
            f"ph={phase}",
            "pos=" + ",".join(map(str, positions)),
            "sc=" + ",".join(map(str, scores or [0] * players)),
            "h=" + "/".join(sorted_cards(h) for h in hands),
            "p=" + "/".join(p or "-" for p in piles),
            f"d={deck or '-'}",
            f"pl={play}",
        ]
    )
    return parse_position(text)


def sorted_cards(text: str) -> str:
    return format_cards(tuple(sorted(parse_cards(text or "-"))))


def m(text: str) -> Move:
    return Move.parse(text)


def rearranged(state: DracoState, viewer: int | None) -> DracoState:
    """The same public state with everything hidden from ``viewer`` dealt differently."""
    others = [s for s in range(state.players) if s != viewer]
    pool = list(state.deck)
    for s in others:
        pool.extend(state.hands[s])
        pool.extend(state.piles[s][:-1])
    if viewer is not None:
        pool.extend(state.piles[viewer][:-1])
    pool = pool[::-1]
    pool = pool[7:] + pool[:7]
    hands = list(state.hands)
    piles = list(state.piles)
    for s in others:
        hands[s] = tuple(sorted(pool[: len(state.hands[s])]))
        del pool[: len(state.hands[s])]
    for s in range(state.players):
        if s == viewer or s in others:
            below = len(state.piles[s]) - 1
            piles[s] = (*pool[:below], state.piles[s][-1])
            del pool[:below]
    return replace(state, hands=tuple(hands), piles=tuple(piles), deck=tuple(pool))


# --- self-play with every transition checked ---------------------------------------------------


def check_transition(before: DracoState, seat: int, move: Move, after: DracoState) -> None:
    """Spec §4, restated independently of the rules module: score changes, draws, riders, movement."""
    track = before.track
    if move.action == "play":
        card = parse_cards(DRAGON_BY_ID[move.args[0]].code + move.args[1])[0]
        moved = [i for i in range(len(DRAGONS)) if before.positions[i] != after.positions[i]]
        expected = min(before.positions[card.dragon_index] + card.value, len(track) - 1)
        assert after.positions[card.dragon_index] == expected
        assert set(moved) <= {card.dragon_index}
        assert len(after.hands[seat]) == len(before.hands[seat]) - 1
    else:
        assert after.positions == before.positions
    changed = [s for s in range(before.players) if before.piles[s][-1] != after.piles[s][-1]]
    assert set(changed) <= {seat}, "only the active player can change dragons"
    resolved = move.action in ("play", "mount") and after.phase.value in ("discard", "ending")
    if resolved:
        play = after.play
        assert play is not None
        kind = track[play.target].kind.value
        first_summit = kind == "red" and track[play.origin].kind.value != "red"
        expected_scores = list(before.scores)
        if kind in ("blue", "green") or first_summit:
            for s in range(before.players):
                value = track[after.positions[after.piles[s][-1].dragon_index]].value
                gain = 0 if kind == "blue" and value > 3 else value
                expected_scores[s] += gain if before.scores[s] + gain >= 0 else 0
        assert list(after.scores) == expected_scores, "scores follow the scoring rules"
        assert play.scored == (kind in ("blue", "green") or first_summit)
    else:
        assert after.scores == before.scores, "scores change only at a scoring"
    if move.action == "confirm" and before.phase.value == "discard":
        assert before.play is not None
        kept = before.play.scored and before.hands[seat]
        assert len(after.hands[seat]) == (len(before.hands[seat]) if kept else 6)
        assert after.active == (seat + 1) % before.players


def checked_game() -> Game:
    """Draco with ``apply`` checking every transition (used by self-play)."""
    from app.games.draco import DRACO, rules

    def apply(state: DracoState, seat: int, move: Move, rng: Rng) -> tuple[DracoState, list[Event]]:
        after, events = rules.apply(state, seat, move, rng)
        check_transition(state, seat, move, after)
        return after, events

    return replace(DRACO, apply=apply)


def play_batch(players: int, seeds: range) -> tuple[int, int]:
    """Play complete random games (undo now and then), invariants after every decision."""
    game = checked_game()
    decisions = 0
    for seed in seeds:
        decisions += play_random_game(game, players, seed=seed, undo_every=5).decisions
    return len(seeds), decisions
