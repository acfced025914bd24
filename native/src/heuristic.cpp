// agents/heuristic.py (and agents/novice.py) in C++; see heuristic.hpp.
//
// Bit-exactness rules followed throughout:
// * every Python float expression is evaluated as the same sequence of double operations
//   (left to right, `a += b` as `a = a + b`), and contraction into fused multiply-adds is off;
// * Python ints become doubles only where the values are small integers (exact);
// * max(a, b) / min(a, b) return the FIRST argument on ties (pymax / pymin); max(seq, key=...)
//   and min(seq, key=...) return the first extreme element;
// * loops visit actions in ascending index or in the order of the legal list, as Python does
//   (no Python set is iterated, so no hash-table order needs imitating).

#include "python_floats.hpp"  // first: no fused multiply-add

#include "heuristic.hpp"

#include <algorithm>
#include <stdexcept>
#include <limits>

#include "data.hpp"
#include "queries.hpp"

namespace zav {
namespace {

constexpr double NEG_INF = -std::numeric_limits<double>::infinity();

// Python's two-argument max/min: the first argument unless the second is strictly beyond it.
inline double pymax(double a, double b) { return b > a ? b : a; }
inline double pymin(double a, double b) { return b < a ? b : a; }
inline int pymin_i(int a, int b) { return b < a ? b : a; }

int sentinels_acquired_(const GameState& s) {
  int n = 0;
  for (int o : s.sentinel_owner)
    if (o != -1) ++n;
  return n;
}

bool has_sentinel(const PlayerState& p, int sen) { return p.sentinels.index_of(sen) >= 0; }

int first_unbought_chip(const PlayerState& p, bool* found) {
  for (int i = 0; i < NUM_CHIPS; ++i)
    if (!p.chips_bought[i]) {
      *found = true;
      return CHIP_COSTS[i];
    }
  *found = false;
  return 0;
}

int sum_gems(const std::array<int, NUM_GEMS>& g) {
  int n = 0;
  for (int x : g) n += x;
  return n;
}

// _best_gem_kind
int best_gem_kind(const GameState& s, const PlayerState& p) {
  static const int order[4] = {RUBY, DIAMOND, EMERALD, SAPPHIRE};
  for (int g : order)
    if (may_own_gem(s, p, g)) return g;
  return SAPPHIRE;
}

double toad_raven_bonus(const PlayerState& p, int art) {
  double bonus = 0.0;
  bool toad = false, raven = false;
  for (int a : TOAD_ARTIFACTS) toad = toad || a == art;
  for (int a : RAVEN_ARTIFACTS) raven = raven || a == art;
  if (toad && has_sentinel(p, TOAD)) bonus += 2;
  if (raven && has_sentinel(p, RAVEN)) bonus += 2;
  return bonus;
}

double weakest_active_value(const PlayerState& p, double r, const HeuristicWeights& w) {
  bool any = false;
  double best = 0.0;
  for (int g = 0; g < NUM_GEMS; ++g) {
    if (!p.active[g]) continue;
    double v = heur::gem_value(g, r, w);
    if (!any || v < best) best = v;  // min(values): the first smallest
    any = true;
  }
  return any ? best : 0.0;
}

// max(current_vp of the other seats still in the game), default 0.
int best_other_vp(const GameState& s, int seat) {
  bool any = false;
  int best = 0;
  for (const PlayerState& o : s.players) {
    if (o.seat == seat || o.eliminated) continue;
    int v = victory_points(o);
    if (!any || v > best) best = v;
    any = true;
  }
  return any ? best : 0;
}

}  // namespace

// ---- shared valuations --------------------------------------------------------------------------
namespace heur {

double horizon(const GameState& s, const HeuristicWeights& w) {
  long long expected = w.expected_rounds_for(s.config.num_players);
  int left = SENTINELS_TO_END - sentinels_acquired_(s);
  double by_round = pymax(static_cast<double>(expected - s.round + 1), w.late_game_horizon);
  double by_sentinels = left * w.rounds_per_sentinel;
  return pymax(w.min_horizon, pymin(by_round, by_sentinels));
}

double gem_value(int gem, double r, const HeuristicWeights& w) {
  return GEM_INCOME[gem] * r * w.income_efficiency + GEM_VP[gem] * w.vp_energy;
}

double slot_value(const GameState& s, int seat, double r, const HeuristicWeights& w) {
  const PlayerState& p = s.players[seat];
  int g = best_gem_kind(s, p);
  double net = gem_value(g, r, w) - GEM_COST_TABLE[g][p.levels[F_GEMSTONES]];
  double fullness = sum_gems(p.active) + sum_gems(p.inactive) >= active_slots(p) - 1 ? 1.0 : 0.4;
  return pymax(0.0, net) * fullness;
}

double level_gain(const GameState& s, int seat, int f, int new_level, double r,
                  const HeuristicWeights& w) {
  const PlayerState& p = s.players[seat];
  double value = 0.0;
  if (new_level == 1) value += HAND_LIMIT_FIELD_MODIFIER[f] * w.hand_slot_per_round * r;
  if (new_level == MAX_LEVEL) {
    int owl = has_sentinel(p, OWL) ? 2 : 0;
    value += (2 + owl) * w.vp_energy;
  }
  if (f == F_GEMSTONES) {
    value += 0.1 * w.future_gem_spend_per_round * pymax(0.0, r - 2);
  } else if (f == F_ENERGY_FLOW) {
    int gain = ENERGY_FLOW_DUST_BY_LEVEL[new_level] - ENERGY_FLOW_DUST_BY_LEVEL[new_level - 1];
    value += gain * pymax(0.0, r - 1);
  } else if (f == F_FIRE) {
    int steps_left = MAX_LEVEL - new_level + 1;
    double ruby = w.ruby_access_per_round * pymax(0.0, r - steps_left - 1);
    value += ruby / steps_left;
    if (new_level == 3 && p.character == DRUID && !p.druid_ruby_used)
      value += pymax(0.0, gem_value(RUBY, r - 1, w) - 60) * 0.5;
  } else if (f == F_SAGES) {
    value += SAGES_CARD_VALUE[new_level - 1] * (r > 1 ? 0.9 : 0.0);
  } else if (f == F_ARTIFACTS) {
    if (new_level == 2 || new_level == 4) {
      double share = pymin(1.0, r / 8);
      value += share * (5 * w.expected_artifacts + 10 * w.expected_sentinels);
    }
  } else if (f == F_ACCUMULATION) {
    int extra = ACCUMULATION_SLOTS_BY_LEVEL[new_level] - ACCUMULATION_SLOTS_BY_LEVEL[new_level - 1];
    value += extra * slot_value(s, seat, r - 1, w);
  }
  return value;
}

double field_plan_value(const GameState& s, int seat, int f, double r, const HeuristicWeights& w,
                        bool free) {
  const PlayerState& p = s.players[seat];
  int level = p.levels[f];
  if (level >= MAX_LEVEL) return NEG_INF;
  double total = 0.0;
  if (level == 0 && !free && p.pentagon_chips == 0) {
    bool found;
    int chip = first_unbought_chip(p, &found);
    if (!found) return NEG_INF;
    total -= chip;
  }
  double best = NEG_INF;
  int k = 0;
  for (int lv = level + 1; lv <= MAX_LEVEL; ++lv, ++k) {
    int cost = (free && k == 0) ? 0 : LEVEL_COSTS[f][lv - 1];
    total += level_gain(s, seat, f, lv, r - k, w) - cost;
    best = pymax(best, total);
    if (k >= 2) break;  // look at most three levels ahead
  }
  return best;
}

double artifact_value(const GameState& s, int seat, int art, double r, const HeuristicWeights& w) {
  const PlayerState& p = s.players[seat];
  if (!may_acquire(p, ITEM_ARTIFACT, art)) return NEG_INF;
  const ArtifactSpec& spec = ARTIFACTS[art];
  double vp = spec.vp + toad_raven_bonus(p, art);
  double value = vp * w.vp_energy;
  double eff = w.income_efficiency;
  const auto& arts = p.artifacts;
  if (art == SPELLBOOK) {
    if (!arts[SPELLBOOK]) value += w.spellbook_access_per_round * pymax(0.0, r - 1);
  } else if (art == ELIXIR) {
    value += gem_value(DIAMOND, r - 1, w) * 0.8;  // the free diamond
    if (!arts[ELIXIR]) value += w.elixir_access_per_round * pymax(0.0, r - 1);
  } else if (art == CRYSTAL_BALL) {
    value += w.hand_limit_3_per_round * r;
  } else if (art == BELT) {
    value += 2 * slot_value(s, seat, r - 1, w);
  } else if (art == WAND) {
    value += 2 * slot_value(s, seat, r - 1, w) + w.hand_limit_3_per_round * r;
  } else if (art == CRYSTAL_OF_PROTECTION) {
    value += GEM_INCOME[EMERALD] * pymax(0.0, r - 1) * eff;
  } else if (art == CHALICE) {
    value += GEM_INCOME[RUBY] * pymax(0.0, r - 1) * eff;
  } else if (art == MIRROR || art == CLOAK) {
    bool all_bought = true;
    for (bool b : p.chips_bought) all_bought = all_bought && b;
    if (!all_bought) value += w.free_chip * pymin(1.0, r / 6);
    double harm_sum = 0.0;  // sum(...) starts from the int 0: 0 + v is v
    int n_opp = 0;
    for (const PlayerState& o : s.players) {
      if (o.seat == p.seat || o.eliminated) continue;
      harm_sum = harm_sum + weakest_active_value(o, r - 1, w);
      ++n_opp;
    }
    if (n_opp) {
      double harm = harm_sum / n_opp;
      value += harm * (n_opp == 1 ? 1.0 : 0.7);
    }
  }
  if (spec.free_levels) {
    double free[NUM_FIELDS];
    int n = 0;
    for (int f = 0; f < NUM_FIELDS; ++f) {
      double v = field_plan_value(s, seat, f, r, w, true);
      if (v != NEG_INF) free[n++] = v;
    }
    // sorted(..., reverse=True): equal values are interchangeable, so any stable order will do.
    for (int i = 1; i < n; ++i)  // insertion sort, descending
      for (int j = i; j > 0 && free[j] > free[j - 1]; --j) std::swap(free[j], free[j - 1]);
    double sum = 0.0;
    for (int i = 0; i < n && i < spec.free_levels; ++i) sum = sum + pymax(0.0, free[i]);
    value += sum * 0.8;
  }
  if (art == MASK)
    value += 20 * pymin(w.expected_sentinels, 5 - sentinels_acquired_(s)) * pymin(1.0, r / 4);
  if (art == RUNESTONE && s.display.index_of(CHALICE) >= 0) value += 5;
  return value;
}

double sentinel_value(const GameState& s, int seat, int sen, double r, const HeuristicWeights& w) {
  const PlayerState& p = s.players[seat];
  int vp = sentinel_vp(p, sen);
  if (sentinels_acquired_(s) + 1 >= SENTINELS_TO_END) {
    int mine = victory_points(p) + vp;
    int best_other = best_other_vp(s, p.seat);
    return mine >= best_other + w.lead_margin ? w.win_bonus : -w.win_bonus;
  }
  if (r > w.sentinel_min_horizon && w.sentinel_min_horizon > 0) return NEG_INF;
  int mine = victory_points(p);
  int best_other = best_other_vp(s, p.seat);
  double tempo = mine > best_other ? w.lead_tempo : -w.lead_tempo;
  return vp * w.sentinel_vp_energy + tempo;
}

double item_value(const GameState& s, int seat, int kind, int item, double r,
                  const HeuristicWeights& w) {
  if (kind == ITEM_ARTIFACT) return artifact_value(s, seat, item, r, w);
  return sentinel_value(s, seat, item, r, w);
}

double bid_limit(const GameState& s, int viewer, int kind, int item, const HeuristicWeights& w) {
  double r = horizon(s, w);
  double mine = item_value(s, viewer, kind, item, r, w);
  if (kind == ITEM_SENTINEL && sentinels_acquired_(s) + 1 >= SENTINELS_TO_END)
    return mine;  // the game ends either way: only winning matters (rivals do not count)
  bool any = false;
  double rival = 0.0;
  for (const PlayerState& o : s.players) {  // view.opponents
    if (o.seat == viewer || o.eliminated) continue;
    if (!may_acquire(o, kind, item)) continue;
    double v = item_value(s, o.seat, kind, item, r, w);
    if (v == NEG_INF) continue;
    if (!any || v > rival) rival = v;  // max(...): the first largest
    any = true;
  }
  if (!any) rival = 0.0;
  return mine + w.deny_weight * pymax(0.0, rival);
}

int storable(const GameState& s, int viewer) {
  const PlayerState& me = s.players[viewer];
  const auto& hand = me.hand;
  int slots = hand_limit(me);
  if (hand_load(hand) <= slots) return hand_value(hand);
  struct Item {
    double per_slot;
    int load;
    int value;
  };
  std::vector<Item> items;
  items.reserve(64);
  for (int t = 0; t < NUM_CARD_TOKENS; ++t)
    for (int k = 0; k < hand[t]; ++k)
      items.push_back({static_cast<double>(TOKEN_VALUE[t]), 1, TOKEN_VALUE[t]});
  for (int t = CONC_TOKEN0; t < DUST_TOKEN0; ++t)
    for (int k = 0; k < hand[t]; ++k)
      items.push_back({TOKEN_VALUE[t] / 3.0, 3, TOKEN_VALUE[t]});
  int dust = 0;
  for (int i = 0; i < NUM_DUST_CHITS; ++i) dust += hand[DUST_TOKEN0 + i] * DUST_CHITS[i];
  int tens = dust / 10, rest = dust % 10;  // dust >= 0: divmod
  for (int k = 0; k < tens; ++k) items.push_back({10.0 / 3.0, 3, 10});
  if (rest >= 5) {
    items.push_back({2.5, 2, 5});
    rest -= 5;
  }
  for (int k = 0; k < rest / 2; ++k) items.push_back({2.0, 1, 2});
  // items.sort(reverse=True) on (per_slot, load, value): equal tuples are interchangeable.
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    if (a.per_slot != b.per_slot) return a.per_slot > b.per_slot;
    if (a.load != b.load) return a.load > b.load;
    return a.value > b.value;
  });
  int kept = 0;
  for (const Item& it : items) {
    if (it.load <= slots) {
      slots -= it.load;
      kept += it.value;
    }
  }
  return kept;
}

