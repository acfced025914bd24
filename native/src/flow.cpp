// flow.py in C++: setup, phases 1-2, the hand-over between turns and phase 4.
#include <algorithm>
#include <stdexcept>

#include "engine.hpp"

namespace zav {

static void build_artifact_deck(GameState& state) {
  int copies = COPIES_BY_PLAYERS[state.config.num_players];
  state.artifact_deck.clear();
  for (int li = 3; li >= 0; --li) {  // D, C, B, A: the list's end is the top of the deck
    char letter = ARTIFACT_LETTERS[li];
    int group[NUM_ARTIFACT_TYPES * 3];
    int n = 0;
    for (int c = 0; c < copies; ++c)
      for (int a = 0; a < NUM_ARTIFACT_TYPES; ++a)
        if (ARTIFACTS[a].letter == letter) group[n++] = a;
    state.rng.shuffle(group, static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) state.artifact_deck.push_back(group[i]);
  }
}

void new_state(GameState& state, const Config& config, const PyRandom& seeded) {
  static const GameState blank{};  // copying it is cheaper than constructing (and seeding) one
  state = blank;
  state.config = config;
  state.rng = seeded;
  const int n = config.num_players;
  std::array<int, MAX_PLAYERS> characters = config.characters;
  if (!config.has_characters) state.rng.sample_range(NUM_CHARACTERS, n, characters.data());
  std::copy(std::begin(GEM_SUPPLY), std::end(GEM_SUPPLY), state.gem_supply.begin());
  state.concentrated_supply.fill(CONCENTRATED_PER_COLOUR);
  state.sentinel_owner.fill(-1);
  for (int i = 0; i < n; ++i) {  // blank's lists are empty
    state.art_mod.push_back(0);
    state.sen_mod.push_back(0);
  }
  build_decks(state);
  for (int seat = 0; seat < n; ++seat) {
    PlayerState player;
    player.seat = seat;
    player.character = characters[seat];
    const CharacterSpec& spec = CHARACTERS[characters[seat]];
    for (int g = 0; g < NUM_GEMS; ++g) {
      player.active[g] = START_GEMS[g];
      state.gem_supply[g] -= START_GEMS[g];
    }
    player.levels[spec.start_field] = 1;
    gain_dust(player, spec.start_dust, config.one_value_dust);
    for (int i = 0; i < spec.start_blue_cards; ++i) player.hand[draw_card(state, BLUE)] += 1;
    state.players.push_back(player);
  }
  rescore(state);
  build_artifact_deck(state);
  for (int i = 0; i < n; ++i) state.display.push_back(state.artifact_deck.pop_back());
  start_round(state);
}

int alive_count(const GameState& state) {
  int n = 0;
  for (const auto& p : state.players) n += p.eliminated ? 0 : 1;
  return n;
}

static void assign_position_modifiers(GameState& state) {
  const auto& players = state.players;
  const auto& order = state.turn_order;
  const int n = order.size();
  int positions[MAX_PLAYERS];
  if (state.config.catchup_small_games && (n == 3 || n == 4)) {
    for (int i = 0; i < n - 2; ++i) positions[i] = i;
    positions[n - 2] = 4;
    positions[n - 1] = 5;
  } else {
    for (int i = 0; i < n; ++i) positions[i] = i;
  }
  int leader_vp = players[order[0]].vp;
  for (int i = 0; i < state.config.num_players; ++i) {
    state.art_mod[i] = 0;
    state.sen_mod[i] = 0;
  }
  for (int i = 0; i < n; ++i) {
    int seat = order[i], position = positions[i];
    bool applies = position == 1 ? players[seat].vp >= MODIFIER_VP_THRESHOLD
                                 : leader_vp >= MODIFIER_VP_THRESHOLD;
    if (applies) {
      state.art_mod[seat] = POSITION_MODIFIER[position][0];
      state.sen_mod[seat] = POSITION_MODIFIER[position][1];
    }
  }
}

static void determine_turn_order(GameState& state) {
  int seats[MAX_PLAYERS];
  double tiebreak[MAX_PLAYERS];
  int n = 0;
  for (const auto& p : state.players)
    if (!p.eliminated) seats[n++] = p.seat;
  for (int i = 0; i < n; ++i) tiebreak[seats[i]] = state.rng.random();
  const auto& players = state.players;
  auto less = [&](int a, int b) {  // key (-vp, -gem_vp, tiebreak)
    if (players[a].vp != players[b].vp) return players[a].vp > players[b].vp;
    if (players[a].gem_vp != players[b].gem_vp) return players[a].gem_vp > players[b].gem_vp;
    return tiebreak[a] < tiebreak[b];
  };
  std::stable_sort(seats, seats + n, less);  // Python's sorted is stable
  state.turn_order.clear();
  for (int i = 0; i < n; ++i) state.turn_order.push_back(seats[i]);
  assign_position_modifiers(state);
}

static void refill_display(GameState& state) {
  if (state.artifact_auctioned) {
    int target = state.turn_order.size();
    while (state.display.size() < target && !state.artifact_deck.empty())
      state.display.push_back(state.artifact_deck.pop_back());
  }
  state.artifact_auctioned = false;
}

static void collect_income(GameState& state, PlayerState& player) {
  const auto& active = player.active;
  const auto& arts = player.artifacts;
  int dust = opal_dust(active[OPAL]) + ENERGY_FLOW_DUST_BY_LEVEL[player.levels[F_ENERGY_FLOW]];
  const int counts[NUM_COLOURS] = {active[SAPPHIRE], active[EMERALD] + arts[CRYSTAL_OF_PROTECTION],
                                   active[DIAMOND], active[RUBY] + arts[CHALICE]};
  auto& hand = player.hand;
  for (int colour = 0; colour < NUM_COLOURS; ++colour) {
    int count = counts[colour];
    if (!count) continue;
    int fours = count / CARDS_PER_CONCENTRATED, cards = count % CARDS_PER_CONCENTRATED;
    for (int i = 0; i < fours; ++i) {
      if (state.concentrated_supply[colour]) {
        state.concentrated_supply[colour] -= 1;
        hand[CONC_TOKEN0 + colour] += 1;
        dust += CONCENTRATED_BONUS_DUST;
      } else {
        cards += CARDS_PER_CONCENTRATED;
      }
    }
    for (int i = 0; i < cards; ++i) {
      int token = draw_card(state, colour);
      if (token < 0)
        dust += EMPTY_DECK_DUST[colour];
      else
        hand[token] += 1;
    }
  }
  gain_dust(player, dust, state.config.one_value_dust);
}

static void begin_turn(GameState& state, int seat) {
  state.turn_player = seat;
  state.current_player = seat;
  state.phase = TURN;
  state.block = BLOCK_NONE;
  state.blocks_used = 0;
  state.paid_advance_done = false;
  state.gems_activated = 0;
  state.gems_deactivated = 0;
}

void start_round(GameState& state) {
  if (state.round >= state.config.max_rounds) {
    state.truncated = true;
    set_phase(state, GAME_OVER, -1);
    return;
  }
  state.round += 1;
  for (auto& player : state.players) {
    for (int token : player.sages_tokens) player.hand[token] += 1;
    player.sages_tokens.clear();
    if (player.sages_dust) {
      gain_dust(player, player.sages_dust, state.config.one_value_dust);
      player.sages_dust = 0;
    }
  }
  determine_turn_order(state);
  refill_display(state);
  for (int seat : state.turn_order) collect_income(state, state.players[seat]);
  state.turn_index = 0;
  begin_turn(state, state.turn_order[0]);
}

static void end_round(GameState& state) {
  for (auto& player : state.players)
    if (!player.eliminated) enforce_hand_limit(state, player, hand_limit(player));
  rescore(state);
  if (sentinels_acquired(state) >= SENTINELS_TO_END || alive_count(state) <= 1) {
    state.terminated = true;
    set_phase(state, GAME_OVER, -1);
    return;
  }
  set_phase(state, ROUND_END, -1);
}

void end_turn(GameState& state) {
  PlayerState& player = state.players[state.turn_player];
  if (!player.eliminated) settle(state, player);
  const auto& order = state.turn_order;
  int index = state.turn_index + 1;
  while (index < order.size() && state.players[order[index]].eliminated) ++index;
  if (index < order.size()) {
    state.turn_index = index;
    begin_turn(state, order[index]);
  } else {
    end_round(state);
  }
}

}  // namespace zav
