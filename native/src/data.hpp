// Component tables of The Scepter of Zavandor: the C++ twin of zavandor_env/engine/data.py,
// plus the flat action index space of zavandor_env/engine/actions.py.
//
// Same indices as the Python engine:
//   gems    OPAL, SAPPHIRE, EMERALD, DIAMOND, RUBY (0..4)
//   colours BLUE, GREEN, WHITE, RED (0..3); colour c belongs to gem c + 1
//   fields  F_GEMSTONES, F_ENERGY_FLOW, F_FIRE, F_SAGES, F_ARTIFACTS, F_ACCUMULATION (0..5)
//   tokens  0..20 energy cards (CARD_TOKENS), 21..24 concentrated, 25..28 dust 1/2/5/10
// The basic sizes (NUM_GEMS, NUM_TOKENS, ...) live in state.hpp.
#pragma once

#include "state.hpp"

namespace zav {

// ---- enums (plain ints, as the Python IntEnums) ---------------------------------------------
enum Gem : int { OPAL = 0, SAPPHIRE = 1, EMERALD = 2, DIAMOND = 3, RUBY = 4 };
enum Colour : int { BLUE = 0, GREEN = 1, WHITE = 2, RED = 3 };
// F_ prefix: the artifact table below is called ARTIFACTS, as in data.py.
enum Field : int {
  F_GEMSTONES = 0, F_ENERGY_FLOW = 1, F_FIRE = 2, F_SAGES = 3, F_ARTIFACTS = 4, F_ACCUMULATION = 5
};
enum Art : int {
  SPELLBOOK = 0, RUNESTONE = 1, CRYSTAL_BALL = 2, BELT = 3, MIRROR = 4,
  CRYSTAL_OF_PROTECTION = 5, ELIXIR = 6, MASK = 7, WAND = 8, CHALICE = 9, CLOAK = 10,
  TALISMAN = 11
};
enum Sen : int {
  PHOENIX = 0, OWL = 1, FOX = 2, TOAD = 3, UNICORN = 4, TOMCAT = 5, SCARAB = 6, RAVEN = 7,
  SALAMANDER = 8
};

// ---- §1-2 energy cards ------------------------------------------------------------------------
constexpr int TOTAL_ENERGY_CARDS = 126;
constexpr int CONCENTRATED_VALUE[NUM_COLOURS] = {20, 30, 40, 60};
constexpr int CONCENTRATED_PER_COLOUR = 8;
constexpr int CONCENTRATED_BONUS_DUST = 2;
constexpr int CARDS_PER_CONCENTRATED = 4;

// ---- §3 gems ---------------------------------------------------------------------------------
constexpr int GEM_BASE_COST[NUM_GEMS] = {10, 20, 30, 40, 60};
constexpr int GEM_VP[NUM_GEMS] = {1, 1, 2, 2, 3};
constexpr int GEM_SUPPLY[NUM_GEMS] = {28, 28, 24, 24, 20};
constexpr int GEM_DISCOUNT_PERCENT_PER_LEVEL = 10;
constexpr int MAX_RUBIES = 5;
constexpr int BASE_ACTIVE_SLOTS = 5;
constexpr int ACCUMULATION_SLOTS_BY_LEVEL[5] = {0, 0, 1, 1, 2};
constexpr int BELT_SLOTS = 2;
constexpr int WAND_SLOTS = 2;
constexpr int START_GEMS[NUM_GEMS] = {2, 1, 0, 0, 0};
constexpr int OPAL_GROUP_SIZE = 3;
constexpr int OPAL_DUST_BY_REMAINDER[3] = {0, 2, 5};
constexpr int OPAL_DUST_PER_GROUP = 10;

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

// GEM_COST_TABLE[gem][gemstones level], GEM_SALE_TABLE likewise.
constexpr int GEM_COST_TABLE[NUM_GEMS][5] = {
    {10, 9, 8, 7, 6}, {20, 18, 16, 14, 12}, {30, 27, 24, 21, 18}, {40, 36, 32, 28, 24},
    {60, 54, 48, 42, 36}};
constexpr int GEM_SALE_TABLE[NUM_GEMS][5] = {
    {5, 4, 4, 3, 3}, {10, 9, 8, 7, 6}, {15, 13, 12, 10, 9}, {20, 18, 16, 14, 12},
    {30, 27, 24, 21, 18}};

// ---- §4 knowledge ----------------------------------------------------------------------------
constexpr int LEVEL_COSTS[NUM_FIELDS][4] = {
    {2, 4, 8, 16}, {3, 6, 12, 24}, {5, 10, 15, 20}, {3, 6, 12, 24}, {2, 4, 8, 16}, {2, 4, 8, 16}};
constexpr int HAND_LIMIT_FIELD_MODIFIER[NUM_FIELDS] = {-1, -1, 0, 0, +1, +1};
constexpr int ENERGY_FLOW_DUST_BY_LEVEL[5] = {0, 0, 2, 5, 10};
constexpr int ARTIFACT_DISCOUNT_BY_LEVEL[5] = {0, 0, 5, 5, 10};
constexpr int SENTINEL_DISCOUNT_BY_LEVEL[5] = {0, 0, 10, 10, 20};
constexpr int TOP_LEVEL_VP = 2;
constexpr int FIRE_LEVEL_FOR_RUBIES = 4;
constexpr int DRUID_RUBY_FIRE_LEVEL = 3;
constexpr int SAGES_CARDS_PER_LEVEL = 2;
constexpr int CHIP_COSTS[NUM_CHIPS] = {20, 25, 30, 35, 40};
constexpr int CHEAPEST_CHIP = 20;

// ---- §5 characters ---------------------------------------------------------------------------
struct CharacterSpec {
  const char* name;
  int start_field;
  int start_dust;
  int start_blue_cards;
};
constexpr CharacterSpec CHARACTERS[NUM_CHARACTERS] = {
    {"witch", F_GEMSTONES, 10, 0}, {"elf", F_ENERGY_FLOW, 10, 0}, {"druid", F_FIRE, 20, 0},
    {"fairy", F_SAGES, 10, 2},     {"mage", F_ARTIFACTS, 15, 0},  {"kobold", F_ACCUMULATION, 20, 0}};
constexpr int DRUID = 2;
constexpr int HAND_LIMIT_BASE = 5;
constexpr int HAND_LIMIT_FLOOR = 1;

// ---- §7.3 artifacts --------------------------------------------------------------------------
struct ArtifactSpec {
  const char* name;
  char letter;
  int min_bid;
  int vp;
  bool only_one;
  int free_levels;
  bool destroys_gems;
  bool needs_active_gem_to_open;
  int hand_limit;
  int slots;
};
constexpr ArtifactSpec ARTIFACTS[NUM_ARTIFACT_TYPES] = {
    {"spellbook", 'A', 20, 1, false, 0, false, false, 0, 0},
    {"runestone", 'A', 20, 1, false, 1, false, false, 0, 0},
    {"crystal_ball", 'A', 20, 1, false, 0, false, false, 3, 0},
    {"magic_belt", 'B', 30, 2, true, 0, false, false, 0, BELT_SLOTS},
    {"magic_mirror", 'B', 40, 2, false, 0, true, true, 0, 0},
    {"crystal_of_protection", 'B', 40, 2, false, 0, false, false, 0, 0},
    {"elixir", 'B', 60, 2, false, 0, false, false, 0, 0},
    {"mask_of_charisma", 'C', 50, 3, false, 1, false, false, 0, 0},
    {"magic_wand", 'C', 60, 3, true, 0, false, false, 3, WAND_SLOTS},
    {"chalice_of_fire", 'C', 80, 4, false, 0, false, false, 0, 0},
    {"shadow_cloak", 'D', 80, 5, false, 0, true, true, 0, 0},
    {"talisman", 'D', 100, 8, false, 2, false, false, 0, 0}};
constexpr char ARTIFACT_LETTERS[4] = {'A', 'B', 'C', 'D'};  // deck order, A on top
struct CrossDiscount {
  int target;
  int source;
  int per_copy;
};
constexpr CrossDiscount ARTIFACT_CROSS_DISCOUNTS[3] = {
    {CLOAK, SPELLBOOK, 15}, {CHALICE, RUNESTONE, 10}, {ELIXIR, CRYSTAL_BALL, 5}};
constexpr int MASK_SENTINEL_DISCOUNT = 20;
// COPIES_BY_PLAYERS[num_players] (index 0, 1 unused).
constexpr int COPIES_BY_PLAYERS[MAX_PLAYERS + 1] = {0, 0, 1, 2, 2, 3, 3};

// ---- §7.4 sentinels --------------------------------------------------------------------------
struct SentinelSpec {
  const char* name;
  int per_unit;
  int cap;  // -1: no cap
};
constexpr SentinelSpec SENTINELS[NUM_SENTINELS] = {
    {"phoenix", 2, 10}, {"owl", 2, 12},     {"fox", 2, 12},    {"toad", 2, -1},
    {"unicorn", 1, 11}, {"tomcat", 2, 12},  {"scarab", 1, 11}, {"raven", 2, -1},
    {"salamander", 2, 10}};
constexpr int SENTINEL_MIN_BID = 120;
constexpr int SENTINEL_BASE_VP = 5;
constexpr int SENTINELS_TO_END = 5;
constexpr int TOAD_ARTIFACTS[4] = {RUNESTONE, CRYSTAL_OF_PROTECTION, SPELLBOOK, ELIXIR};
constexpr int RAVEN_ARTIFACTS[4] = {CRYSTAL_BALL, MASK, BELT, WAND};

// ---- §7.1 turn-order price modifiers: (artifact, sentinel) by position I..VI ------------------
constexpr int POSITION_MODIFIER[6][2] = {{10, 20}, {5, 10}, {0, 0}, {0, 0}, {-5, -10}, {-10, -20}};
constexpr int MODIFIER_VP_THRESHOLD = 10;

// ---- §6 hand limit loads, unknown-supply fallback ---------------------------------------------
constexpr int CARD_LOAD = 1;
constexpr int CONCENTRATED_LOAD = 3;
constexpr int NUM_DUST_CHITS = 4;
constexpr int DUST_CHITS[NUM_DUST_CHITS] = {1, 2, 5, 10};
constexpr int DUST_LOAD[NUM_DUST_CHITS] = {1, 1, 2, 3};
constexpr int EMPTY_DECK_DUST[NUM_COLOURS] = {5, 7, 10, 15};

// ---- tokens ----------------------------------------------------------------------------------
// CARD_TOKENS[t] = (colour, value) for t < 21; CARD_TOKEN_COUNT[t] = cards of that value.
constexpr int CARD_TOKEN_COLOUR[NUM_CARD_TOKENS] = {0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1,
                                                    2, 2, 2, 2, 2, 3, 3, 3, 3, 3};
constexpr int CARD_TOKEN_COUNT[NUM_CARD_TOKENS] = {3, 6, 12, 6, 3, 3, 6, 9, 9, 6, 3,
                                                   3, 6, 12, 6, 3, 3, 6, 12, 6, 3};
// First card token of each colour, and one past the last.
constexpr int COLOUR_TOKEN_BEGIN[NUM_COLOURS + 1] = {0, 5, 11, 16, 21};
constexpr int TOKEN_VALUE[NUM_TOKENS] = {3,  4,  5,  6,  7,  5,  6,  7,  8,  9,
                                         10, 8,  9,  10, 11, 12, 13, 14, 15, 16,
                                         17, 20, 30, 40, 60, 1,  2,  5,  10};
constexpr int TOKEN_LOAD[NUM_TOKENS] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                        1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 1, 1, 2, 3};
constexpr int TOKEN_COLOUR[NUM_TOKENS] = {0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2,  2,  2,  2,
                                          2, 3, 3, 3, 3, 3, 0, 1, 2, 3, -1, -1, -1, -1};
