// IS-MCTS (agents/mcts.py) in C++; see mcts.hpp (the determinizer: determinize.cpp).
#include "mcts.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "engine.hpp"
#include "queries.hpp"

namespace zav {

// ---- agents/mcts.py ------------------------------------------------------------------------

namespace {

// agents/mcts.py curse_free: the actions of `legal` that the allow_overbid=false filter keeps
// (all of them if it keeps none, or if the config has no overbids).  Returns the count.
int curse_free(const GameState& s, const int* legal, int n_legal, int* out) {
  if (!s.config.allow_overbid) {
    std::copy(legal, legal + n_legal, out);
    return n_legal;
  }
  GameState tmp = s;  // the seat's own decision: its own hand is what counts
  tmp.config.allow_overbid = false;
  int safe[NUM_ACTIONS];
  int ns = legal_actions(tmp, safe);
  bool is_safe[NUM_ACTIONS] = {};
  for (int i = 0; i < ns; ++i) is_safe[safe[i]] = true;
  int n = 0;
  for (int i = 0; i < n_legal; ++i)
    if (legal[i] >= 0 && legal[i] < NUM_ACTIONS && is_safe[legal[i]]) out[n++] = legal[i];
  if (n == 0) {
    std::copy(legal, legal + n_legal, out);
    n = n_legal;
  }
  return n;
}

// The checks every search makes of its request before it runs: a pending decision of `seat`
// (the deciding player) and `legal` non-empty, at most NUM_ACTIONS, each legal in `real`.
// Throws std::invalid_argument naming `who` (the search) otherwise.
void check_search_request(const char* who, const GameState& real, int seat, const int* legal,
                          int n_legal) {
  const std::string name(who);
  if (n_legal < 1) throw std::invalid_argument(name + ": no legal action given");
  if (n_legal > NUM_ACTIONS) throw std::invalid_argument(name + ": too many actions");
  if (is_over(real) || real.phase == ROUND_END)
    throw std::invalid_argument(name + ": no decision is pending");
  if (seat != real.current_player)
    throw std::invalid_argument(name + ": seat " + std::to_string(seat) +
                                " is not the deciding player " +
                                std::to_string(real.current_player));
  int all[NUM_ACTIONS];
  bool ok[NUM_ACTIONS] = {};
  const int n = legal_actions(real, all);
  for (int i = 0; i < n; ++i) ok[all[i]] = true;
  for (int i = 0; i < n_legal; ++i)
    if (legal[i] < 0 || legal[i] >= NUM_ACTIONS || !ok[legal[i]])
      throw std::invalid_argument(name + ": action " + std::to_string(legal[i]) + " is not legal");
}

}  // namespace

double evaluate_seat(const GameState& s, int seat, const HeuristicWeights& w) {
  const PlayerState& me = s.players[seat];
  if (me.eliminated) return -1e6;
  double r = std::max(0.0, heur::horizon(s, w) - 1);
  double income = 0.0;
  for (int g = 0; g < NUM_GEMS; ++g) income += GEM_INCOME[g] * me.active[g];
  income += GEM_INCOME[EMERALD] * me.artifacts[CRYSTAL_OF_PROTECTION] +
            GEM_INCOME[RUBY] * me.artifacts[CHALICE];
  double energy = income * r * w.income_efficiency + std::max(0, liquid(me)) * 0.5;
  return victory_points(me) + energy / w.vp_energy;
}

int MctsSearch::add_edge(int node, int action) {
  nodes_.push_back(Node{-1, -1});
  const int child = static_cast<int>(nodes_.size()) - 1;
  return append_edge(nodes_, edges_, node, Edge{action, child, -1, 0, 1, 0.0});
}

int apply_skipping_forced(GameState& s, int action, int* legal) {
  step(s, action, false);
  return skip_forced(s, false, legal);
}

int MctsSearch::select(int prior) const {
  // _select: UCB1 with availability counts, first best in legal order.
  int best = legal_[0];
  double best_score = -std::numeric_limits<double>::infinity();
  const double c = p_->c, pw = p_->prior_weight;
  for (int i = 0; i < nlegal_; ++i) {
    const int a = legal_[i];
    const Edge& e = edges_[slot_[a]];
    const double visits = e.visits;
    double score = e.total / visits +
                   c * std::sqrt(std::log(static_cast<double>(std::max(e.avail, 1))) / visits);
    if (a == prior) score += pw / (visits + 1);
    if (score > best_score) {
      best = a;
      best_score = score;
    }
  }
  return best;
}

int MctsSearch::policy_choose(ScriptedPolicy who, const GameState& s, int seat, const int* legal,
                              int n) {
  bool fell_back;
  return scripted_choose(who, s, seat, *w_, p_->planner, legal, n, rng_, &fell_back);
}

bool MctsSearch::rollout(int root_round) {
  GameState& s = work_;
  const bool truncate = p_->horizon_rounds > 0;
  const int stop_round = root_round + p_->horizon_rounds;
  for (unsigned steps = 1; !is_over(s); ++steps) {
    if (truncate && s.round > stop_round) return true;
    if (nlegal_ == 0) return true;  // a dead end: scored as it stands
    // The clock is read every 64 steps: a step costs microseconds, a rollout milliseconds.
    if (steps % 64 == 0 && clock_.must_stop()) return false;
    int action;
    if (p_->random_rollout)
      action = legal_[static_cast<int>(rng_.random() * nlegal_)];
    else
      action = policy_choose(p_->rollout_policy, s, s.current_player, legal_, nlegal_);
    apply(action);
  }
  return true;
}

bool SearchClock::must_stop() {
  using clock = std::chrono::steady_clock;
  const auto now = clock::now();
  if (poll_ != nullptr && *poll_ && now >= next_poll_) {
    next_poll_ = now + std::chrono::milliseconds(10);
    interrupted_ = interrupted_ || (*poll_)();
  }
  if (interrupted_ || now >= hard_deadline_) return true;
  return timed_ && done > 0 && now >= soft_deadline_;
}

void SearchClock::start(std::chrono::steady_clock::time_point start, double seconds,
                        double max_seconds, const std::function<bool()>* interrupted) {
  using clock = std::chrono::steady_clock;
  auto after = [&](double s) {
    return start + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(s));
  };
  poll_ = interrupted;
  timed_ = seconds > 0;
  interrupted_ = false;
  done = 0;
  soft_deadline_ = after(timed_ ? seconds : 0.0);
  hard_deadline_ = after(timed_ ? std::min(2 * seconds, max_seconds) : max_seconds);
  next_poll_ = start;
}

