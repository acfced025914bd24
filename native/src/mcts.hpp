// Monte Carlo search in C++: the algorithms of agents/mcts.py (MCTSAgent), with the
// determinizer of zavandor_env/engine/determinize.py, on the native rules engine and a native
// scripted policy (the heuristic, heuristic.hpp, or naive / the planner, naive.hpp).  agents/mcts.py stays the readable reference; its module docstring
// explains the algorithms.  Both start each iteration with
//
//   0. determinize: a full state consistent with what the searching seat knows (the other
//      seats' card values and 9-Sages cards and every deck order redrawn, the artifact deck
//      reshuffled within its letters, the generator reseeded).
//
// "flat" (MctsParams::flat, MCTSAgent's default): every allowed root action is played out from each
// determinization (the policy's choice first), then the rollout policy for every seat; the
// best mean reward wins if its paired advantage over the policy's choice is significant
// (switch_z standard errors, min_pairs samples), else the policy's choice stays.
//
// "tree" (IS-MCTS), per iteration:
//   1. selection in one tree shared by all determinizations: UCB1 over the actions legal in
//      this determinization, with availability counts, plus a progressive bias
//      prior_weight / (n + 1) for the policy's choice (with policy_opponents, only the
//      searching seat's decisions are nodes; the others play the policy);
//   2. expansion of one untried action (the policy's choice when untried, else a random
//      one);
//   3. rollout (the rollout policy or uniformly random for every seat), truncated once
//      horizon_rounds further rounds have begun;
//   4. evaluation (win share and logistic VP margin of a finished game; logistic margin of
//      evaluate_seat otherwise), each edge keeping the reward of the seat that chose it.
//   The most visited root action wins (ties: the better mean, then the first expanded).
//
// Random draws come from one zav::PyRandom seeded by the caller, in the Python agent's order
// (determinization, expansion tie-break, random rollouts, naive's and the planner's coin
// flips), so the search is deterministic for
// a seed and an iteration budget, and gets the Python search's root statistics.
//
// Hidden information: the search takes the real state and the searching seat, and reads of
// the other seats' hands and 9-Sages cards only how many cards of each colour they hold, of
// the energy decks only their sizes, of the artifact deck only the letter at each position
// and which artifacts it holds (its order is canonicalised before the shuffle, so a fixed seed
// gives the same sample whatever the hidden order), and never the real generator.
//
// Storage: one flat arena of nodes and edges (indices, no per-node containers), kept by the
// MctsSearch object and reused from search to search.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "data.hpp"
#include "heuristic.hpp"
#include "naive.hpp"
#include "state.hpp"

