// The rules engine: the C++ twin of flow.py, turn.py, auction.py, economy.py, knowledge.py,
// scoring.py, supply.py and the Game driver of game.py.  Same legal actions (ascending), same
// state after every action, same random draws in the same order as the Python engine.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#ifndef ZAV_NO_PYBIND  // defined by pure C++ builds (benchmarks, profilers)
#include <pybind11/pybind11.h>
#endif

#include "data.hpp"
#include "queries.hpp"
#include "state.hpp"

namespace zav {

// ---- economy.py --------------------------------------------------------------------------------
// dust_chits(amount): chit counts (1, 2, 5, 10) for amount in the fewest hand-limit slots.
void dust_chits(int amount, bool one_value_dust, int out[NUM_DUST_CHITS]);
int gain_dust(PlayerState& player, int amount, bool one_value_dust);
void return_token(GameState& state, int token, int count);
// choose_payment: counts per token that pay amount; returns false if the hand cannot pay.
bool choose_payment(const int* hand, int amount, bool one_value_dust, int chosen[NUM_TOKENS]);
int settle(GameState& state, PlayerState& player);
int enforce_hand_limit(GameState& state, PlayerState& player, int limit);

// ---- supply.py, knowledge.py, scoring.py -------------------------------------------------------
void build_decks(GameState& state);
int draw_card(GameState& state, int colour);
void raise_level(GameState& state, PlayerState& player, int field);
void rescore(GameState& state);
// scoring.winners: seats with the most VP among players still in the game; returns the count.
int winners(const GameState& state, int out[MAX_PLAYERS]);

// ---- flow.py -----------------------------------------------------------------------------------
// new_state(config, seed) with a generator already seeded (random.Random(seed)), e.g. copied from
// another one: seeding is the dearest part of a new game.
void new_state(GameState& state, const Config& config, const PyRandom& seeded);
// The pending decision is `phase`'s, taken by `seat` (-1: nobody decides).
inline void set_phase(GameState& state, int phase, int seat) {
  state.phase = phase;
  state.current_player = seat;
}
void start_round(GameState& state);
void end_turn(GameState& state);
int alive_count(const GameState& state);

// ---- turn.py, auction.py -----------------------------------------------------------------------
// Legal actions of the pending decision, ascending, into out (capacity NUM_ACTIONS); returns the
// count.  0 when the game is over or stopped at a round end (Game.legal_actions).
int legal_actions(const GameState& state, int* out);
// One decision (Game._step): the phase's apply, decision count, max_decisions truncation and the
// ROUND_END continuation.  The action must be legal.
void step(GameState& state, int action, bool stop_at_round_end);
// Game._skip_forced: take decisions with exactly one legal action (option skip_forced_decisions),
// leaving the legal actions of the resulting state in legal_out (capacity NUM_ACTIONS); returns
// their count.
int skip_forced(GameState& state, bool stop_at_round_end, int* legal_out);

}  // namespace zav

// What a Python zavandor_env.engine._native.Core holds: the state plus a cache of its legal
// actions (valid while legal_valid).  bind_observe.cpp reads it with py::cast<Core&>(obj).s.
struct Core {
  zav::GameState s;
  int legal[zav::NUM_ACTIONS];
  int nlegal = 0;
  bool legal_valid = false;

  // The legal actions of the current state (cached).
  int refresh_legal() {
    if (!legal_valid) {
      nlegal = zav::legal_actions(s, legal);
      legal_valid = true;
    }
    return nlegal;
  }
  // Game._skip_forced after a change to the state, refilling the cache on the way.
  void skip_forced_and_cache(bool stop_at_round_end) {
    nlegal = zav::skip_forced(s, stop_at_round_end, legal);
    legal_valid = true;
  }
  bool is_legal(int action) {
    const int n = refresh_legal();
    return std::find(legal, legal + n, action) != legal + n;
  }
  // Game.apply for a legal action: record it, the decision, then the forced ones.
  void apply(int action, bool stop_at_round_end) {
    s.history.push_back(action);
    zav::step(s, action, stop_at_round_end);
    skip_forced_and_cache(stop_at_round_end);
  }
  // Game.advance at a round end: the next round, then its forced decisions.
  void advance(bool stop_at_round_end) {
    zav::start_round(s);
    skip_forced_and_cache(stop_at_round_end);
  }
  // A new game from a seeded generator (random.Random(seed)), as Game.new.
  void new_game(const zav::Config& config, const zav::PyRandom& seeded) {
    zav::new_state(s, config, seeded);
    skip_forced_and_cache(false);
  }
  // Uniformly random legal actions (legal[randbelow(len)] from rng) until the game is over or
  // max_decisions (< 0: no limit) are taken, through round ends; returns the decisions taken.
  long long play_random(zav::PyRandom& rng, long long max_decisions) {
    long long taken = 0;
    while (max_decisions < 0 || taken < max_decisions) {
      if (s.phase == zav::ROUND_END) {
        advance(false);
        continue;
      }
      const int n = refresh_legal();
      if (n == 0) break;
      apply(legal[rng.randbelow(static_cast<uint64_t>(n))], false);
      ++taken;
    }
    return taken;
  }
};

namespace zav {
using ::Core;

// The native benchmarks (bench.cpp): uniformly random games, one per seed (the game and its
// random player seeded alike), returning the decisions taken; recorded games replayed
// `repeats` times with every action checked against the legal ones, returning the decisions
// applied (-1: a game does not replay); `count` copies of a core into a ring of eight.
long long bench_random_games(const Config& config, const std::vector<std::vector<uint32_t>>& seeds);
long long bench_replay_games(const Config& config, const std::vector<std::vector<uint32_t>>& seeds,
                             const std::vector<std::vector<int>>& actions, long long repeats);
long long bench_clone_ring(const Core& core, long long count);
}

#ifndef ZAV_NO_PYBIND
// The C++ state of a Core argument from the caller: a one-line TypeError if it is not a Core.
inline const zav::GameState& checked_core_state(const pybind11::object& core) {
  try {
    return pybind11::cast<const Core&>(core).s;
  } catch (const pybind11::cast_error&) {
    throw pybind11::type_error("expected a zavandor_env.engine._native.Core");
  }
}

// A core's legal actions as a Python tuple (Core.legal_actions, VecLearner.legal_actions).
inline pybind11::tuple legal_tuple(Core& c) {
  const int n = c.refresh_legal();
  pybind11::tuple t(n);
  for (int i = 0; i < n; ++i) t[i] = pybind11::int_(c.legal[i]);
  return t;
}

// The number of legal actions of a core's pending decision (now in core.legal); a one-line
// ValueError if none is pending.
inline int pending_decision(Core& c) {
  const zav::GameState& s = c.s;
  if (s.terminated || s.truncated || s.phase == zav::GAME_OVER || s.phase == zav::ROUND_END)
    throw pybind11::value_error(
        "no decision is pending (the game is over or stopped at a round end)");
  int n = c.refresh_legal();
  if (n <= 0) throw pybind11::value_error("no decision is pending (no legal action)");
  return n;
}
#endif
