// Component tables of The Scepter of Zavandor: every table and enum of
// zavandor_env/engine/data.py (and the flat action index space of engine/actions.py) comes from
// generated/constants.hpp, written from the Python definitions by `python -m zavandor_env.codegen`.
// This file adds the few rule functions the C++ engine computes from them.
//
// Same indices as the Python engine:
//   gems    OPAL, SAPPHIRE, EMERALD, DIAMOND, RUBY (0..4)
//   colours BLUE, GREEN, WHITE, RED (0..3); colour c belongs to gem c + 1
//   fields  F_GEMSTONES, F_ENERGY_FLOW, F_FIRE, F_SAGES, F_ARTIFACTS, F_ACCUMULATION (0..5)
//   tokens  0..20 energy cards (CARD_TOKENS), 21..24 concentrated, 25..28 dust 1/2/5/10
#pragma once

#include "generated/constants.hpp"
#include "state.hpp"

namespace zav {

constexpr int gem_cost(int gem, int gemstones_level) {
  return GEM_BASE_COST[gem] * (100 - GEM_DISCOUNT_PERCENT_PER_LEVEL * gemstones_level) / 100;
}
constexpr int gem_sale_value(int gem, int gemstones_level) {
  return gem_cost(gem, gemstones_level) / 2;
}
constexpr int opal_dust(int active_opals) {
  return (active_opals / OPAL_GROUP_SIZE) * OPAL_DUST_PER_GROUP +
         OPAL_DUST_BY_REMAINDER[active_opals % OPAL_GROUP_SIZE];
}

// The generated tables must be what the functions above compute (data.py derives them so).
static_assert(GEM_COST_TABLE[RUBY][4] == gem_cost(RUBY, 4), "GEM_COST_TABLE");
static_assert(GEM_SALE_TABLE[OPAL][1] == gem_sale_value(OPAL, 1), "GEM_SALE_TABLE");
static_assert(act::NUM_ACTIONS == act::LOSE_GEM + NUM_GEMS, "action space");

}  // namespace zav
