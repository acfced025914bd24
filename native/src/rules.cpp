// turn.py, auction.py and the decision driver of game.py (Game._step / Game._skip_forced).
#include <stdexcept>

#include "engine.hpp"

namespace zav {

using act::ACTIVATE;
using act::ADVANCE;
using act::BID_RAISES;
using act::BUY_CHIP;
using act::BUY_GEM;
using act::DEACTIVATE;
using act::END_BLOCK;
using act::END_TURN;
using act::NUM_BID_RAISES;
using act::OPEN_ARTIFACT;
using act::OPEN_SENTINEL;
using act::PASS;
using act::SELL_GEM;
// BID and LOSE_GEM are also Phase names: spelled act::BID / act::LOSE_GEM below.

namespace {

// turn._BLOCK_OF_ACTION
inline int block_of_action(int action) {
  if (action < BUY_GEM) return BLOCK_NONE;
  if (action < BUY_CHIP) return BLOCK_GEMS;
  if (action < OPEN_ARTIFACT) return BLOCK_KNOWLEDGE;
  return BLOCK_AUCTION;
}

inline bool any_active(const PlayerState& p) { return gem_total(p.active) > 0; }

// ---- phase 3 (turn.py) -------------------------------------------------------------------------
int legal_openings(const GameState& s, int* out, int n, int cash) {
  const PlayerState& player = s.players[s.turn_player];
  const bool overbid = s.config.allow_overbid;
  const int budget = overbid ? 0 : cash + gems_sale_value(player);
  const bool has_active_gem = any_active(player);
  bool shown[NUM_ARTIFACT_TYPES] = {};
  for (int art : s.display) shown[art] = true;
  for (int art = 0; art < NUM_ARTIFACT_TYPES; ++art) {
    if (!shown[art]) continue;
    if (!may_acquire(player, ITEM_ARTIFACT, art)) continue;
    if (ARTIFACTS[art].needs_active_gem_to_open && !has_active_gem) continue;
    if (overbid || artifact_price(s, player, art, ARTIFACTS[art].min_bid) <= budget)
      out[n++] = OPEN_ARTIFACT + art;
  }
  bool any_free = false;
  for (int owner : s.sentinel_owner) any_free |= owner == -1;
  if (!any_free) return n;
  if (overbid || sentinel_price(s, player, SENTINEL_MIN_BID) <= budget)
    for (int sen = 0; sen < NUM_SENTINELS; ++sen)
      if (s.sentinel_owner[sen] == -1) out[n++] = OPEN_SENTINEL + sen;
  return n;
}

// The sales of every gem kind `player` owns, appended to out[0..n); returns the new count.
int add_sales(const PlayerState& player, int* out, int n) {
  for (int g = 0; g < NUM_GEMS; ++g)
    if (player.active[g] || player.inactive[g]) out[n++] = SELL_GEM + g;
  return n;
}

int legal_turn(const GameState& s, int* out) {
  const PlayerState& player = s.players[s.turn_player];
  int n = 0;
  out[n++] = END_TURN;
  if (s.block != BLOCK_NONE) out[n++] = END_BLOCK;
  const int cash = liquid(player);
  if (block_open(s, BLOCK_GEMS)) {
    const int level = player.levels[F_GEMSTONES];
    const auto& active = player.active;
    const auto& inactive = player.inactive;
    const bool may_activate = gem_total(player.active) < active_slots(player);
    int no_activate = 0, no_deactivate = 0;
    if (s.config.no_undo_activation) {
      no_activate = s.gems_deactivated;
      no_deactivate = s.gems_activated;
    }
    for (int g = 0; g < NUM_GEMS; ++g)
      if (s.gem_supply[g] && cash >= GEM_COST_TABLE[g][level] &&
          (g <= SAPPHIRE || may_own_gem(s, player, g)))
        out[n++] = BUY_GEM + g;
    n = add_sales(player, out, n);
    for (int g = 0; g < NUM_GEMS; ++g)
      if (inactive[g] && may_activate && !((no_activate >> g) & 1)) out[n++] = ACTIVATE + g;
    for (int g = 0; g < NUM_GEMS; ++g)
      if (active[g] && !((no_deactivate >> g) & 1)) out[n++] = DEACTIVATE + g;
  }
  if (block_open(s, BLOCK_KNOWLEDGE)) {
    if (cash >= CHEAPEST_CHIP)
      for (int i = 0; i < NUM_CHIPS; ++i)
        if (!player.chips_bought[i] && cash >= CHIP_COSTS[i]) out[n++] = BUY_CHIP + i;
    if (!s.paid_advance_done) {
      const bool has_chip = player.pentagon_chips > 0;
      for (int f = 0; f < NUM_FIELDS; ++f) {
        int level = player.levels[f];
        if (level < MAX_LEVEL && (level || has_chip) && cash >= LEVEL_COSTS[f][level])
          out[n++] = ADVANCE + f;
      }
    }
  }
  if (block_open(s, BLOCK_AUCTION)) n = legal_openings(s, out, n, cash);
  return n;
}

int legal_free_level(const GameState& s, int* out) {
  const PlayerState& player = s.players[s.current_player];
  int n = 0;
  for (int f = 0; f < NUM_FIELDS; ++f)
    if (can_raise(player, f)) out[n++] = ADVANCE + f;
  return n;
}

// ---- auctions (auction.py) ---------------------------------------------------------------------
int legal_bid(const GameState& s, int* out) {
  const int seat = s.current_player;
  const PlayerState& player = s.players[seat];
  int n = 0;
  if (!may_acquire(player, s.auction_kind, s.auction_item)) {
    out[n++] = PASS;
    return n;
  }
  const bool opening = s.high_bidder < 0;
  if (s.config.allow_overbid) {
    for (int i = opening ? 0 : 1; i < NUM_BID_RAISES; ++i) out[n++] = act::BID + i;
  } else {
    const int budget = max_payable(player);
    for (int i = 0; i < NUM_BID_RAISES; ++i) {
      if (BID_RAISES[i] == 0 && !opening) continue;
      int price = item_price(s, player, s.auction_kind, s.auction_item, s.high_bid + BID_RAISES[i]);
      if (price > budget) break;
      out[n++] = act::BID + i;
    }
  }
  if (!opening) out[n++] = PASS;
  return n;
}

int legal_debt(const GameState& s, int* out) { return add_sales(s.players[s.debtor], out, 0); }

int legal_lose_gem(const GameState& s, int* out) {
  const PlayerState& player = s.players[s.current_player];
  int n = 0;
  for (int g = 0; g < NUM_GEMS; ++g)
    if (player.active[g]) out[n++] = act::LOSE_GEM + g;
  return n;
}

void open_auction(GameState& s, int kind, int item) {
  s.auction_kind = kind;
  s.auction_item = item;
  s.auction_opener = s.turn_player;
  s.high_bid = item_min_bid(kind, item);
  s.high_bidder = -1;
  s.passed = 0;
  set_phase(s, Phase::BID, s.turn_player);
}

void sell_gem(GameState& s, PlayerState& player, int gem) {
  player.balance -= GEM_SALE_TABLE[gem][player.levels[F_GEMSTONES]];
  if (player.inactive[gem])
    player.inactive[gem] -= 1;
  else
    player.active[gem] -= 1;
  s.gem_supply[gem] += 1;
}

void clear_auction(GameState& s) {
  s.auction_kind = -1;
  s.auction_item = -1;
  s.auction_opener = -1;
  s.high_bid = 0;
  s.high_bidder = -1;
  s.passed = 0;
  s.debt_item_price = 0;
}

// After an auction: the turn player's turn goes on, in the auction block.
void back_to_turn(GameState& s) {
  set_phase(s, TURN, s.turn_player);
  s.block = BLOCK_AUCTION;
}

void continue_resolution(GameState& s) {
  const int winner = s.debtor;
  if (s.free_levels > 0) {
    const PlayerState& wp = s.players[winner];
    bool any = false;
    for (int f = 0; f < NUM_FIELDS; ++f) any |= can_raise(wp, f);
    if (any) {
      set_phase(s, FREE_LEVEL, winner);
      return;
    }
    s.free_levels = 0;
  }
  while (!s.victims.empty()) {
    int victim = s.victims[0];
    if (any_active(s.players[victim])) {
      set_phase(s, Phase::LOSE_GEM, victim);
      return;
    }
    s.victims.erase_at(0);
  }
  s.debtor = -1;
  back_to_turn(s);
}

void take_free_chip(PlayerState& player) {
  for (int i = NUM_CHIPS - 1; i >= 0; --i) {
    if (!player.chips_bought[i]) {
      player.chips_bought[i] = true;
      player.pentagon_chips += 1;
      return;
    }
  }
}

void complete_purchase(GameState& s) {
  const int seat = s.debtor;
  const int kind = s.auction_kind, item = s.auction_item;
  // Check, don't trust: the winner and the item index the tables below (a state from outside
  // with a cleared auction in DEBT would write past sentinel_owner).
  const int items = kind == ITEM_ARTIFACT ? NUM_ARTIFACT_TYPES : kind == ITEM_SENTINEL ? NUM_SENTINELS : 0;
  if (seat < 0 || seat >= s.players.size() || item < 0 || item >= items)
    throw std::logic_error("zavandor native: the auction being completed names no winner or item");
  PlayerState& player = s.players[seat];
  settle(s, player);
  s.purchases.push_back(PurchaseRecord{s.round, seat, kind, item, s.high_bid, s.debt_item_price});
  clear_auction(s);
  if (kind == ITEM_ARTIFACT) {
    int at = s.display.index_of(item);
    if (at < 0) throw std::logic_error("zavandor native: auctioned artifact not displayed");
    s.display.erase_at(at);
    s.artifact_auctioned = true;
    player.artifacts[item] += 1;
    const ArtifactSpec& spec = ARTIFACTS[item];
    if (item == ELIXIR && s.gem_supply[DIAMOND]) {
      s.gem_supply[DIAMOND] -= 1;
      player.inactive[DIAMOND] += 1;
    }
    if (spec.destroys_gems) {
      take_free_chip(player);
      s.victims.clear();
      for (int other : s.turn_order)
        if (other != seat && !s.players[other].eliminated && any_active(s.players[other]))
          s.victims.push_back(other);
    }
    s.free_levels = spec.free_levels;
  } else {
    s.sentinel_owner[item] = seat;
    player.sentinels.push_back(item);
  }
  continue_resolution(s);
}

void end_with_one_player(GameState& s) {
  for (auto& p : s.players)
    if (!p.eliminated && p.balance) settle(s, p);
  rescore(s);
  s.terminated = true;
  set_phase(s, GAME_OVER, -1);
}

void curse(GameState& s, int seat) {
  PlayerState& player = s.players[seat];
  player.eliminated = true;
  for (int g = 0; g < NUM_GEMS; ++g) {
    s.gem_supply[g] += player.active[g] + player.inactive[g];
    player.active[g] = player.inactive[g] = 0;
  }
  for (int t = 0; t < NUM_TOKENS; ++t) return_token(s, t, player.hand[t]);
  player.hand = {};
  for (int t : player.sages_tokens) return_token(s, t, 1);
  player.sages_tokens.clear();
  player.sages_dust = 0;
  player.balance = 0;
  player.vp = player.gem_vp = 0;
  clear_auction(s);
  s.debtor = -1;
  if (alive_count(s) <= 1) {
    end_with_one_player(s);
    return;
  }
  if (seat == s.turn_player)
    end_turn(s);
  else
    back_to_turn(s);
}

void win(GameState& s, int seat) {
  PlayerState& player = s.players[seat];
  int price = item_price(s, player, s.auction_kind, s.auction_item, s.high_bid);
  if (price > max_payable(player)) {
    curse(s, seat);
    return;
  }
  player.balance += price;
  s.debt_item_price = price;
  s.debtor = seat;
  if (liquid(player) < 0) {
    set_phase(s, DEBT, seat);
    return;
  }
  complete_purchase(s);
}

void next_bidder(GameState& s, int seat) {
  const auto& order = s.turn_order;
  const int n = order.size();
  const int start = order.index_of(seat);
  for (int step = 1; step <= n; ++step) {
    int candidate = order[(start + step) % n];
    if (candidate == s.high_bidder) {
      win(s, candidate);
      return;
    }
    if (s.players[candidate].eliminated || ((s.passed >> candidate) & 1)) continue;
    s.current_player = candidate;
    return;
  }
  throw std::logic_error("zavandor native: auction without a high bidder");
}

void apply_bid(GameState& s, int action) {
  const int seat = s.current_player;
  if (action == PASS) {
    s.passed |= 1 << seat;
  } else {
    s.high_bid += BID_RAISES[action - act::BID];
    s.high_bidder = seat;
  }
  next_bidder(s, seat);
}

void apply_debt(GameState& s, int action) {
  PlayerState& player = s.players[s.debtor];
  sell_gem(s, player, action - SELL_GEM);
  if (liquid(player) >= 0) complete_purchase(s);
}

void apply_lose_gem(GameState& s, int action) {
  PlayerState& player = s.players[s.current_player];
  int gem = action - act::LOSE_GEM;
  player.active[gem] -= 1;
  s.gem_supply[gem] += 1;
  s.victims.erase_at(0);
  continue_resolution(s);
}

void apply_free_level(GameState& s, int action) {
  raise_level(s, s.players[s.current_player], action - ADVANCE);
  s.free_levels -= 1;
  continue_resolution(s);
}

void apply_turn(GameState& s, int action) {
  if (action == END_TURN) {
    end_turn(s);
    return;
  }
  if (action == END_BLOCK) {
    s.blocks_used |= 1 << s.block;
    s.block = BLOCK_NONE;
    return;
  }
  const int block = block_of_action(action);
  if (block != s.block) {
    if (s.block != BLOCK_NONE) s.blocks_used |= 1 << s.block;
    s.block = block;
  }
  PlayerState& player = s.players[s.turn_player];
  if (action < SELL_GEM) {
    int gem = action - BUY_GEM;
    player.balance += GEM_COST_TABLE[gem][player.levels[F_GEMSTONES]];
    s.gem_supply[gem] -= 1;
    if (gem == RUBY && player.levels[F_FIRE] < 4) player.druid_ruby_used = true;
    if (gem_total(player.active) < active_slots(player))
      player.active[gem] += 1;
    else
      player.inactive[gem] += 1;
  } else if (action < ACTIVATE) {
    sell_gem(s, player, action - SELL_GEM);
  } else if (action < DEACTIVATE) {
    int gem = action - ACTIVATE;
    player.inactive[gem] -= 1;
    player.active[gem] += 1;
    s.gems_activated |= 1 << gem;
  } else if (action < BUY_CHIP) {
    int gem = action - DEACTIVATE;
    player.active[gem] -= 1;
    player.inactive[gem] += 1;
    s.gems_deactivated |= 1 << gem;
  } else if (action < ADVANCE) {
    int chip = action - BUY_CHIP;
    player.balance += CHIP_COSTS[chip];
    player.chips_bought[chip] = true;
    player.pentagon_chips += 1;
  } else if (action < OPEN_ARTIFACT) {
    int field = action - ADVANCE;
    player.balance += LEVEL_COSTS[field][player.levels[field]];
    s.paid_advance_done = true;
    raise_level(s, player, field);
  } else if (action < OPEN_SENTINEL) {
    open_auction(s, ITEM_ARTIFACT, action - OPEN_ARTIFACT);
  } else {
    open_auction(s, ITEM_SENTINEL, action - OPEN_SENTINEL);
  }
}

}  // namespace

int legal_actions(const GameState& s, int* out) {
  if (s.terminated || s.truncated) return 0;
  switch (s.phase) {
    case TURN: return legal_turn(s, out);
    case Phase::BID: return legal_bid(s, out);
    case DEBT: return legal_debt(s, out);
    case FREE_LEVEL: return legal_free_level(s, out);
    case Phase::LOSE_GEM: return legal_lose_gem(s, out);
    default: return 0;  // ROUND_END, GAME_OVER
  }
}

void step(GameState& s, int action, bool stop_at_round_end) {
  switch (s.phase) {
    case TURN: apply_turn(s, action); break;
    case Phase::BID: apply_bid(s, action); break;
    case DEBT: apply_debt(s, action); break;
    case FREE_LEVEL: apply_free_level(s, action); break;
    case Phase::LOSE_GEM: apply_lose_gem(s, action); break;
    default: throw std::logic_error("zavandor native: no decision pending");
  }
  const bool stopped = s.phase == ROUND_END;
  s.num_decisions += 1;
  const bool truncate = s.num_decisions >= s.config.max_decisions && !s.terminated;
  if (stopped && (truncate || !stop_at_round_end)) start_round(s);
  if (truncate && !s.truncated) {
    s.truncated = true;
    set_phase(s, GAME_OVER, -1);
  }
}

int skip_forced(GameState& s, bool stop_at_round_end, int* legal_out) {
  while (true) {
    int n = legal_actions(s, legal_out);
    if (n != 1 || !s.config.skip_forced_decisions) return n;
    step(s, legal_out[0], stop_at_round_end);
  }
}

}  // namespace zav
