// economy.py (dust change, automatic payment, hand limit), supply.py, knowledge.py and the
// phase-4 recount of scoring.py, in C++.
#include <algorithm>
#include <vector>

#include "engine.hpp"

namespace zav {

namespace {

struct ChangeTables {
  int table[2][CHANGE_TABLE_SIZE][NUM_DUST_CHITS];
  ChangeTables() {
    for (int one = 0; one < 2; ++one) {
      // economy._min_load_chits for every amount at once (the DP does not depend on it).
      int best_load[CHANGE_TABLE_SIZE] = {};
      int best_counts[CHANGE_TABLE_SIZE][NUM_DUST_CHITS] = {};
      bool has[CHANGE_TABLE_SIZE] = {true};  // amount 0: no chit
      for (int a = 1; a < CHANGE_TABLE_SIZE; ++a) {
        for (int i = 0; i < NUM_DUST_CHITS; ++i) {
          int chit = DUST_CHITS[i];
          if ((chit == 1 && !one) || chit > a || !has[a - chit]) continue;
          int cand = best_load[a - chit] + DUST_LOAD[i];
          if (!has[a] || cand < best_load[a]) {
            has[a] = true;
            best_load[a] = cand;
            for (int k = 0; k < NUM_DUST_CHITS; ++k) best_counts[a][k] = best_counts[a - chit][k];
            best_counts[a][i] += 1;
          }
        }
      }
      for (int a = 0; a < CHANGE_TABLE_SIZE; ++a) {
        int src = has[a] ? a : a - 1;  // 1 or 3 with 2/5/10 chits: give one less
        for (int k = 0; k < NUM_DUST_CHITS; ++k) table[one][a][k] = best_counts[src][k];
      }
    }
  }
};

const ChangeTables& change_tables() {
  static const ChangeTables t;
  return t;
}

// Card tokens by value, highest first; ties keep the token order (Python's stable sort).
struct CardOrder {
  int order[NUM_CARD_TOKENS];
  CardOrder() {
    for (int t = 0; t < NUM_CARD_TOKENS; ++t) order[t] = t;
    std::stable_sort(order, order + NUM_CARD_TOKENS,
                     [](int a, int b) { return TOKEN_VALUE[a] > TOKEN_VALUE[b]; });
  }
};
const CardOrder CARD_ORDER;
constexpr int CONC_ORDER[NUM_COLOURS] = {CONC_TOKEN0 + 3, CONC_TOKEN0 + 2, CONC_TOKEN0 + 1,
                                         CONC_TOKEN0};

}  // namespace

void dust_chits(int amount, bool one_value_dust, int out[NUM_DUST_CHITS]) {
  const auto& table = change_tables().table[one_value_dust ? 1 : 0];
  // Past the table, tens (of the 10-chit) until the rest is in it.
  const int tens = amount < CHANGE_TABLE_SIZE ? 0 : (amount - CHANGE_TABLE_SIZE + 20) / 10;
  const int* rest = table[amount - 10 * tens];
  std::copy(rest, rest + NUM_DUST_CHITS, out);
  out[3] += tens;
}

int gain_dust(PlayerState& player, int amount, bool one_value_dust) {
  if (amount <= 0) return 0;
  int counts[NUM_DUST_CHITS];
  dust_chits(amount, one_value_dust, counts);
  int given = 0;
  for (int i = 0; i < NUM_DUST_CHITS; ++i) {
    player.hand[DUST_TOKEN0 + i] += counts[i];
    given += counts[i] * DUST_CHITS[i];
  }
  return amount - given;
}

void return_token(GameState& state, int token, int count) {
  if (token < NUM_CARD_TOKENS) {
    auto& pile = state.discards[TOKEN_COLOUR[token]];
    for (int i = 0; i < count; ++i) pile.push_back(token);
  } else if (token < DUST_TOKEN0) {
    state.concentrated_supply[token - CONC_TOKEN0] += count;
  }
}

bool choose_payment(const int* hand, int amount, bool one_value_dust, int chosen[NUM_TOKENS]) {
  // Items in PAY_ORDER; reach = subset sums of the items so far as a bitset (prefix rows).
  thread_local std::vector<int> items;
  thread_local std::vector<uint64_t> rows;
  items.clear();
  int total_value = 0;
  for (int t : PAY_ORDER) {
    int n = hand[t];
    for (int k = 0; k < n; ++k) items.push_back(t);
    total_value += n * TOKEN_VALUE[t];
  }
  for (int t = 0; t < NUM_TOKENS; ++t) chosen[t] = 0;
  if (amount > total_value) return false;
  const int words = total_value / 64 + 1;
  const int nitems = static_cast<int>(items.size());
  const std::size_t need = static_cast<std::size_t>(nitems + 1) * words;
  if (rows.size() < need) rows.resize(need);
  for (int w = 0; w < words; ++w) rows[w] = 0;  // every later row is written in full
  rows[0] = 1;
  for (int i = 0; i < nitems; ++i) {
    const uint64_t* src = &rows[static_cast<std::size_t>(i) * words];
    uint64_t* dst = &rows[static_cast<std::size_t>(i + 1) * words];
    int v = TOKEN_VALUE[items[i]];
    int ws = v >> 6, bs = v & 63;
    for (int w = 0; w < words; ++w) {
      uint64_t shifted = 0;
      int from = w - ws;
      if (from >= 0) {
        shifted = src[from] << bs;
        if (bs && from - 1 >= 0) shifted |= src[from - 1] >> (64 - bs);
      }
      dst[w] = src[w] | shifted;
    }
  }
  const uint64_t* reach = &rows[static_cast<std::size_t>(nitems) * words];
  auto bit = [&](const uint64_t* row, int b) { return (row[b >> 6] >> (b & 63)) & 1u; };
  int target = -1, fallback = -1;
  for (int total = amount; total <= total_value; ++total) {
    if (!bit(reach, total)) continue;
    int change = total - amount;
    if (one_value_dust || (change != 1 && change != 3)) {
      target = total;
      break;
    }
    if (fallback < 0) fallback = total;
  }
  if (target < 0) target = fallback;
  if (target < 0) return false;
  int rest = target;
  for (int i = nitems - 1; i >= 0; --i) {
    if (bit(&rows[static_cast<std::size_t>(i) * words], rest)) continue;  // keep item i
    int t = items[i];
    chosen[t] += 1;
    rest -= TOKEN_VALUE[t];
  }
  return true;
}

static int pay(GameState& state, PlayerState& player, int amount) {
  if (amount <= 0) return 0;
  bool one = state.config.one_value_dust;
  int chosen[NUM_TOKENS];
  if (!choose_payment(player.hand.data(), amount, one, chosen))
    throw std::logic_error("zavandor native: hand cannot pay");
  int paid = 0;
  for (int t = 0; t < NUM_TOKENS; ++t) {
    player.hand[t] -= chosen[t];
    paid += chosen[t] * TOKEN_VALUE[t];
    return_token(state, t, chosen[t]);
  }
  return gain_dust(player, paid - amount, one);
}

int settle(GameState& state, PlayerState& player) {
  int balance = player.balance;
  player.balance = 0;
  if (balance > 0) return pay(state, player, balance);
  return gain_dust(player, -balance, state.config.one_value_dust);
}

namespace {

struct DustChoice {
  int value;
  int counts[NUM_DUST_CHITS];
};

DustChoice best_dust_apart(const int held[4], int slots, bool one_value_dust) {
  int c1 = held[0], c2 = held[1], c5 = held[2], c10 = held[3];
  DustChoice best{0, {0, 0, 0, 0}};
  for (int n10 = slots / 3; n10 >= 0; --n10) {
    int s10 = slots - 3 * n10;
    for (int n5 = s10 / 2; n5 >= 0; --n5) {
      int from5 = std::min(n5, c5);
      int fives = c5 - from5;
      int lossy = n5 - from5;
      int twos = 3 * lossy;
      int tens = std::max(0, n10 - c10);
      int pairs = std::min(tens, fives / 2);
      tens -= pairs;
      if (tens && fives - 2 * pairs) {
        tens -= 1;
        twos += 3;
        lossy += 1;
      }
      twos += 5 * tens;
      int ones_in_groups = one_value_dust ? std::min(c1, lossy) : 0;
      twos -= ones_in_groups;
      if (twos > c2) continue;
      int s5 = s10 - 2 * n5;
      int n2 = std::min(s5, c2 - twos);
      int n1 = std::min(s5 - n2, c1 - ones_in_groups);
      int value = 10 * n10 + 5 * n5 + 2 * n2 + n1;
      if (value > best.value) best = DustChoice{value, {n1, n2, n5, n10}};
    }
  }
  return best;
}

DustChoice best_dust(const int held[4], int slots, bool one_value_dust) {
  if (one_value_dust && held[0] > 1) {
    int m[4] = {held[0] % 2, held[1] + held[0] / 2, held[2], held[3]};
    DustChoice merged = best_dust(m, slots, true);
    DustChoice apart = best_dust_apart(held, slots, true);
    return merged.value >= apart.value ? merged : apart;
  }
  return best_dust_apart(held, slots, one_value_dust);
}

}  // namespace

int enforce_hand_limit(GameState& state, PlayerState& player, int limit) {
  auto& hand = player.hand;
  if (hand_load(hand.data()) <= limit) return 0;
  thread_local std::vector<int> cards;
  cards.clear();
  for (int t : CARD_ORDER.order)
    for (int k = 0; k < hand[t]; ++k) cards.push_back(t);
  int concs[64];
  int nconcs = 0;
  for (int t : CONC_ORDER)
    for (int k = 0; k < hand[t]; ++k) {
      if (nconcs >= 64) throw std::length_error("zavandor native: too many concentrated cards");
      concs[nconcs++] = t;
    }
  int held[4];
  for (int i = 0; i < NUM_DUST_CHITS; ++i) held[i] = hand[DUST_TOKEN0 + i];
  int before = hand_value(hand.data());
  bool one = state.config.one_value_dust;
  const int ncards = static_cast<int>(cards.size());
  thread_local std::vector<int> card_prefix;
  card_prefix.assign(ncards + 1, 0);
  for (int i = 0; i < ncards; ++i) card_prefix[i + 1] = card_prefix[i] + TOKEN_VALUE[cards[i]];
  int best_value = -1, best_k = 0, best_m = 0;
  int best_chits[4] = {0, 0, 0, 0};
  int conc_value = 0;
  for (int k = 0; k <= nconcs; ++k) {
    if (k) conc_value += TOKEN_VALUE[concs[k - 1]];
    if (3 * k > limit) break;
    int mmax = std::min(ncards, limit - 3 * k);
    for (int m = 0; m <= mmax; ++m) {
      DustChoice d = best_dust(held, limit - 3 * k - m, one);
      int value = conc_value + card_prefix[m] + d.value;
      if (value > best_value) {
        best_value = value;
        best_k = k;
        best_m = m;
        for (int i = 0; i < 4; ++i) best_chits[i] = d.counts[i];
      }
    }
  }
  for (int i = best_m; i < ncards; ++i) {
    hand[cards[i]] -= 1;
    return_token(state, cards[i], 1);
  }
  for (int i = best_k; i < nconcs; ++i) {
    hand[concs[i]] -= 1;
    return_token(state, concs[i], 1);
  }
  for (int i = 0; i < NUM_DUST_CHITS; ++i) hand[DUST_TOKEN0 + i] = best_chits[i];
  return before - hand_value(hand.data());
}

// ---- supply.py ---------------------------------------------------------------------------------
void build_decks(GameState& state) {
  for (int colour = 0; colour < NUM_COLOURS; ++colour) {
    auto& deck = state.decks[colour];
    deck.clear();
    for (int t = COLOUR_TOKEN_BEGIN[colour]; t < COLOUR_TOKEN_BEGIN[colour + 1]; ++t)
      for (int k = 0; k < CARD_TOKEN_COUNT[t]; ++k) deck.push_back(t);
    state.rng.shuffle(deck.data, static_cast<std::size_t>(deck.n));
    state.discards[colour].clear();
  }
}

int draw_card(GameState& state, int colour) {
  auto& deck = state.decks[colour];
  if (deck.empty()) {
    auto& discards = state.discards[colour];
    if (discards.empty()) return -1;
    for (int t : discards) deck.push_back(t);
    discards.clear();
    state.rng.shuffle(deck.data, static_cast<std::size_t>(deck.n));
  }
  return deck.pop_back();
}

// ---- knowledge.py ------------------------------------------------------------------------------
static void sages_reward(GameState& state, PlayerState& player, int new_level) {
  int colour = new_level - 1;
  int tokens[SAGES_CARDS_PER_LEVEL];
  int ntokens = 0;
  int dust = 0;
  for (int i = 0; i < SAGES_CARDS_PER_LEVEL; ++i) {
    int token = draw_card(state, colour);
    if (token < 0)
      dust += EMPTY_DECK_DUST[colour];
    else
      tokens[ntokens++] = token;
  }
  if (state.config.sages_dust_substitution && !has_means_for_colour(state, player, colour)) {
    for (int i = 0; i < ntokens; ++i) {
      state.discards[TOKEN_COLOUR[tokens[i]]].push_back(tokens[i]);
      dust += TOKEN_VALUE[tokens[i]];
    }
    ntokens = 0;
  }
  for (int i = 0; i < ntokens; ++i) player.sages_tokens.push_back(tokens[i]);
  player.sages_dust += dust;
}

void raise_level(GameState& state, PlayerState& player, int field) {
  int level = player.levels[field];
  if (level == 0) player.pentagon_chips -= 1;
  player.levels[field] = level + 1;
  if (field == F_SAGES) sages_reward(state, player, level + 1);
}

// ---- scoring.py --------------------------------------------------------------------------------
void rescore(GameState& state) {
  for (auto& p : state.players) {
    p.vp = victory_points(p);
    p.gem_vp = p.eliminated ? 0 : gem_vp(p);
  }
}

int winners(const GameState& state, int out[MAX_PLAYERS]) {
  int best = 0;
  bool any = false;
  for (const auto& p : state.players)
    if (!p.eliminated && (!any || p.vp > best)) {
      best = p.vp;
      any = true;
    }
  int n = 0;
  if (!any) return 0;
  for (const auto& p : state.players)
    if (!p.eliminated && p.vp == best) out[n++] = p.seat;
  return n;
}

}  // namespace zav