namespace zav {

// The hard caps on one decision's budget, MCTS_MAX_ITERATIONS and MCTS_MAX_SECONDS
// (agents/mcts.py MAX_ITERATIONS, MAX_SECONDS), are generated (generated/constants.hpp): larger
// budgets are refused, and no search runs longer than max_seconds of wall time, whatever its
// budget, so that a spec from a stranger cannot tie the machine up.

// MCTSAgent's search parameters.  The defaults are MCTSAgent's constructor defaults,
// generated from agents/mcts.py (ZAV_MCTS_DEFAULTS: iterations, seconds, horizon_rounds, c,
// prior_weight, eval_scale, avoid_curse, flat (algorithm), switch_z, min_pairs,
// policy_opponents (opponent_model), max_depth, policy).
struct MctsParams {
#define ZAV_MCTS_PARAM(declaration, default_value) declaration = default_value;
  ZAV_MCTS_DEFAULTS(ZAV_MCTS_PARAM)
#undef ZAV_MCTS_PARAM
  // iterations: per decision, when seconds <= 0.
  // seconds > 0: wall-clock budget (steady_clock), overrides iterations.  New playouts start
  // until it is spent (the first one always); a playout still running at twice the budget, or
  // once it is spent and another has completed, is dropped, so a timed search returns
  // within twice its budget plus the setup.
  // The hard wall-clock cap of every search (iteration budgets too): a playout running then
  // is dropped and the search returns what it has.
  double max_seconds = MCTS_MAX_SECONDS;
  // Polled about every 10 ms between and inside playouts when set: true
  // stops the search at once (MctsResult::interrupted).  The binding checks for Ctrl-C.
  std::function<bool()> interrupted;
  // policy: the scripted player the search is built around: its choice is the prior (flat:
  // kept unless beaten; tree: the progressive bias and the first expansion) and, with
  // policy_opponents, it plays the other seats.  The rollouts are played by
  // rollout_policy (MCTSAgent's rollout=None: the policy), or uniformly at random with
  // random_rollout.  PLANNER reads `planner`.  Naive and planner draw their coin flips from
  // the search's generator.
  ScriptedPolicy rollout_policy = policy;
  PlannerParams planner;
  bool random_rollout = false;  // rollout "random"
  // horizon_rounds: truncate rollouts after this many round boundaries (<= 0: never).
  // c: tree: UCB exploration constant.  prior_weight: tree: progressive bias towards the
  // policy's choice.  eval_scale: VP lead that maps to a win estimate of about 0.73.
  // avoid_curse: search under allow_overbid=false, choose curse-free actions.
  // flat: algorithm "flat" (true) or "tree" (false).  Flat: no tree.  Each determinization is
  // played out once from every allowed root action (common random numbers: the same sample,
  // the same generator; the policy's choice first), everyone playing the rollout policy
  // afterwards; an iteration is one such playout.  The best mean wins, but the policy's own
  // choice is kept unless the best one beats it, on the paired differences of the same
  // samples, by more than switch_z standard errors, over at least min_pairs samples.
  // policy_opponents: tree: the opponent model.  false ("search"): every seat's decisions are
  // tree nodes, chosen by UCB; true ("policy"): only the searching seat's decisions are tree
  // nodes, the other seats play the policy in every determinization.
  // max_depth: tree: at most this many tree edges per iteration (<= 0: unlimited; 1: only the
  // root's actions are searched, everything after them is rollout).
};

struct MctsResult {
  int action = -1;
  long long iterations = 0;
  bool interrupted = false;  // params.interrupted said stop: action is the best so far
};

// determinize.py for one (state, seat): everything that does not depend on the draw is
// computed once (the unseen cards per colour, the owing seats, the conservation check).
class Determinizer {
 public:
  // Throws std::invalid_argument if the state breaks card conservation (determinize.py's
  // ValueError).  `base` is the state every sample starts from (the real state, possibly
  // with config changes such as allow_overbid=false).
  void prepare(const GameState& base, int seat);
  // A sample into out (assigned from base: reuses out's storage), drawing from rng.
  void sample(PyRandom& rng, GameState& out) const;

 private:
  const GameState* base_ = nullptr;
  int seat_ = 0;
  std::vector<int> unseen_[NUM_COLOURS];
  std::vector<int> owing_;         // seats != seat with balance > 0, ascending
  std::vector<int> deal_order_;    // the other seats, owing ones first (stable)
  // The artifact deck: per letter present (sorted), its positions and its items (sorted).
  std::vector<std::vector<int>> letter_positions_;
  std::vector<std::vector<int>> letter_items_;
};

// When a search must stop, shared by MctsSearch and NetMctsSearch (netmcts.hpp): with a
// wall-clock budget (seconds > 0) playouts start until it is spent (the first one always) and
// one still running is dropped once it is spent and another has completed, or at twice the
// budget; every search stops at max_seconds; `interrupted`, when set, is polled about every
// 10 ms and stops the search at once.
class SearchClock {
 public:
  // Starts the clock of a search begun at `start`; `interrupted` (may be null or empty) must
  // outlive the search.
  void start(std::chrono::steady_clock::time_point start, double seconds, double max_seconds,
             const std::function<bool()>* interrupted);
  bool must_stop();
  // must_stop(), or (without a wall-clock budget) `iterations` playouts done.
  bool over(long long iterations) { return must_stop() || (!timed_ && done >= iterations); }
  bool interrupted() const { return interrupted_; }
  long long done = 0;  // playouts completed in this search

