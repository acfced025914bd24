// The rule-based player of zavandor_env/agents/heuristic.py in C++: the same decisions, bit for
// bit (same double operations in the same order, Python's max/min tie rules, the iteration order
// of the Python set of legal actions).  The Python module stays the readable reference; its
// docstring explains the valuations.  tests/agents/test_agents_heuristic.py plays it.  Split by role:
// heuristic_values.cpp (the valuations, namespace heur) and heuristic.cpp (the decisions).
//
// The Python heuristic decides from a PlayerView; this port reads the GameState directly, for the
// viewing seat, and only what that view exposes (own hand; public facts of the other seats).
#pragma once

#include <array>
#include <limits>
#include <utility>
#include <vector>

#include "data.hpp"
#include "state.hpp"

namespace zav {

// agents/heuristic.py HeuristicWeights, field for field (energy units unless stated).  Python
// floats and ints are both held as doubles: the heuristic only adds, multiplies, divides and
// compares small numbers, where the two give identical results.  Built from the Python
// dataclass (bind_bots.cpp: HeuristicWeights(resolve_weights(...).to_dict())); there are
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

// The valuations (heuristic.py's module-level functions) that the decisions (heuristic.cpp)
// and MCTS's evaluation read; heuristic_values.cpp has the others.  `viewer` is the seat of the
// PlayerView; `p` the seat valued (the viewer or an opponent).
namespace heur {
double horizon(const GameState& s, const HeuristicWeights& w);
double gem_value(int gem, double r, const HeuristicWeights& w);
double field_plan_value(const GameState& s, int p, int f, double r, const HeuristicWeights& w,
                        bool free);
double item_value(const GameState& s, int p, int kind, int item, double r,
                  const HeuristicWeights& w);
double bid_limit(const GameState& s, int viewer, int kind, int item, const HeuristicWeights& w);
int excess(const GameState& s, int viewer);
int spend_budget(const GameState& s, int viewer);
}  // namespace heur

// ---- shared by the two halves of the heuristic (heuristic_values.cpp, heuristic.cpp) -----
inline constexpr double NEG_INF = -std::numeric_limits<double>::infinity();

// Python's two-argument max/min: the first argument unless the second is strictly beyond it.
inline double pymax(double a, double b) { return b > a ? b : a; }
inline double pymin(double a, double b) { return b < a ? b : a; }
inline int pymin_i(int a, int b) { return b < a ? b : a; }

}  // namespace zav
