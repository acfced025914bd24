// The Python module zavandor_env.engine._native: class Core (a game state driven like
// zavandor_env.engine.game.Game) and native benchmarks; the other parts register themselves
// (bind_*.cpp).  State dicts use exactly the layout of GameState.to_dict(), so a game moves
// between the two engines losslessly.
//
// A saved state is validated once, in Python (zavandor_env/io/saved_games.py, the one door for
// saved games).  Reading a state dict here checks only what keeps memory safe whatever the
// input: every integer within int and its table's bounds, every list within its capacity, the
// fields the pending decision indexes with naming something that exists.  A failure is one
// generic ValueError line naming the key.
//
//   Core(config: dict, seed: int)          Game.new: GameConfig.to_dict() and a seed >= 0
//   Core.from_state_dict(state) / core.to_state_dict()     GameState.from_dict / to_dict
//   legal_actions() -> tuple, apply(action, stop_at_round_end=False), advance(...),
//   reseed(seed), play_random(seed, max_decisions=-1) -> decisions taken, clone(),
//   scores(), history(), winners(), and the properties num_players, phase, current_player,
//   turn_player, round, terminated, truncated
//   bench_random / bench_replay / bench_clones      the native benchmarks (bench.cpp)
//   _dust_chits, _choose_payment                      economy.py's twins, for the tests
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <type_traits>
#include <vector>

#include "engine.hpp"
#include "pyutil.hpp"

namespace py = pybind11;
using namespace zav;
namespace pyutil = zav::pyutil;
using pyutil::seed_words;

void register_observe(py::module_& m);  // bind_observe.cpp
void register_bots(py::module_& m);     // bind_bots.cpp
void register_search(py::module_& m);   // bind_search.cpp
void register_vec(py::module_& m);      // bind_vec.cpp

