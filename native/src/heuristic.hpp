// The rule-based player of zavandor_env/agents/heuristic.py in C++: the same decisions, bit for
// bit (same double operations in the same order, Python's max/min tie rules, the iteration order
// of the Python set of legal actions).  The Python module stays the readable reference; its
// docstring explains the valuations.  tests/test_native_heuristic.py holds the two equal.
//
// The Python heuristic decides from a PlayerView; this port reads the GameState directly, for the
// viewing seat, and only what that view exposes (own hand; public facts of the other seats).
#pragma once

#include <utility>
#include <vector>

#include "state.hpp"

namespace zav {

// agents/heuristic.py HeuristicWeights, field for field (energy units unless stated).  Python
// floats and ints are both held as doubles: the heuristic only adds, multiplies, divides and
// compares small numbers, where the two give identical results.  Built from the Python
// dataclass (bind_heuristic.cpp: HeuristicWeights(resolve_weights(...).to_dict())); there are
// deliberately no defaults here.
struct HeuristicWeights {
  // expected_rounds: the Python dict {num_players: rounds}, in insertion order (ints).
  std::vector<std::pair<long long, long long>> expected_rounds;
  // The number fields, in the dataclass's order (generated from its field list).
#define ZAV_WEIGHT_MEMBER(name) double name = 0.0;
  ZAV_HEURISTIC_WEIGHTS(ZAV_WEIGHT_MEMBER)
#undef ZAV_WEIGHT_MEMBER

  // w.expected_rounds.get(n, DEFAULT_EXPECTED_ROUNDS)
  long long expected_rounds_for(long long n) const {
    for (const auto& kv : expected_rounds)
      if (kv.first == n) return kv.second;
    return DEFAULT_EXPECTED_ROUNDS;
  }
};

// heuristic.choose for seat `seat` (the deciding player, s.current_player), given the legal
// actions of the pending decision in the engine's (ascending) order.  n_legal must be >= 1.
int heuristic_choose(const GameState& s, int seat, const HeuristicWeights& w, const int* legal,
                     int n_legal);

// NoviceAgent.act: with the given generator, on a TURN decision draw random() < blunder and
// then a uniformly random legal action (randrange), else the heuristic.
int novice_choose(const GameState& s, int seat, const HeuristicWeights& w, const int* legal,
                  int n_legal, double blunder, PyRandom& rng);

// The valuations (heuristic.py's module-level functions), for tests and other search code.
// `viewer` is the seat of the PlayerView; `p` the seat valued (the viewer or an opponent).
namespace heur {
double horizon(const GameState& s, const HeuristicWeights& w);
double gem_value(int gem, double r, const HeuristicWeights& w);
double slot_value(const GameState& s, int p, double r, const HeuristicWeights& w);
double level_gain(const GameState& s, int p, int f, int new_level, double r,
                  const HeuristicWeights& w);
double field_plan_value(const GameState& s, int p, int f, double r, const HeuristicWeights& w,
                        bool free);
double artifact_value(const GameState& s, int p, int art, double r, const HeuristicWeights& w);
double sentinel_value(const GameState& s, int p, int sen, double r, const HeuristicWeights& w);
double item_value(const GameState& s, int p, int kind, int item, double r,
                  const HeuristicWeights& w);
double bid_limit(const GameState& s, int viewer, int kind, int item, const HeuristicWeights& w);
int storable(const GameState& s, int viewer);
int excess(const GameState& s, int viewer);
int spend_budget(const GameState& s, int viewer);
}  // namespace heur

}  // namespace zav
