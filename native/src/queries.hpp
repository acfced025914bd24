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

// knowledge.can_raise
inline bool can_raise(const PlayerState& player, int field) {
  int level = player.levels[field];
  return level < MAX_LEVEL && (level > 0 || player.pentagon_chips > 0);
}

}  // namespace zav