int excess(const GameState& s, int viewer) {
  const PlayerState& me = s.players[viewer];
  int v = liquid(me) - storable(s, viewer);
  return v > 0 ? v : 0;
}

int spend_budget(const GameState& s, int viewer) {
  const PlayerState& me = s.players[viewer];
  int level = me.levels[F_GEMSTONES];
  int inactive_sale = 0;
  for (int g = 0; g < NUM_GEMS; ++g) inactive_sale += me.inactive[g] * GEM_SALE_TABLE[g][level];
  return liquid(me) + inactive_sale;
}

}  // namespace heur

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
    for (int a = 0; a < NUM_ACTIONS; ++a) in_legal_[a] = false;
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
        if (level == 0 && me_.pentagon_chips == 0) {
          bool found;
          first += first_unbought_chip(me_, &found);
        }
        v += pymin_i(first, excess_);
      }
      if (v > best_v) {
        best_f = f;
        best_v = v;
      }
    }
    if (best_f < 0) return -1;
    if (legal(act::ADVANCE + best_f)) return act::ADVANCE + best_f;
    if (me_.levels[best_f] == 0 && me_.pentagon_chips == 0) {
      for (int i = 0; i < NUM_CHIPS; ++i) {
        if (!me_.chips_bought[i]) {
          int cost = CHIP_COSTS[i] + LEVEL_COSTS[best_f][0];
          if (legal(act::BUY_CHIP + i) && liquid(me_) >= cost) return act::BUY_CHIP + i;
          break;
        }
      }
    }
    return -1;
  }

  int auction(const GemPlan& gem_plan) {
    int cash = liquid(me_);
    int best = -1, best_price = 0;
    double best_ratio = 0.0;
    // Ascending action index (as heuristic.py): exact ties go to the lowest opening.
    for (int a = act::OPEN_ARTIFACT; a < act::BID; ++a) {
      if (!legal(a)) continue;
      int kind, item;
      if (a < act::OPEN_SENTINEL) {
        kind = ITEM_ARTIFACT;
        item = a - act::OPEN_ARTIFACT;
      } else {
        kind = ITEM_SENTINEL;
        item = a - act::OPEN_SENTINEL;
      }
      int min_bid = kind == ITEM_ARTIFACT ? ARTIFACTS[item].min_bid : SENTINEL_MIN_BID;
      int price = item_price(s_, me_, kind, item, min_bid);
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
    int n_active = sum_gems(active);
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
  bool in_legal_[NUM_ACTIONS];
  double r_ = 0.0;
  int excess_ = 0;
};

bool contains(const int* legal, int n, int a) {
  for (int i = 0; i < n; ++i)
    if (legal[i] == a) return true;
  return false;
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

}  // namespace

int heuristic_choose(const GameState& s, int seat, const HeuristicWeights& w, const int* legal,
                     int n_legal) {
  if (n_legal <= 0) throw std::invalid_argument("heuristic_choose: no legal action");
  int phase = s.phase;
  int action;
  if (phase == TURN) {
    action = Turn(s, seat, w, legal, n_legal).decide();
  } else if (phase == BID) {
    action = bid(s, seat, w, legal, n_legal);
  } else if (phase == DEBT) {
    action = cheapest_gem_action(s, seat, w, legal, n_legal, act::SELL_GEM);
  } else if (phase == LOSE_GEM) {
    action = cheapest_gem_action(s, seat, w, legal, n_legal, act::LOSE_GEM);
  } else if (phase == FREE_LEVEL) {
    action = free_level(s, seat, w, legal, n_legal);
  } else {
    action = legal[0];
  }
  if (!contains(legal, n_legal, action)) {  // defensive: a rule the valuation missed
    if (contains(legal, n_legal, act::END_TURN)) return act::END_TURN;
    if (contains(legal, n_legal, act::PASS)) return act::PASS;
    return legal[0];
  }
  return action;
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