void MctsSearch::evaluate(double* rewards) const {
  const GameState& s = work_;
  const int n = s.config.num_players;
  double values[MAX_PLAYERS], win[MAX_PLAYERS] = {};
  const bool finished = s.terminated;
  if (finished) {  // half the win itself, half the VP margin
    int winners_[MAX_PLAYERS];
    const int nw = winners(s, winners_);
    for (int k = 0; k < nw; ++k) win[winners_[k]] = 1.0 / nw;
  }
  for (int i = 0; i < n; ++i)
    values[i] = finished ? static_cast<double>(s.players[i].vp) : evaluate_seat(s, i, *w_);
  for (int i = 0; i < n; ++i) {
    double best_other = -std::numeric_limits<double>::infinity();
    bool first = true;
    for (int o = 0; o < n; ++o) {
      if (o == i) continue;
      if (first || values[o] > best_other) best_other = values[o];
      first = false;
    }
    double z = std::max(-50.0, std::min(50.0, (values[i] - best_other) / p_->eval_scale));
    double margin = 1.0 / (1.0 + std::exp(-z));
    rewards[i] = finished ? 0.5 * (win[i] + margin) : margin;
  }
}

bool MctsSearch::iterate(int root_round) {
  det_.sample(rng_, work_);
  GameState& s = work_;
  nlegal_ = legal_actions(s, legal_);
  path_.clear();
  int node = 0;
  // Selection and expansion.
  while (!is_over(s) && nlegal_ > 0) {
    const int seat = s.current_player;
    const int prior = policy_choose(p_->policy, s, seat, legal_, nlegal_);
    if (p_->policy_opponents && seat != root_seat_) {  // the opponent model: no node
      apply(prior);
      continue;
    }
    if (p_->max_depth > 0 && static_cast<int>(path_.size()) >= p_->max_depth) break;
    for (int e = nodes_[node].first_edge; e >= 0; e = edges_[e].next) slot_[edges_[e].action] = e;
    int untried[NUM_ACTIONS];
    int nu = 0;
    bool prior_untried = false;
    for (int i = 0; i < nlegal_; ++i) {
      const int a = legal_[i];
      if (slot_[a] >= 0) {
        edges_[slot_[a]].avail += 1;
      } else {
        untried[nu++] = a;
        if (a == prior) prior_untried = true;
      }
    }
    // Expand an untried action (the prior's if untried), else select among the tried ones.
    const bool expand = nu > 0;
    const int action = !expand        ? select(prior)
                       : prior_untried ? prior
                                       : untried[static_cast<int>(rng_.random() * nu)];
    const int edge = expand ? add_edge(node, action) : slot_[action];
    for (int e = nodes_[node].first_edge; e >= 0; e = edges_[e].next) slot_[edges_[e].action] = -1;
    path_.push_back(Step{edge, seat});
    apply(action);
    if (expand) break;
    node = edges_[edge].child;
  }
  // Rollout.
  if (!is_over(s) && !rollout(root_round)) return false;
  double rewards[MAX_PLAYERS];
  evaluate(rewards);
  for (const Step& st : path_) {
    Edge& e = edges_[st.edge];
    e.visits += 1;
    e.total += rewards[st.seat];
  }
  return true;
}

