// Python bindings of the native bots, registered into zavandor_env.engine._native by
// bindings.cpp through register_bots(m): the heuristic (heuristic.hpp) and the naive player and
// planner (naive.hpp).
//
//   HeuristicWeights(weights: dict)      every field of agents.heuristic.HeuristicWeights,
//                                        e.g. HeuristicWeights(resolve_weights(None).to_dict());
//                                        a missing or unknown key raises ValueError
//   heuristic_action(core, weights) -> int
//                                        heuristic.choose for the deciding seat of a Core
//   PlannerParams(gem_cap, field_order, artifacts_first_round, artifact_bid_factor,
//                 sentinel_bid_factor)
//                                  agents.planner.PlannerParams as indices
//                                  (agents.planner.native_planner_params builds one); a bad
//                                  value raises a one-line ValueError
//   NativeNaive(seed)              agents.naive.NaiveAgent with its own random.Random(seed)-
//                                  identical generator: act(core), seed(seed), fallbacks
//   NativePlanner(params, seed)    agents.planner.PlannerAgent likewise (a NativeNaive subclass)
//
// The native bots play through these (agents.heuristic, agents.novice's heuristic part,
// agents.naive, agents.planner; the vector env's seats use the same C++: vec.hpp).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine.hpp"
#include "heuristic.hpp"
#include "naive.hpp"
#include "pyutil.hpp"

namespace py = pybind11;

namespace {

using zav::HeuristicWeights;

// The scalar fields, in the dataclass's order after expected_rounds (which comes first), from
// the generated list of agents/heuristic.py HeuristicWeights' fields.
const std::pair<const char*, double HeuristicWeights::*> SCALARS[] = {
#define ZAV_WEIGHT_FIELD(name) {#name, &HeuristicWeights::name},
    ZAV_HEURISTIC_WEIGHTS(ZAV_WEIGHT_FIELD)
#undef ZAV_WEIGHT_FIELD
};
constexpr const char* ROUNDS = "expected_rounds";

std::vector<std::string> field_names() {
  std::vector<std::string> names{ROUNDS};
  for (const auto& f : SCALARS) names.emplace_back(f.first);
  return names;
}

py::object need(const py::dict& d, const std::string& key) {
  if (!d.contains(key)) throw py::value_error("missing heuristic weight '" + key + "'");
  return d[key.c_str()];
}

HeuristicWeights weights_from_dict(const py::dict& d) {
  const auto names = field_names();
  for (auto item : d)
    if (std::find(names.begin(), names.end(), std::string(py::str(item.first))) == names.end())
      throw py::value_error("unknown heuristic weight " + std::string(py::repr(item.first)));
  HeuristicWeights w;
  py::object to_int = py::module_::import("builtins").attr("int");
  // HeuristicWeights.from_mapping: {int(k): int(v) ...}; a later equal key keeps the first place.
  for (auto kv : need(d, ROUNDS).attr("items")()) {
    const long long k = to_int(kv[py::int_(0)]).cast<long long>();
    const long long v = to_int(kv[py::int_(1)]).cast<long long>();
    auto at = std::find_if(w.expected_rounds.begin(), w.expected_rounds.end(),
                           [&](const auto& e) { return e.first == k; });
    if (at != w.expected_rounds.end()) at->second = v;
    else w.expected_rounds.emplace_back(k, v);
  }
  for (const auto& [name, member] : SCALARS) {
    py::object v = need(d, name);
    // As Python arithmetic sees it: an int or a float (bool is an int).
    if (!py::isinstance<py::int_>(v) && !py::isinstance<py::float_>(v))
      throw py::value_error("heuristic weight '" + std::string(name) + "' must be a number");
    w.*member = v.cast<double>();
  }
  return w;
}

py::dict weights_to_dict(const HeuristicWeights& w) {
  py::dict out, rounds;
  for (const auto& [k, v] : w.expected_rounds) rounds[py::int_(k)] = py::int_(v);
  out[ROUNDS] = rounds;
  for (const auto& [name, member] : SCALARS) out[name] = w.*member;
  return out;
}

using zav::PlannerParams;
using zav::pyutil::seed_words;
using Factors = std::vector<double>;

// The checks keep every index in its table; agents.planner checks the meaning.
PlannerParams make_params(int gem_cap, const std::vector<int>& field_order,
                          int artifacts_first_round, const Factors& artifact_bid_factor,
                          double sentinel_bid_factor) {
  std::vector<int> sorted = field_order;
  std::sort(sorted.begin(), sorted.end());
  const bool distinct = std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
  bool positive = sentinel_bid_factor > 0 && artifact_bid_factor.size() == zav::MAX_PLAYERS + 1;
  for (int n = zav::MIN_PLAYERS; positive && n <= zav::MAX_PLAYERS; ++n)
    positive = positive && artifact_bid_factor[n] > 0;
  if (gem_cap < 0 || gem_cap >= zav::NUM_GEMS || sorted.empty() || !distinct ||
      sorted.front() < 0 || sorted.back() >= zav::NUM_FIELDS || artifacts_first_round < 1 ||
      !positive)
    throw py::value_error("PlannerParams: gem_cap must be a gem index 0-4, field_order distinct "
                          "field indices 0-5, artifacts_first_round positive, the bid factors "
                          "positive (artifact_bid_factor: 7 entries, by number of players)");
  PlannerParams p{gem_cap, field_order, artifacts_first_round, {}, sentinel_bid_factor};
  std::copy(artifact_bid_factor.begin(), artifact_bid_factor.end(), p.artifact_bid_factor.begin());
  return p;
}

py::tuple params_state(const PlannerParams& p) {
  return py::make_tuple(p.gem_cap, p.field_order, p.artifacts_first_round,
                        p.artifact_bid_factor, p.sentinel_bid_factor);
}

// A seeded scripted player: its generator and its fallback count (NaiveAgent.fallbacks).
struct NativeNaive {
  zav::PyRandom rng;
  long long fallbacks = 0;

