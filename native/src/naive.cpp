// agents/planner.py's _PlannerDecision and the entry points of naive.hpp in C++; the naive
// player's decisions it builds on are in naive_decision.hpp.  The same bit-exactness rules.
#include "python_floats.hpp"  // first: no fused multiply-add

#include "naive_decision.hpp"

namespace zav {
namespace {

using namespace naive_impl;

class PlannerDecision : public NaiveDecision {
 public:
  PlannerDecision(const GameState& s, int seat, const PlannerParams& params, const int* legal,
                  int n_legal, PyRandom& rng)
      : NaiveDecision(s, seat, legal, n_legal, rng), params_(params) {}

 protected:
  int intent() override {
    const bool auctions = block_open(s_, BLOCK_AUCTION);
    const bool knowledge = knowledge_usable();
    if (auctions) {
      const int action = sentinel_step();
      if (action != NONE && wins_if_last(action - OPEN_SENTINEL)) return action;
    }
    int action = gem_step();
    if (action != NONE) return action;
    const bool artifacts_first = s_.round >= params_.artifacts_first_round;
    if (auctions && artifacts_first) {
      action = best_artifact_step();
      if (action != NONE) return action;
    }
    if (knowledge) {
      action = knowledge_step();
      if (action != NONE) return action;
    }
    if (auctions && !artifacts_first) {
      action = best_artifact_step();
      if (action != NONE) return action;
    }
    return END_TURN;
  }

  int gem_step() const {
    const int best = best_gem();
    if (best == NONE || !gems_usable_) return NONE;
    const int target = std::min(best, params_.gem_cap);
    bool room = slots_ - gem_total(v_active_) > 0;
    for (int g = 0; g < target && !room; ++g)
      if (v_active_[g] && upgradable(g)) room = true;
    if (!room || liquid_ < cost(target)) return NONE;
    return fund(cost(target), BUY_GEM + target, BLOCK_GEMS);
  }

  int knowledge_step() const {
    const auto& lv = me_.levels;
    const int budget = gems_usable_ ? liquid_ : cash_;
    for (int f : params_.field_order) {
      if (lv[f] >= MAX_LEVEL) continue;
      if (lv[f] > 0 || me_.pentagon_chips > 0) {  // raise it, or place the waiting chip
        const int c = LEVEL_COSTS[f][lv[f]];
        return budget >= c ? fund(c, ADVANCE + f, BLOCK_KNOWLEDGE) : NONE;
      }
      const int i = first_unbought_chip(me_);
      if (i == NONE) continue;  // no chip left for a new field: raise the ones entered
      const int needed = CHIP_COSTS[i] + LEVEL_COSTS[f][0];
      if (budget < needed) return NONE;
      return fund(needed, BUY_CHIP + i, BLOCK_KNOWLEDGE);
    }
    return NONE;
  }

  int best_artifact_step() const {
    int best = NONE;
    double best_ratio = 0.0;
    for (int art : s_.display) {
      const int action = OPEN_ARTIFACT + art;
      if (!legal(action) || !wants(ITEM_ARTIFACT, art)) continue;
      const int price = std::max(0, ARTIFACTS[art].min_bid + modifier(ITEM_ARTIFACT, art));
      if (cash_ < price) continue;
      const double ratio = static_cast<double>(ARTIFACTS[art].vp) / std::max(price, 1);
      if (ratio > best_ratio) {
        best = action;
        best_ratio = ratio;
      }
    }
    return best;
  }

  bool wins_if_last(int sentinel) const {
    if (sentinels_acquired(s_) + 1 < SENTINELS_TO_END) return true;
    return victory_points(me_) + sentinel_vp(me_, sentinel) > best_other_vp(s_, seat_);
  }

  bool fire_blocks_buying() const override { return false; }

  int bid() override {
    if (s_.high_bidder < 0) return act::BID;
    const int kind = s_.auction_kind, item = s_.auction_item;
    if (!wants(kind, item)) return PASS;
    const int m = modifier(kind, item);
    const int current = s_.high_bid;
    if (liquid_ <= current + m) return PASS;
    if (kind == ITEM_SENTINEL && sentinels_acquired(s_) + 1 >= SENTINELS_TO_END)
      return wins_if_last(item) ? act::BID + 1 : PASS;
    double limit;
    if (kind == ITEM_ARTIFACT)
      limit = ARTIFACTS[item].min_bid * params_.artifact_bid_factor[s_.config.num_players] - m;
    else
      limit = SENTINEL_MIN_BID * params_.sentinel_bid_factor -
              static_cast<double>(m) / DISCOUNT_SHARE;
    return current < limit ? act::BID + 1 : PASS;
  }

 private:
  const PlannerParams& params_;
};

}  // namespace

int naive_decide(const GameState& s, int seat, const int* legal, int n_legal, PyRandom& rng) {
  if (n_legal <= 0) throw std::invalid_argument("naive_decide: no legal action");
  return NaiveDecision(s, seat, legal, n_legal, rng).decide();
}

int planner_decide(const GameState& s, int seat, const PlannerParams& params, const int* legal,
                   int n_legal, PyRandom& rng) {
  if (n_legal <= 0) throw std::invalid_argument("planner_decide: no legal action");
  return PlannerDecision(s, seat, params, legal, n_legal, rng).decide();
}

int scripted_choose(ScriptedPolicy who, const GameState& s, int seat, const HeuristicWeights& w,
                    const PlannerParams& planner, const int* legal, int n, PyRandom& rng,
                    bool* fell_back) {
  *fell_back = false;
  if (who == ScriptedPolicy::HEURISTIC) return heuristic_choose(s, seat, w, legal, n);
  const int decision = who == ScriptedPolicy::PLANNER
                           ? planner_decide(s, seat, planner, legal, n, rng)
                           : naive_decide(s, seat, legal, n, rng);
  return agent_act(decision, legal, n, fell_back);
}

int agent_act(int decision, const int* legal, int n_legal, bool* fell_back) {
  // legal[0] is the fallback: without a legal action there is nothing to return.
  if (n_legal <= 0) throw std::invalid_argument("agent_act: no legal action");
  bool end_turn = false, pass = false;
  for (int i = 0; i < n_legal; ++i) {
    if (legal[i] == decision) {
      *fell_back = false;
      return decision;
    }
    end_turn = end_turn || legal[i] == act::END_TURN;
    pass = pass || legal[i] == act::PASS;
  }
  *fell_back = true;
  if (end_turn) return act::END_TURN;
  if (pass) return act::PASS;
  return legal[0];
}

}  // namespace zav
