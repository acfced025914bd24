// agents/naive.py's NaiveDecision in C++ (included by naive.cpp only, which adds the planner
// on top of it and the entry points of naive.hpp).  Method names follow the Python class so the
// two read side by side.  Python's None is -1 here (never a valid action, field or gem).
// Bit-exactness: the same double operations in the same order (no fused multiply-add), max/min
// keep the first extreme element, and the generator is drawn at the same points.
#pragma once

#include "python_floats.hpp"  // first: no fused multiply-add

#include <algorithm>
#include <iterator>

#include "data.hpp"
#include "engine.hpp"
#include "naive.hpp"
#include "queries.hpp"

namespace zav::naive_impl {


// The action offsets (act::BID and act::LOSE_GEM stay qualified: Phase has a BID and a LOSE_GEM).
using act::ACTIVATE;
using act::ADVANCE;
using act::BUY_CHIP;
using act::BUY_GEM;
using act::DEACTIVATE;
using act::END_TURN;
using act::OPEN_ARTIFACT;
using act::OPEN_SENTINEL;
using act::PASS;
using act::SELL_GEM;

// sozav's constants (naive.py), generated into generated/constants.hpp.
using namespace naive_consts;
constexpr int NONE = -1;

// naive._load_after_settlement.
int load_after_settlement(const PlayerState& me, bool one_value_dust) {
  std::array<int, NUM_TOKENS> h = me.hand;
  const int balance = me.balance;
  int change = -balance;
  if (balance > 0) {
    int chosen[NUM_TOKENS];
    if (!choose_payment(h.data(), balance, one_value_dust, chosen)) return hand_load(h);
    int paid = 0;
    for (int t = 0; t < NUM_TOKENS; ++t) {
      h[t] -= chosen[t];
      paid += chosen[t] * TOKEN_VALUE[t];
    }
    change = paid - balance;
  }
  if (change > 0) {
    int chits[NUM_DUST_CHITS];
    dust_chits(change, one_value_dust, chits);
    for (int i = 0; i < NUM_DUST_CHITS; ++i) h[DUST_TOKEN0 + i] += chits[i];
  }
  return hand_load(h);
}

class NaiveDecision {
 public:
  NaiveDecision(const GameState& s, int seat, const int* legal, int n_legal, PyRandom& rng)
      : s_(s), seat_(seat), me_(s.players[seat]), rng_(rng), legal_list_(legal),
        n_legal_(n_legal) {
    for (int i = 0; i < n_legal; ++i) legal_[legal[i]] = true;
    level_ = me_.levels[F_GEMSTONES];
    cash_ = liquid(me_);
    slots_ = active_slots(me_);
    gems_usable_ = s.turn_player == seat && !is_over(s) && block_open(s, BLOCK_GEMS);
    v_active_ = me_.active;
    v_inactive_ = me_.inactive;
    if (gems_usable_) simulate_arrangement();
    arranged_ = me_;
    arranged_.active = v_active_;
    liquid_ = cash_;
    for (int g = 0; g < NUM_GEMS; ++g) liquid_ += v_inactive_[g] * GEM_SALE_TABLE[g][level_];
  }
  virtual ~NaiveDecision() = default;

  int decide() {
    switch (s_.phase) {
      case TURN: return turn();
      case BID: return bid();
      case DEBT: return pay_debt();
      case FREE_LEVEL: return free_level();
      case LOSE_GEM: {  // lose_<gem> of the cheapest active kind
        const int lose = min_legal_from(act::LOSE_GEM);
        return lose != NONE ? lose : min_legal_from(0);
      }
      default: return min_legal_from(0);
    }
  }

 protected:
  bool legal(int a) const { return a >= 0 && a < NUM_ACTIONS && legal_[a]; }
  int min_legal_from(int lo) const {
    int best = NONE;
    for (int i = 0; i < n_legal_; ++i)
      if (legal_list_[i] >= lo && (best == NONE || legal_list_[i] < best)) best = legal_list_[i];
    return best;
  }

  // ---- gem moves allowed now (naive._can_activate / _can_deactivate) -----------------------
  bool can_activate(int gem) const {
    if (s_.phase == TURN && gem_total(me_.active) < slots_) return legal(ACTIVATE + gem);
    return true;
  }
  bool can_deactivate(int gem) const {
    if (s_.phase == TURN) return legal(DEACTIVATE + gem);
    return true;
  }

