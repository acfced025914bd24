// Search guided by a policy network (net.hpp): a determinized PUCT search in the style of
// AlphaZero / Expert Iteration, for agents/netsearch.py (NetworkSearch) and
// MCTSAgent(policy="network").  Per iteration:
//
//   0. determinize: a full state consistent with what the searching seat knows (the
//      Determinizer of mcts.hpp: hidden hands, 9-Sages cards and deck orders redrawn);
//   1. selection in one tree shared by all determinizations whose nodes are only the
//      searching seat's decisions: PUCT  Q + c_puct * P * sqrt(N) / (1 + n)  over the actions
//      legal in this determinization, the priors P renormalised over them, N the visits of
//      those edges, an unvisited edge valued at the node's network value less fpu_reduction;
//      the other seats' decisions are played in each determinization by the network, sampled
//      from its masked softmax at opponent_temperature (0: its argmax), forced decisions
//      skipped (Game.apply);
//   2. expansion of one new node: the network's logits on the seat's observation
//      (encode_observation) are kept, so its prior over whatever is legal in a later
//      determinization is their softmax over those actions, and the critic is its value;
//   3. optionally rollout_steps decisions played by the network (every seat, at
//      opponent_temperature) or the heuristic before the critic is read;
//   4. the leaf value for the searching seat: a finished game's real result (its win share),
//      else the critic mapped from the training return scale ([-1, 1], loss to win) to a win
//      estimate (v + 1) / 2 clipped to [0, 1] (a policy without a critic: the logistic VP
//      margin of evaluate_seat); backed up along the path.
//
// Root: with avoid_curse the search runs under allow_overbid=false and plays only curse-free
// actions (curse_free, as MctsSearch); optional Dirichlet noise (root_noise = alpha) mixed
// into the root prior with weight noise_fraction; the move is the most visited root edge
// (ties: the better mean, then the higher prior), or sampled from visits^(1/temperature) when
// temperature > 0.  Every iteration visits one root edge, so the root visits sum to the
// iterations (except a determinization where no allowed root action is legal, which the
// rules do not produce: it spends an iteration without a visit).
//
// Budgets, clock and interrupts are MctsSearch's (SearchClock): iterations, or seconds
// (returns within twice it), every search capped at max_seconds.  All random draws come from
// one PyRandom seeded by the caller and the network is deterministic, so the search is
// deterministic for a seed and an iteration budget.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "data.hpp"
#include "heuristic.hpp"
#include "mcts.hpp"
#include "net.hpp"
#include "state.hpp"

namespace zav {

enum class NetRollout { NONE, NETWORK, HEURISTIC };

// NetworkSearch's parameters; the defaults are generated from its constructor
// (agents/netsearch.py, ZAV_NETMCTS_DEFAULTS: iterations, seconds (0: none), c_puct,
// fpu_reduction, root_noise, noise_fraction, temperature, opponent_temperature, rollout,
// rollout_steps, avoid_curse).
struct NetMctsParams {
#define ZAV_NETMCTS_PARAM(declaration, default_value) declaration = default_value;
  ZAV_NETMCTS_DEFAULTS(ZAV_NETMCTS_PARAM)
#undef ZAV_NETMCTS_PARAM
  double max_seconds = MCTS_MAX_SECONDS;  // the hard cap of every search
  std::function<bool()> interrupted;      // polled about every 10 ms when set
  bool profile = false;                   // time the parts of the search (NetMctsProfile)
};

struct NetMctsResult {
  int action = -1;
  long long iterations = 0;
  bool interrupted = false;
  double value = 0.5;                // the root's mean value for the seat, in [0, 1]
  int visits[NUM_ACTIONS] = {};      // root visit counts per action
  // Mean value of each visited root action for the seat, in [0, 1] (0 where unvisited):
  // the action values an expert-iteration target is built from (train/exit/selfplay.py).
  double q[NUM_ACTIONS] = {};
};

// Seconds spent in each part of the last profiled search (NetMctsParams::profile).
struct NetMctsProfile {
  double determinize = 0, encode = 0, forward = 0, rules = 0, total = 0;
  long long forwards = 0;
};

class NetMctsSearch : SearchBase {
 public:
  // Throws std::invalid_argument for a state without a pending decision, a seat that is not
  // the deciding one, an action outside `legal` of the state, or a network whose sizes are
  // not the observation's and the action table's.
  NetMctsResult search(const GameState& real, int seat, const int* legal, int n_legal,
                       const Network& net, const NetMctsParams& params,
                       const HeuristicWeights& w, uint64_t seed);
  const NetMctsProfile& profile() const { return prof_; }
  std::size_t num_nodes() const { return nodes_.size(); }

 private:
  struct Node {
    int first_edge = -1;
    int last_edge = -1;
    double value = 0.5;  // the network's win estimate when the node was made
  };
  struct Edge {
    int action;
    int child;  // -1 until the edge is first followed
    int next;
    int visits;
    double total;
  };

  int new_node(const GameState& s);  // a node with the network's logits and value on s
  bool iterate(int root_round);      // false: dropped (out of time)
  int select(int node, bool root);   // PUCT among legal_ (root: the allowed ones)
  int network_choose(const GameState& s, int seat, double temperature);
  double leaf_value(const GameState& s);  // the critic (or the heuristic) for root_seat_
  double estimate(const GameState& s) const;  // value_ as a win estimate (or the heuristic)
  double result_value(const GameState& s) const;  // a finished game's win share
  bool rollout(double* value);       // rollout_steps decisions, then the leaf value
  void forward(const GameState& s, int seat, bool with_value);  // into logits_, value_
  void apply(int action);
  double gamma_draw(double alpha);   // Marsaglia-Tsang, for the Dirichlet noise

  std::vector<Node> nodes_;
  std::vector<float> node_logits_;  // NUM_ACTIONS per node
  std::vector<Edge> edges_;
  std::vector<int> path_;           // edges followed this iteration
  const NetMctsParams* p_ = nullptr;
  const Network* net_ = nullptr;
  bool allowed_[NUM_ACTIONS] = {};  // the root actions that may be played
  double noise_[NUM_ACTIONS] = {};  // the root's Dirichlet noise (0 without)
  bool has_noise_ = false;
  std::vector<float> obs_;
  float logits_[NUM_ACTIONS];
  float value_ = 0.0f;
  NetMctsProfile prof_;
};

// The calling thread's searcher.
NetMctsSearch& thread_net_searcher();

}  // namespace zav