  int act(Core& c, bool planner, const PlannerParams* params) {
    const int n = pending_decision(c), seat = c.s.current_player;
    const int decision = planner ? zav::planner_decide(c.s, seat, *params, c.legal, n, rng)
                                 : zav::naive_decide(c.s, seat, c.legal, n, rng);
    bool fell_back = false;
    const int action = zav::agent_act(decision, c.legal, n, &fell_back);
    fallbacks += fell_back;
    return action;
  }
};

struct NativePlanner : NativeNaive {
  PlannerParams params;
};

}  // namespace

void register_bots(py::module_& m) {
  py::class_<HeuristicWeights>(m, "HeuristicWeights")
      .def(py::init(&weights_from_dict), py::arg("weights"))
      .def("to_dict", &weights_to_dict)
      .def_property_readonly_static("FIELDS", [](py::object) { return py::tuple(py::cast(field_names())); })
      .def(py::pickle(&weights_to_dict, &weights_from_dict));
  m.def(
      "heuristic_action",
      [](Core& c, const HeuristicWeights& w) {
        const int n = pending_decision(c);
        return zav::heuristic_choose(c.s, c.s.current_player, w, c.legal, n);
      },
      py::arg("core"), py::arg("weights"));
  py::class_<PlannerParams>(m, "PlannerParams")
      .def(py::init(&make_params), py::arg("gem_cap"), py::arg("field_order"),
           py::arg("artifacts_first_round"), py::arg("artifact_bid_factor"),
           py::arg("sentinel_bid_factor"))
      .def_readonly("gem_cap", &PlannerParams::gem_cap)
      .def_readonly("field_order", &PlannerParams::field_order)
      .def_readonly("artifacts_first_round", &PlannerParams::artifacts_first_round)
      .def_readonly("artifact_bid_factor", &PlannerParams::artifact_bid_factor)
      .def_readonly("sentinel_bid_factor", &PlannerParams::sentinel_bid_factor)
      .def(py::pickle(&params_state, [](const py::tuple& t) {
        return make_params(t[0].cast<int>(), t[1].cast<std::vector<int>>(), t[2].cast<int>(),
                           t[3].cast<Factors>(), t[4].cast<double>());
      }))
      .def("__repr__", [](const PlannerParams& p) {
        return "PlannerParams" + std::string(py::repr(params_state(p)));
      });
  py::class_<NativeNaive>(m, "NativeNaive")
      .def(py::init([](const py::object& seed) { return NativeNaive{zav::PyRandom(seed_words(seed))}; }),
           py::arg("seed"))
      .def("seed", [](NativeNaive& n, const py::object& seed) { n.rng.seed_words(seed_words(seed)); },
           py::arg("seed"))
      .def_readonly("fallbacks", &NativeNaive::fallbacks)
      .def("act", [](NativeNaive& n, Core& c) { return n.act(c, false, nullptr); }, py::arg("core"));
  // A subclass of NativeNaive, as PlannerAgent is of NaiveAgent: seed() and fallbacks are shared.
  py::class_<NativePlanner, NativeNaive>(m, "NativePlanner")
      .def(py::init([](const PlannerParams& params, const py::object& seed) {
             return NativePlanner{{zav::PyRandom(seed_words(seed))}, params};
           }),
           py::arg("params"), py::arg("seed"))
      .def_readonly("params", &NativePlanner::params)
      .def("act", [](NativePlanner& n, Core& c) { return n.act(c, true, &n.params); }, py::arg("core"));
}
