// Python bindings of the native heuristic (heuristic.hpp), registered into
// zavandor_env.engine._native by bindings.cpp through register_heuristic(m):
//
//   HeuristicWeights(weights: dict)      every field of agents.heuristic.HeuristicWeights,
//                                        e.g. HeuristicWeights(resolve_weights(None).to_dict());
//                                        a missing or unknown key raises ValueError
//   heuristic_action(core, weights) -> int
//                                        heuristic.choose for the deciding seat of a Core
//   play_heuristic(core, weights, seats_mask, seed, max_decisions=-1, blunder=0.0) -> int
//                                        play on (heuristic seats: bit set in seats_mask; the
//                                        others uniformly random from PyRandom(seed)); returns
//                                        the decisions taken
//   NativeNovice(weights, blunder, seed) agents.novice.NoviceAgent with its own generator
//   _heuristic_probe(core, weights, seat) the intermediate valuations (for the tests)
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine.hpp"
#include "heuristic.hpp"

namespace py = pybind11;

namespace {

using zav::HeuristicWeights;

struct WeightField {
  const char* name;
  double HeuristicWeights::*member;
};

// The scalar fields, in the dataclass's order (expected_rounds comes first there), from the
// generated list of agents/heuristic.py HeuristicWeights' fields.
const WeightField SCALAR_FIELDS[] = {
#define ZAV_WEIGHT_FIELD(name) {#name, &HeuristicWeights::name},
    ZAV_HEURISTIC_WEIGHTS(ZAV_WEIGHT_FIELD)
#undef ZAV_WEIGHT_FIELD
};
constexpr const char* ROUNDS_FIELD = "expected_rounds";

std::vector<std::string> field_names() {
  std::vector<std::string> names{ROUNDS_FIELD};
  for (const auto& f : SCALAR_FIELDS) names.emplace_back(f.name);
  return names;
}

// A weight value as Python arithmetic would see it: an int or a float (bool is an int).
double number(const py::handle& value, const std::string& key) {
  if (!(py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)))
    throw py::value_error("heuristic weight '" + key + "' must be a number, got " +
                          std::string(py::repr(value)));
  double x = value.cast<double>();
  if (py::isinstance<py::int_>(value) && !py::isinstance<py::bool_>(value)) {
    // Held as a double: only integers a double represents exactly give Python's results.
    if (x > 9007199254740992.0 || x < -9007199254740992.0)
      throw py::value_error("heuristic weight '" + key + "' is too large an integer");
  }
  return x;
}

HeuristicWeights weights_from_dict(const py::dict& data) {
  HeuristicWeights w;
  std::vector<std::string> unknown;
  std::vector<bool> seen(sizeof(SCALAR_FIELDS) / sizeof(SCALAR_FIELDS[0]), false);
  bool seen_rounds = false;
  for (auto item : data) {
    if (!py::isinstance<py::str>(item.first)) {
      unknown.push_back(std::string(py::repr(item.first)));
      continue;
    }
    std::string key = item.first.cast<std::string>();
    if (key == ROUNDS_FIELD) {
      // HeuristicWeights.from_mapping: {int(k): int(v) for k, v in rounds.items()}
      py::object rounds = py::reinterpret_borrow<py::object>(item.second);
      if (!py::hasattr(rounds, "items"))
        throw py::value_error("heuristic weight 'expected_rounds' must be a mapping");
      py::object builtins_int = py::module_::import("builtins").attr("int");
      for (auto kv : rounds.attr("items")()) {
        auto pair = kv.cast<py::tuple>();
        long long k = builtins_int(pair[0]).cast<long long>();
        long long v = builtins_int(pair[1]).cast<long long>();
        bool replaced = false;
        for (auto& e : w.expected_rounds)
          if (e.first == k) {
            e.second = v;  // a later equal key overwrites, keeping the first position
            replaced = true;
          }
        if (!replaced) w.expected_rounds.emplace_back(k, v);
      }
      seen_rounds = true;
      continue;
    }
    bool found = false;
    for (std::size_t i = 0; i < seen.size(); ++i) {
      if (key == SCALAR_FIELDS[i].name) {
        w.*(SCALAR_FIELDS[i].member) = number(item.second, key);
        seen[i] = true;
        found = true;
        break;
      }
    }
    if (!found) unknown.push_back("'" + key + "'");
  }
  std::string known;
  for (const auto& n : field_names()) known += (known.empty() ? "" : ", ") + n;
  if (!unknown.empty()) {
    std::string list;
    for (const auto& u : unknown) list += (list.empty() ? "" : ", ") + u;
    throw py::value_error("unknown heuristic weight(s) [" + list + "]; known: " + known);
  }
  std::vector<std::string> missing;
  if (!seen_rounds) missing.push_back(ROUNDS_FIELD);
  for (std::size_t i = 0; i < seen.size(); ++i)
    if (!seen[i]) missing.push_back(SCALAR_FIELDS[i].name);
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    throw py::value_error("missing heuristic weight(s) [" + list +
                          "]; pass every field (e.g. resolve_weights(...).to_dict())");
  }
  return w;
}

