// queries.py (and economy.hand_value/hand_load, scoring.py's VP counts) in C++.
#include "queries.hpp"

#include <stdexcept>

namespace zav {

static_assert(GEM_COST_TABLE[RUBY][1] == gem_cost(RUBY, 1) && GEM_COST_TABLE[OPAL][3] == gem_cost(OPAL, 3) &&
                  GEM_COST_TABLE[EMERALD][1] == gem_cost(EMERALD, 1) &&
                  GEM_SALE_TABLE[EMERALD][1] == gem_sale_value(EMERALD, 1) &&
                  GEM_SALE_TABLE[OPAL][2] == gem_sale_value(OPAL, 2),
              "gem tables");

int hand_value(const int* hand) {
  int v = 0;
  for (int t = 0; t < NUM_TOKENS; ++t) v += hand[t] * TOKEN_VALUE[t];
  return v;
}

int hand_load(const int* hand) {
  int v = 0;
  for (int t = 0; t < NUM_TOKENS; ++t) v += hand[t] * TOKEN_LOAD[t];
  return v;
}

int hand_limit(const PlayerState& p) {
  int limit = HAND_LIMIT_BASE;
  for (int f = 0; f < NUM_FIELDS; ++f)
    if (HAND_LIMIT_FIELD_MODIFIER[f] && p.levels[f]) limit += HAND_LIMIT_FIELD_MODIFIER[f];
  limit += ARTIFACTS[CRYSTAL_BALL].hand_limit * p.artifacts[CRYSTAL_BALL] +
           ARTIFACTS[WAND].hand_limit * p.artifacts[WAND];
  return limit > HAND_LIMIT_FLOOR ? limit : HAND_LIMIT_FLOOR;
}

int active_slots(const PlayerState& p) {
  return BASE_ACTIVE_SLOTS + ACCUMULATION_SLOTS_BY_LEVEL[p.levels[F_ACCUMULATION]] +
         ARTIFACTS[BELT].slots * p.artifacts[BELT] + ARTIFACTS[WAND].slots * p.artifacts[WAND];
}

int liquid(const PlayerState& p) { return hand_value(p.hand.data()) - p.balance; }

int gems_sale_value(const PlayerState& p) {
  int sale = 0;
  int level = p.levels[F_GEMSTONES];
  for (int g = 0; g < NUM_GEMS; ++g) sale += (p.active[g] + p.inactive[g]) * GEM_SALE_TABLE[g][level];
  return sale;
}

int max_payable(const PlayerState& p) { return liquid(p) + gems_sale_value(p); }

int rubies_owned(const PlayerState& p) { return p.active[RUBY] + p.inactive[RUBY]; }

bool druid_ruby_available(const GameState& s, const PlayerState& p) {
  return s.config.druid_l3_ruby && p.character == DRUID && !p.druid_ruby_used &&
         p.levels[F_FIRE] == DRUID_RUBY_FIRE_LEVEL;
}

bool may_own_gem(const GameState& s, const PlayerState& p, int gem) {
  if (gem <= SAPPHIRE) return true;
  if (gem == EMERALD) return p.artifacts[SPELLBOOK] > 0;
  if (gem == DIAMOND) return p.artifacts[ELIXIR] > 0;
  if (rubies_owned(p) >= MAX_RUBIES) return false;
  return p.levels[F_FIRE] >= FIRE_LEVEL_FOR_RUBIES || druid_ruby_available(s, p);
}

int artifact_price(const GameState& s, const PlayerState& p, int art, int bid) {
  int price = bid + s.art_mod[p.seat];
  for (const auto& cd : ARTIFACT_CROSS_DISCOUNTS)
    if (cd.target == art) price -= cd.per_copy * p.artifacts[cd.source];
  price -= ARTIFACT_DISCOUNT_BY_LEVEL[p.levels[F_ARTIFACTS]];
  return price > 0 ? price : 0;
}

int sentinel_price(const GameState& s, const PlayerState& p, int bid) {
  int price = bid + s.sen_mod[p.seat];
  price -= MASK_SENTINEL_DISCOUNT * p.artifacts[MASK];
  price -= SENTINEL_DISCOUNT_BY_LEVEL[p.levels[F_ARTIFACTS]];
  return price > 0 ? price : 0;
}

int item_price(const GameState& s, const PlayerState& p, int kind, int item, int bid) {
  if (kind == ITEM_ARTIFACT) return artifact_price(s, p, item, bid);
  return sentinel_price(s, p, bid);
}

// Check, don't trust: an artifact index from a state field indexes the table only in range.
static const ArtifactSpec& artifact_spec(int art) {
  if (art < 0 || art >= NUM_ARTIFACT_TYPES) throw std::logic_error("zavandor native: no such artifact");
  return ARTIFACTS[art];
}

int item_min_bid(int kind, int item) {
  return kind == ITEM_ARTIFACT ? artifact_spec(item).min_bid : SENTINEL_MIN_BID;
}

bool may_acquire(const PlayerState& p, int kind, int item) {
  return !(kind == ITEM_ARTIFACT && artifact_spec(item).only_one && p.artifacts[item] > 0);
}

bool has_means_for_colour(const GameState& s, const PlayerState& p, int colour) {
  int gem = colour + 1;
  if (p.active[gem] || p.inactive[gem]) return true;
  if (colour == GREEN && p.artifacts[CRYSTAL_OF_PROTECTION] > 0) return true;
  if (colour == RED && p.artifacts[CHALICE] > 0) return true;
  return may_own_gem(s, p, gem);
}

int first_unbought_chip(const PlayerState& p) {
  for (int i = 0; i < NUM_CHIPS; ++i)
    if (!p.chips_bought[i]) return i;
  return -1;
}

int best_other_vp(const GameState& s, int seat) {
  bool any = false;
  int best = 0;
  for (const PlayerState& o : s.players) {
    if (o.seat == seat || o.eliminated) continue;
    const int v = victory_points(o);
    if (!any || v > best) best = v;
    any = true;
  }
  return best;
}

int sentinels_acquired(const GameState& s) {
  int n = 0;
  for (int owner : s.sentinel_owner) n += owner != -1 ? 1 : 0;
  return n;
}

// ---- scoring.py --------------------------------------------------------------------------------
int gem_vp(const PlayerState& p) {
  int v = 0;
  for (int g = 0; g < NUM_GEMS; ++g) v += p.active[g] * GEM_VP[g];
  return v;
}

int sentinel_units(const PlayerState& p, int sentinel) {
  switch (sentinel) {
    case PHOENIX: {
      int n = 0;
      for (int g = 0; g < NUM_GEMS; ++g) n += p.active[g] ? 1 : 0;
      return n;
    }
    case OWL: {
      int n = 0;
      for (int f = 0; f < NUM_FIELDS; ++f) n += p.levels[f] >= MAX_LEVEL ? 1 : 0;
      return n;
    }
    case FOX: return p.active[SAPPHIRE];
    case TOAD: {
      int n = 0;
      for (int a : TOAD_ARTIFACTS) n += p.artifacts[a];
      return n;
    }
    case UNICORN: return p.active[DIAMOND];
    case TOMCAT: return p.active[OPAL];
    case SCARAB: return p.active[EMERALD];
    case RAVEN: {
      int n = 0;
      for (int a : RAVEN_ARTIFACTS) n += p.artifacts[a];
      return n;
    }
    default: return p.active[RUBY];
  }
}

int sentinel_vp(const PlayerState& p, int sentinel) {
  if (sentinel < 0 || sentinel >= NUM_SENTINELS) throw std::logic_error("zavandor native: no such sentinel");
  const SentinelSpec& spec = SENTINELS[sentinel];
  int bonus = spec.per_unit * sentinel_units(p, sentinel);
  if (spec.cap >= 0 && bonus > spec.cap) bonus = spec.cap;
  return SENTINEL_BASE_VP + bonus;
}

int victory_points(const PlayerState& p) {
  if (p.eliminated) return 0;
  int vp = gem_vp(p);
  for (int f = 0; f < NUM_FIELDS; ++f)
    if (p.levels[f] >= MAX_LEVEL) vp += TOP_LEVEL_VP;
  for (int a = 0; a < NUM_ARTIFACT_TYPES; ++a) vp += p.artifacts[a] * ARTIFACTS[a].vp;
  for (int sen : p.sentinels) vp += sentinel_vp(p, sen);
  return vp;
}

}  // namespace zav
