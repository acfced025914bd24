// agents/heuristic.py's valuations (its module-level functions) in C++: what a gem, a field
// level, an artifact, a sentinel and a bid are worth to a seat; heuristic.cpp decides with them.
//
// Bit-exactness rules followed throughout (here and in heuristic.cpp):
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
#include <limits>

#include "data.hpp"
#include "queries.hpp"

namespace zav {

namespace {

bool has_sentinel(const PlayerState& p, int sen) { return p.sentinels.index_of(sen) >= 0; }

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

}  // namespace

// ---- shared valuations --------------------------------------------------------------------------
namespace heur {

double horizon(const GameState& s, const HeuristicWeights& w) {
  long long expected = w.expected_rounds_for(s.config.num_players);
  int left = SENTINELS_TO_END - sentinels_acquired(s);
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
  double fullness = gem_total(p.active) + gem_total(p.inactive) >= active_slots(p) - 1 ? 1.0 : 0.4;
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
    const int chip = first_unbought_chip(p);
    if (chip < 0) return NEG_INF;
    total -= CHIP_COSTS[chip];
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
    value += 20 * pymin(w.expected_sentinels, 5 - sentinels_acquired(s)) * pymin(1.0, r / 4);
  if (art == RUNESTONE && s.display.index_of(CHALICE) >= 0) value += 5;
  return value;
}

double sentinel_value(const GameState& s, int seat, int sen, double r, const HeuristicWeights& w) {
  const PlayerState& p = s.players[seat];
  int vp = sentinel_vp(p, sen);
  if (sentinels_acquired(s) + 1 >= SENTINELS_TO_END) {
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
  if (kind == ITEM_SENTINEL && sentinels_acquired(s) + 1 >= SENTINELS_TO_END)
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

}  // namespace zav
