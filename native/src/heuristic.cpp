// agents/heuristic.py's decisions (and agents/novice.py's lapses) in C++, over the valuations
// of heuristic_values.cpp; see heuristic.hpp.  The bit-exactness rules are those listed in
// heuristic_values.cpp.
#include "python_floats.hpp"  // first: no fused multiply-add

#include "heuristic.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "data.hpp"
#include "naive.hpp"
#include "queries.hpp"

namespace zav {

// ---- phase 3: the turn --------------------------------------------------------------------------
namespace {

struct GemPlan {
  bool ok = false;
  int action = 0;
  double ratio = 0.0;
  int cost = 0;
};

class Turn {
 public:
  Turn(const GameState& s, int seat, const HeuristicWeights& w, const int* legal, int n_legal)
      : s_(s), seat_(seat), w_(w), me_(s.players[seat]) {
    for (int i = 0; i < n_legal; ++i)
      if (legal[i] >= 0 && legal[i] < NUM_ACTIONS) in_legal_[legal[i]] = true;
    r_ = heur::horizon(s, w);
    excess_ = heur::excess(s, seat);
  }

  int decide() {
    int block = s_.block;
    int used = s_.blocks_used;
    if ((block == BLOCK_NONE || block == BLOCK_KNOWLEDGE) && !((used >> BLOCK_KNOWLEDGE) & 1)) {
      int action = knowledge();
      if (action >= 0) return action;
    }
    GemPlan gem_plan;
    if (!((used >> BLOCK_GEMS) & 1)) gem_plan = gem_action();
    if (block != BLOCK_GEMS && !((used >> BLOCK_AUCTION) & 1)) {
      int action = auction(gem_plan);
      if (action >= 0) return action;
    }
    if (gem_plan.ok) return gem_plan.action;
    return act::END_TURN;
  }

 private:
  bool legal(int a) const { return a >= 0 && a < NUM_ACTIONS && in_legal_[a]; }
  int net_cost(int cost) const { return cost - pymin_i(cost, excess_); }

  int knowledge() {
    int best_f = -1;
    double best_v = 0.0;
    for (int f = 0; f < NUM_FIELDS; ++f) {
      if (s_.paid_advance_done) break;
      double v = heur::field_plan_value(s_, seat_, f, r_, w_, false);
      if (v != NEG_INF) {
        // The first step (chip + level) may be paid from energy that would be lost.
        int level = me_.levels[f];
        int first = level < MAX_LEVEL ? LEVEL_COSTS[f][level] : 0;
        const int chip = first_unbought_chip(me_);
        if (level == 0 && me_.pentagon_chips == 0 && chip >= 0) first += CHIP_COSTS[chip];
        v += pymin_i(first, excess_);
      }
      if (v > best_v) {
        best_f = f;
        best_v = v;
      }
    }
    if (best_f < 0) return -1;
    if (legal(act::ADVANCE + best_f)) return act::ADVANCE + best_f;
    const int chip = first_unbought_chip(me_);
    if (me_.levels[best_f] == 0 && me_.pentagon_chips == 0 && chip >= 0 &&
        legal(act::BUY_CHIP + chip) && liquid(me_) >= CHIP_COSTS[chip] + LEVEL_COSTS[best_f][0])
      return act::BUY_CHIP + chip;
    return -1;
  }

  int auction(const GemPlan& gem_plan) {
    int cash = liquid(me_);
    int best = -1, best_price = 0;
    double best_ratio = 0.0;
    // Ascending action index (as heuristic.py): exact ties go to the lowest opening.
    for (int a = act::OPEN_ARTIFACT; a < act::BID; ++a) {
      if (!legal(a)) continue;
      const int kind = a < act::OPEN_SENTINEL ? ITEM_ARTIFACT : ITEM_SENTINEL;
      const int item = a - (kind == ITEM_ARTIFACT ? act::OPEN_ARTIFACT : act::OPEN_SENTINEL);
      int price = item_price(s_, me_, kind, item, item_min_bid(kind, item));
      if (price > cash) continue;
      double value = heur::item_value(s_, seat_, kind, item, r_, w_);
      double surplus = value - net_cost(price);
      if (surplus <= 0) continue;
      double ratio = surplus / (price > 1 ? price : 1);
      if (ratio > best_ratio) {
        best = a;
        best_price = price;
        best_ratio = ratio;
      }
    }
    if (best < 0) return -1;
    if (gem_plan.ok) {
      if (best_ratio < gem_plan.ratio && cash < best_price + gem_plan.cost) return -1;
    }
    return best;
  }