  // naive._simulate_arrangement on the seat's gems: fills v_active_, v_inactive_,
  // activated_virtually_ and realize_.
  void simulate_arrangement() {
    bool deactivated[NUM_GEMS] = {};
    while (true) {
      int g = NONE;
      for (int k = 0; k < NUM_GEMS; ++k)
        if (v_inactive_[k] && !deactivated[k] && can_activate(k)) g = k;  // the highest
      if (g == NONE) break;
      int move;
      if (gem_total(v_active_) < slots_) {
        move = ACTIVATE + g;
        v_active_[g] += 1;
        v_inactive_[g] -= 1;
        activated_virtually_[g] = true;
      } else {
        int h = NONE;
        for (int k = 0; k < g && h == NONE; ++k)  // the lowest
          if (v_active_[k] && !activated_virtually_[k] && can_deactivate(k)) h = k;
        if (h == NONE) break;
        move = DEACTIVATE + h;
        v_active_[h] -= 1;
        v_inactive_[h] += 1;
        deactivated[h] = true;
      }
      if (realize_ == NONE) realize_ = move;
    }
  }

  // ---- the doc's quantities -------------------------------------------------------------
  int cost(int gem) const { return GEM_COST_TABLE[gem][level_]; }
  int modifier(int kind, int item) const {
    return item_price(s_, me_, kind, item, BIG_BID) - BIG_BID;
  }
  int best_gem() const {
    for (int g = NUM_GEMS - 1; g >= 0; --g)
      if (s_.gem_supply[g] && may_own_gem(s_, me_, g)) return g;
    return NONE;
  }
  // naive's bonus: per_unit x units on the arranged gems, capped (at 12) only for the fox and
  // the tomcat, as naive.py writes it (not the scoring table's caps).
  int bonus(int sentinel) const {
    const int b = SENTINELS[sentinel].per_unit * sentinel_units(arranged_, sentinel);
    return sentinel == FOX || sentinel == TOMCAT ? std::min(12, b) : b;
  }
  bool sentinel_open(int k) const { return s_.sentinel_owner[k] == -1; }
  // The best bonus among the sentinels still available; NONE if none is (bonuses are >= 0).
  int best_open_bonus() const {
    int best = NONE;
    for (int k = 0; k < NUM_SENTINELS; ++k)
      if (sentinel_open(k)) best = std::max(best, bonus(k));
    return best;
  }
  bool has_advanceable_chip() const {
    if (me_.pentagon_chips > 0) return true;
    for (int lv : me_.levels)
      if (lv > 0 && lv < MAX_LEVEL) return true;
    return false;
  }
  bool wants(int kind, int item) const {
    const auto& arts = me_.artifacts;
    if (fire_blocks_buying()) return false;
    if (kind == ITEM_SENTINEL) return bonus(item) >= best_open_bonus();  // true if none open
    if (item == SPELLBOOK && arts[SPELLBOOK]) return false;
    if (item == ELIXIR && arts[SPELLBOOK]) return false;
    if (std::find(std::begin(FREE_ADVANCE_ARTIFACTS), std::end(FREE_ADVANCE_ARTIFACTS), item) !=
            std::end(FREE_ADVANCE_ARTIFACTS) &&
        !has_advanceable_chip())
      return false;
    return true;
  }
  virtual bool fire_blocks_buying() const {
    return 0 < me_.levels[F_FIRE] && me_.levels[F_FIRE] < MAX_LEVEL;
  }
  int next_track() const {
    const auto& lv = me_.levels;
    if (lv[F_FIRE] && !lv[F_GEMSTONES]) return F_GEMSTONES;
    for (int f : TRACK_SEQUENCE)
      if (!lv[f]) return f;
    return NONE;
  }
  std::array<int, NUM_FIELDS> chip_rank() const {
    const int start = CHARACTERS[me_.character].start_field;
    int order[NUM_FIELDS];
    bool in[NUM_FIELDS] = {};
    int n = 0;
    auto add = [&](int f) {
      if (!in[f]) {
        order[n++] = f;
        in[f] = true;
      }
    };
    add(start);
    if (start == F_FIRE) add(F_GEMSTONES);
    for (int f : TRACK_SEQUENCE) add(f);
    for (int f = 0; f < NUM_FIELDS; ++f) add(f);
    std::array<int, NUM_FIELDS> rank{};
    for (int i = 0; i < NUM_FIELDS; ++i) rank[order[i]] = i;
    return rank;
  }

  // ---- phase 3: one action per call -----------------------------------------------------
  int turn() {
    if (s_.block == BLOCK_GEMS && realize_ != NONE) return realize_;
    const int intent_ = intent();
    if (realize_ != NONE && (intent_ == END_TURN || (BUY_GEM <= intent_ && intent_ < BUY_CHIP)))
      return realize_;
    return intent_;
  }

  int fund(int needed, int action, int block) const {
    if (cash_ >= needed) return legal(action) ? action : NONE;
    if (!gems_usable_ || (block != BLOCK_GEMS && s_.block == block)) return NONE;
    return sale_of_first(v_inactive_);
  }