MctsResult MctsSearch::search(const GameState& real, int seat, const int* legal, int n_legal,
                              const MctsParams& params, const HeuristicWeights& w,
                              uint64_t seed) {
  const auto start = std::chrono::steady_clock::now();
  MctsResult result;
  int allowed[NUM_ACTIONS];
  const int n_allowed =
      begin("mcts_search", real, seat, legal, n_legal, params.avoid_curse, w, seed, allowed);
  p_ = &params;
  nodes_.clear();
  edges_.clear();
  if (n_allowed == 1) {  // nothing to search
    result.action = allowed[0];
    return result;
  }
  if (!any_legal_in_base(allowed, n_allowed)) {
    // Nothing allowed can be played in the searched game: every bid of an auction the seat
    // opened but cannot pay is ruled out by the affordability filter (avoid_curse), so no
    // sample would ever complete.  The policy's choice in the real game stands.
    result.action = policy_choose(params.policy, real, seat, allowed, n_allowed);
    return result;
  }
  det_.prepare(base_, seat);
  nodes_.push_back(Node{-1, -1});
  clock_.start(start, params.seconds, params.max_seconds, &params.interrupted);
  if (params.flat) return flat_search(seat, allowed, n_allowed, real.round);
  while (!clock_.over(params.iterations) && iterate(real.round)) ++clock_.done;
  result.iterations = clock_.done;
  result.interrupted = clock_.interrupted();

  // Most visits wins, ties by the better mean, then the first expanded (a root edge whose
  // only playout was dropped has no visit and never wins).
  bool is_allowed[NUM_ACTIONS] = {};
  for (int i = 0; i < n_allowed; ++i) is_allowed[allowed[i]] = true;
  int best = -1, best_visits = 0;
  double best_mean = 0.0;
  for (int e = nodes_[0].first_edge; e >= 0; e = edges_[e].next) {
    const Edge& edge = edges_[e];
    if (!is_allowed[edge.action] || edge.visits == 0) continue;
    const double mean = edge.total / edge.visits;
    if (best < 0 || edge.visits > best_visits ||
        (edge.visits == best_visits && mean > best_mean)) {
      best = edge.action;
      best_visits = edge.visits;
      best_mean = mean;
    }
  }
  result.action = best >= 0 ? best : policy_choose(p_->policy, real, seat, allowed, n_allowed);
  return result;
}

