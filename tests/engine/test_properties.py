"""Properties that must hold in every game, checked over 1,000 seeded games of 2-6 players.

Half the games are played by the thrifty policy (they reach the real end, >= 5 sentinels) and
half by uniform random play (the economy collapses: debts, gem sales, truncation), because
each reaches rules the other rarely does.  Every decision of every game is checked for
conservation and non-negativity (cheap checks); a sample of decisions is checked for all 67
actions (masked-in ones apply on a clone, masked-out ones raise and leave the state as it was).
Every fourth game is replayed from (config, seed, actions); every fourth game (another
quarter) is continued from a clone and from a JSON copy taken mid-game.  About one game in
six flips each rule option from its default, so the options (the affordability filter
``allow_overbid=False``, 1-value dust, split blocks, forced decisions asked...) meet the same
checks; the other games may overbid, so the Curse of the 9 Sages strikes in them.

Games are split into chunks by seed so that ``pytest -n 2`` spreads them over the workers.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import chain

import pytest

from tests.policies import POLICIES, play
from zavandor_env.engine import (
    NUM_ACTIONS,
    Game,
    GameConfig,
    IllegalActionError,
    Phase,
)
from zavandor_env.engine.data import (
    ARTIFACTS,
    CARD_TOKEN_INDEX,
    CONC_TOKEN0,
    CONCENTRATED_PER_COLOUR,
    COPIES_BY_PLAYERS,
    ENERGY_DECKS,
    GEM_SUPPLY,
    MAX_LEVEL,
    MAX_RUBIES,
    NUM_CARD_TOKENS,
    NUM_COLOURS,
    SENTINELS_TO_END,
    TOKEN_COLOUR,
    Gem,
)
from zavandor_env.engine.queries import active_slots, liquid
from zavandor_env.engine.scoring import gem_vp, victory_points
from zavandor_env.engine.state import ITEM_ARTIFACT, ITEM_SENTINEL

# Every test here runs on the core and on the oracle (tests/conftest.py).
pytestmark = pytest.mark.core_and_oracle

GAMES = 1000
CHUNKS = 20
GAMES_PER_CHUNK = GAMES // CHUNKS
RULE_OPTIONS = (
    "no_split_blocks",
    "druid_l3_ruby",
    "sages_dust_substitution",
    "allow_overbid",
    "one_value_dust",
    "catchup_small_games",
    "skip_forced_decisions",
    "no_undo_activation",
)
OPTION_FLIP_RATE = 1 / 6
UNIFORM_MAX_ROUNDS = 25  # uniform games collapse early; later rounds add time, not coverage
FULL_MASK_EVERY = 40  # decisions between two all-67-actions checks
RARE_CHECKS = 2  # ... plus the first decisions of each rare kind (debt, free level, lost gem)

# How many cards of each token exist (the 21 energy-card values).
CARD_COUNTS = [0] * NUM_CARD_TOKENS
for _colour, _deck in enumerate(ENERGY_DECKS):
    for _value, _count in _deck.items():
        CARD_COUNTS[CARD_TOKEN_INDEX[(_colour, _value)]] = _count


def game_setup(seed: int) -> tuple[GameConfig, str]:
    """Player count, rule options and policy of the game with this seed: 2-6 players evenly,
    policies alternating in runs of five seeds so each player count meets both policies, and
    each rule option flipped from its base value in about one game in six.

    The base is the default, except that uniform games start from the affordability filter:
    a uniform player overbids in almost every auction, so under the rules' default those games
    end by the Curse within a round or two and never reach debts and gem sales.  Thrifty
    players never overbid, so the Curse is met in the uniform games that flip the filter off.
    """
    num_players = 2 + seed % 5
    kind = "thrifty" if (seed // 5) % 2 == 0 else "uniform"
    base: dict[str, bool] = {"allow_overbid": False} if kind == "uniform" else {}
    options: dict[str, object] = {"max_rounds": UNIFORM_MAX_ROUNDS} if kind == "uniform" else {}
    options.update(base)
    rng = random.Random(f"options {seed}")
    for name in RULE_OPTIONS:
        if rng.random() < OPTION_FLIP_RATE:
            options[name] = not base.get(name, getattr(GameConfig, name))
    return GameConfig(num_players=num_players, **options), kind  # type: ignore[arg-type]


# ---- invariants ------------------------------------------------------------------------------
def check_conservation(game: Game) -> None:
    """Gems, energy cards (per value) and concentrated cards are neither made nor lost;
    artifacts and sentinels are where exactly one place says they are."""
    s = game.state
    players = s.players
    owned = [sum(col) for col in zip(*(p.active for p in players), *(p.inactive for p in players))]
    assert [a + b for a, b in zip(s.gem_supply, owned)] == list(GEM_SUPPLY), "gems"
    held = [sum(col) for col in zip(*(p.hand for p in players))]
    cards = Counter(chain(*s.decks, *s.discards, *(p.sages_tokens for p in players)))
    assert [cards[t] + held[t] for t in range(NUM_CARD_TOKENS)] == CARD_COUNTS, "energy cards"
    for c in range(NUM_COLOURS):
        assert all(TOKEN_COLOUR[t] == c for t in chain(s.decks[c], s.discards[c])), c
        conc = s.concentrated_supply[c] + held[CONC_TOKEN0 + c]
        assert conc == CONCENTRATED_PER_COLOUR, ("concentrated", c)
    # A cursed player's artifacts leave the game (impossible with the affordability filter).
    if not any(p.eliminated for p in players):
        arts = Counter(chain(s.display, s.artifact_deck))
        owned_arts = [sum(col) for col in zip(*(p.artifacts for p in players))]
        copies = COPIES_BY_PLAYERS[game.num_players]
        assert all(arts[a] + owned_arts[a] == copies for a in range(len(ARTIFACTS))), "artifacts"
    for seat, p in enumerate(players):
        assert sorted(p.sentinels) == [
            i for i, owner in enumerate(s.sentinel_owner) if owner == seat
        ], ("sentinels", seat)


def check_non_negative(game: Game) -> None:
    """No count or resource is ever negative; levels, rubies and active gems stay in range."""
    s = game.state
    for seq in (s.gem_supply, s.concentrated_supply):
        assert min(seq) >= 0, seq
    for p in s.players:
        for seq in (p.active, p.inactive, p.hand, p.artifacts):
            assert min(seq) >= 0, (p.seat, seq)
        assert 0 <= min(p.levels) and max(p.levels) <= MAX_LEVEL, p.levels
        assert p.pentagon_chips >= 0 and p.sages_dust >= 0 and p.vp >= 0 and p.gem_vp >= 0
        assert sum(p.active) <= active_slots(p), (p.seat, p.active)
        assert p.active[Gem.RUBY] + p.inactive[Gem.RUBY] <= MAX_RUBIES
        # Outside the turn player's running balance and an auction winner's debt, every
        # balance is settled.
        if p.seat not in (s.turn_player, s.debtor):
            assert p.balance == 0, (p.seat, p.balance)
    if s.phase == Phase.TURN:
        assert liquid(s.players[s.turn_player]) >= 0


def check_scores(game: Game) -> None:
    """The VP recorded at phase 4 equal a recount from scratch."""
    for p in game.state.players:
        assert p.vp == victory_points(p), (p.seat, p.vp, victory_points(p))
        assert p.gem_vp == (0 if p.eliminated else gem_vp(p))


def check_purchases(game: Game) -> None:
    """The record of purchases accounts for every artifact and sentinel a seat owns (they
    come only from auctions), with prices the rules allow, in round order."""
    s = game.state
    rounds = [r[0] for r in s.purchases]
    assert rounds == sorted(rounds) and all(1 <= r <= s.round for r in rounds)
    for seat, p in enumerate(s.players):
        mine = [r for r in s.purchases if r[1] == seat]
        arts = Counter(item for _, _, kind, item, _, _ in mine if kind == ITEM_ARTIFACT)
        assert [arts[a] for a in range(len(ARTIFACTS))] == p.artifacts, seat
        assert sorted(p.sentinels) == sorted(
            item for _, _, kind, item, _, _ in mine if kind == ITEM_SENTINEL
        ), seat
        assert all(0 <= price <= bid + 20 for *_, bid, price in mine), mine
    if not s.config.allow_overbid:  # with the filter nobody is ever cursed
        assert not any(p.eliminated for p in s.players)


def check_all_actions(game: Game) -> None:
    """Every masked-in action applies (on a clone); every masked-out one raises
    IllegalActionError on the game itself and leaves it exactly as it was."""
    legal = game.legal_actions()
    mask = game.action_mask()
    assert len(mask) == NUM_ACTIONS and [a for a in range(NUM_ACTIONS) if mask[a]] == list(legal)
    if game.config.skip_forced_decisions:
        assert len(legal) >= 2  # forced decisions are taken by the engine
    for action in legal:
        copy = game.clone()
        copy.apply(action)
        check_conservation(copy)
    before = game.to_json()
    for action in range(NUM_ACTIONS):
        if action not in legal:
            with pytest.raises(IllegalActionError):
                game.apply(action)
    # One comparison covers every masked-out attempt: a change by any would persist.
    assert game.to_json() == before
    assert game.legal_actions() == legal


# ---- one checked game --------------------------------------------------------------------------
def play_checked(seed: int) -> Game:
    config, kind = game_setup(seed)
    game = Game.new(config, seed=seed)
    rng = random.Random(seed)
    offset = rng.randrange(FULL_MASK_EVERY)
    fork_at = rng.randrange(200) if seed % 4 == 1 else -1
    forks: list[Game] = []
    rare_checked: Counter[Phase] = Counter()
    last_round = game.state.round
    step = 0

    def on_decision(g: Game) -> None:
        nonlocal last_round, step
        assert not g.is_over and g.current_player >= 0
        legal = g.legal_actions()
        assert legal and list(legal) == sorted(set(legal))
        check_conservation(g)
        check_non_negative(g)
        if g.state.round != last_round:  # a phase 4 happened since the last decision
            check_scores(g)
            last_round = g.state.round
        phase = g.phase
        rare = phase in (Phase.DEBT, Phase.FREE_LEVEL, Phase.LOSE_GEM)
        if step % FULL_MASK_EVERY == offset or (rare and rare_checked[phase] < RARE_CHECKS):
            check_all_actions(g)
            rare_checked[phase] += 1
        if step == fork_at:
            forks.extend((g.clone(), Game.from_json(g.to_json())))
        step += 1

    actions = play(game, POLICIES[kind](seed), on_decision)
    assert game.is_over and game.terminated != game.truncated
    assert game.legal_actions() == () and game.current_player == -1
    check_conservation(game)
    check_non_negative(game)
    alive = [p.seat for p in game.state.players if not p.eliminated]
    if game.terminated:
        owned = sum(o != -1 for o in game.state.sentinel_owner)
        assert owned >= SENTINELS_TO_END or len(alive) <= 1  # the Curse can end it early
        best = max(game.scores()[s] for s in alive)
        assert game.winners() == [s for s in alive if game.scores()[s] == best]
    else:
        capped = game.state.num_decisions >= config.max_decisions
        assert game.state.round == config.max_rounds or capped
        assert game.winners() == []
    if game.state.num_decisions < config.max_decisions:
        # The game ended in a phase 4, or mid-turn by the Curse, which recounts the VP too.
        check_scores(game)
    check_purchases(game)
    final = game.to_json()
    if forks:
        for fork in forks:
            for action in actions[fork_at:]:
                fork.apply(action)
            assert fork.to_json() == final
    if seed % 4 == 0:
        assert Game.replay(config, seed, actions).to_json() == final
    return game


# The fast tier plays the first FAST_CHUNKS chunks (every player count, both policies, every
# rule option flipped in some game); the slow tier plays the other games of the 1000.
FAST_CHUNKS = 1


@pytest.mark.parametrize("chunk", [c if c < FAST_CHUNKS else pytest.param(c, marks=pytest.mark.slow)
                                   for c in range(CHUNKS)])
def test_invariants_hold_in_random_games(chunk: int) -> None:
    outcomes: Counter[tuple[str, bool]] = Counter()
    for seed in range(chunk * GAMES_PER_CHUNK, (chunk + 1) * GAMES_PER_CHUNK):
        game = play_checked(seed)
        _, kind = game_setup(seed)
        outcomes[kind, game.terminated] += 1
    # Thrifty games must reach the real end (else the late game goes untested); uniform
    # games are allowed to collapse into truncation.
    thrifty = outcomes["thrifty", True] + outcomes["thrifty", False]
    assert outcomes["thrifty", True] >= 0.9 * thrifty, outcomes


def test_same_seed_gives_same_game() -> None:
    for num_players in range(2, 7):
        config = GameConfig(num_players=num_players)
        a, b = Game.new(config, seed=11), Game.new(config, seed=11)
        assert a.to_json() == b.to_json()
        play(a, POLICIES["thrifty"](3))
        play(b, POLICIES["thrifty"](3))
        assert a.to_json() == b.to_json() and a.history == b.history
        assert Game.new(config, seed=12).to_json() != Game.new(config, seed=11).to_json()


def test_game_ends_within_max_decisions() -> None:
    # The filter keeps uniform players from being cursed out of the game before decision 50.
    game = Game.new(GameConfig(num_players=3, max_decisions=50, allow_overbid=False), seed=5)
    play(game, POLICIES["uniform"](5))
    assert game.truncated and not game.terminated and game.state.num_decisions == 50
