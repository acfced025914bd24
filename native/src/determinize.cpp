// The determinizer (engine/determinize.py) in C++: one sample of what a seat cannot see,
// drawn as determinize.py draws it; used by both searches (mcts.hpp, netmcts.hpp).
#include <algorithm>
#include <string>

#include "engine.hpp"
#include "mcts.hpp"
#include "queries.hpp"

namespace zav {

// ---- determinize.py ------------------------------------------------------------------------

void Determinizer::prepare(const GameState& base, int seat) {
  base_ = &base;
  seat_ = seat;
  const int n = base.players.size();
  if (seat < 0 || seat >= n) throw std::invalid_argument("determinize: seat out of range");
  // unseen_cards: the full decks less the viewer's hand and 9-Sages cards and the discards.
  int remaining[NUM_CARD_TOKENS];
  for (int t = 0; t < NUM_CARD_TOKENS; ++t) remaining[t] = CARD_TOKEN_COUNT[t];
  auto see = [&](int token) {  // an energy card (the state reader bounds every token)
    if (--remaining[token] < 0)
      throw std::invalid_argument("card conservation broken: token " + std::to_string(token) +
                                  " seen too often");
  };
  const PlayerState& me = base.players[seat];
  for (int t = 0; t < NUM_CARD_TOKENS; ++t)
    for (int k = 0; k < me.hand[t]; ++k) see(t);
  for (int t : me.sages_tokens) see(t);
  for (const auto& pile : base.discards)
    for (int t : pile) see(t);
  for (int c = 0; c < NUM_COLOURS; ++c) {
    unseen_[c].clear();
    for (int t = COLOUR_TOKEN_BEGIN[c]; t < COLOUR_TOKEN_BEGIN[c + 1]; ++t)
      for (int k = 0; k < remaining[t]; ++k) unseen_[c].push_back(t);
  }
  // Players whose hidden hand must cover what they owe this turn (public costs).
  owing_.clear();
  for (const auto& p : base.players)
    if (p.seat != seat && p.balance > 0) owing_.push_back(p.seat);
  // _deal: the hidden places of each colour must match the unseen cards exactly (only card
  // counts per colour, sages-card colours and deck sizes are read: all public).
  for (int c = 0; c < NUM_COLOURS; ++c) {
    int slots = base.decks[c].size();
    for (const auto& p : base.players) {
      if (p.seat == seat) continue;
      for (int t = COLOUR_TOKEN_BEGIN[c]; t < COLOUR_TOKEN_BEGIN[c + 1]; ++t) slots += p.hand[t];
      for (int t : p.sages_tokens)
        if (CARD_TOKEN_COLOUR[t] == c) ++slots;
    }
    if (slots != static_cast<int>(unseen_[c].size()))
      throw std::invalid_argument("card conservation broken for colour " + std::to_string(c) +
                                  ": " + std::to_string(slots) + " hidden places, " +
                                  std::to_string(unseen_[c].size()) + " unseen cards");
  }
  // others.sort(key=lambda p: p.seat not in first): owing seats first, seat order kept.
  deal_order_ = owing_;
  for (const auto& p : base.players)
    if (p.seat != seat && p.balance <= 0) deal_order_.push_back(p.seat);
  // _shuffle_within_letters: the letters present, sorted; each letter's positions.  The items
  // are sorted (a canonical order): the deck order is hidden, so a sample must not depend on
  // it (determinize.py shuffles the deck as it lies; the distribution is the same).
  letter_positions_.clear();
  letter_items_.clear();
  for (char letter : ARTIFACT_LETTERS) {
    std::vector<int> positions, items;
    for (int i = 0; i < base.artifact_deck.size(); ++i) {
      int a = base.artifact_deck[i];
      if (ARTIFACTS[a].letter == letter) {
        positions.push_back(i);
        items.push_back(a);
      }
    }
    if (positions.empty()) continue;
    std::sort(items.begin(), items.end());
    letter_positions_.push_back(std::move(positions));
    letter_items_.push_back(std::move(items));
  }
}

void Determinizer::sample(PyRandom& rng, GameState& out) const {
  const GameState& base = *base_;
  int pools[NUM_COLOURS][64];
  int sizes[NUM_COLOURS];
  for (int attempt = 0; attempt <= MAX_REDRAWS; ++attempt) {
    out = base;
    for (int c = 0; c < NUM_COLOURS; ++c) {
      sizes[c] = static_cast<int>(unseen_[c].size());
      std::copy(unseen_[c].begin(), unseen_[c].end(), pools[c]);
      rng.shuffle(pools[c], static_cast<std::size_t>(sizes[c]));
    }
    if (attempt == MAX_REDRAWS) {  // rare: the owing players take their colours' best cards
      for (int c = 0; c < NUM_COLOURS; ++c)
        std::stable_sort(pools[c], pools[c] + sizes[c],
                         [](int a, int b) { return TOKEN_VALUE[a] < TOKEN_VALUE[b]; });
    }
    // _deal / _redeal_hand: each hidden hand keeps its card count per colour, served from the
    // end of the pools; then its 9-Sages cards by colour; the rest fills the draw piles.
    for (int s : deal_order_) {
      PlayerState& p = out.players[s];
      int counts[NUM_COLOURS] = {0, 0, 0, 0};
      for (int t = 0; t < NUM_CARD_TOKENS; ++t) {
        if (p.hand[t]) {
          counts[CARD_TOKEN_COLOUR[t]] += p.hand[t];
          p.hand[t] = 0;
        }
      }
      for (int c = 0; c < NUM_COLOURS; ++c)
        for (int k = 0; k < counts[c]; ++k) p.hand[pools[c][--sizes[c]]] += 1;
      for (int i = 0; i < p.sages_tokens.size(); ++i) {
        int c = CARD_TOKEN_COLOUR[p.sages_tokens[i]];
        p.sages_tokens[i] = pools[c][--sizes[c]];
      }
    }
    for (int c = 0; c < NUM_COLOURS; ++c) {
      auto& deck = out.decks[c];
      deck.clear();
      for (int k = 0; k < sizes[c]; ++k) deck.push_back(pools[c][k]);
    }
    bool ok = true;
    for (int s : owing_)
      if (hand_value(out.players[s].hand) < out.players[s].balance) {
        ok = false;
        break;
      }
    if (ok) break;
  }
  // The artifact deck, reshuffled within each letter (A on top of B, ...).
  for (std::size_t l = 0; l < letter_positions_.size(); ++l) {
    int items[40];
    const auto& src = letter_items_[l];
    const int m = static_cast<int>(src.size());
    std::copy(src.begin(), src.end(), items);
    rng.shuffle(items, static_cast<std::size_t>(m));
    for (int k = 0; k < m; ++k) out.artifact_deck[letter_positions_[l][k]] = items[k];
  }
  out.rng.seed_u64(rng.getrandbits(64));
}

}  // namespace zav