  // The legal sale of the lowest gem kind held in `gems`, NONE if none is legal.
  int sale_of_first(const std::array<int, NUM_GEMS>& gems) const {
    for (int g = 0; g < NUM_GEMS; ++g)
      if (gems[g] && legal(SELL_GEM + g)) return SELL_GEM + g;
    return NONE;
  }

  bool knowledge_usable() const {
    return block_open(s_, BLOCK_KNOWLEDGE) && !s_.paid_advance_done;
  }

  virtual int intent() {
    const bool auctions_usable = block_open(s_, BLOCK_AUCTION);
    const bool knowledge = knowledge_usable();
    // S1
    if (auctions_usable) {
      const int action = sentinel_step();
      if (action != NONE) return action;
    }
    // S2
    const bool gems_started = s_.block == BLOCK_GEMS || ((s_.blocks_used >> BLOCK_GEMS) & 1);
    const int level = me_.levels[F_GEMSTONES];
    if (knowledge && 0 < level && level < MAX_LEVEL && !gems_started) {
      const int c = LEVEL_COSTS[F_GEMSTONES][level];
      if (liquid_ >= c + GEMS_ADVANCE_MARGIN && cash_ >= c && legal(ADVANCE + F_GEMSTONES))
        return ADVANCE + F_GEMSTONES;
    }
    // S3
    bool short_ = false;
    const int best = best_gem();
    int target = NONE;
    if (best != NONE) {
      const int free = slots_ - gem_total(v_active_);
      bool room = free > 0;
      for (int h = 0; h < best && !room; ++h)
        if (v_active_[h] && upgradable(h)) room = true;
      if (room) target = best;
    }
    if (target != NONE) {
      if (gems_usable_) {
        if (liquid_ >= cost(target)) {
          const int action = fund(cost(target), BUY_GEM + target, BLOCK_GEMS);
          if (action != NONE) return action;
        } else if (slots_ > gem_total(v_active_) && v_active_[OPAL] == 2 &&
                   liquid_ >= cost(OPAL)) {
          const int action = fund(cost(OPAL), BUY_GEM + OPAL, BLOCK_GEMS);
          if (action != NONE) return action;
        }
      }
      short_ = true;
    }
    // S4
    const int nt = next_track();
    const int budget = gems_usable_ ? liquid_ : cash_;
    if (knowledge) {
      const int action = advance_step(nt, budget);
      if (action != NONE) return action;
    }
    // S5 / S6
    if (short_) {
      if (nt == F_GEMSTONES && knowledge) {
        const int action = chip_step(nt, budget);
        if (action != NONE) return action;
      }
    } else {
      if (auctions_usable) {
        const int action = artifact_step();
        if (action != NONE) return action;
      }
      if (knowledge) {
        const int action = chip_step(nt, budget);
        if (action != NONE) return action;
      }
    }
    // S7
    if (gems_usable_ && cash_ >= cost(OPAL) && legal(BUY_GEM)) {
      if (load_after_settlement(me_, s_.config.one_value_dust) > hand_limit(me_))
        return BUY_GEM + OPAL;
    }
    return END_TURN;
  }

  bool upgradable(int gem) const {
    if (!gems_usable_) return true;
    return !activated_virtually_[gem] && can_deactivate(gem);
  }

  int sentinel_step() {
    const int top = best_open_bonus();
    if (top == NONE) return NONE;
    int candidates[NUM_SENTINELS];
    int n = 0;
    for (int k = 0; k < NUM_SENTINELS; ++k)
      if (sentinel_open(k) && bonus(k) == top && wants(ITEM_SENTINEL, k)) candidates[n++] = k;
    if (n == 0) return NONE;
    if (liquid_ < SENTINEL_MIN_BID + modifier(ITEM_SENTINEL, candidates[0])) return NONE;
    const int choice = candidates[static_cast<int>(rng_.random() * n)];
    const int action = OPEN_SENTINEL + choice;
    return legal(action) ? action : NONE;
  }