MctsResult MctsSearch::flat_search(int seat, const int* allowed, int n_allowed, int root_round) {
  const MctsParams& params = *p_;
  // The policy's choice (under the searched config), played first in every sample.
  int base_legal[NUM_ACTIONS];
  const int nb = legal_actions(base_, base_legal);
  // (search() decides without searching when nothing allowed is legal in base_.)
  const int prior = nb > 0 ? policy_choose(p_->policy, base_, seat, base_legal, nb) : -1;
  int order[NUM_ACTIONS];
  int n = 0;
  for (int i = 0; i < n_allowed; ++i)
    if (allowed[i] == prior) order[n++] = prior;
  for (int i = 0; i < n_allowed; ++i)
    if (allowed[i] != prior) order[n++] = allowed[i];
  const bool has_prior = n > 0 && order[0] == prior;
  // Per root action (indexed by position in order): playouts, reward sum, and the paired
  // differences to the prior's reward in the same sample (count, sum, sum of squares).
  int visits[NUM_ACTIONS] = {};
  double total[NUM_ACTIONS] = {};
  int pairs[NUM_ACTIONS] = {};
  double dsum[NUM_ACTIONS] = {}, dsq[NUM_ACTIONS] = {};
  bool stop = false;
  while (!stop) {
    det_.sample(rng_, sample_);
    int sl[NUM_ACTIONS];
    const int ns = legal_actions(sample_, sl);
    bool legal_here[NUM_ACTIONS] = {};
    for (int i = 0; i < ns; ++i) legal_here[sl[i]] = true;
    double prior_reward = 0.0;
    bool prior_played = false;
    bool played = false;
    for (int k = 0; k < n; ++k) {
      if (clock_.over(params.iterations)) {
        stop = true;
        break;
      }
      const int a = order[k];
      if (!legal_here[a]) continue;
      work_ = sample_;
      apply(a);
      if (!is_over(work_) && !rollout(root_round)) {
        stop = true;  // dropped: out of time or interrupted
        break;
      }
      played = true;
      double rewards[MAX_PLAYERS];
      evaluate(rewards);
      const double r = rewards[seat];
      visits[k] += 1;
      total[k] += r;
      if (k == 0 && has_prior) {
        prior_reward = r;
        prior_played = true;
      } else if (prior_played) {
        const double d = r - prior_reward;
        pairs[k] += 1;
        dsum[k] += d;
        dsq[k] += d * d;
      }
      ++clock_.done;
    }
    // A sample in which no root action is legal still spends an iteration, so that the
    // budget ends (search() already returns when none is legal in the searched game).
    if (!played && !stop) ++clock_.done;
  }
  MctsResult result;
  result.iterations = clock_.done;
  result.interrupted = clock_.interrupted();
  int best = -1;
  double best_mean = 0.0;
  for (int k = 0; k < n; ++k) {
    if (visits[k] == 0) continue;
    const double mean = total[k] / visits[k];
    if (best < 0 || mean > best_mean) {
      best = k;
      best_mean = mean;
    }
  }
  if (best < 0) {
    result.action = has_prior ? prior : order[0];
    return result;
  }
  if (has_prior && best != 0 && visits[0] > 0) {
    // Keep the policy's choice unless the challenger's paired advantage is significant.
    const int m = pairs[best];
    bool switch_ = m > 0 && m >= params.min_pairs;
    if (switch_) {
      const double mean_d = dsum[best] / m;
      const double var = m > 1 ? std::max(0.0, (dsq[best] - m * mean_d * mean_d) / (m - 1)) : 0.0;
      switch_ = mean_d > params.switch_z * std::sqrt(var / m) && mean_d > 0;
    }
    if (!switch_) best = 0;
  }
  result.action = order[best];
  return result;
}

int SearchBase::begin(const char* who, const GameState& real, int seat, const int* legal,
                      int n_legal, bool avoid_curse, const HeuristicWeights& w, uint64_t seed,
                      int* allowed) {
  check_search_request(who, real, seat, legal, n_legal);
  w_ = &w;
  root_seat_ = seat;
  rng_.seed_u64(seed);
  base_ = real;
  base_.history.clear();  // never read by the rules
  if (avoid_curse) base_.config.allow_overbid = false;
  std::fill(std::begin(slot_), std::end(slot_), -1);
  if (!avoid_curse) return static_cast<int>(std::copy(legal, legal + n_legal, allowed) - allowed);
  return curse_free(real, legal, n_legal, allowed);
}

bool SearchBase::any_legal_in_base(const int* actions, int n) const {
  int legal[NUM_ACTIONS];
  const int nl = legal_actions(base_, legal);
  for (int i = 0; i < n; ++i)
    if (std::find(legal, legal + nl, actions[i]) != legal + nl) return true;
  return false;
}

MctsResult mcts_search(const GameState& real, int seat, const int* legal, int n_legal,
                       const MctsParams& params, const HeuristicWeights& w, uint64_t seed) {
  thread_local MctsSearch searcher;  // its arena is reused from search to search
  return searcher.search(real, seat, legal, n_legal, params, w, seed);
}

}  // namespace zav
