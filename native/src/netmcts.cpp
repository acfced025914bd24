// The network-guided PUCT search; see netmcts.hpp.
#include "netmcts.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "engine.hpp"
#include "observe.hpp"
#include "queries.hpp"

namespace zav {

namespace {

using Clock = std::chrono::steady_clock;

// Adds the seconds since `since` to `*into` when profiling (one clock read otherwise none).
struct Timer {
  bool on;
  double* into;
  Clock::time_point since;
  Timer(bool enabled, double* target) : on(enabled), into(target) {
    if (on) since = Clock::now();
  }
  ~Timer() {
    if (on) *into += std::chrono::duration<double>(Clock::now() - since).count();
  }
};

// Logistic VP margin of seat (MctsSearch::evaluate for an unfinished game), the leaf value of
// a policy without a critic.
double heuristic_value(const GameState& s, int seat, const HeuristicWeights& w) {
  const int n = s.config.num_players;
  const double mine = evaluate_seat(s, seat, w);
  double best_other = -std::numeric_limits<double>::infinity();
  for (int o = 0; o < n; ++o)
    if (o != seat) best_other = std::max(best_other, evaluate_seat(s, o, w));
  const double z = std::max(-50.0, std::min(50.0, (mine - best_other) / 5.0));
  return 1.0 / (1.0 + std::exp(-z));
}

}  // namespace

void NetMctsSearch::forward(const GameState& s, int seat, bool with_value) {
  {
    Timer t(p_->profile, &prof_.encode);
    encode_observation(s, seat, obs_.data());
  }
  Timer t(p_->profile, &prof_.forward);
  net_->forward(obs_.data(), logits_, with_value ? &value_ : nullptr);
  ++prof_.forwards;
}

void NetMctsSearch::apply(int action) {
  Timer t(p_->profile, &prof_.rules);
  nlegal_ = apply_skipping_forced(work_, action, legal_);
}

int NetMctsSearch::new_node(const GameState& s) {
  forward(s, root_seat_, true);
  Node node;
  node.value = estimate(s);
  nodes_.push_back(node);
  node_logits_.insert(node_logits_.end(), logits_, logits_ + NUM_ACTIONS);
  return static_cast<int>(nodes_.size()) - 1;
}

double NetMctsSearch::result_value(const GameState& s) const {
  if (!s.terminated) return 0.0;  // truncated: a loss for everyone (the training reward)
  int w[MAX_PLAYERS];
  const int nw = winners(s, w);
  for (int k = 0; k < nw; ++k)
    if (w[k] == root_seat_) return 1.0 / nw;
  return 0.0;
}

double NetMctsSearch::leaf_value(const GameState& s) {
  if (is_over(s)) return result_value(s);
  if (net_->has_value()) forward(s, root_seat_, true);
  return estimate(s);
}

double NetMctsSearch::estimate(const GameState& s) const {
  if (!net_->has_value()) return heuristic_value(s, root_seat_, *w_);
  return std::max(0.0, std::min(1.0, (static_cast<double>(value_) + 1.0) / 2.0));
}

int NetMctsSearch::network_choose(const GameState& s, int seat, double temperature) {
  forward(s, seat, false);
  if (temperature <= 0) {  // greedy: the first best in legal order
    int best = legal_[0];
    for (int i = 1; i < nlegal_; ++i)
      if (logits_[legal_[i]] > logits_[best]) best = legal_[i];
    return best;
  }
  double probs[NUM_ACTIONS];
  masked_softmax(logits_, legal_, nlegal_, temperature, probs);
  double u = rng_.random();
  for (int i = 0; i < nlegal_; ++i) {
    u -= probs[i];
    if (u < 0) return legal_[i];
  }
  return legal_[nlegal_ - 1];
}

bool NetMctsSearch::rollout(double* value) {
  for (int k = 0; k < p_->rollout_steps && !is_over(work_) && nlegal_ > 0; ++k) {
    if (clock_.must_stop()) return false;
    const int seat = work_.current_player;
    int action;
    if (p_->rollout == NetRollout::HEURISTIC) {
      Timer t(p_->profile, &prof_.rules);
      action = heuristic_choose(work_, seat, *w_, legal_, nlegal_);
    } else {
      action = network_choose(work_, seat, p_->opponent_temperature);
    }
    apply(action);
  }
  *value = leaf_value(work_);
  return true;
}

int NetMctsSearch::select(int node, bool root) {
  const float* logits = &node_logits_[static_cast<std::size_t>(node) * NUM_ACTIONS];
  int cand[NUM_ACTIONS];
  int nc = 0;
  for (int i = 0; i < nlegal_; ++i)
    if (!root || allowed_[legal_[i]]) cand[nc++] = legal_[i];
  if (nc == 0) return -1;
  double prior[NUM_ACTIONS];
  masked_softmax(logits, cand, nc, 1.0, prior);
  if (root && has_noise_) {
    double total = 0;
    for (int i = 0; i < nc; ++i) total += noise_[cand[i]];
    const double f = p_->noise_fraction;
    for (int i = 0; i < nc; ++i)
      prior[i] = (1 - f) * prior[i] + (total > 0 ? f * noise_[cand[i]] / total : f / nc);
  }
  for (int e = nodes_[node].first_edge; e >= 0; e = edges_[e].next) slot_[edges_[e].action] = e;
  long long n_total = 0;
  for (int i = 0; i < nc; ++i)
    if (slot_[cand[i]] >= 0) n_total += edges_[slot_[cand[i]]].visits;
  const double sqrt_n = std::sqrt(static_cast<double>(std::max(1LL, n_total)));
  const double fpu = nodes_[node].value - p_->fpu_reduction;
  int best = cand[0];
  double best_score = -std::numeric_limits<double>::infinity();
  for (int i = 0; i < nc; ++i) {
    const int a = cand[i];
    const int e = slot_[a];
    const int n = e >= 0 ? edges_[e].visits : 0;
    const double q = n > 0 ? edges_[e].total / n : fpu;
    const double score = q + p_->c_puct * prior[i] * sqrt_n / (1.0 + n);
    if (score > best_score) {
      best_score = score;
      best = a;
    }
  }
  int edge = slot_[best];
  for (int e = nodes_[node].first_edge; e >= 0; e = edges_[e].next) slot_[edges_[e].action] = -1;
  if (edge < 0) edge = append_edge(nodes_, edges_, node, Edge{best, -1, -1, 0, 0.0});
  return edge;
}

bool NetMctsSearch::iterate(int /*root_round*/) {
  {
    Timer t(p_->profile, &prof_.determinize);
    det_.sample(rng_, work_);
  }
  {
    Timer t(p_->profile, &prof_.rules);
    nlegal_ = legal_actions(work_, legal_);
  }
  path_.clear();
  int node = 0;
  double value = -1;
  while (value < 0) {
    if (is_over(work_) || nlegal_ == 0) {
      value = leaf_value(work_);
      break;
    }
    const int seat = work_.current_player;
    if (seat != root_seat_) {  // the opponent model: the network, no node
      if (clock_.must_stop()) return false;
      apply(network_choose(work_, seat, p_->opponent_temperature));
      continue;
    }
    if (node < 0) {  // a new node: its prior and value from the network, then the leaf
      const int parent_edge = path_.back();
      node = new_node(work_);
      edges_[parent_edge].child = node;
      if (p_->rollout != NetRollout::NONE && p_->rollout_steps > 0) {
        if (!rollout(&value)) return false;
      } else {
        value = nodes_[node].value;
      }
      break;
    }
    const int edge = select(node, node == 0);
    if (edge < 0) {  // no allowed root action is legal in this determinization
      value = leaf_value(work_);
      break;
    }
    path_.push_back(edge);
    node = edges_[edge].child;
    apply(edges_[edge].action);
  }
  for (int e : path_) {
    edges_[e].visits += 1;
    edges_[e].total += value;
  }
  return true;
}

double NetMctsSearch::gamma_draw(double alpha) {
  // Marsaglia & Tsang (2000); alpha < 1 via Gamma(alpha + 1) * U^(1 / alpha).
  const double boost = alpha < 1 ? std::pow(std::max(rng_.random(), 1e-300), 1.0 / alpha) : 1.0;
  const double a = alpha < 1 ? alpha + 1 : alpha;
  const double d = a - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    // A standard normal by Box-Muller.
    const double u1 = std::max(rng_.random(), 1e-300), u2 = rng_.random();
    const double x = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    const double v = std::pow(1.0 + c * x, 3);
    if (v <= 0) continue;
    const double u = rng_.random();
    if (std::log(std::max(u, 1e-300)) < 0.5 * x * x + d - d * v + d * std::log(v))
      return d * v * boost;
  }
}

