// The naive player (zavandor_env/agents/naive.py, sozav's computer player) and the planner
// (zavandor_env/agents/planner.py, built on naive's bookkeeping) in C++: the same decisions,
// bit for bit, drawing the same numbers from the same generator.  The Python modules stay the
// readable references; their docstrings explain every step and every mapping onto our actions.
// tests/agents/test_agents_scripted.py plays them.
//
// Like heuristic.hpp, this reads the GameState directly, for the deciding seat, and only what
// its PlayerView exposes.  Used by MCTS (rollouts and the opponent model) and exposed to Python
// as NativeNaive / NativePlanner (bind_bots.cpp).  naive_decision.hpp holds NaiveDecision,
// naive.cpp the planner on top of it and these entry points.
#pragma once

#include <array>
#include <vector>

#include "heuristic.hpp"
#include "state.hpp"

namespace zav {

// agents/planner.py PlannerParams, resolved to indices (agents.planner.native_planner_params
// converts the dataclass; there are deliberately no defaults here).
struct PlannerParams {
  int gem_cap = 0;                // the best gem kind it buys
  std::vector<int> field_order;   // knowledge_order as field indices, distinct
  int artifacts_first_round = 1;  // from this round on, artifacts come before knowledge
  std::array<double, MAX_PLAYERS + 1> artifact_bid_factor{};  // by number of players (2..6)
  double sentinel_bid_factor = 0.0;
};

// NaiveAgent.decide / PlannerAgent.decide for seat `seat` (the deciding player) over the legal
// actions of the pending decision.  The result may (in principle) be illegal: the agents' act()
// adds the fallback, see agent_act.
int naive_decide(const GameState& s, int seat, const int* legal, int n_legal, PyRandom& rng);
int planner_decide(const GameState& s, int seat, const PlannerParams& params, const int* legal,
                   int n_legal, PyRandom& rng);

// NaiveAgent.act around a decision: the action if legal, else end turn, pass or the first legal
// action (and *fell_back = true).
int agent_act(int decision, const int* legal, int n_legal, bool* fell_back);

// The rule-based players MCTS can roll out with or model the other seats by.
enum class ScriptedPolicy : int { HEURISTIC = 0, NAIVE = 1, PLANNER = 2 };

// The action of scripted player `who` for `seat` (the deciding player) of `s`: heuristic_choose
// with `w`, or naive / the planner (with `planner`) drawing from `rng`, through agent_act
// (*fell_back: its fallback was played; always false for the heuristic).
int scripted_choose(ScriptedPolicy who, const GameState& s, int seat, const HeuristicWeights& w,
                    const PlannerParams& planner, const int* legal, int n, PyRandom& rng,
                    bool* fell_back);

}  // namespace zav
