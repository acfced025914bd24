// The game state, field for field the Python engine's GameState/PlayerState
// (zavandor_env/engine/state.py): same names, same meaning, same list order, so the JSON form is
// shared and a differential test can compare the two after every action.
//
// Everything but the history and the purchase log lives inline (fixed capacities), so a clone
// is little more than a memcpy: search clones the state thousands of times a second.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "generated/constants.hpp"
#include "pyrandom.hpp"

namespace zav {

// A vector with inline storage; exceeding the capacity is a bug in the rules (or a state file
// the validator should have refused), so it throws instead of writing past the end.
template <typename T, int Cap>
struct SVec {
  T data[Cap];
  int n = 0;

  int size() const { return n; }
  bool empty() const { return n == 0; }
  void clear() { n = 0; }
  void push_back(T v) {
    if (n >= Cap) throw std::length_error("zavandor native state: inline list overflow");
    data[n++] = v;
  }
  T pop_back() { return data[--n]; }
  T& operator[](int i) { return data[i]; }
  const T& operator[](int i) const { return data[i]; }
  T* begin() { return data; }
  T* end() { return data + n; }
  const T* begin() const { return data; }
  const T* end() const { return data + n; }
  void erase_at(int i) {
    for (int k = i; k + 1 < n; ++k) data[k] = data[k + 1];
    --n;
  }
  int index_of(T v) const {
    for (int k = 0; k < n; ++k)
      if (data[k] == v) return k;
    return -1;
  }
};

// GameConfig (zavandor_env/engine/config.py); characters: -1 entries when dealt at random.
// The int fields and the boolean rule options come from the generated lists, defaults
// included; the saved-state ceilings (MAX_DUST_CHITS, MAX_SAGES_DUST, MAX_VP, MAX_AMOUNT) and
// Phase, Block, ITEM_* are generated too (generated/constants.hpp).
struct Config {
#define ZAV_CONFIG_INT_FIELD(name, default_value, lo, hi) int name = default_value;
  ZAV_CONFIG_INTS(ZAV_CONFIG_INT_FIELD)
#undef ZAV_CONFIG_INT_FIELD
  bool has_characters = false;
  std::array<int, MAX_PLAYERS> characters{};  // character indices, when has_characters
#define ZAV_RULE_OPTION_FIELD(name, default_value) bool name = default_value;
  ZAV_RULE_OPTIONS(ZAV_RULE_OPTION_FIELD)
#undef ZAV_RULE_OPTION_FIELD
};

struct PlayerState {
  int seat = 0;
  int character = 0;
  std::array<int, NUM_GEMS> active{};
  std::array<int, NUM_GEMS> inactive{};
  std::array<int, NUM_TOKENS> hand{};
  int balance = 0;
  SVec<int, 32> sages_tokens;
  int sages_dust = 0;
  std::array<int, NUM_FIELDS> levels{};
  std::array<bool, NUM_CHIPS> chips_bought{};
  int pentagon_chips = 0;
  std::array<int, NUM_ARTIFACT_TYPES> artifacts{};
  SVec<int, NUM_SENTINELS> sentinels;
  int vp = 0;
  int gem_vp = 0;
  bool druid_ruby_used = false;
  bool eliminated = false;
};

// (round, seat, kind, item, bid, price), as GameState.purchases.
using PurchaseRecord = std::array<int, 6>;

struct GameState {
  Config config;
  PyRandom rng;
  SVec<PlayerState, MAX_PLAYERS> players;
  int round = 0;
  int phase = TURN;
  SVec<int, MAX_PLAYERS> turn_order;
  int turn_index = 0;
  int turn_player = 0;
  int current_player = 0;
  int block = BLOCK_NONE;
  int blocks_used = 0;
  bool paid_advance_done = false;
  int gems_activated = 0;
  int gems_deactivated = 0;
  SVec<int, 40> display;
  SVec<int, 40> artifact_deck;  // top of the deck is the END
  bool artifact_auctioned = false;
  std::array<int, NUM_SENTINELS> sentinel_owner{};  // -1 available, -2 left with a cursed player
  std::array<SVec<int, 40>, NUM_COLOURS> decks;  // token ids, top = end
  std::array<SVec<int, 40>, NUM_COLOURS> discards;
  std::array<int, NUM_COLOURS> concentrated_supply{};
  std::array<int, NUM_GEMS> gem_supply{};
  SVec<int, MAX_PLAYERS> art_mod;  // one per seat (size num_players)
  SVec<int, MAX_PLAYERS> sen_mod;
  int auction_kind = -1;
  int auction_item = -1;
  int auction_opener = -1;
  int high_bid = 0;
  int high_bidder = -1;
  int passed = 0;
  int debtor = -1;
  int debt_item_price = 0;
  int free_levels = 0;
  SVec<int, MAX_PLAYERS> victims;
  bool terminated = false;
  bool truncated = false;
  int num_decisions = 0;
  std::vector<int> history;
  std::vector<PurchaseRecord> purchases;
};

}  // namespace zav