NetMctsResult NetMctsSearch::search(const GameState& real, int seat, const int* legal,
                                    int n_legal, const Network& net,
                                    const NetMctsParams& params, const HeuristicWeights& w,
                                    uint64_t seed) {
  const auto start = Clock::now();
  if (net.obs_dim() != OBS_SIZE || net.num_actions() != NUM_ACTIONS)
    throw std::invalid_argument(
        "netmcts_search: the network takes " + std::to_string(net.obs_dim()) +
        " observations and gives " + std::to_string(net.num_actions()) +
        " actions; the game has " + std::to_string(OBS_SIZE) + " and " +
        std::to_string(NUM_ACTIONS));
  if (!observation_scale_ready())
    throw std::logic_error("netmcts_search: the native observation encoder has no layout "
                           "(importing zavandor_env.encoding.observation installs it)");
  int allowed[NUM_ACTIONS];
  const int n_allowed =
      begin("netmcts_search", real, seat, legal, n_legal, params.avoid_curse, w, seed, allowed);
  p_ = &params;
  net_ = &net;
  prof_ = NetMctsProfile{};
  obs_.resize(OBS_SIZE);
  NetMctsResult result;
  std::fill(std::begin(allowed_), std::end(allowed_), false);
  for (int i = 0; i < n_allowed; ++i) allowed_[allowed[i]] = true;
  nodes_.clear();
  node_logits_.clear();
  edges_.clear();
  // The root: the seat's observation is the same in every determinization (it holds only
  // what the seat knows), so its prior and value come from the real state.
  new_node(base_);
  auto best_prior = [&]() {
    int best = allowed[0];
    for (int i = 1; i < n_allowed; ++i)
      if (node_logits_[allowed[i]] > node_logits_[best]) best = allowed[i];
    return best;
  };
  result.value = nodes_[0].value;
  // Nothing to search, or nothing allowed legal in the searched game (see MctsSearch::search).
  if (n_allowed == 1 || !any_legal_in_base(allowed, n_allowed)) {
    result.action = best_prior();
    return result;
  }
  det_.prepare(base_, seat);
  has_noise_ = params.root_noise > 0 && params.noise_fraction > 0;
  std::fill(std::begin(noise_), std::end(noise_), 0.0);
  if (has_noise_)
    for (int i = 0; i < n_allowed; ++i) noise_[allowed[i]] = gamma_draw(params.root_noise);
  clock_.start(start, params.seconds, params.max_seconds, &params.interrupted);
  while (!clock_.over(params.iterations) && iterate(real.round)) ++clock_.done;
  result.iterations = clock_.done;
  result.interrupted = clock_.interrupted();

  long long visits_total = 0;
  double value_total = 0;
  int best = -1, best_visits = 0;
  double best_mean = 0.0;
  const float* root_logits = node_logits_.data();
  for (int e = nodes_[0].first_edge; e >= 0; e = edges_[e].next) {
    const Edge& edge = edges_[e];
    result.visits[edge.action] = edge.visits;
    if (edge.visits > 0) result.q[edge.action] = edge.total / edge.visits;
    visits_total += edge.visits;
    value_total += edge.total;
    if (edge.visits == 0 || !allowed_[edge.action]) continue;
    const double mean = edge.total / edge.visits;
    if (best < 0 || edge.visits > best_visits ||
        (edge.visits == best_visits &&
         (mean > best_mean ||
          (mean == best_mean && root_logits[edge.action] > root_logits[best])))) {
      best = edge.action;
      best_visits = edge.visits;
      best_mean = mean;
    }
  }
  result.value = visits_total > 0 ? value_total / visits_total : nodes_[0].value;
  if (best >= 0 && params.temperature > 0) {
    // Sampled in proportion to visits^(1/T) (self-play exploration), in edge order.
    double weight[NUM_ACTIONS];
    double total = 0;
    const double inv_t = 1.0 / params.temperature;
    for (int a = 0; a < NUM_ACTIONS; ++a) {
      weight[a] = allowed_[a] && result.visits[a] > 0
                      ? std::exp(inv_t * std::log(static_cast<double>(result.visits[a]) /
                                                  best_visits))
                      : 0.0;
      total += weight[a];
    }
    double u = rng_.random() * total;
    for (int a = 0; a < NUM_ACTIONS; ++a) {
      if (weight[a] <= 0) continue;
      best = a;
      u -= weight[a];
      if (u < 0) break;
    }
  }
  result.action = best >= 0 ? best : best_prior();
  if (params.profile)
    prof_.total = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

NetMctsSearch& thread_net_searcher() {
  thread_local NetMctsSearch searcher;
  return searcher;
}

}  // namespace zav
