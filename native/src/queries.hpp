// Read-only facts derived from the state: the C++ twin of zavandor_env/engine/queries.py, plus
// economy.hand_value / hand_load.  Implemented in queries.cpp.
#pragma once

#include "data.hpp"
#include "state.hpp"

namespace zav {

// economy.hand_value / economy.hand_load over a hand vector of NUM_TOKENS counts.
int hand_value(const int* hand);
int hand_load(const int* hand);
inline int hand_value(const std::array<int, NUM_TOKENS>& hand) { return hand_value(hand.data()); }
inline int hand_load(const std::array<int, NUM_TOKENS>& hand) { return hand_load(hand.data()); }

int hand_limit(const PlayerState& player);
int active_slots(const PlayerState& player);
int liquid(const PlayerState& player);
int gems_sale_value(const PlayerState& player);
int max_payable(const PlayerState& player);
int rubies_owned(const PlayerState& player);
bool may_own_gem(const GameState& state, const PlayerState& player, int gem);
bool druid_ruby_available(const GameState& state, const PlayerState& player);
int artifact_price(const GameState& state, const PlayerState& player, int art, int bid);
int sentinel_price(const GameState& state, const PlayerState& player, int bid);
int item_price(const GameState& state, const PlayerState& player, int kind, int item, int bid);
int item_min_bid(int kind, int item);
bool may_acquire(const PlayerState& player, int kind, int item);
bool has_means_for_colour(const GameState& state, const PlayerState& player, int colour);

// scoring.py
int gem_vp(const PlayerState& player);
int sentinel_units(const PlayerState& player, int sentinel);
int sentinel_vp(const PlayerState& player, int sentinel);
int victory_points(const PlayerState& player);

// Small facts several players and the rules read.
inline bool is_over(const GameState& s) { return s.terminated || s.truncated; }
inline int gem_total(const std::array<int, NUM_GEMS>& gems) {
  int n = 0;
  for (int x : gems) n += x;
  return n;
}
// Whether the turn may use `block` now (no_split_blocks: a block ended is closed for the turn).
inline bool block_open(const GameState& s, int block) {
  return s.block == block || !s.config.no_split_blocks || !((s.blocks_used >> block) & 1);
}
// The index of the first chip not yet bought, -1 if every chip is bought.
int first_unbought_chip(const PlayerState& player);
// The most VP (current_vp) among the other seats still in the game; 0 if none is.
int best_other_vp(const GameState& state, int seat);
int sentinels_acquired(const GameState& state);

// knowledge.can_raise
inline bool can_raise(const PlayerState& player, int field) {
  int level = player.levels[field];
  return level < MAX_LEVEL && (level > 0 || player.pentagon_chips > 0);
}

}  // namespace zav