 private:
  const std::function<bool()>* poll_ = nullptr;
  bool timed_ = false;
  bool interrupted_ = false;
  std::chrono::steady_clock::time_point soft_deadline_, hard_deadline_, next_poll_;
};

// Game.apply on a search's state: the decision, then (with skip_forced_decisions) every
// forced one; writes the next legal actions into `legal` and returns their count.
int apply_skipping_forced(GameState& s, int action, int* legal);

// What both searches (MctsSearch, NetMctsSearch) hold and do alike.
class SearchBase {
 protected:
  // The start of a search for seat `seat` (the deciding player) of `real` over `legal` (the
  // actions the caller allows, each legal in `real`; std::invalid_argument naming `who`
  // otherwise): writes the allowed ones (with avoid_curse only the curse-free ones,
  // agents/mcts.py curse_free) into `allowed` and returns their count; sets base_ (history
  // dropped, allow_overbid off with avoid_curse), w_, root_seat_, the generator and slot_.
  int begin(const char* who, const GameState& real, int seat, const int* legal, int n_legal,
            bool avoid_curse, const HeuristicWeights& w, uint64_t seed, int* allowed);
  // Whether any of `actions` is legal in base_.
  bool any_legal_in_base(const int* actions, int n) const;
  // Game.apply: the decision, then the forced ones; leaves the next legal actions in legal_.
  void apply(int action) { nlegal_ = apply_skipping_forced(work_, action, legal_); }
  // Appends `edge` to the edge list of nodes[node]; returns its index.
  template <class Node, class Edge>
  static int append_edge(std::vector<Node>& nodes, std::vector<Edge>& edges, int node,
                         const Edge& edge) {
    const int e = static_cast<int>(edges.size());
    edges.push_back(edge);
    Node& n = nodes[node];
    if (n.last_edge < 0)
      n.first_edge = e;
    else
      edges[n.last_edge].next = e;
    n.last_edge = e;
    return e;
  }

  GameState base_;  // the real state as searched (history dropped, config adjusted)
  GameState work_;  // the determinization being played
  Determinizer det_;
  PyRandom rng_;
  SearchClock clock_;  // stopping (must_stop), and the playouts completed (clock_.done)
  const HeuristicWeights* w_ = nullptr;
  int root_seat_ = 0;
  int legal_[NUM_ACTIONS];
  int nlegal_ = 0;
  int slot_[NUM_ACTIONS];  // action -> edge of the node being visited (-1: none)
};

// MCTSAgent.search for seat `seat` (the deciding player) of `real` over `legal` (the actions
// the caller allows: legal in `real`, e.g. curse-filtered).  With params.avoid_curse, `legal`
// is also reduced to the curse-free ones (agents/mcts.py curse_free) before the search.
class MctsSearch : SearchBase {
 public:
  MctsResult search(const GameState& real, int seat, const int* legal, int n_legal,
                    const MctsParams& params, const HeuristicWeights& w, uint64_t seed);

 private:
  struct Node {
    int first_edge;  // edges in insertion order (a singly linked list through Edge::next)
    int last_edge;
  };
  struct Edge {
    int action;
    int child;  // node index
    int next;   // next edge of the same parent, -1 at the end
    int visits;
    int avail;  // how often the action was legal when its parent was visited
    double total;  // reward sum of the seat that chose it
  };
  struct Step {
    int edge;
    int seat;
  };

  // The choice of scripted player `who` for `seat` of `s` (always one of `legal`).
  int policy_choose(ScriptedPolicy who, const GameState& s, int seat, const int* legal, int n);
  // One tree iteration; false if it was dropped (must_stop() during its rollout).
  bool iterate(int root_round);
  MctsResult flat_search(int seat, const int* allowed, int n_allowed, int root_round);
  // Plays work_ on to the horizon or the end; false if it was dropped (must_stop()).  A
  // position without a legal action (the rules never reach one, a broken state might) ends
  // it early, scored like a truncated rollout.
  bool rollout(int root_round);
  void evaluate(double* rewards) const;
  // UCB1 among the current legal actions, all of which have an edge (indexed by slot_).
  int select(int prior) const;
  int add_edge(int node, int action);

  std::vector<Node> nodes_;
  std::vector<Edge> edges_;
  std::vector<Step> path_;
  GameState sample_;  // flat: the determinization every root action is played from
  const MctsParams* p_ = nullptr;
};

// One search with the calling thread's searcher (its arena is reused from search to search).
MctsResult mcts_search(const GameState& real, int seat, const int* legal, int n_legal,
                       const MctsParams& params, const HeuristicWeights& w, uint64_t seed);

// agents/mcts.py evaluate_seat: VP now plus the economy converted at vp_energy.
double evaluate_seat(const GameState& s, int seat, const HeuristicWeights& w);

}  // namespace zav