  GemPlan gem_action() {
    const auto& active = me_.active;
    const auto& inactive = me_.inactive;
    int slots = active_slots(me_);
    int n_active = gem_total(active);
    double values[NUM_GEMS];
    for (int g = 0; g < NUM_GEMS; ++g) values[g] = heur::gem_value(g, r_, w_);
    // 1. Put the best waiting gem to work.
    int best_wait = -1, worst_wait = -1;
    for (int g = 0; g < NUM_GEMS; ++g) {
      if (!inactive[g]) continue;
      if (best_wait < 0 || values[g] > values[best_wait]) best_wait = g;   // first max
      if (worst_wait < 0 || values[g] < values[worst_wait]) worst_wait = g;  // first min
    }
    int worst = -1;  // min(actives, key=values): the first weakest active gem
    for (int g = 0; g < NUM_GEMS; ++g)
      if (active[g] && (worst < 0 || values[g] < values[worst])) worst = g;
    if (best_wait >= 0) {
      if (n_active < slots && legal(act::ACTIVATE + best_wait))
        return {true, act::ACTIVATE + best_wait, 99.0, 0};
      if (worst >= 0) {
        if (values[best_wait] > values[worst] && legal(act::DEACTIVATE + worst))
          return {true, act::DEACTIVATE + worst, 99.0, 0};
      }
      // Waiting gems no better than every active one only cost VP-less money: sell.
      if (n_active >= slots && legal(act::SELL_GEM + worst_wait))
        return {true, act::SELL_GEM + worst_wait, 99.0, 0};
    }
    // 2. Buy by return.
    int cash = liquid(me_);
    int level = me_.levels[F_GEMSTONES];
    int free_slots = slots - n_active;
    GemPlan best;
    double best_score = 0.0;
    for (int g = 0; g < NUM_GEMS; ++g) {
      int a = act::BUY_GEM + g;
      int cost = GEM_COST_TABLE[g][level];
      if (free_slots > 0) {
        if (!legal(a)) continue;
        double gain = values[g] - net_cost(cost);
        if (gain <= 0) continue;
        // Money-bound with several free slots: return per energy; else per slot.
        double score = free_slots > 1 ? gain / cost : gain;
        double ratio = gain / cost;
        if (score > best_score) {
          best = {true, a, ratio, cost};
          best_score = score;
        }
      } else if (worst >= 0 && values[g] > values[worst]) {
        int sale = GEM_SALE_TABLE[worst][level];
        double gain = values[g] - values[worst] + sale - net_cost(cost);
        if (gain <= 0 || cash + sale < cost || !may_own_gem(s_, me_, g)) continue;
        if (s_.gem_supply[g] <= 0) continue;
        if (gain > best_score) {
          // Sell the weak gem first: the slot frees and the sale helps pay.
          int act_ = legal(act::SELL_GEM + worst) ? act::SELL_GEM + worst : a;
          if (!legal(act_)) continue;
          best = {true, act_, gain / cost, cost};
          best_score = gain;
        }
      }
    }
    return best;
  }

