// VecLearner (vec.hpp): a batch of learner games whose opponents play natively.
#include "vec.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "observe.hpp"

namespace zav {

namespace {

constexpr uint64_t SEED_RANGE = uint64_t{1} << 31;  // randbelow(2**31)
constexpr std::size_t HISTORY_RESERVE = 4096;       // decisions of a long game: no regrowth

// Whether `action` is among the cached legal actions (valid whenever a game is READY or
// PENDING: advance() filled the cache).
bool is_legal_const(const Core& c, int64_t action) {
  return std::find(c.legal, c.legal + c.nlegal, action) != c.legal + c.nlegal;
}

}  // namespace

VecLearner::VecLearner(const Config& config, int num_envs, const std::vector<uint32_t>& seed_words)
    : config_(config) {
  if (num_envs < 1) throw std::invalid_argument("num_envs must be at least 1");
  games_.resize(static_cast<std::size_t>(num_envs));
  listed_.reserve(games_.size());
  reseed(seed_words);
}

void VecLearner::reseed(const std::vector<uint32_t>& seed_words) {
  seeds_.seed_words(seed_words);
  for (auto& g : games_)
    g.rng.seed_words({static_cast<uint32_t>(seeds_.randbelow(SEED_RANGE))});
}

void VecLearner::check_reset(int env, int learner_seat, const int8_t* kinds,
                             const std::shared_ptr<const Network>* nets) const {
  if (env < 0 || env >= num_envs())
    throw std::invalid_argument("env must be in [0, " + std::to_string(num_envs()) + "), got " +
                                std::to_string(env));
  const int n = config_.num_players;
  if (learner_seat < 0 || learner_seat >= n)
    throw std::invalid_argument("learner_seat must be in [0, " + std::to_string(n) + "), got " +
                                std::to_string(learner_seat));
  for (int seat = 0; seat < n; ++seat) {
    const int k = kinds[seat];
    if (seat == learner_seat) {
      if (k != KIND_LEARNER)
        throw std::invalid_argument("kinds[" + std::to_string(seat) +
                                    "] is the learner's seat and must be -1, got " +
                                    std::to_string(k));
    } else if (k < KIND_RANDOM || k > KIND_GREEDY_NETWORK) {  // the kinds are 0..7
      throw std::invalid_argument("kinds[" + std::to_string(seat) +
                                  "] must be 0 (random), 1 (heuristic), 2 (external), "
                                  "3 (novice), 4 (naive), 5 (planner), 6 (network) or "
                                  "7 (greedy network), got " + std::to_string(k));
    } else if (k == KIND_NETWORK || k == KIND_GREEDY_NETWORK) {
      const Network* net = nets ? nets[seat].get() : nullptr;
      if (!net)
        throw std::invalid_argument("kinds[" + std::to_string(seat) +
                                    "] is a network seat, which needs its network");
      if (net->obs_dim() != OBS_SIZE || net->num_actions() != NUM_ACTIONS)
        throw std::invalid_argument("the network of seat " + std::to_string(seat) + " reads " +
                                    std::to_string(net->obs_dim()) + " values and scores " +
                                    std::to_string(net->num_actions()) + " actions, the game " +
                                    std::to_string(OBS_SIZE) + " and " +
                                    std::to_string(NUM_ACTIONS));
    } else if ((k == KIND_HEURISTIC || k == KIND_NOVICE) && !has_weights_) {
      throw std::invalid_argument(
          "heuristic opponents need heuristic weights (VecLearner(..., heuristic_weights=...))");
    } else if (k == KIND_PLANNER && !has_planner_) {
      throw std::invalid_argument("kinds[" + std::to_string(seat) +
                                  "] is a planner, which needs planner parameters "
                                  "(VecLearner(..., planner_params=...))");
    }
  }
}

void VecLearner::reset_env(int env, int learner_seat, const int8_t* kinds, long long seed,
                           const std::shared_ptr<const Network>* nets) {
  check_reset(env, learner_seat, kinds, nets);
  VecGame& g = game(env);
  const uint32_t game_seed =
      seed >= 0 ? static_cast<uint32_t>(seed) : static_cast<uint32_t>(seeds_.randbelow(SEED_RANGE));
  // As _native.Core(config, seed): the new state, then its forced decisions.
  g.core.new_game(config_, PyRandom(std::vector<uint32_t>{game_seed}));
  g.core.s.history.reserve(HISTORY_RESERVE);
  g.learner_seat = learner_seat;
  for (int seat = 0; seat < MAX_PLAYERS; ++seat)
    g.kinds[seat] =
        seat < config_.num_players ? kinds[seat] : static_cast<int8_t>(KIND_RANDOM);
  for (int seat = 0; seat < MAX_PLAYERS; ++seat)
    g.nets[seat] = seat < config_.num_players && (g.kinds[seat] == KIND_NETWORK ||
                                                  g.kinds[seat] == KIND_GREEDY_NETWORK)
                       ? nets[seat] : nullptr;
  g.game_seed = game_seed;
  g.started = true;
  ++g.version;
  advance(env);
}

// As _native.Core.apply for a legal action: record it, the decision, the forced ones.
void VecLearner::apply(VecGame& g, int action) {
  ++g.version;
  g.core.apply(action, false);
}

void VecLearner::advance(int env) {
  VecGame& g = game(env);
  Core& c = g.core;
  while (!is_over(c.s)) {
    if (c.s.phase == ROUND_END) {  // not reached (never stops at a round end); kept safe
      c.advance(false);
      continue;
    }
    const int n = c.refresh_legal();
    if (n == 0) break;
    const int seat = c.s.current_player;
    const int kind = g.kinds[seat];
    if (kind == KIND_LEARNER || kind == KIND_EXTERNAL) {  // the game waits for Python
      g.status = kind == KIND_LEARNER ? VEC_READY : VEC_PENDING;
      g.deciding = seat;
      return;
    }
    int action;
    bool fell_back = false;
    if (kind == KIND_NOVICE) {
      action = novice_choose(c.s, seat, weights_, c.legal, n, novice_blunder_, g.rng);
    } else if (kind == KIND_RANDOM) {
      action = c.legal[g.rng.randbelow(static_cast<uint64_t>(n))];
    } else if (kind == KIND_NETWORK || kind == KIND_GREEDY_NETWORK) {
      action = network_choose(g, seat, n, kind == KIND_GREEDY_NETWORK);
    } else {
      const auto who = kind == KIND_HEURISTIC ? ScriptedPolicy::HEURISTIC
                       : kind == KIND_NAIVE   ? ScriptedPolicy::NAIVE
                                              : ScriptedPolicy::PLANNER;
      action = scripted_choose(who, c.s, seat, weights_, planner_, c.legal, n, g.rng, &fell_back);
    }
    if (fell_back) ++agent_fallbacks_;
    apply(g, action);
  }
  g.status = VEC_DONE;
  g.deciding = -1;
}

int VecLearner::network_choose(VecGame& g, int seat, int n, bool greedy) {
  const Core& c = g.core;
  encode_observation(c.s, seat, net_obs_.data());
  g.nets[seat]->forward(net_obs_.data(), net_logits_.data(), nullptr);
  if (greedy) {  // the first legal action of the highest logit
    int best = 0;
    for (int i = 1; i < n; ++i)
      if (net_logits_[c.legal[i]] > net_logits_[c.legal[best]]) best = i;
    return c.legal[best];
  }
  masked_softmax(net_logits_.data(), c.legal, n, 1.0, net_probs_.data());
  // Inverse CDF: the first legal action whose cumulative probability passes u.
  const double u = g.rng.random();
  double cum = 0.0;
  for (int i = 0; i < n - 1; ++i) {
    cum += net_probs_[static_cast<std::size_t>(i)];
    if (u < cum) return c.legal[i];
  }
  return c.legal[n - 1];
}

int VecLearner::first_illegal(const int64_t* actions) const {
  for (int i = 0; i < num_envs(); ++i) {
    const VecGame& g = game(i);
    if (g.status != VEC_READY) continue;
    if (!is_legal_const(g.core, actions[i])) return i;
  }
  return -1;
}

void VecLearner::step(const int64_t* actions) {
  for (int i = 0; i < num_envs(); ++i) {
    VecGame& g = game(i);
    if (g.status != VEC_READY) continue;
    apply(g, static_cast<int>(actions[i]));
    advance(i);
  }
}

int VecLearner::list_pending(int32_t* out_env, int32_t* out_seat) {
  listed_.clear();
  for (int i = 0; i < num_envs(); ++i) {
    const VecGame& g = game(i);
    if (g.status != VEC_PENDING) continue;
    if (out_env) out_env[listed_.size()] = i;
    if (out_seat) out_seat[listed_.size()] = g.deciding;
    listed_.push_back(Listed{i, g.deciding, g.version});
  }
  return static_cast<int>(listed_.size());
}

int VecLearner::first_stale_listed() const {
  for (std::size_t k = 0; k < listed_.size(); ++k) {
    const VecGame& g = game(listed_[k].env);
    if (g.status != VEC_PENDING || g.deciding != listed_[k].seat || g.version != listed_[k].version)
      return static_cast<int>(k);
  }
  return -1;
}

void VecLearner::observe_listed(float* obs, int8_t* mask) {
  for (std::size_t k = 0; k < listed_.size(); ++k) {
    VecGame& g = game(listed_[k].env);
    encode_observation(g.core.s, listed_[k].seat, obs + k * OBS_SIZE);
    const int n = g.core.refresh_legal();
    encode_mask(g.core.legal, n, mask + k * NUM_ACTIONS, NUM_ACTIONS);
  }
}

int VecLearner::first_illegal_listed(const int64_t* actions) const {
  for (std::size_t k = 0; k < listed_.size(); ++k)
    if (!is_legal_const(game(listed_[k].env).core, actions[k])) return static_cast<int>(k);
  return -1;
}

void VecLearner::act_listed(const int64_t* actions) {
  for (std::size_t k = 0; k < listed_.size(); ++k) {
    apply(game(listed_[k].env), static_cast<int>(actions[k]));
    advance(listed_[k].env);
  }
  listed_.clear();
}

void VecLearner::observe(int env, float* obs, int8_t* mask) {
  VecGame& g = game(env);
  if (!g.started) {
    std::memset(obs, 0, sizeof(float) * OBS_SIZE);
    std::memset(mask, 0, NUM_ACTIONS);
    return;
  }
  encode_observation(g.core.s, g.learner_seat, obs);
  if (g.status == VEC_READY) {
    const int n = g.core.refresh_legal();
    encode_mask(g.core.legal, n, mask, NUM_ACTIONS);
  } else {
    std::memset(mask, 0, NUM_ACTIONS);
  }
}

}  // namespace zav