py::dict weights_to_dict(const HeuristicWeights& w) {
  py::dict out;
  py::dict rounds;
  for (const auto& kv : w.expected_rounds) rounds[py::int_(kv.first)] = py::int_(kv.second);
  out[ROUNDS_FIELD] = rounds;
  for (const auto& f : SCALAR_FIELDS) out[f.name] = w.*(f.member);
  return out;
}

// A Python int seed >= 0 as 32-bit words, least significant first (random.Random(seed)).
std::vector<uint32_t> seed_words(const py::int_& seed) {
  py::object zero = py::int_(0);
  if (seed < zero) throw py::value_error("seed must be a non-negative integer");
  std::vector<uint32_t> words;
  py::object x = seed;
  py::object mask = py::int_(0xffffffffu);
  py::object shift = py::int_(32);
  while (x > zero || words.empty()) {
    words.push_back((x & mask).cast<uint32_t>());
    x = x.attr("__rshift__")(shift);
  }
  return words;
}

Core& core_of(const py::object& core) { return py::cast<Core&>(core); }

int pending(Core& c) { return pending_decision(c); }

// agents/novice.py NoviceAgent with its own generator (random.Random(seed)).
struct NativeNovice {
  HeuristicWeights w;
  double blunder;
  zav::PyRandom rng;
};

}  // namespace