  const GameState& s_;
  int seat_;
  const HeuristicWeights& w_;
  const PlayerState& me_;
  bool in_legal_[NUM_ACTIONS] = {};
  double r_ = 0.0;
  int excess_ = 0;
};

bool contains(const int* legal, int n, int a) {
  return std::find(legal, legal + n, a) != legal + n;
}

// ---- bidding ------------------------------------------------------------------------------------
int bid(const GameState& s, int seat, const HeuristicWeights& w, const int* legal, int n) {
  int kind = s.auction_kind, item = s.auction_item;
  bool opening = s.high_bidder < 0;
  if (opening) return contains(legal, n, act::BID) ? act::BID : legal[0];
  if (!contains(legal, n, act::PASS)) return legal[0];
  if (s.high_bidder == seat) return act::PASS;  // cannot happen (the bid moves on)
  const PlayerState& me = s.players[seat];
  // Energy the hand limit would destroy anyway makes the price that much cheaper.
  double limit = pymin(heur::bid_limit(s, seat, kind, item, w) + heur::excess(s, seat),
                       static_cast<double>(heur::spend_budget(s, seat)));
  int high = s.high_bid;
  double margin = limit - item_price(s, me, kind, item, high + 1);
  if (margin < 0) return act::PASS;
  int choice = act::BID + 1;
  for (int i = act::NUM_BID_RAISES - 1; i > 0; --i) {
    int raise_by = act::BID_RAISES[i];
    if (!contains(legal, n, act::BID + i) || raise_by > pymax(1.0, margin * w.big_raise_fraction))
      continue;
    if (item_price(s, me, kind, item, high + raise_by) <= limit) {
      choice = act::BID + i;
      break;
    }
  }
  return contains(legal, n, choice) ? choice : act::PASS;
}

// ---- other decisions ----------------------------------------------------------------------------
// Sell (debt) or lose (Mirror/Cloak) the gem whose loss hurts least: min(legal, key=loss).
int cheapest_gem_action(const GameState& s, int seat, const HeuristicWeights& w, const int* legal,
                        int n, int base) {
  double r = heur::horizon(s, w);
  const PlayerState& me = s.players[seat];
  int level = me.levels[F_GEMSTONES];
  auto loss = [&](int action) -> double {
    int g = action - base;
    if (g < 0 || g >= NUM_GEMS) return std::numeric_limits<double>::quiet_NaN();
    if (base == act::SELL_GEM && me.inactive[g])
      return -1.0 + GEM_SALE_TABLE[g][level] * 0.001;  // idle gems go first
    double value = heur::gem_value(g, r, w);
    if (base == act::SELL_GEM) value -= GEM_SALE_TABLE[g][level];
    return value;
  };
  int best = legal[0];
  double best_loss = loss(best);
  for (int i = 1; i < n; ++i) {
    double l = loss(legal[i]);
    if (l < best_loss) {
      best = legal[i];
      best_loss = l;
    }
  }
  return best;
}

int free_level(const GameState& s, int seat, const HeuristicWeights& w, const int* legal, int n) {
  double r = heur::horizon(s, w);
  int best = legal[0];
  double best_gain = heur::field_plan_value(s, seat, best - act::ADVANCE, r, w, true);
  for (int i = 1; i < n; ++i) {
    double g = heur::field_plan_value(s, seat, legal[i] - act::ADVANCE, r, w, true);
    if (g > best_gain) {  // max(legal, key=gain): the first largest
      best = legal[i];
      best_gain = g;
    }
  }
  return best;
}

int decide(const GameState& s, int seat, const HeuristicWeights& w, const int* legal, int n) {
  switch (s.phase) {
    case TURN: return Turn(s, seat, w, legal, n).decide();
    case BID: return bid(s, seat, w, legal, n);
    case DEBT: return cheapest_gem_action(s, seat, w, legal, n, act::SELL_GEM);
    case LOSE_GEM: return cheapest_gem_action(s, seat, w, legal, n, act::LOSE_GEM);
    case FREE_LEVEL: return free_level(s, seat, w, legal, n);
    default: return legal[0];
  }
}

}  // namespace

int heuristic_choose(const GameState& s, int seat, const HeuristicWeights& w, const int* legal,
                     int n_legal) {
  if (n_legal <= 0) throw std::invalid_argument("heuristic_choose: no legal action");
  bool fell_back;  // defensive (a rule the valuation missed): end turn, pass or the first
  return agent_act(decide(s, seat, w, legal, n_legal), legal, n_legal, &fell_back);
}

int novice_choose(const GameState& s, int seat, const HeuristicWeights& w, const int* legal,
                  int n_legal, double blunder, PyRandom& rng) {
  if (n_legal <= 0) throw std::invalid_argument("novice_choose: no legal action");
  // Draw first, so the heuristic's valuation is skipped when the lapse happens.
  if (s.phase == TURN && rng.random() < blunder)
    return legal[rng.randbelow(static_cast<uint64_t>(n_legal))];
  return heuristic_choose(s, seat, w, legal, n_legal);
}

}  // namespace zav
