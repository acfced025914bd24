// The observation vector and the action mask: the C++ twin of
// zavandor_env/encoding/observation.py (ObservationEncoder.encode / raw, mask_array).
//
// The layout (field order and sizes) is declared below in the same order as the Python tables
// GLOBAL_FIELDS / PLAYER_FIELDS / PRIVATE_FIELDS; the *scales* and the clip bound are not copied
// here: they are handed over once from Python (set_observation_scale, which also compares every
// field name and size of the Python layout with this one), so a change to the Python layout
// either reaches the native encoder or makes it refuse to run -- never a silent divergence.
//
// Numbers: every raw value is computed as the Python encoder does (integers, and one Python
// float: round / max_rounds), converted to float32 the way NumPy converts a Python int/float
// (round to nearest), multiplied by the float32 scale in float32 (one IEEE rounding, as
// ``obs *= _SCALE`` on float32 arrays), then clipped to [-bound, bound] in float32.  The
// result is bit-identical to ObservationEncoder.encode.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "state.hpp"

namespace zav {

struct ObsFieldSpec {
  const char* name;
  int size;
};

// Same order, names and sizes as zavandor_env/encoding/observation.py (checked at configuration).
inline constexpr ObsFieldSpec OBS_GLOBAL_FIELDS[] = {
    {"num_players", MAX_PLAYERS - MIN_PLAYERS + 1},
    {"round", 1},
    {"round_fraction", 1},
    {"phase", 5},  // TURN, BID, DEBT, FREE_LEVEL, LOSE_GEM
    {"block", 4},  // NONE, GEMS, KNOWLEDGE, AUCTION
    {"blocks_used", 3},
    {"paid_advance_done", 1},
    {"gems_activated", NUM_GEMS},
    {"gems_deactivated", NUM_GEMS},
    {"display", NUM_ARTIFACT_TYPES},
    {"artifact_deck", NUM_ARTIFACT_TYPES},
    {"artifact_deck_size", 1},
    {"sentinel_available", NUM_SENTINELS},
    {"sentinels_acquired", 1},
    {"gem_supply", NUM_GEMS},
    {"concentrated_supply", NUM_COLOURS},
    {"deck_size", NUM_COLOURS},
    {"discard_size", NUM_COLOURS},
    {"discards", NUM_CARD_TOKENS},
    {"auction_active", 1},
    {"auction_artifact", NUM_ARTIFACT_TYPES},
    {"auction_sentinel", NUM_SENTINELS},
    {"high_bid", 1},
    {"opening_bid_pending", 1},
    {"debt_price", 1},
    {"free_levels", 1},
    {"victims_left", 1},
};

inline constexpr ObsFieldSpec OBS_PLAYER_FIELDS[] = {
    {"present", 1},
    {"eliminated", 1},
    {"character", NUM_CHARACTERS},
    {"active_gems", NUM_GEMS},
    {"inactive_gems", NUM_GEMS},
    {"levels", NUM_FIELDS},
    {"chips_bought", NUM_CHIPS},
    {"pentagon_chips", 1},
    {"artifacts", NUM_ARTIFACT_TYPES},
    {"sentinels", NUM_SENTINELS},
    {"vp", 1},
    {"gem_vp", 1},
    {"position", MAX_PLAYERS},
    {"price_modifier", 2},
    {"cards", NUM_COLOURS},
    {"concentrated", NUM_COLOURS},
    {"dust_chits", 4},
    {"dust", 1},
    {"hand_load", 1},
    {"hand_limit", 1},
    {"sages_cards", NUM_COLOURS},
    {"sages_dust", 1},
    {"balance", 1},
    {"druid_ruby_used", 1},
    {"is_turn_player", 1},
    {"is_deciding", 1},
    {"high_bidder", 1},
    {"passed", 1},
    {"debtor", 1},
    {"victim", 1},
};

inline constexpr ObsFieldSpec OBS_PRIVATE_FIELDS[] = {
    {"hand_cards", NUM_CARD_TOKENS},
    {"sages_cards", NUM_CARD_TOKENS},
    {"hand_value", 1},
    {"liquid", 1},
    {"max_payable", 1},
    {"price_at_high_bid", 1},
};

template <int N>
constexpr int obs_fields_size(const ObsFieldSpec (&fields)[N]) {
  int total = 0;
  for (int i = 0; i < N; ++i) total += fields[i].size;
  return total;
}

constexpr int OBS_GLOBAL_SIZE = obs_fields_size(OBS_GLOBAL_FIELDS);
constexpr int OBS_PLAYER_SIZE = obs_fields_size(OBS_PLAYER_FIELDS);
constexpr int OBS_PRIVATE_SIZE = obs_fields_size(OBS_PRIVATE_FIELDS);
constexpr int OBS_PRIVATE_START = OBS_GLOBAL_SIZE + MAX_PLAYERS * OBS_PLAYER_SIZE;
constexpr int OBS_SIZE = OBS_PRIVATE_START + OBS_PRIVATE_SIZE;

// The layout as (name, size) in vector order, player slots spelled out ("player0.present" ...
// "me.price_at_high_bid"): what observation.layout_entries() lists (without the scales).
std::vector<std::pair<std::string, int>> observation_layout();

// Installs the float32 scale vector (OBS_SIZE values, in layout order) and the clip bound.
// Throws std::invalid_argument if n != OBS_SIZE.  Until it is called, encode_observation throws
// std::logic_error (zavandor_env.encoding.observation installs its layout when it is imported).
void set_observation_scale(const float* scale, int n, float bound, const std::string& fingerprint);
bool observation_scale_ready();
const std::string& observation_fingerprint();

// The unscaled values in layout order (ObservationEncoder.raw): OBS_SIZE doubles.
void encode_raw(const GameState& s, int seat, double* out);

// The observation of ``seat`` (ObservationEncoder.encode): OBS_SIZE float32, bit-identical.
// Throws std::out_of_range for a seat outside [0, num_players), std::logic_error before the
// scale is installed.
void encode_observation(const GameState& s, int seat, float* out);

// observation.mask_array: out[a] = 1 for every action in legal[0..n), 0 elsewhere
// (num_actions entries; int8 in the environments).
void encode_mask(const int* legal, int n, int8_t* out, int num_actions);
// The same from the state's legal actions (Game.legal_actions): NUM_ACTIONS entries.
void encode_mask(const GameState& s, int8_t* out);

}  // namespace zav
