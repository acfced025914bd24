// A batch of games, each with one learner seat, for vectorised training (EnvPool / PufferLib
// style): the opponents' moves are played here, in C++, until each game needs its learner (or
// a seat decided in Python, or is over), so Python crosses into the engine once per batch
// step, not once per move.  Bound as zavandor_env.engine._native.VecLearner (bind_vec.cpp);
// zavandor_env/envs/vector.py (ZavandorVectorEnv) is the Gymnasium-style wrapper, which also
// computes every reward (through RewardConfig): this file knows no rewards.
//
// Per game: a Core (the same state and legal-action cache as a Python _native.Core), the
// learner's seat, and per seat who decides:
//   KIND_LEARNER  (-1)  the learner: the game waits in READY
//   KIND_RANDOM    (0)  a uniformly random legal action, from the game slot's own PyRandom
//   KIND_HEURISTIC (1)  heuristic_choose (heuristic.hpp), the bit-exact agents/heuristic.py
//   KIND_EXTERNAL  (2)  decided in Python: the game waits in PENDING
//   KIND_NOVICE    (3)  novice_choose (agents/novice.py): the heuristic with a random lapse on a
//                       share `novice_blunder` of its TURN decisions, drawn from the slot's rng
//   KIND_NAIVE     (4)  naive_decide (naive.hpp), the bit-exact agents/naive.py, its coin flips
//                       drawn from the slot's rng, played through agent_act (NaiveAgent.act's
//                       safe fallback)
//   KIND_PLANNER   (5)  planner_decide (naive.hpp), the bit-exact agents/planner.py with the
//                       PlannerParams of set_planner, likewise
//   KIND_NETWORK   (6)  a policy network (net.hpp) given per seat at reset_env: the seat's
//                       observation, the actor's logits, an action sampled from their softmax
//                       over the legal actions with one random() draw of the slot's rng (a
//                       frozen self-play snapshot, played without a round trip to Python)
//   KIND_GREEDY_NETWORK (7)  the same network, its most probable legal action (the first of
//                       equal logits, as PolicyAgent's greedy play): a fixed target
// One game slot's opponents (random, novice, naive, planner) all draw from that slot's one rng,
// in decision order; it is seeded once (constructor / reseed) and runs on across resets.
// Decisions are applied exactly as _native.Core.apply applies a legal action (history, step,
// forced decisions); a game never stops at a round end.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine.hpp"
#include "heuristic.hpp"
#include "naive.hpp"
#include "net.hpp"
#include "observe.hpp"

namespace zav {

// VecStatus (VEC_READY, VEC_PENDING, VEC_DONE) and VecKind (KIND_*) are generated from
// zavandor_env/envs/vector.py into generated/constants.hpp.

struct VecGame {
  Core core;
  PyRandom rng;  // the random / novice / naive / planner opponents' draws
  int learner_seat = 0;
  int8_t kinds[MAX_PLAYERS] = {KIND_LEARNER, KIND_RANDOM, KIND_RANDOM,
                               KIND_RANDOM,  KIND_RANDOM, KIND_RANDOM};
  int8_t status = VEC_DONE;
  int deciding = -1;       // seat whose decision is awaited (READY / PENDING), else -1
  bool started = false;    // reset at least once
  uint32_t game_seed = 0;  // seed of the game in progress
  uint64_t version = 0;    // bumped by every reset and decision (stale pending lists)
  std::shared_ptr<const Network> nets[MAX_PLAYERS];  // the KIND_NETWORK seats' networks
};

class VecLearner {
 public:
  // Game seeds and the per-game random generators come from PyRandom(seed): game slot i's
  // generator is seeded with the i-th randbelow(2**31) draw, then every reset draws its game
  // seed with randbelow(2**31) from the same generator.
  VecLearner(const Config& config, int num_envs, const std::vector<uint32_t>& seed_words);

  int num_envs() const { return static_cast<int>(games_.size()); }
  int num_players() const { return config_.num_players; }

