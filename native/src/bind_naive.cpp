// Python bindings of the native naive player and planner (naive.hpp), registered into
// zavandor_env.engine._native by bindings.cpp through register_naive(m):
//
//   PlannerParams(gem_cap, field_order, artifacts_first_round, artifact_bid_factor,
//                 sentinel_bid_factor)
//                                  agents.planner.PlannerParams as indices
//                                  (agents.planner.native_planner_params builds one); a bad
//                                  value raises a one-line ValueError
//   NativeNaive(seed)              agents.naive.NaiveAgent with its own random.Random(seed)-
//                                  identical generator: act(core), seed(seed), fallbacks
//   NativePlanner(params, seed)    agents.planner.PlannerAgent likewise (a NativeNaive subclass)
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "engine.hpp"
#include "naive.hpp"
#include "pyutil.hpp"

namespace py = pybind11;

namespace {

using zav::PlannerParams;
using zav::pyutil::seed_words;

PlannerParams make_params(int gem_cap, const std::vector<int>& field_order,
                          int artifacts_first_round,
                          const std::vector<double>& artifact_bid_factor,
                          double sentinel_bid_factor) {
  if (gem_cap < 0 || gem_cap >= zav::NUM_GEMS)
    throw py::value_error("gem_cap must be a gem index 0-4, got " + std::to_string(gem_cap));
  bool seen[zav::NUM_FIELDS] = {};
  for (int f : field_order) {
    if (f < 0 || f >= zav::NUM_FIELDS || seen[f])
      throw py::value_error("field_order must list distinct field indices 0-5");
    seen[f] = true;
  }
  if (field_order.empty()) throw py::value_error("field_order must not be empty");
  if (artifacts_first_round < 1)
    throw py::value_error("artifacts_first_round must be positive, got " +
                          std::to_string(artifacts_first_round));
  if (artifact_bid_factor.size() != static_cast<std::size_t>(zav::MAX_PLAYERS + 1))
    throw py::value_error("artifact_bid_factor must have 7 entries (indexed by players; 2-6 used)");
  PlannerParams p;
  for (int n = zav::MIN_PLAYERS; n <= zav::MAX_PLAYERS; ++n)
    if (!(artifact_bid_factor[n] > 0))
      throw py::value_error("artifact_bid_factor must be positive for 2-6 players");
  if (!(sentinel_bid_factor > 0)) throw py::value_error("sentinel_bid_factor must be positive");
  p.gem_cap = gem_cap;
  p.field_order = field_order;
  p.artifacts_first_round = artifacts_first_round;
  for (int n = 0; n <= zav::MAX_PLAYERS; ++n) p.artifact_bid_factor[n] = artifact_bid_factor[n];
  p.sentinel_bid_factor = sentinel_bid_factor;
  return p;
}

py::tuple params_state(const PlannerParams& p) {
  return py::make_tuple(p.gem_cap, p.field_order, p.artifacts_first_round,
                        std::vector<double>(p.artifact_bid_factor.begin(),
                                            p.artifact_bid_factor.end()),
                        p.sentinel_bid_factor);
}

PlannerParams params_from_state(const py::tuple& t) {
  if (t.size() != 5) throw py::value_error("PlannerParams: bad pickled state");
  return make_params(t[0].cast<int>(), t[1].cast<std::vector<int>>(), t[2].cast<int>(),
                     t[3].cast<std::vector<double>>(), t[4].cast<double>());
}

// A seeded scripted player: its generator and its fallback count (NaiveAgent.fallbacks).
struct NativeNaive {
  zav::PyRandom rng;
  long long fallbacks = 0;

  int act(Core& c, int decision) {
    bool fell_back = false;
    const int n = c.refresh_legal();
    const int action = zav::agent_act(decision, c.legal, n, &fell_back);
    if (fell_back) ++fallbacks;
    return action;
  }
};

struct NativePlanner : NativeNaive {
  PlannerParams params;
};

}  // namespace

void register_naive(py::module_& m) {
  py::class_<PlannerParams>(m, "PlannerParams",
                            "agents.planner.PlannerParams as indices: gem_cap (gem index), "
                            "field_order (field indices), artifacts_first_round, "
                            "artifact_bid_factor (7 entries, by number of players), "
                            "sentinel_bid_factor.")
      .def(py::init(&make_params), py::arg("gem_cap"), py::arg("field_order"),
           py::arg("artifacts_first_round"), py::arg("artifact_bid_factor"),
           py::arg("sentinel_bid_factor"))
      .def_readonly("gem_cap", &PlannerParams::gem_cap)
      .def_readonly("field_order", &PlannerParams::field_order)
      .def_readonly("artifacts_first_round", &PlannerParams::artifacts_first_round)
      .def_property_readonly("artifact_bid_factor",
                             [](const PlannerParams& p) {
                               return std::vector<double>(p.artifact_bid_factor.begin(),
                                                          p.artifact_bid_factor.end());
                             })
      .def_readonly("sentinel_bid_factor", &PlannerParams::sentinel_bid_factor)
      .def(py::pickle(&params_state, &params_from_state))
      .def("__repr__", [](const PlannerParams& p) {
        return "PlannerParams" + std::string(py::repr(params_state(p)));
      });

  py::class_<NativeNaive>(m, "NativeNaive",
                          "agents.naive.NaiveAgent natively, drawing from its own "
                          "random.Random(seed)-identical generator.")
      .def(py::init([](const py::int_& seed) {
             NativeNaive n;
             n.rng.seed_words(seed_words(seed));
             return n;
           }),
           py::arg("seed"))
      .def("seed", [](NativeNaive& n, const py::int_& seed) { n.rng.seed_words(seed_words(seed)); },
           py::arg("seed"))
      .def_readonly("fallbacks", &NativeNaive::fallbacks)
      .def(
          "act",
          [](NativeNaive& n, const py::object& core) {
            Core& c = py::cast<Core&>(core);
            const int nl = pending_decision(c);
            const zav::GameState& s = c.s;
            return n.act(c, zav::naive_decide(s, s.current_player, c.legal, nl, n.rng));
          },
          py::arg("core"), "NaiveAgent.act for the deciding seat of a Core.");

  // A subclass of NativeNaive, as PlannerAgent is of NaiveAgent: seed() and fallbacks are shared.
  py::class_<NativePlanner, NativeNaive>(m, "NativePlanner",
                                         "agents.planner.PlannerAgent natively, drawing from its "
                                         "own random.Random(seed)-identical generator.")
      .def(py::init([](const PlannerParams& params, const py::int_& seed) {
             NativePlanner n;
             n.params = params;
             n.rng.seed_words(seed_words(seed));
             return n;
           }),
           py::arg("params"), py::arg("seed"))
      .def_readonly("params", &NativePlanner::params)
      .def(
          "act",
          [](NativePlanner& n, const py::object& core) {
            Core& c = py::cast<Core&>(core);
            const int nl = pending_decision(c);
            const zav::GameState& s = c.s;
            return n.act(c, zav::planner_decide(s, s.current_player, n.params, c.legal, nl,
                                                n.rng));
          },
          py::arg("core"), "PlannerAgent.act for the deciding seat of a Core.");
}
