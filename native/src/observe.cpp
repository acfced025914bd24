// The observation encoder: see observe.hpp.  The code follows
// zavandor_env/encoding/observation.py (ObservationEncoder._parts) statement by statement; the
// comments name the Python expressions where the translation is not obvious.
#include "observe.hpp"

#include <cstring>
#include <stdexcept>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "data.hpp"
#include "engine.hpp"
#include "queries.hpp"

namespace zav {

static_assert(OBS_GLOBAL_SIZE == 130 && OBS_PLAYER_SIZE == 89 && OBS_PRIVATE_SIZE == 46,
              "observation layout changed: update observe.cpp together with observation.py");
static_assert(NUM_COLOURS == 4 && NUM_DUST_CHITS == 4, "the encoder unpacks the hand tail 4+4");

namespace {

float g_scale[OBS_SIZE];
bool g_ready = false;
float g_bound = 10.0f;
std::string g_fingerprint;

// Writes raw values in layout order; T is double (raw) or float (encode).  Integers convert
// exactly (|x| < 2^24); the one fractional value (round / max_rounds) is computed in double,
// as the Python float is, and rounded once to T.
template <typename T>
struct Cursor {
  T* p;
  template <typename V>
  void put(V v) {  // an int, a bool (0 or 1) or the one double
    *p++ = static_cast<T>(v);
  }
  void one_hot(int index, int size) {  // zeros, with a one at index when 0 <= index < size
    for (int i = 0; i < size; ++i) p[i] = T(0);
    if (index >= 0 && index < size) p[index] = T(1);
    p += size;
  }
  void bits(int mask, int width) {  // the ``width`` low bits of mask, least significant first
    for (int i = 0; i < width; ++i) *p++ = static_cast<T>((mask >> i) & 1);
  }
  template <typename List>
  void counts(const List& items, int size) {  // how often each of 0..size-1 is in items
    for (int i = 0; i < size; ++i) p[i] = T(0);
    for (int x : items) p[x] += T(1);
    p += size;
  }
  template <typename Seq>
  void seq(const Seq& values, int size) {
    for (int i = 0; i < size; ++i) *p++ = static_cast<T>(values[i]);
  }
};

template <typename T>
void fill_raw(const GameState& s, int seat, T* out) {
  const int n = s.config.num_players;
  if (seat < 0 || seat >= n || seat >= s.players.size())
    throw std::out_of_range("seat " + std::to_string(seat) + " is not in [0, " +
                            std::to_string(n) + ")");
  const int phase = s.phase;
  const int kind = s.auction_kind;
  const bool in_auction = kind >= 0;
  const int item = s.auction_item;
  Cursor<T> c{out};

  // ---- global ----------------------------------------------------------------------------
  c.one_hot(n - MIN_PLAYERS, MAX_PLAYERS - MIN_PLAYERS + 1);
  c.put(s.round);
  c.put(static_cast<double>(s.round) / static_cast<double>(s.config.max_rounds));
  c.one_hot(phase < 5 ? phase : -1, 5);  // GAME_OVER, ROUND_END: nobody decides
  c.one_hot(s.block + 1, 4);
  c.bits(s.blocks_used, 3);
  c.put(s.paid_advance_done);
  c.bits(s.gems_activated, NUM_GEMS);
  c.bits(s.gems_deactivated, NUM_GEMS);
  c.counts(s.display, NUM_ARTIFACT_TYPES);
  c.counts(s.artifact_deck, NUM_ARTIFACT_TYPES);  // artifact_deck_counts (the Python _deck cache)
  c.put(s.artifact_deck.size());
  {
    int available = 0;
    for (int i = 0; i < NUM_SENTINELS; ++i) {
      const bool free = s.sentinel_owner[i] == -1;
      available += free;
      c.put(free);
    }
    c.put(NUM_SENTINELS - available);
  }
  c.seq(s.gem_supply, NUM_GEMS);
  c.seq(s.concentrated_supply, NUM_COLOURS);
  for (int k = 0; k < NUM_COLOURS; ++k) c.put(s.decks[k].size());
  for (int k = 0; k < NUM_COLOURS; ++k) c.put(s.discards[k].size());
  {
    // A pile holds only its own colour's cards: per colour, count that colour's tokens in
    // that colour's pile (pile.count(t) for t in _COLOUR_TOKENS[colour]).
    int discards[NUM_CARD_TOKENS] = {};
    for (int colour = 0; colour < NUM_COLOURS; ++colour) {
      const int lo = COLOUR_TOKEN_BEGIN[colour], hi = COLOUR_TOKEN_BEGIN[colour + 1];
      for (int t : s.discards[colour])
        if (t >= lo && t < hi) discards[t] += 1;
    }
    c.seq(discards, NUM_CARD_TOKENS);
  }
  c.put(in_auction || s.debtor >= 0);
  c.one_hot(kind == ITEM_ARTIFACT ? item : -1, NUM_ARTIFACT_TYPES);
  c.one_hot(kind == ITEM_SENTINEL ? item : -1, NUM_SENTINELS);
  c.put(in_auction ? s.high_bid : 0);
  c.put(in_auction && s.high_bidder < 0);
  c.put(s.debt_item_price);
  c.put(s.free_levels);
  c.put(s.victims.size());

  // ---- players, seat-relative --------------------------------------------------------------
  const auto& order = s.turn_order;
  int slots[MAX_PLAYERS + 1];
  int num_slots = 0;
  const int at = order.index_of(seat);
  if (at >= 0) {
    for (int k = at; k < order.size(); ++k) slots[num_slots++] = order[k];
    for (int k = 0; k < at; ++k) slots[num_slots++] = order[k];
  } else {
    slots[num_slots++] = seat;
    for (int k = 0; k < order.size() && num_slots <= MAX_PLAYERS; ++k)
      slots[num_slots++] = order[k];
  }
  if (num_slots < n) {  // eliminated players (not in the turn order) last, by seat
    const int listed = num_slots;
    for (int other = 0; other < n; ++other) {
      bool found = false;
      for (int k = 0; k < listed; ++k) found |= slots[k] == other;
      if (!found) slots[num_slots++] = other;
    }
  }
  if (num_slots > MAX_PLAYERS)
    throw std::logic_error("observation: more player slots than MAX_PLAYERS");

  const int turn_player = s.turn_player;
  const int current = (s.terminated || s.truncated) ? -1 : s.current_player;
  const int high_bidder = in_auction ? s.high_bidder : -1;
  const int passed = in_auction ? s.passed : 0;
  const int debtor = s.debtor;
  for (int k = 0; k < num_slots; ++k) {
    const int seat_k = slots[k];
    const PlayerState& p = s.players[seat_k];
    const auto& hand = p.hand;
    c.put(1);
    c.put(p.eliminated);
    c.one_hot(p.character, NUM_CHARACTERS);
    c.seq(p.active, NUM_GEMS);
    c.seq(p.inactive, NUM_GEMS);
    c.seq(p.levels, NUM_FIELDS);
    c.seq(p.chips_bought, NUM_CHIPS);
    c.put(p.pentagon_chips);
    c.seq(p.artifacts, NUM_ARTIFACT_TYPES);
    {
      int sen[NUM_SENTINELS] = {};
      for (int x : p.sentinels) sen[x] = 1;
      c.seq(sen, NUM_SENTINELS);
    }
    c.put(p.vp);
    c.put(p.gem_vp);
    c.one_hot(order.index_of(seat_k), MAX_PLAYERS);
    c.put(s.art_mod[seat_k]);
    c.put(s.sen_mod[seat_k]);
    for (int colour = 0; colour < NUM_COLOURS; ++colour) {
      int cards = 0;
      for (int t = COLOUR_TOKEN_BEGIN[colour]; t < COLOUR_TOKEN_BEGIN[colour + 1]; ++t)
        cards += hand[t];
      c.put(cards);
    }
    for (int t = CONC_TOKEN0; t < DUST_TOKEN0; ++t) c.put(hand[t]);
    int dust = 0;
    for (int i = 0; i < NUM_DUST_CHITS; ++i) {
      c.put(hand[DUST_TOKEN0 + i]);
      dust += TOKEN_VALUE[DUST_TOKEN0 + i] * hand[DUST_TOKEN0 + i];
    }
    c.put(dust);
    c.put(hand_load(hand));
    c.put(hand_limit(p));
    {
      int sages[NUM_COLOURS] = {};  // 9-Sages cards are energy cards (the state reader checks)
      for (int token : p.sages_tokens) sages[TOKEN_COLOUR[token]] += 1;
      c.seq(sages, NUM_COLOURS);
    }
    c.put(p.sages_dust);
    c.put(p.balance);
    c.put(p.druid_ruby_used);
    c.put(seat_k == turn_player);
    c.put(seat_k == current);
    c.put(seat_k == high_bidder);
    c.put((passed >> seat_k) & 1);
    c.put(seat_k == debtor);
    c.put(s.victims.index_of(seat_k) >= 0);
  }
  c.one_hot(-1, (MAX_PLAYERS - num_slots) * OBS_PLAYER_SIZE);  // empty slots

  // ---- private -----------------------------------------------------------------------------
  const PlayerState& me = s.players[seat];
  c.seq(me.hand, NUM_CARD_TOKENS);
  c.counts(me.sages_tokens, NUM_CARD_TOKENS);
  const int value = hand_value(me.hand);
  c.put(value);
  c.put(value - me.balance);
  c.put(me.eliminated ? 0 : max_payable(me));
  c.put(in_auction && !me.eliminated ? item_price(s, me, kind, item, s.high_bid) : 0);
  if (c.p != out + OBS_SIZE) throw std::logic_error("observation: layout size mismatch");
}

}  // namespace

std::vector<std::pair<std::string, int>> observation_layout() {
  std::vector<std::pair<std::string, int>> entries;
  for (const auto& f : OBS_GLOBAL_FIELDS) entries.emplace_back(f.name, f.size);
  for (int i = 0; i < MAX_PLAYERS; ++i)
    for (const auto& f : OBS_PLAYER_FIELDS)
      entries.emplace_back("player" + std::to_string(i) + "." + f.name, f.size);
  for (const auto& f : OBS_PRIVATE_FIELDS) entries.emplace_back(std::string("me.") + f.name, f.size);
  return entries;
}

void set_observation_scale(const float* scale, int n, float bound, const std::string& fingerprint) {
  if (n != OBS_SIZE)
    throw std::invalid_argument("observation scale has " + std::to_string(n) +
                                " values, the native layout has " + std::to_string(OBS_SIZE));
  std::memcpy(g_scale, scale, sizeof(g_scale));
  g_bound = bound;
  g_fingerprint = fingerprint;
  g_ready = true;
}

bool observation_scale_ready() { return g_ready; }
const std::string& observation_fingerprint() { return g_fingerprint; }

void encode_raw(const GameState& s, int seat, double* out) { fill_raw<double>(s, seat, out); }

void encode_observation(const GameState& s, int seat, float* out) {
  if (!g_ready)
    throw std::logic_error("observation scale not set: call set_observation_scale first");
  fill_raw<float>(s, seat, out);
  // obs *= _SCALE; np.minimum(obs, bound); np.maximum(obs, -bound): float32 throughout (one
  // IEEE rounding per product; a NaN would pass through, as in NumPy).
  const float hi = g_bound, lo = -g_bound;
  int i = 0;
#if defined(__SSE2__)
  // minps(hi, v) is "hi < v ? hi : v" and maxps(lo, v) "lo > v ? lo : v": the scalar code below.
  const __m128 vhi = _mm_set1_ps(hi), vlo = _mm_set1_ps(lo);
  for (; i + 4 <= OBS_SIZE; i += 4) {
    __m128 v = _mm_mul_ps(_mm_loadu_ps(out + i), _mm_loadu_ps(g_scale + i));
    v = _mm_max_ps(vlo, _mm_min_ps(vhi, v));
    _mm_storeu_ps(out + i, v);
  }
#endif
  for (; i < OBS_SIZE; ++i) {
    float v = out[i] * g_scale[i];
    v = hi < v ? hi : v;
    v = lo > v ? lo : v;
    out[i] = v;
  }
}

void encode_mask(const int* legal, int n, int8_t* out, int num_actions) {
  std::memset(out, 0, static_cast<std::size_t>(num_actions));
  for (int i = 0; i < n; ++i)
    if (legal[i] >= 0 && legal[i] < num_actions) out[legal[i]] = 1;
}

void encode_mask(const GameState& s, int8_t* out) {
  int legal[NUM_ACTIONS];
  const int n = legal_actions(s, legal);
  encode_mask(legal, n, out, NUM_ACTIONS);
}

}  // namespace zav