  void set_weights(const HeuristicWeights& w) {
    weights_ = w;
    has_weights_ = true;
  }
  void set_novice_blunder(double blunder) { novice_blunder_ = blunder; }
  void set_planner(const PlannerParams& p) {
    planner_ = p;
    has_planner_ = true;
  }
  bool has_planner() const { return has_planner_; }
  const PlannerParams& planner() const { return planner_; }
  // Decisions of naive / planner seats whose choice was not legal, so agent_act played its
  // fallback instead (NaiveAgent.fallbacks), over this object's life; 0 in the tests.
  long long agent_fallbacks() const { return agent_fallbacks_; }

  // Reseeds as the constructor does (games in progress are kept).
  void reseed(const std::vector<uint32_t>& seed_words);

  // Checks (std::invalid_argument with a one-line message) that kinds[0..num_players) holds
  // KIND_LEARNER exactly at learner_seat and valid kinds elsewhere (heuristic and novice seats
  // need set_weights, planner seats set_planner, network seats nets[seat]: a network of the
  // observation's and the actions' sizes).
  void check_reset(int env, int learner_seat, const int8_t* kinds,
                   const std::shared_ptr<const Network>* nets = nullptr) const;
  // New game in slot env (game seed: the next draw, or `seed` if seed >= 0), then advance().
  // nets: one entry per seat (null where the seat is no KIND_NETWORK), or null for none.
  void reset_env(int env, int learner_seat, const int8_t* kinds, long long seed = -1,
                 const std::shared_ptr<const Network>* nets = nullptr);

  // Plays the native seats (random, heuristic, novice, naive, planner, network) until the learner or an
  // external seat must decide or the game is over; sets the status.
  void advance(int env);

  // Index of the first READY game whose action is not legal, or -1.  actions: num_envs values.
  int first_illegal(const int64_t* actions) const;
  // Applies actions[i] to every READY game i (all must be legal: check with first_illegal),
  // then advances it.  DONE and PENDING games are left alone.
  void step(const int64_t* actions);

  // The PENDING games (env, seat) in env order; returns how many (at most num_envs).  The list
  // is kept for observe_pending / act_pending.
  int list_pending(int32_t* out_env, int32_t* out_seat);
  int num_listed() const { return static_cast<int>(listed_.size()); }
  int listed_env(int k) const { return listed_[static_cast<std::size_t>(k)].env; }
  int listed_seat(int k) const { return listed_[static_cast<std::size_t>(k)].seat; }
  // -1 if every listed game is still PENDING on its listed seat, else the first stale index.
  int first_stale_listed() const;
  void observe_listed(float* obs, int8_t* mask);
  // Index into the list of the first illegal action, or -1.
  int first_illegal_listed(const int64_t* actions) const;
  void act_listed(const int64_t* actions);

  // The learner seat's observation (zeros if not started) and mask (zeros unless READY).
  void observe(int env, float* obs, int8_t* mask);

  const VecGame& game(int env) const { return games_[static_cast<std::size_t>(env)]; }
  VecGame& game(int env) { return games_[static_cast<std::size_t>(env)]; }

 private:
  void apply(VecGame& g, int action);
  // The action of a network seat (n legal actions in the core's cache): sampled, or greedy.
  int network_choose(VecGame& g, int seat, int n, bool greedy);

  Config config_;
  std::vector<VecGame> games_;
  PyRandom seeds_;
  HeuristicWeights weights_;
  bool has_weights_ = false;
  double novice_blunder_ = NOVICE_DEFAULT_BLUNDER;
  PlannerParams planner_;
  bool has_planner_ = false;
  long long agent_fallbacks_ = 0;
  struct Listed {
    int env, seat;
    uint64_t version;
  };
  std::vector<Listed> listed_;  // the games listed by list_pending
  // Scratch of network_choose (one call at a time per object).
  std::vector<float> net_obs_ = std::vector<float>(OBS_SIZE);
  std::vector<float> net_logits_ = std::vector<float>(NUM_ACTIONS);
  std::vector<double> net_probs_ = std::vector<double>(NUM_ACTIONS);
};

}  // namespace zav