namespace {

// Tokens a hand given to the _choose_payment test hook may hold (a real hand holds a few
// dozen; the search's bitset grows with tokens x amount).
constexpr long long MAX_PAYMENT_TOKENS = 1000;

// ---- state dict <-> GameState: one generic reader and writer per C++ type -------------------
[[noreturn]] void bad(const char* key, int i, const std::string& problem) {
  throw py::value_error("state dict: " + std::string(key) +
                        (i >= 0 ? "[" + std::to_string(i) + "]" : "") + " " + problem);
}

// The bounds of a field: [lo, hi], or [lo, his[i]] for entry i of a fixed-length list.
struct Bounds {
  long long lo = 0, hi = 0;
  const int* his = nullptr;
};

long long integer(const py::handle& o, const char* key, int i, long long lo, long long hi) {
  return pyutil::integer_in(o, lo, hi, [&] {
    return "state dict: " + std::string(key) + (i >= 0 ? "[" + std::to_string(i) + "]" : "");
  });
}

py::list items(const py::handle& o, const char* key, std::size_t least, std::size_t most) {
  if (!PyList_Check(o.ptr())) bad(key, -1, "must be a list");
  auto l = py::reinterpret_borrow<py::list>(o);
  if (l.size() < least || l.size() > most)
    bad(key, -1, std::string(least == most ? "must hold " : "must hold at most ") +
                     std::to_string(most) + " entries");
  return l;
}

void get(const py::handle& o, const char* key, int i, int& out, const Bounds& b) {
  out = static_cast<int>(integer(o, key, i, b.lo, b.his && i >= 0 ? b.his[i] : b.hi));
}
void get(const py::handle& o, const char* key, int i, bool& out, const Bounds&) {
  if (!PyBool_Check(o.ptr())) bad(key, i, "must be true or false");
  out = o.ptr() == Py_True;
}
template <class T, std::size_t N>
void get(const py::handle& o, const char* key, int, std::array<T, N>& out, const Bounds& b) {
  py::list l = items(o, key, N, N);
  for (std::size_t i = 0; i < N; ++i) get(l[i], key, static_cast<int>(i), out[i], b);
}
// A list of at most `most` entries into an SVec or a std::vector.
template <class L>
void get_list(const py::handle& o, const char* key, L& out, const Bounds& b, std::size_t most) {
  py::list l = items(o, key, 0, most);
  out.clear();
  for (std::size_t i = 0; i < l.size(); ++i) {
    std::remove_reference_t<decltype(*out.begin())> v{};
    get(l[i], key, static_cast<int>(i), v, b);
    out.push_back(v);
  }
}
template <class T, int Cap>
void get(const py::handle& o, const char* key, int, SVec<T, Cap>& out, const Bounds& b) {
  get_list(o, key, out, b, Cap);
}
py::object need(const py::dict& d, const char* key) {
  if (!d.contains(key)) throw py::value_error(std::string("state dict is missing ") + key);
  return d[key];
}

py::object put(int v) { return py::int_(v); }
py::object put(bool v) { return py::bool_(v); }
template <class C>
py::object put(const C& c) {
  py::list out;
  for (const auto& v : c) out.append(put(v));
  return std::move(out);
}

// PlayerState's fields in PlayerState.to_dict()'s order, each with its bounds.
#define ZAV_PLAYER_FIELDS(X)                                                                  \
  X(seat, seat, seat) X(character, 0, NUM_CHARACTERS - 1) X(active, 0, 0, GEM_SUPPLY)          \
  X(inactive, 0, 0, GEM_SUPPLY) X(hand, 0, 0, HAND_CAPS.data())                               \
  X(balance, -MAX_AMOUNT, MAX_AMOUNT) X(sages_tokens, 0, NUM_CARD_TOKENS - 1)                 \
  X(sages_dust, 0, MAX_SAGES_DUST) X(levels, 0, MAX_LEVEL) X(chips_bought)                   \
  X(pentagon_chips, 0, NUM_CHIPS) X(artifacts, 0, COPIES_BY_PLAYERS[n])                        \
  X(sentinels, 0, NUM_SENTINELS - 1) X(vp, 0, MAX_VP) X(gem_vp, 0, MAX_VP)                     \
  X(druid_ruby_used) X(eliminated)
// GameState's fields from round to num_decisions, in GameState.to_dict()'s order.
#define ZAV_STATE_FIELDS(X)                                                                   \
  X(round, 0, s.config.max_rounds) X(phase, TURN, ROUND_END) X(turn_order, 0, seat_hi)        \
  X(turn_index, 0, seat_hi) X(turn_player, 0, seat_hi) X(current_player, -1, seat_hi)         \
  X(block, BLOCK_NONE, BLOCK_AUCTION) X(blocks_used, 0, 7) X(paid_advance_done)               \
  X(gems_activated, 0, (1 << NUM_GEMS) - 1) X(gems_deactivated, 0, (1 << NUM_GEMS) - 1)       \
  X(display, 0, NUM_ARTIFACT_TYPES - 1) X(artifact_deck, 0, NUM_ARTIFACT_TYPES - 1)           \
  X(artifact_auctioned) X(sentinel_owner, -2, seat_hi) X(decks, 0, NUM_CARD_TOKENS - 1)       \
  X(discards, 0, NUM_CARD_TOKENS - 1) X(concentrated_supply, 0, CONCENTRATED_PER_COLOUR)      \
  X(gem_supply, 0, GEM_SUPPLY[0]) X(art_mod, -100, 100) X(sen_mod, -100, 100)                 \
  X(auction_kind, -1, ITEM_SENTINEL) X(auction_item, -1, NUM_ARTIFACT_TYPES - 1)              \
  X(auction_opener, -1, seat_hi) X(high_bid, 0, MAX_AMOUNT) X(high_bidder, -1, seat_hi)       \
  X(passed, 0, (1 << n) - 1) X(debtor, -1, seat_hi) X(debt_item_price, 0, MAX_AMOUNT)         \
  X(free_levels, 0, NUM_FIELDS) X(victims, 0, seat_hi) X(terminated) X(truncated)             \
  X(num_decisions, 0, s.config.max_decisions)

#define ZAV_PUT_PLAYER(name, ...) d[#name] = put(p.name);
#define ZAV_PUT_STATE(name, ...) d[#name] = put(s.name);
#define ZAV_GET_PLAYER(name, ...) get(need(d, #name), #name, -1, p.name, Bounds{__VA_ARGS__});
#define ZAV_GET_STATE(name, ...) get(need(d, #name), #name, -1, s.name, Bounds{__VA_ARGS__});

// The most of each hand token the box (cards, concentrated cards) or the dust ceiling allows.
const std::array<int, NUM_TOKENS> HAND_CAPS = [] {
  std::array<int, NUM_TOKENS> caps{};
  for (int t = 0; t < NUM_TOKENS; ++t)
    caps[t] = t < NUM_CARD_TOKENS ? TOTAL_ENERGY_CARDS
              : t < DUST_TOKEN0   ? CONCENTRATED_PER_COLOUR
                                  : MAX_DUST_CHITS;
  return caps;
}();

// The config's int fields and rule options come from the generated lists (ZAV_CONFIG_INTS,
// ZAV_RULE_OPTIONS: dataclasses.fields(GameConfig)); the characters by name.
Config config_from_dict(const py::dict& d) {
  for (auto item : d) {  // a GameConfig field added after this build
    const std::string key = py::str(item.first);
    if (std::none_of(std::begin(CONFIG_KEYS), std::end(CONFIG_KEYS),
                     [&](const char* k) { return key == k; }))
      throw py::value_error("config key '" + key + "' is unknown to the native core: rebuild it "
                            "(python -m zavandor_env.codegen, then python setup.py build_ext "
                            "--inplace)");
  }
  Config c;
#define ZAV_GET_INT(name, default_value, lo, hi) \
  get(need(d, #name), "config." #name, -1, c.name, Bounds{lo, hi});
  ZAV_CONFIG_INTS(ZAV_GET_INT)
#define ZAV_GET_OPTION(name, default_value) get(need(d, #name), "config." #name, -1, c.name, {});
  ZAV_RULE_OPTIONS(ZAV_GET_OPTION)
  py::object chars = need(d, "characters");
  c.has_characters = !chars.is_none();
  if (c.has_characters) {
    py::list names(chars);
    if (names.size() != static_cast<std::size_t>(c.num_players))
      bad("config.characters", -1, "must name one character per player");
    for (int i = 0; i < c.num_players; ++i) {
      const std::string name = py::str(names[i]);
      c.characters[i] = -1;
      for (int k = 0; k < NUM_CHARACTERS; ++k)
        if (name == CHARACTERS[k].name) c.characters[i] = k;
      if (c.characters[i] < 0) throw py::value_error("unknown character " + name);
    }
  }
  return c;
}

// In GameConfig.to_dict()'s key order (CONFIG_KEYS).
py::dict config_to_dict(const Config& c) {
  py::dict d, out;
#define ZAV_PUT_INT(name, ...) d[#name] = c.name;
  ZAV_CONFIG_INTS(ZAV_PUT_INT)
#define ZAV_PUT_OPTION(name, default_value) d[#name] = c.name;
  ZAV_RULE_OPTIONS(ZAV_PUT_OPTION)
  py::list names;
  for (int i = 0; i < c.num_players; ++i) names.append(CHARACTERS[c.characters[i]].name);
  d["characters"] = c.has_characters ? py::object(names) : py::none();
  for (const char* key : CONFIG_KEYS) out[key] = d[key];
  return out;
}

py::dict state_to_dict(const GameState& s) {
  py::dict d;
  d["config"] = config_to_dict(s.config);
  d["rng"] = py::list(py::make_tuple(3, s.rng.get_state(), py::none()));
  py::list players;
  for (const auto& p : s.players) {
    py::dict d;
    ZAV_PLAYER_FIELDS(ZAV_PUT_PLAYER)
    players.append(d);
  }
  d["players"] = players;
  ZAV_STATE_FIELDS(ZAV_PUT_STATE)
  d["history"] = put(s.history);
  d["purchases"] = put(s.purchases);
  return d;
}

// The fields the pending decision indexes with name what exists in its phase.
void check_pending(const GameState& s) {
  if (s.turn_order.empty() || s.turn_index >= s.turn_order.size() ||
      s.turn_order[s.turn_index] != s.turn_player)
    bad("turn_player", -1, "is not at turn_index of turn_order");
  if ((s.current_player < 0) != (s.phase == GAME_OVER || s.phase == ROUND_END))
    bad("current_player", -1, "disagrees with the phase");
  const int items = s.auction_kind == ITEM_ARTIFACT   ? NUM_ARTIFACT_TYPES
                    : s.auction_kind == ITEM_SENTINEL ? NUM_SENTINELS : 0;
  if ((s.phase == BID || s.phase == DEBT) &&
      (s.auction_item < 0 || s.auction_item >= items || s.auction_opener < 0))
    bad("auction_item", -1, "names no item, yet an auction is in progress");
  if ((s.phase == DEBT || s.phase == FREE_LEVEL || s.phase == LOSE_GEM) && s.debtor < 0)
    bad("debtor", -1, "is -1, yet an auction winner decides");
  if (s.phase == LOSE_GEM && (s.victims.empty() || s.victims[0] != s.current_player))
    bad("victims", -1, "do not start with the current player");
  if (s.art_mod.size() != s.config.num_players || s.sen_mod.size() != s.config.num_players)
    bad("art_mod", -1, "must hold one entry per player");
}

void state_from_dict(const py::dict& d, GameState& s) {
  s = GameState();
  s.config = config_from_dict(need(d, "config").cast<py::dict>());
  const int n = s.config.num_players, seat_hi = n - 1;
  py::list rng = items(need(d, "rng"), "rng", 3, 3);
  integer(rng[0], "rng", 0, 3, 3);
  py::list internal = items(rng[1], "rng", PyRandom::N + 1, PyRandom::N + 1);
  std::vector<uint32_t> words(PyRandom::N);
  for (int i = 0; i < PyRandom::N; ++i)
    words[i] = static_cast<uint32_t>(integer(internal[i], "rng", i, 0, 0xFFFFFFFFLL));
  if (!s.rng.set_state(words.data(), static_cast<uint32_t>(integer(
                                         internal[PyRandom::N], "rng", PyRandom::N, 0, PyRandom::N))))
    bad("rng", -1, "is no generator state");
  py::list players = items(need(d, "players"), "players", n, n);
  for (int seat = 0; seat < n; ++seat) {
    if (!PyDict_Check(players[seat].ptr())) bad("players", seat, "must be an object");
    auto d = py::reinterpret_borrow<py::dict>(players[seat]);
    PlayerState p;
    ZAV_PLAYER_FIELDS(ZAV_GET_PLAYER)
    s.players.push_back(p);
  }
  ZAV_STATE_FIELDS(ZAV_GET_STATE)
  get_list(need(d, "history"), "history", s.history, Bounds{0, NUM_ACTIONS - 1},
             static_cast<std::size_t>(s.num_decisions));
  const int kinds_hi[6] = {s.config.max_rounds, seat_hi, ITEM_SENTINEL, NUM_ARTIFACT_TYPES - 1,
                           MAX_AMOUNT, MAX_AMOUNT};
  get_list(d.contains("purchases") ? py::object(d["purchases"]) : py::object(py::list()), "purchases",
             s.purchases, Bounds{0, 0, kinds_hi}, NUM_ARTIFACT_TYPES * 3 + NUM_SENTINELS);
  check_pending(s);
}

// ---- driving a Core -------------------------------------------------------------------------
void core_apply(Core& c, const py::handle& action, bool stop) {
  if (c.s.phase == ROUND_END)
    throw py::value_error("round " + std::to_string(c.s.round) +
                          " has ended: call advance() before applying an action");
  const auto index = static_cast<int>(pyutil::integer_in(action, 0, NUM_ACTIONS - 1, "action"));
  if (!c.is_legal(index)) throw py::value_error("illegal action " + std::to_string(index));
  c.apply(index, stop);
}

void core_advance(Core& c, bool stop) {
  if (c.s.phase != ROUND_END) throw py::value_error("advance() needs a game stopped at a round end");
  c.advance(stop);
}

// Seconds that f() takes without the GIL (the benchmarks).
template <class F>
double timed(F&& f) {
  py::gil_scoped_release release;
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<std::vector<uint32_t>> seeds_of(const py::iterable& seeds) {
  std::vector<std::vector<uint32_t>> words;
  for (auto seed : seeds) words.push_back(seed_words(seed));
  return words;
}

std::unique_ptr<Core> copy_core(const Core& c) { return std::make_unique<Core>(c); }

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "Native (C++) rules engine of The Scepter of Zavandor, identical to the Python one.";
  m.attr("NUM_ACTIONS") = NUM_ACTIONS;
  // The hash of the generated/constants.hpp this build was compiled from (a test compares it
  // with codegen's): the state-reading ceilings are saved_games.py's through that header.
  m.attr("CONSTANTS_HASH") = CONSTANTS_HASH;

  py::class_<Core>(m, "Core")
      .def(py::init([](const py::dict& config, const py::object& seed) {
             PyRandom seeded(seed_words(seed));
             auto c = std::make_unique<Core>();
             c->new_game(config_from_dict(config), seeded);
             return c;
           }),
           py::arg("config"), py::arg("seed"))
      .def_static(
          "from_state_dict",
          [](const py::dict& state) {
            auto c = std::make_unique<Core>();
            state_from_dict(state, c->s);
            return c;
          },
          py::arg("state"))
      .def("to_state_dict", [](const Core& c) { return state_to_dict(c.s); })
      .def("clone", &copy_core)
      .def("__deepcopy__", [](const Core& c, py::handle) { return copy_core(c); })
      .def("legal_actions", &legal_tuple)
      .def("apply", &core_apply, py::arg("action"), py::arg("stop_at_round_end") = false)
      .def("advance", &core_advance, py::arg("stop_at_round_end") = false)
      .def("reseed", [](Core& c, const py::object& seed) { c.s.rng.seed_words(seed_words(seed)); },
           py::arg("seed"))
      .def("play_random",
           [](Core& c, const py::object& seed, long long most) {
             PyRandom rng(seed_words(seed));
             return c.play_random(rng, most);
           },
           py::arg("seed"), py::arg("max_decisions") = -1)
      .def_property_readonly("num_players", [](const Core& c) { return c.s.config.num_players; })
      .def_property_readonly("phase", [](const Core& c) { return c.s.phase; })
      .def_property_readonly("current_player", [](const Core& c) { return c.s.current_player; })
      .def_property_readonly("turn_player", [](const Core& c) { return c.s.turn_player; })
      .def_property_readonly("round", [](const Core& c) { return c.s.round; })
      .def_property_readonly("terminated", [](const Core& c) { return c.s.terminated; })
      .def_property_readonly("truncated", [](const Core& c) { return c.s.truncated; })
      .def("scores",
           [](const Core& c) {
             py::list out;
             for (const auto& p : c.s.players) out.append(p.vp);
             return out;
           })
      .def("history", [](const Core& c) { return c.s.history; })
      .def("winners", [](const Core& c) {
        int w[MAX_PLAYERS];
        return std::vector<int>(w, w + (c.s.terminated ? winners(c.s, w) : 0));
      });

  // The benchmarks (bench.cpp), timed here: seeds seed, seed + 1, ..., seed + games - 1.
  m.def(
      "bench_random",
      [](const py::dict& config, const py::object& seed, long long games) {
        seed_words(seed);  // refuses a bad seed
        std::vector<std::vector<uint32_t>> words;
        for (long long g = 0; g < games; ++g) words.push_back(seed_words(seed.attr("__add__")(g)));
        long long total = 0;
        const double secs = timed([&, cfg = config_from_dict(config)] {
          total = bench_random_games(cfg, words);
        });
        return py::make_tuple(total, secs);
      },
      py::arg("config"), py::arg("seed"), py::arg("games"));
  m.def("bench_clones", [](const Core& core, long long count) {
    return timed([&] { bench_clone_ring(core, count); });
  }, py::arg("core"), py::arg("count"));
  m.def(
      "bench_replay",
      [](const py::dict& config, const py::list& seeds,
         const std::vector<std::vector<int>>& actions, long long repeats) {
        if (py::len(seeds) != actions.size())
          throw py::value_error("bench_replay needs one seed per recorded game");
        long long total = 0;
        const double secs = timed([&, cfg = config_from_dict(config), words = seeds_of(seeds)] {
          total = bench_replay_games(cfg, words, actions, repeats);
        });
        if (total < 0) throw py::value_error("bench_replay: a recorded game does not replay");
        return py::make_tuple(total, secs);
      },
      py::arg("config"), py::arg("seeds"), py::arg("actions"), py::arg("repeats") = 1);
  // Test hooks for the automatic money handling (economy.py).  Importable means reachable:
  // every argument is bounded here, as any entry point's (a negative amount indexed the change
  // table out of bounds; a hand of 2**31 - 1 tokens allocated until memory ran out).
  m.def("_dust_chits", [](const py::handle& amount_obj, bool one) {
    const int amount = static_cast<int>(pyutil::integer_in(amount_obj, 0, MAX_AMOUNT, "amount"));
    std::array<int, NUM_DUST_CHITS> out{};
    dust_chits(amount, one, out.data());
    return py::tuple(put(out));
  }, py::arg("amount"), py::arg("one_value_dust"));
  m.def("_choose_payment", [](const py::handle& counts, const py::handle& amount_obj, bool one) {
    if (py::isinstance<py::str>(counts) || !py::isinstance<py::sequence>(counts) ||
        py::len(counts) != static_cast<std::size_t>(NUM_TOKENS))
      throw py::value_error("hand must hold " + std::to_string(NUM_TOKENS) + " token counts");
    std::array<int, NUM_TOKENS> hand{}, chosen{};
    long long tokens = 0;
    for (int t = 0; t < NUM_TOKENS; ++t)
      tokens += hand[t] = static_cast<int>(
          pyutil::integer_in(counts[py::int_(t)], 0, MAX_PAYMENT_TOKENS, "hand[i]"));
    if (tokens > MAX_PAYMENT_TOKENS)
      throw py::value_error("hand holds more than " + std::to_string(MAX_PAYMENT_TOKENS) + " tokens");
    const int amount = static_cast<int>(pyutil::integer_in(amount_obj, 0, MAX_AMOUNT, "amount"));
    if (!choose_payment(hand.data(), amount, one, chosen.data())) throw py::value_error("hand cannot pay");
    return chosen;
  }, py::arg("hand"), py::arg("amount"), py::arg("one_value_dust"));

  register_observe(m);
  register_bots(m);
  register_search(m);
  register_vec(m);
}