// economy.PAY_ORDER: give-away order for payments (most load per unit of value first).
constexpr int PAY_ORDER[NUM_TOKENS] = {25, 26, 27, 0,  28, 1,  2,  5,  3,  6,
                                       21, 4,  7,  8,  11, 9,  12, 10, 13, 22,
                                       14, 15, 16, 23, 17, 18, 19, 20, 24};

// ---- the flat action index space (actions.py) -------------------------------------------------
// In namespace zav::act because Phase (state.hpp) already uses the names BID and LOSE_GEM.
namespace act {
constexpr int NUM_BID_RAISES = 7;
constexpr int BID_RAISES[NUM_BID_RAISES] = {0, 1, 2, 5, 10, 20, 50};
constexpr int END_TURN = 0;
constexpr int END_BLOCK = 1;
constexpr int BUY_GEM = 2;
constexpr int SELL_GEM = BUY_GEM + NUM_GEMS;          // 7
constexpr int ACTIVATE = SELL_GEM + NUM_GEMS;         // 12
constexpr int DEACTIVATE = ACTIVATE + NUM_GEMS;       // 17
constexpr int BUY_CHIP = DEACTIVATE + NUM_GEMS;       // 22
constexpr int ADVANCE = BUY_CHIP + NUM_CHIPS;         // 27
constexpr int OPEN_ARTIFACT = ADVANCE + NUM_FIELDS;   // 33
constexpr int OPEN_SENTINEL = OPEN_ARTIFACT + NUM_ARTIFACT_TYPES;  // 45
constexpr int BID = OPEN_SENTINEL + NUM_SENTINELS;    // 54
constexpr int PASS = BID + NUM_BID_RAISES;            // 61
constexpr int LOSE_GEM = PASS + 1;                    // 62
constexpr int NUM_ACTIONS = LOSE_GEM + NUM_GEMS;      // 67
}  // namespace act
constexpr int NUM_ACTIONS = act::NUM_ACTIONS;

static_assert(act::NUM_ACTIONS == 67, "action space");

}  // namespace zav
