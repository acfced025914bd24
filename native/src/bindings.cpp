// The Python module zavandor_env.engine._native: class Core (a game state driven like
// zavandor_env.engine.game.Game) and native benchmarks.  State dicts use exactly the layout of
// GameState.to_dict(), so a game moves between the two engines losslessly.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <string>
#include <vector>

#include "engine.hpp"
#include "pyutil.hpp"

namespace py = pybind11;
using namespace zav;
using zav::pyutil::seed_words;

// The other parts of the module register their functions themselves
// (bind_observe.cpp, bind_heuristic.cpp, bind_vec.cpp, bind_mcts.cpp, bind_naive.cpp).
void register_observe(pybind11::module_& m);
void register_heuristic(pybind11::module_& m);
void register_vec(pybind11::module_& m);
void register_mcts(pybind11::module_& m);
void register_naive(pybind11::module_& m);
void register_net(pybind11::module_& m);
void register_netmcts(pybind11::module_& m);

namespace {

// ---- reading a state from Python: check every index and count before storing it -------------
// Defence in depth behind zavandor_env/engine/validation.py: whatever reaches the core, no
// field can index past a table or overflow an int later.  Errors are one-line ValueErrors.
[[noreturn]] void bad_field(const std::string& what, const std::string& problem) {
  throw py::value_error("state dict: " + what + " " + problem);
}

long long read_integer(const py::handle& o, const std::string& what, long long lo, long long hi) {
  if (PyBool_Check(o.ptr()) || !PyLong_Check(o.ptr())) bad_field(what, "must be an integer");
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o.ptr(), &overflow);
  if (overflow || v < lo || v > hi)
    bad_field(what, "is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

// An int field: [lo, hi] must lie within int's range.
int read_int(const py::handle& o, const std::string& what, long long lo, long long hi) {
  return static_cast<int>(read_integer(o, what, lo, hi));
}

bool read_bool(const py::handle& o, const std::string& what) {
  if (!PyBool_Check(o.ptr())) bad_field(what, "must be true or false");
  return o.ptr() == Py_True;
}

py::list read_list(const py::handle& o, const std::string& what, std::size_t most) {
  if (!PyList_Check(o.ptr())) bad_field(what, "must be a list");
  py::list l = py::reinterpret_borrow<py::list>(o);
  if (l.size() > most) bad_field(what, "holds more than " + std::to_string(most) + " entries");
  return l;
}

int character_index(const std::string& name) {
  for (int i = 0; i < NUM_CHARACTERS; ++i)
    if (name == CHARACTERS[i].name) return i;
  throw py::value_error("unknown character " + name);
}

// The int fields and the boolean rule options come from the generated lists
// (ZAV_CONFIG_INTS, ZAV_RULE_OPTIONS: dataclasses.fields(GameConfig)); characters by hand.
Config config_from_dict(const py::dict& d) {
  Config c;
  // A key this build does not know is a GameConfig field added after it was built.
  for (auto item : d) {
    const std::string key = py::str(item.first);
    bool known = false;
    for (const char* k : CONFIG_KEYS) known = known || key == k;
    if (!known)
      throw py::value_error("config key '" + key + "' is unknown to the native core: rebuild it (" +
                            "python -m zavandor_env.codegen, then python setup.py build_ext --inplace)");
  }
  auto get = [&](const char* key) -> py::object {
    if (!d.contains(key)) throw py::value_error(std::string("config is missing ") + key);
    return d[key];
  };
  // Checked casts: a Python int past its bounds is a one-line ValueError, not pybind's cast error.
#define ZAV_READ_INT(name, default_value, lo, hi) \
  c.name = read_int(get(#name), "config." #name, lo, hi);
  ZAV_CONFIG_INTS(ZAV_READ_INT)
#undef ZAV_READ_INT
  py::object chars = get("characters");
  c.has_characters = !chars.is_none();
  if (c.has_characters) {
    py::list names = py::list(chars);
    if (static_cast<int>(names.size()) != c.num_players)
      throw py::value_error("characters must name one character per player");
    for (int i = 0; i < c.num_players; ++i)
      c.characters[i] = character_index(names[i].cast<std::string>());
  }
#define ZAV_READ_OPTION(name, default_value) c.name = read_bool(get(#name), "config." #name);
  ZAV_RULE_OPTIONS(ZAV_READ_OPTION)
#undef ZAV_READ_OPTION
  return c;
}

// In GameConfig.to_dict()'s key order (the dataclass's field order, CONFIG_KEYS).
py::dict config_to_dict(const Config& c) {
  py::dict d;
  for (const char* key : CONFIG_KEYS) {
#define ZAV_WRITE_INT(name, default_value, lo, hi) \
  if (std::string(key) == #name) d[key] = c.name;
    ZAV_CONFIG_INTS(ZAV_WRITE_INT)
#undef ZAV_WRITE_INT
#define ZAV_WRITE_OPTION(name, default_value) \
  if (std::string(key) == #name) d[key] = c.name;
    ZAV_RULE_OPTIONS(ZAV_WRITE_OPTION)
#undef ZAV_WRITE_OPTION
    if (std::string(key) == "characters") {
      if (c.has_characters) {
        py::list names;
        for (int i = 0; i < c.num_players; ++i) names.append(CHARACTERS[c.characters[i]].name);
        d[key] = names;
      } else {
        d[key] = py::none();
      }
    }
  }
  return d;
}

template <typename It>
py::list int_list(It begin, It end) {
  py::list out;
  for (It it = begin; it != end; ++it) out.append(static_cast<int>(*it));
  return out;
}
template <typename C>
py::list int_list(const C& c) {
  return int_list(c.begin(), c.end());
}
template <typename C>
py::list bool_list(const C& c) {
  py::list out;
  for (bool b : c) out.append(py::bool_(b));
  return out;
}

py::dict player_to_dict(const PlayerState& p) {
  py::dict d;
  d["seat"] = p.seat;
  d["character"] = p.character;
  d["active"] = int_list(p.active);
  d["inactive"] = int_list(p.inactive);
  d["hand"] = int_list(p.hand);
  d["balance"] = p.balance;
  d["sages_tokens"] = int_list(p.sages_tokens);
  d["sages_dust"] = p.sages_dust;
  d["levels"] = int_list(p.levels);
  d["chips_bought"] = bool_list(p.chips_bought);
  d["pentagon_chips"] = p.pentagon_chips;
  d["artifacts"] = int_list(p.artifacts);
  d["sentinels"] = int_list(p.sentinels);
  d["vp"] = p.vp;
  d["gem_vp"] = p.gem_vp;
  d["druid_ruby_used"] = p.druid_ruby_used;
  d["eliminated"] = p.eliminated;
  return d;
}

py::dict state_to_dict(const GameState& s) {
  py::dict d;
  d["config"] = config_to_dict(s.config);
  auto st = s.rng.get_state();
  py::list internal;
  for (uint32_t w : st) internal.append(py::int_(static_cast<unsigned long>(w)));
  py::list rng;
  rng.append(3);
  rng.append(internal);
  rng.append(py::none());
  d["rng"] = rng;
  py::list players;
  for (const auto& p : s.players) players.append(player_to_dict(p));
  d["players"] = players;
  d["round"] = s.round;
  d["phase"] = s.phase;
  d["turn_order"] = int_list(s.turn_order);
  d["turn_index"] = s.turn_index;
  d["turn_player"] = s.turn_player;
  d["current_player"] = s.current_player;
  d["block"] = s.block;
  d["blocks_used"] = s.blocks_used;
  d["paid_advance_done"] = s.paid_advance_done;
  d["gems_activated"] = s.gems_activated;
  d["gems_deactivated"] = s.gems_deactivated;
  d["display"] = int_list(s.display);
  d["artifact_deck"] = int_list(s.artifact_deck);
  d["artifact_auctioned"] = s.artifact_auctioned;
  d["sentinel_owner"] = int_list(s.sentinel_owner);
  py::list decks, discards;
  for (const auto& deck : s.decks) decks.append(int_list(deck));
  for (const auto& pile : s.discards) discards.append(int_list(pile));
  d["decks"] = decks;
  d["discards"] = discards;
  d["concentrated_supply"] = int_list(s.concentrated_supply);
  d["gem_supply"] = int_list(s.gem_supply);
  d["art_mod"] = int_list(s.art_mod);
  d["sen_mod"] = int_list(s.sen_mod);
  d["auction_kind"] = s.auction_kind;
  d["auction_item"] = s.auction_item;
  d["auction_opener"] = s.auction_opener;
  d["high_bid"] = s.high_bid;
  d["high_bidder"] = s.high_bidder;
  d["passed"] = s.passed;
  d["debtor"] = s.debtor;
  d["debt_item_price"] = s.debt_item_price;
  d["free_levels"] = s.free_levels;
  d["victims"] = int_list(s.victims);
  d["terminated"] = s.terminated;
  d["truncated"] = s.truncated;
  d["num_decisions"] = s.num_decisions;
  d["history"] = int_list(s.history);
  py::list purchases;
  for (const auto& r : s.purchases) purchases.append(int_list(r));
  d["purchases"] = purchases;
  return d;
}

py::object need(const py::dict& d, const char* key) {
  if (!d.contains(key)) throw py::value_error(std::string("state dict is missing ") + key);
  return d[key];
}

// Bounds of each entry of a fixed-length list: one pair for all, or one per entry.
template <std::size_t N>
void read_ints(const py::handle& o, std::array<int, N>& out, const char* key, long long lo,
               long long hi, const int* his = nullptr) {
  py::list l = read_list(o, key, N);
  if (l.size() != N) bad_field(key, "must have " + std::to_string(N) + " entries");
  for (std::size_t i = 0; i < N; ++i)
    out[i] = read_int(l[i], std::string(key) + "[" + std::to_string(i) + "]", lo, his ? his[i] : hi);
}

template <int Cap>
void read_svec(const py::handle& o, SVec<int, Cap>& out, const std::string& key, long long lo,
               long long hi) {
  out.clear();
  py::list l = read_list(o, key, Cap);
  for (std::size_t i = 0; i < l.size(); ++i)
    out.push_back(read_int(l[i], key + "[" + std::to_string(i) + "]", lo, hi));
}

// The most of each hand token the box (cards, concentrated cards) or the dust ceiling allows.
std::array<int, NUM_TOKENS> hand_caps() {
  std::array<int, NUM_TOKENS> caps{};
  for (int t = 0; t < NUM_TOKENS; ++t)
    caps[t] = t < NUM_CARD_TOKENS ? TOTAL_ENERGY_CARDS
              : t < DUST_TOKEN0   ? CONCENTRATED_PER_COLOUR
                                  : MAX_DUST_CHITS;
  return caps;
}

PlayerState player_from_dict(const py::dict& d, int n, int seat) {
  static const std::array<int, NUM_TOKENS> HAND_CAPS = hand_caps();
  PlayerState p;
  p.seat = read_int(need(d, "seat"), "seat", seat, seat);
  p.character = read_int(need(d, "character"), "character", 0, NUM_CHARACTERS - 1);
  read_ints(need(d, "active"), p.active, "active", 0, 0, GEM_SUPPLY);
  read_ints(need(d, "inactive"), p.inactive, "inactive", 0, 0, GEM_SUPPLY);
  read_ints(need(d, "hand"), p.hand, "hand", 0, 0, HAND_CAPS.data());
  p.balance = read_int(need(d, "balance"), "balance", -MAX_AMOUNT, MAX_AMOUNT);
  read_svec(need(d, "sages_tokens"), p.sages_tokens, "sages_tokens", 0, NUM_CARD_TOKENS - 1);
  p.sages_dust = read_int(need(d, "sages_dust"), "sages_dust", 0, MAX_SAGES_DUST);
  read_ints(need(d, "levels"), p.levels, "levels", 0, MAX_LEVEL);
  py::list chips = read_list(need(d, "chips_bought"), "chips_bought", NUM_CHIPS);
  if (chips.size() != NUM_CHIPS) bad_field("chips_bought", "must have 5 entries");
  for (int i = 0; i < NUM_CHIPS; ++i) p.chips_bought[i] = read_bool(chips[i], "chips_bought");
  p.pentagon_chips = read_int(need(d, "pentagon_chips"), "pentagon_chips", 0, NUM_CHIPS);
  read_ints(need(d, "artifacts"), p.artifacts, "artifacts", 0, COPIES_BY_PLAYERS[n]);
  read_svec(need(d, "sentinels"), p.sentinels, "sentinels", 0, NUM_SENTINELS - 1);
  p.vp = read_int(need(d, "vp"), "vp", 0, MAX_VP);
  p.gem_vp = read_int(need(d, "gem_vp"), "gem_vp", 0, MAX_VP);
  p.druid_ruby_used = read_bool(need(d, "druid_ruby_used"), "druid_ruby_used");
  p.eliminated = read_bool(need(d, "eliminated"), "eliminated");
  return p;
}

// The fields the pending decision indexes with must name what exists in that phase (an
// auction's item in BID and DEBT, the winner while his purchase is resolved, the next victim).
void check_pending(const GameState& s) {
  const int n = s.config.num_players;
  if (s.turn_order.empty() || s.turn_index >= s.turn_order.size() ||
      s.turn_order[s.turn_index] != s.turn_player)
    bad_field("turn_player", "is not at turn_index of turn_order");
  const bool nobody = s.phase == GAME_OVER || s.phase == ROUND_END;
  if ((s.current_player < 0) != nobody) bad_field("current_player", "disagrees with the phase");
  if (s.phase == BID || s.phase == DEBT) {
    const int items = s.auction_kind == ITEM_ARTIFACT ? NUM_ARTIFACT_TYPES
                      : s.auction_kind == ITEM_SENTINEL ? NUM_SENTINELS : 0;
    if (s.auction_item < 0 || s.auction_item >= items || s.auction_opener < 0)
      bad_field("auction_item", "names no item, yet an auction is in progress");
  }
  if ((s.phase == DEBT || s.phase == FREE_LEVEL || s.phase == LOSE_GEM) && s.debtor < 0)
    bad_field("debtor", "is -1, yet an auction winner decides");
  if (s.phase == LOSE_GEM && (s.victims.empty() || s.victims[0] != s.current_player))
    bad_field("victims", "do not start with the current player");
  if (s.passed >= (1 << n)) bad_field("passed", "marks a seat that does not exist");
}

void state_from_dict(const py::dict& d, GameState& s) {
  s = GameState();
  s.config = config_from_dict(need(d, "config").cast<py::dict>());
  const int n = s.config.num_players;
  py::list rng = read_list(need(d, "rng"), "rng", 3);
  if (rng.size() != 3 || read_int(rng[0], "rng version", 3, 3) != 3)
    throw py::value_error("state dict: bad rng");
  py::list internal = read_list(rng[1], "rng state", PyRandom::N + 1);
  if (internal.size() != PyRandom::N + 1) throw py::value_error("state dict: bad rng state");
  std::vector<uint32_t> words(PyRandom::N);
  for (int i = 0; i < PyRandom::N; ++i)
    words[i] = static_cast<uint32_t>(read_integer(internal[i], "rng word", 0, 0xFFFFFFFFLL));
  if (!s.rng.set_state(words.data(),
                       static_cast<uint32_t>(read_int(internal[PyRandom::N], "rng index", 0, PyRandom::N))))
    throw py::value_error("state dict: bad rng index");
  py::list players = read_list(need(d, "players"), "players", MAX_PLAYERS);
  if (static_cast<int>(players.size()) != n)
    throw py::value_error("state dict: player count does not match the config");
  for (int i = 0; i < n; ++i) {
    if (!PyDict_Check(players[i].ptr())) bad_field("players", "must hold objects");
    s.players.push_back(player_from_dict(players[i].cast<py::dict>(), n, i));
  }
  const int seat_hi = n - 1;
  s.round = read_int(need(d, "round"), "round", 0, s.config.max_rounds);
  s.phase = read_int(need(d, "phase"), "phase", TURN, ROUND_END);
  read_svec(need(d, "turn_order"), s.turn_order, "turn_order", 0, seat_hi);
  s.turn_index = read_int(need(d, "turn_index"), "turn_index", 0, seat_hi);
  s.turn_player = read_int(need(d, "turn_player"), "turn_player", 0, seat_hi);
  s.current_player = read_int(need(d, "current_player"), "current_player", -1, seat_hi);
  s.block = read_int(need(d, "block"), "block", BLOCK_NONE, BLOCK_AUCTION);
  s.blocks_used = read_int(need(d, "blocks_used"), "blocks_used", 0, 7);
  s.paid_advance_done = read_bool(need(d, "paid_advance_done"), "paid_advance_done");
  s.gems_activated = read_int(need(d, "gems_activated"), "gems_activated", 0, (1 << NUM_GEMS) - 1);
  s.gems_deactivated = read_int(need(d, "gems_deactivated"), "gems_deactivated", 0, (1 << NUM_GEMS) - 1);
  read_svec(need(d, "display"), s.display, "display", 0, NUM_ARTIFACT_TYPES - 1);
  read_svec(need(d, "artifact_deck"), s.artifact_deck, "artifact_deck", 0, NUM_ARTIFACT_TYPES - 1);
  s.artifact_auctioned = read_bool(need(d, "artifact_auctioned"), "artifact_auctioned");
  read_ints(need(d, "sentinel_owner"), s.sentinel_owner, "sentinel_owner", -2, seat_hi);
  py::list decks = read_list(need(d, "decks"), "decks", NUM_COLOURS);
  py::list discards = read_list(need(d, "discards"), "discards", NUM_COLOURS);
  if (decks.size() != NUM_COLOURS || discards.size() != NUM_COLOURS)
    throw py::value_error("state dict: bad decks");
  for (int c = 0; c < NUM_COLOURS; ++c) {
    read_svec(decks[c], s.decks[c], "decks", 0, NUM_CARD_TOKENS - 1);
    read_svec(discards[c], s.discards[c], "discards", 0, NUM_CARD_TOKENS - 1);
  }
  read_ints(need(d, "concentrated_supply"), s.concentrated_supply, "concentrated_supply", 0,
            CONCENTRATED_PER_COLOUR);
  read_ints(need(d, "gem_supply"), s.gem_supply, "gem_supply", 0, GEM_SUPPLY[0]);
  read_svec(need(d, "art_mod"), s.art_mod, "art_mod", -100, 100);
  read_svec(need(d, "sen_mod"), s.sen_mod, "sen_mod", -100, 100);
  s.auction_kind = read_int(need(d, "auction_kind"), "auction_kind", -1, ITEM_SENTINEL);
  s.auction_item = read_int(need(d, "auction_item"), "auction_item", -1, NUM_ARTIFACT_TYPES - 1);
  s.auction_opener = read_int(need(d, "auction_opener"), "auction_opener", -1, seat_hi);
  s.high_bid = read_int(need(d, "high_bid"), "high_bid", 0, MAX_AMOUNT);
  s.high_bidder = read_int(need(d, "high_bidder"), "high_bidder", -1, seat_hi);
  s.passed = read_int(need(d, "passed"), "passed", 0, (1 << n) - 1);
  s.debtor = read_int(need(d, "debtor"), "debtor", -1, seat_hi);
  s.debt_item_price = read_int(need(d, "debt_item_price"), "debt_item_price", 0, MAX_AMOUNT);
  s.free_levels = read_int(need(d, "free_levels"), "free_levels", 0, NUM_FIELDS);
  read_svec(need(d, "victims"), s.victims, "victims", 0, seat_hi);
  s.terminated = read_bool(need(d, "terminated"), "terminated");
  s.truncated = read_bool(need(d, "truncated"), "truncated");
  s.num_decisions = read_int(need(d, "num_decisions"), "num_decisions", 0, s.config.max_decisions);
  py::list history = read_list(need(d, "history"), "history", static_cast<std::size_t>(s.num_decisions));
  s.history.clear();
  s.history.reserve(history.size());
  for (auto item : history) s.history.push_back(read_int(item, "history", 0, NUM_ACTIONS - 1));
  s.purchases.clear();
  py::object purchases = d.contains("purchases") ? py::object(d["purchases"]) : py::object(py::list());
  const int kinds_hi[6] = {s.config.max_rounds, seat_hi, ITEM_SENTINEL, NUM_ARTIFACT_TYPES - 1,
                           MAX_AMOUNT, MAX_AMOUNT};
  for (auto item : read_list(purchases, "purchases", NUM_ARTIFACT_TYPES * 3 + NUM_SENTINELS)) {
    py::list r = read_list(item, "purchase", 6);
    if (r.size() != 6) throw py::value_error("state dict: a purchase holds six integers");
    PurchaseRecord rec;
    for (int i = 0; i < 6; ++i) rec[i] = read_int(r[i], "purchase", 0, kinds_hi[i]);
    s.purchases.push_back(rec);
  }
  if (s.art_mod.size() != n || s.sen_mod.size() != n)
    throw py::value_error("state dict: player count does not match the config");
  check_pending(s);
}

// An action as an index: Python and NumPy integers; bools and anything else give -1.
int action_index(const py::handle& a) {
  if (PyBool_Check(a.ptr())) return -1;
  PyObject* idx = PyNumber_Index(a.ptr());
  if (!idx) {
    PyErr_Clear();
    return -1;
  }
  int overflow = 0;
  long v = PyLong_AsLongAndOverflow(idx, &overflow);
  Py_DECREF(idx);
  if (overflow || v < 0 || v >= NUM_ACTIONS) return -1;
  return static_cast<int>(v);
}

bool core_is_legal(Core& c, int action) {
  if (action < 0) return false;
  int n = c.refresh_legal();
  for (int i = 0; i < n; ++i)
    if (c.legal[i] == action) return true;
  return false;
}

// Game.apply after the checks: history, the decision, then the forced ones.
inline void core_apply_unchecked(Core& c, int action, bool stop) {
  c.s.history.push_back(action);
  step(c.s, action, stop);
  c.skip_forced_and_cache(stop);
}

void core_apply(Core& c, const py::handle& action, bool stop) {
  if (c.s.phase == ROUND_END)
    throw py::value_error("round " + std::to_string(c.s.round) +
                          " has ended: call advance() before applying an action");
  int index = action_index(action);
  if (!core_is_legal(c, index))
    throw py::value_error("illegal action " + std::string(py::str(py::repr(action))));
  core_apply_unchecked(c, index, stop);
}

void core_advance(Core& c, bool stop) {
  if (c.s.phase != ROUND_END) throw py::value_error("advance() needs a game stopped at a round end");
  start_round(c.s);
  c.skip_forced_and_cache(stop);
}

void core_new(Core& c, const Config& config, const std::vector<uint32_t>& words) {
  new_state(c.s, config, words);
  c.skip_forced_and_cache(false);
}

long long play_random_impl(Core& c, PyRandom rng, long long max_decisions) {
  long long taken = 0;
  while (max_decisions < 0 || taken < max_decisions) {
    if (c.s.phase == ROUND_END) {
      start_round(c.s);
      c.skip_forced_and_cache(false);
      continue;
    }
    int n = c.refresh_legal();
    if (n == 0) break;
    int a = c.legal[rng.randbelow(static_cast<uint64_t>(n))];
    core_apply_unchecked(c, a, false);
    ++taken;
  }
  return taken;
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "Native (C++) rules engine of The Scepter of Zavandor, identical to the Python one.";
  m.attr("NUM_ACTIONS") = NUM_ACTIONS;
  // The state-reading ceilings, so a test can check they are validation.py's.
  py::dict limits;
  limits["MAX_DUST_CHITS"] = MAX_DUST_CHITS;
  limits["MAX_SAGES_DUST"] = MAX_SAGES_DUST;
  limits["MAX_VP"] = MAX_VP;
  limits["MAX_AMOUNT"] = MAX_AMOUNT;
  m.attr("STATE_LIMITS") = limits;
  // The hash of generated/constants.hpp this build was compiled from (tests compare it with
  // the header that `python -m zavandor_env.codegen` writes now).
  m.attr("CONSTANTS_HASH") = CONSTANTS_HASH;

  py::class_<Core>(m, "Core")
      .def(py::init([](const py::dict& config, const py::object& seed) {
             auto words = seed_words(seed);
             Config cfg = config_from_dict(config);
             auto c = std::make_unique<Core>();
             core_new(*c, cfg, words);
             return c;
           }),
           py::arg("config"), py::arg("seed"))
      .def_static(
          "from_state_dict",
          [](const py::dict& state) {
            auto c = std::make_unique<Core>();
            state_from_dict(state, c->s);
            c->invalidate();
            return c;
          },
          py::arg("state"))
      .def("to_state_dict", [](const Core& c) { return state_to_dict(c.s); })
      .def("clone", [](const Core& c) { return std::make_unique<Core>(c); })
      .def("__copy__", [](const Core& c) { return std::make_unique<Core>(c); })
      .def("__deepcopy__", [](const Core& c, py::handle) { return std::make_unique<Core>(c); })
      .def("legal_actions",
           [](Core& c) {
             int n = c.refresh_legal();
             py::tuple t(n);
             for (int i = 0; i < n; ++i) t[i] = py::int_(c.legal[i]);
             return t;
           })
      .def("is_legal", [](Core& c, const py::handle& a) { return core_is_legal(c, action_index(a)); },
           py::arg("action"))
      .def("apply", &core_apply, py::arg("action"), py::arg("stop_at_round_end") = false)
      .def("advance", &core_advance, py::arg("stop_at_round_end") = false)
      .def(
          "reseed",
          [](Core& c, const py::object& seed) { c.s.rng.seed_words(seed_words(seed)); },
          py::arg("seed"))
      .def(
          "play_random",
          [](Core& c, const py::object& seed, long long max_decisions) {
            return play_random_impl(c, PyRandom(seed_words(seed)), max_decisions);
          },
          py::arg("seed"), py::arg("max_decisions") = -1)
      .def_property_readonly("num_players", [](const Core& c) { return c.s.config.num_players; })
      .def_property_readonly("phase", [](const Core& c) { return c.s.phase; })
      .def_property_readonly("current_player", [](const Core& c) { return c.s.current_player; })
      .def_property_readonly("turn_player", [](const Core& c) { return c.s.turn_player; })
      .def_property_readonly("round", [](const Core& c) { return c.s.round; })
      .def_property_readonly("terminated", [](const Core& c) { return c.s.terminated; })
      .def_property_readonly("truncated", [](const Core& c) { return c.s.truncated; })
      .def_property_readonly("num_decisions", [](const Core& c) { return c.s.num_decisions; })
      .def("scores",
           [](const Core& c) {
             py::list out;
             for (const auto& p : c.s.players) out.append(p.vp);
             return out;
           })
      .def("history", [](const Core& c) { return int_list(c.s.history); })
      .def("purchases",
           [](const Core& c) {
             py::list out;
             for (const auto& r : c.s.purchases)
               out.append(py::make_tuple(r[0], r[1], r[2], r[3], r[4], r[5]));
             return out;
           })
      .def("winners", [](const Core& c) {
        py::list out;
        if (!c.s.terminated) return out;
        int w[MAX_PLAYERS];
        int n = winners(c.s, w);
        for (int i = 0; i < n; ++i) out.append(w[i]);
        return out;
      });

  m.def(
      "bench_random",
      [](const py::dict& config, const py::object& seed, long long games) {
        Config cfg = config_from_dict(config);
        std::vector<std::vector<uint32_t>> seeds;
        seed_words(seed);  // refuses a bad seed
        py::int_ base = py::reinterpret_steal<py::int_>(PyNumber_Index(seed.ptr()));
        for (long long g = 0; g < games; ++g)
          seeds.push_back(seed_words(base.attr("__add__")(py::int_(g))));
        long long total = 0;
        auto t0 = std::chrono::steady_clock::now();
        {
          py::gil_scoped_release release;
          Core c;
          for (long long g = 0; g < games; ++g) {
            // The game and its random player use the same seed: seed one generator, copy it.
            PyRandom seeded(seeds[g]);
            new_state(c.s, cfg, seeded);
            c.skip_forced_and_cache(false);
            total += play_random_impl(c, seeded, -1);
          }
        }
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return py::make_tuple(total, secs);
      },
      py::arg("config"), py::arg("seed"), py::arg("games"));

  m.def(
      "bench_clones",
      [](const Core& core, long long count) {
        constexpr int RING = 8;
        std::vector<Core> ring(RING);
        long long checksum = 0;
        auto t0 = std::chrono::steady_clock::now();
        {
          py::gil_scoped_release release;
          for (long long i = 0; i < count; ++i) {
            Core& slot = ring[static_cast<std::size_t>(i % RING)];
            slot = core;
            checksum += slot.s.num_decisions + static_cast<long long>(slot.s.history.size());
          }
        }
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        volatile long long sink = checksum;
        (void)sink;
        return secs;
      },
      py::arg("core"), py::arg("count"));

  m.def(
      "bench_replay",
      [](const py::dict& config, const py::list& seeds, const std::vector<std::vector<int>>& actions,
         long long repeats) {
        // Recorded games replayed natively: for each decision the legal actions are computed
        // and the recorded one is checked against them, as Game.apply does.
        Config cfg = config_from_dict(config);
        if (static_cast<std::size_t>(py::len(seeds)) != actions.size())
          throw py::value_error("bench_replay needs one seed per recorded game");
        std::vector<std::vector<uint32_t>> words;
        for (auto seed : seeds) words.push_back(seed_words(py::reinterpret_borrow<py::object>(seed)));
        long long total = 0;
        bool diverged = false;
        auto t0 = std::chrono::steady_clock::now();
        {
          py::gil_scoped_release release;
          Core c;
          for (long long r = 0; r < repeats && !diverged; ++r) {
            for (std::size_t g = 0; g < actions.size() && !diverged; ++g) {
              core_new(c, cfg, words[g]);
              for (int a : actions[g]) {
                if (c.s.phase == ROUND_END || !core_is_legal(c, a)) {
                  diverged = true;
                  break;
                }
                core_apply_unchecked(c, a, false);
                ++total;
              }
            }
          }
        }
        if (diverged) throw py::value_error("bench_replay: a recorded game does not replay");
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return py::make_tuple(total, secs);
      },
      py::arg("config"), py::arg("seeds"), py::arg("actions"), py::arg("repeats") = 1);

  // Test hooks for the automatic money handling (economy.py).
  m.def("_dust_chits", [](int amount, bool one) {
    int out[NUM_DUST_CHITS];
    dust_chits(amount, one, out);
    return py::make_tuple(out[0], out[1], out[2], out[3]);
  });
  m.def("_choose_payment", [](const std::vector<int>& hand, int amount, bool one) {
    if (hand.size() != NUM_TOKENS) throw py::value_error("hand must have 29 counts");
    int chosen[NUM_TOKENS];
    if (!choose_payment(hand.data(), amount, one, chosen)) throw py::value_error("hand cannot pay");
    return std::vector<int>(chosen, chosen + NUM_TOKENS);
  });

  register_observe(m);
  register_heuristic(m);
  register_vec(m);
  register_mcts(m);
  register_naive(m);
  register_net(m);
  register_netmcts(m);
}