  int advance_step(int nt, int budget) const {
    const auto& lv = me_.levels;
    int f = NONE;
    std::array<int, NUM_FIELDS> rank{};
    bool place_chip = true;
    for (int t = 0; t < NUM_FIELDS; ++t)
      if (0 < lv[t] && lv[t] < MAX_LEVEL) {
        if (place_chip) rank = chip_rank();
        place_chip = false;
        if (f == NONE || LEVEL_COSTS[t][lv[t]] < LEVEL_COSTS[f][lv[f]] ||
            (LEVEL_COSTS[t][lv[t]] == LEVEL_COSTS[f][lv[f]] && rank[t] < rank[f]))
          f = t;
      }
    if (f != NONE) {
      const int c = LEVEL_COSTS[f][lv[f]];
      if (budget < c) return NONE;
      if (f == F_FIRE && may_own_gem(s_, me_, RUBY))
        place_chip = true;  // the druid keeps Fire at 3 until his special ruby
      else
        return fund(c, ADVANCE + f, BLOCK_KNOWLEDGE);
    }
    if (place_chip && me_.pentagon_chips > 0 && nt != NONE) {
      const int c = LEVEL_COSTS[nt][0];
      if (budget >= c) return fund(c, ADVANCE + nt, BLOCK_KNOWLEDGE);
    }
    return NONE;
  }

  int chip_step(int nt, int budget) const {
    if (nt == NONE || has_advanceable_chip()) return NONE;
    const int i = first_unbought_chip(me_);
    if (i == NONE) return NONE;
    const int needed = CHIP_COSTS[i] + LEVEL_COSTS[nt][0];
    if (budget < needed) return NONE;
    return fund(needed, BUY_CHIP + i, BLOCK_KNOWLEDGE);
  }

  int artifact_step() const {
    for (int art : s_.display) {
      if (!may_acquire(me_, ITEM_ARTIFACT, art)) continue;
      if (!wants(ITEM_ARTIFACT, art)) continue;
      if (liquid_ < ARTIFACTS[art].min_bid + modifier(ITEM_ARTIFACT, art)) continue;
      if (legal(OPEN_ARTIFACT + art)) return OPEN_ARTIFACT + art;
    }
    return NONE;
  }

  // ---- bidding --------------------------------------------------------------------------
  virtual int bid() {
    if (s_.high_bidder < 0) return act::BID;  // our own opening: the printed minimum
    const int kind = s_.auction_kind, item = s_.auction_item;
    if (!wants(kind, item)) return PASS;  // B1
    const int m = modifier(kind, item);
    const int current = s_.high_bid;
    if (liquid_ <= current + m) return PASS;  // B2
    int minimum;
    double factor;
    if (kind == ITEM_ARTIFACT) {
      minimum = ARTIFACTS[item].min_bid;
      factor = item == MASK ? MASK_BID_LIMIT_FACTOR : BID_LIMIT_FACTOR;
    } else {
      minimum = SENTINEL_MIN_BID;
      factor = BID_LIMIT_FACTOR;
    }
    double limit = minimum * factor;  // B3
    if (m < 0) limit = limit + static_cast<double>(-m) / DISCOUNT_SHARE;
    const double r = rng_.random();
    limit = limit + (r < JITTER_MINUS ? -1 : (r < JITTER_ZERO ? 0 : 1));
    if (current >= limit) return PASS;  // B4
    return act::BID + 1;
  }

  int pay_debt() const {
    int action = sale_of_first(v_inactive_);
    if (action == NONE) action = sale_of_first(me_.inactive);
    return action != NONE ? action : min_legal_from(0);
  }

  int free_level() const {
    const auto& lv = me_.levels;
    const auto rank = chip_rank();
    // max over the placed fields by (next level's cost, rank): ranks are distinct, so the
    // order the Python set visits them in does not matter.
    int f = NONE;
    for (int i = 0; i < n_legal_; ++i) {
      const int a = legal_list_[i];
      if (a < ADVANCE || a >= ADVANCE + NUM_FIELDS) continue;
      const int t = a - ADVANCE;
      if (!(0 < lv[t] && lv[t] < MAX_LEVEL)) continue;
      if (f == NONE || LEVEL_COSTS[t][lv[t]] > LEVEL_COSTS[f][lv[f]] ||
          (LEVEL_COSTS[t][lv[t]] == LEVEL_COSTS[f][lv[f]] && rank[t] > rank[f]))
        f = t;
    }
    if (f != NONE) return ADVANCE + f;
    const int nt = next_track();
    if (nt != NONE && legal(ADVANCE + nt)) return ADVANCE + nt;
    return min_legal_from(0);
  }

  const GameState& s_;
  const int seat_;
  const PlayerState& me_;
  PyRandom& rng_;
  const int* legal_list_;
  const int n_legal_;
  bool legal_[NUM_ACTIONS] = {};
  int level_ = 0;
  int cash_ = 0;
  int slots_ = 0;
  bool gems_usable_ = false;
  std::array<int, NUM_GEMS> v_active_{};
  std::array<int, NUM_GEMS> v_inactive_{};
  bool activated_virtually_[NUM_GEMS] = {};
  PlayerState arranged_;  // the seat with v_active_ as its active gems
  int realize_ = NONE;
  int liquid_ = 0;
};

}  // namespace zav::naive_impl