void register_heuristic(py::module_& m) {
  py::class_<HeuristicWeights>(m, "HeuristicWeights",
                               "Weights of the native heuristic: every field of "
                               "agents.heuristic.HeuristicWeights, from a dict.")
      .def(py::init([](const py::dict& weights) { return weights_from_dict(weights); }),
           py::arg("weights"))
      .def("to_dict", &weights_to_dict)
      .def_property_readonly_static("FIELDS",
                                    [](py::object) { return py::tuple(py::cast(field_names())); })
      .def(py::pickle([](const HeuristicWeights& w) { return weights_to_dict(w); },
                      [](const py::dict& d) { return weights_from_dict(d); }))
      .def("__repr__", [](const HeuristicWeights& w) {
        return "HeuristicWeights(" + std::string(py::repr(weights_to_dict(w))) + ")";
      });

  m.def(
      "heuristic_action",
      [](const py::object& core, const HeuristicWeights& w) {
        Core& c = core_of(core);
        int n = pending(c);
        return zav::heuristic_choose(c.s, c.s.current_player, w, c.legal, n);
      },
      py::arg("core"), py::arg("weights"),
      "agents.heuristic.choose for the deciding seat of a Core (its legal actions).");

  m.def(
      "play_heuristic",
      [](const py::object& core, const HeuristicWeights& w, long long seats_mask,
         const py::int_& seed, long long max_decisions, double blunder) {
        Core& c = core_of(core);
        zav::PyRandom rng;
        rng.seed_words(seed_words(seed));
        long long taken = 0;
        c.invalidate();  // the loop below never refreshes the cache: it stays invalid even on error
        {
          py::gil_scoped_release release;
          zav::GameState& s = c.s;
          int legal[zav::NUM_ACTIONS];
          while (max_decisions < 0 || taken < max_decisions) {
            if (s.terminated || s.truncated) break;
            if (s.phase == zav::ROUND_END) {  // Game.advance
              zav::start_round(s);
              zav::skip_forced(s, false);
              continue;
            }
            int n = zav::legal_actions(s, legal);
            if (n <= 0) break;
            int seat = s.current_player;
            int a;
            if (seat >= 0 && seat < 63 && ((seats_mask >> seat) & 1)) {
              if (blunder > 0.0 && s.phase == zav::TURN && rng.random() < blunder)
                a = legal[rng.randbelow(static_cast<uint64_t>(n))];
              else
                a = zav::heuristic_choose(s, seat, w, legal, n);
            } else {
              a = legal[rng.randbelow(static_cast<uint64_t>(n))];
            }
            // Game.apply: record, step, then the forced decisions that follow.
            s.history.push_back(a);
            zav::step(s, a, false);
            zav::skip_forced(s, false);
            ++taken;
          }
        }
        return taken;
      },
      py::arg("core"), py::arg("weights"), py::arg("seats_mask"), py::arg("seed"),
      py::arg("max_decisions") = -1, py::arg("blunder") = 0.0,
      "Play on until the game is over (or max_decisions): seats whose bit is set in seats_mask "
      "play the heuristic (on a TURN decision a lapse with probability blunder, as "
      "NoviceAgent, drawn from the same generator), the others uniformly random legal actions "
      "(legal[randbelow(len)] from PyRandom(seed)).  Returns the decisions taken.");

  py::class_<NativeNovice>(m, "NativeNovice",
                           "agents.novice.NoviceAgent natively: the heuristic with a random "
                           "lapse on a share `blunder` of its TURN decisions, drawn from its own "
                           "random.Random(seed)-identical generator.")
      .def(py::init([](const HeuristicWeights& w, double blunder, const py::int_& seed) {
             if (!(blunder >= 0.0 && blunder <= 1.0))
               throw py::value_error("blunder must be a probability in [0, 1]");
             NativeNovice n{w, blunder, zav::PyRandom()};
             n.rng.seed_words(seed_words(seed));
             return n;
           }),
           py::arg("weights"), py::arg("blunder"), py::arg("seed"))
      .def("seed", [](NativeNovice& n, const py::int_& seed) { n.rng.seed_words(seed_words(seed)); },
           py::arg("seed"))
      .def_readonly("blunder", &NativeNovice::blunder)
      .def(
          "act",
          [](NativeNovice& nv, const py::object& core) {
            Core& c = core_of(core);
            int n = pending(c);
            return zav::novice_choose(c.s, c.s.current_player, nv.w, c.legal, n, nv.blunder,
                                      nv.rng);
          },
          py::arg("core"));

  m.def(
      "_heuristic_probe",
      [](const py::object& core, const HeuristicWeights& w, int seat) {
        const zav::GameState& s = core_of(core).s;
        int np = s.players.size();
        if (seat < 0 || seat >= np) throw py::value_error("seat out of range");
        namespace h = zav::heur;
        py::dict out;
        double r = h::horizon(s, w);
        out["horizon"] = r;
        out["storable"] = h::storable(s, seat);
        out["excess"] = h::excess(s, seat);
        out["spend_budget"] = h::spend_budget(s, seat);
        py::list gems;
        for (int g = 0; g < zav::NUM_GEMS; ++g) gems.append(h::gem_value(g, r, w));
        out["gem_value"] = gems;
        py::list slot, plan, plan_free, arts, sens;
        for (int p = 0; p < np; ++p) {
          slot.append(h::slot_value(s, p, r, w));
          py::list pl, pf, pa, ps;
          for (int f = 0; f < zav::NUM_FIELDS; ++f) {
            pl.append(h::field_plan_value(s, p, f, r, w, false));
            pf.append(h::field_plan_value(s, p, f, r, w, true));
          }
          for (int a = 0; a < zav::NUM_ARTIFACT_TYPES; ++a) pa.append(h::artifact_value(s, p, a, r, w));
          for (int k = 0; k < zav::NUM_SENTINELS; ++k) ps.append(h::sentinel_value(s, p, k, r, w));
          plan.append(pl);
          plan_free.append(pf);
          arts.append(pa);
          sens.append(ps);
        }
        out["slot_value"] = slot;
        out["field_plan_value"] = plan;
        out["field_plan_value_free"] = plan_free;
        out["artifact_value"] = arts;
        out["sentinel_value"] = sens;
        py::list limits_art, limits_sen;
        for (int a = 0; a < zav::NUM_ARTIFACT_TYPES; ++a)
          limits_art.append(h::bid_limit(s, seat, zav::ITEM_ARTIFACT, a, w));
        for (int k = 0; k < zav::NUM_SENTINELS; ++k)
          limits_sen.append(h::bid_limit(s, seat, zav::ITEM_SENTINEL, k, w));
        out["bid_limit_artifact"] = limits_art;
        out["bid_limit_sentinel"] = limits_sen;
        return out;
      },
      py::arg("core"), py::arg("weights"), py::arg("seat"),
      "The heuristic's valuations from `seat`'s view (tests compare them with Python's).");
}
