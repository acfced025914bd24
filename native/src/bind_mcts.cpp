// Python bindings of the native IS-MCTS (mcts.hpp), registered into
// zavandor_env.engine._native by bindings.cpp through register_mcts(m):
//
//   mcts_search(core, seat, legal, params, weights, seed) -> (action, iterations)
//       agents/mcts.py MCTSAgent.search for the deciding seat of a Core.  params: a dict with
//       any of iterations (int in [1, MCTS_MAX_ITERATIONS], default 64), seconds (float in
//       (0, MCTS_MAX_SECONDS] or None: wall-clock budget, overrides iterations; the search
//       returns within twice it), max_seconds (the hard wall-clock cap of any search, default
//       and at most MCTS_MAX_SECONDS), algorithm ("flat" | "tree", default "flat"), policy
//       ("heuristic" | "naive" | "planner", default "planner"; the planner needs planner: a
//       PlannerParams, bind_naive.cpp), rollout ("heuristic" | "naive" | "planner" |
//       "random", default: the policy),
//       horizon_rounds (int, default 0: to the end), c, prior_weight, eval_scale, switch_z
//       (numbers), min_pairs, max_depth (ints >= 0), opponent_model ("search" | "policy";
//       "heuristic" = "policy"), avoid_curse (bool, default True): the
//       defaults of MCTSAgent (generated from agents/mcts.py: ZAV_MCTS_DEFAULTS, and the keys
//       MCTS_PARAM_KEYS); unknown keys raise ValueError.  weights: a HeuristicWeights
//       (bind_heuristic.cpp).  seed: an integer in [0, 2**64) seeding determinizations,
//       expansion tie-breaks and random rollouts.  The core is only read; the GIL is released
//       while searching, and taken back about every 10 ms on the main thread to check for
//       Ctrl-C (KeyboardInterrupt is raised).
//   MCTS_MAX_ITERATIONS, MCTS_MAX_SECONDS: the caps of a budget (mcts.hpp).
//   _mcts_root_stats() -> list[(action, visits, avail, total)]
//       the root edges of this thread's last search, in expansion order, for the tests.
//   _mcts_determinize(core, seat, seed) -> Core
//       one determinization (determinize.py) drawn from PyRandom(seed), for the tests.
//   _mcts_evaluate_seat(core, seat, weights) -> float
//       agents/mcts.py evaluate_seat, for the tests.
//   _mcts_curse_free(core, legal) -> list[int]
//       agents/mcts.py curse_free for the deciding seat, for the tests.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine.hpp"
#include "pyutil.hpp"
#include "heuristic.hpp"
#include "mcts.hpp"
#include "naive.hpp"

namespace py = pybind11;

namespace {

namespace pyutil = zav::pyutil;
constexpr const char* WHO = "mcts_search";  // the prefix of every parameter error

// d[key] as a scripted player ("heuristic", "naive", "planner"; with allow_random also
// "random", which sets *random and returns fallback); fallback when the key is absent.
zav::ScriptedPolicy scripted(const py::dict& d, const char* key, zav::ScriptedPolicy fallback,
                             bool allow_random, bool* random) {
  if (!d.contains(key)) return fallback;
  const std::string v = py::str(d[key]);
  if (v == "heuristic") return zav::ScriptedPolicy::HEURISTIC;
  if (v == "naive") return zav::ScriptedPolicy::NAIVE;
  if (v == "planner") return zav::ScriptedPolicy::PLANNER;
  if (allow_random && v == "random") {
    *random = true;
    return fallback;
  }
  throw py::value_error(std::string("mcts_search: ") + key + " must be 'heuristic', 'naive', " +
                        (allow_random ? "'planner' or 'random'" : "or 'planner'") + ", got '" +
                        v + "'");
}

zav::MctsParams params_from_dict(const py::dict& d) {
  zav::MctsParams p;
  for (auto item : d) {
    std::string key = py::str(item.first);
    bool known = false;
    for (const char* k : zav::MCTS_PARAM_KEYS) known = known || key == k;
    if (!known) {
      std::string names;
      for (const char* k : zav::MCTS_PARAM_KEYS) names += (names.empty() ? "" : ", ") + std::string(k);
      throw py::value_error("mcts_search: unknown parameter '" + key + "'; known: " + names);
    }
  }
  pyutil::read_budget(WHO, d, p, zav::MCTS_MAX_ITERATIONS, zav::MCTS_MAX_SECONDS);
  // The scripted players: "policy" (the prior and the modelled opponents) and "rollout"
  // (absent: the policy; or "random").
  p.policy = scripted(d, "policy", p.policy, false, nullptr);
  p.rollout_policy = scripted(d, "rollout", p.policy, true, &p.random_rollout);
  const bool planner_used =
      p.policy == zav::ScriptedPolicy::PLANNER ||
      (!p.random_rollout && p.rollout_policy == zav::ScriptedPolicy::PLANNER);
  if (planner_used) {
    if (!d.contains("planner") || !py::isinstance<zav::PlannerParams>(d["planner"]))
      throw py::value_error(
          "mcts_search: the planner needs 'planner': a PlannerParams "
          "(agents.planner.native_planner_params)");
    p.planner = d["planner"].cast<zav::PlannerParams>();
  }
  if (d.contains("horizon_rounds")) {
    long long h = pyutil::integer(WHO, d["horizon_rounds"], "horizon_rounds");
    p.horizon_rounds = static_cast<int>(std::max(-1LL, std::min(h, 1000000LL)));
  }
  if (d.contains("c")) p.c = pyutil::number(WHO, d["c"], "c");
  if (d.contains("prior_weight")) p.prior_weight = pyutil::number(WHO, d["prior_weight"], "prior_weight");
  if (d.contains("eval_scale")) {
    p.eval_scale = pyutil::number(WHO, d["eval_scale"], "eval_scale");
    if (p.eval_scale == 0) throw py::value_error("mcts_search: eval_scale must not be 0");
  }
  if (d.contains("avoid_curse")) p.avoid_curse = py::bool_(d["avoid_curse"]).cast<bool>();
  if (d.contains("opponent_model")) {
    std::string m = py::str(d["opponent_model"]);
    if (m == "search")
      p.policy_opponents = false;
    else if (m == "policy" || m == "heuristic")  // "heuristic": the old name of "policy"
      p.policy_opponents = true;
    else
      throw py::value_error("mcts_search: opponent_model must be 'search' or 'policy', got '" +
                            m + "'");
  }
  if (d.contains("max_depth")) {
    long long h = pyutil::integer(WHO, d["max_depth"], "max_depth");
    if (h < 0) throw py::value_error("mcts_search: max_depth must not be negative");
    p.max_depth = static_cast<int>(std::min(h, 1000000LL));
  }
  if (d.contains("algorithm")) {
    std::string a = py::str(d["algorithm"]);
    if (a == "tree")
      p.flat = false;
    else if (a == "flat")
      p.flat = true;
    else
      throw py::value_error("mcts_search: algorithm must be 'tree' or 'flat', got '" + a + "'");
  }
  if (d.contains("switch_z")) p.switch_z = pyutil::number(WHO, d["switch_z"], "switch_z");
  if (d.contains("min_pairs")) {
    long long m = pyutil::integer(WHO, d["min_pairs"], "min_pairs");
    if (m < 0) throw py::value_error("mcts_search: min_pairs must not be negative");
    p.min_pairs = static_cast<int>(std::min(m, 1000000000LL));
  }
  return p;
}

void check_seat(const zav::GameState& s, int seat) {
  if (seat < 0 || seat >= s.config.num_players)
    throw py::value_error("seat must be in [0, " + std::to_string(s.config.num_players) + ")");
}

}  // namespace

void register_mcts(py::module_& m) {
  m.def(
      "mcts_search",
      [](const py::object& core, int seat, const std::vector<int>& legal, const py::dict& params,
         const zav::HeuristicWeights& weights, uint64_t seed) {
        const zav::GameState& s = checked_core_state(core);
        check_seat(s, seat);
        if (legal.empty()) throw py::value_error("mcts_search: legal must not be empty");
        zav::MctsParams p = params_from_dict(params);
        zav::GameState real = s;  // the core stays untouched (and usable by other threads)
        // Ctrl-C: the search runs without the GIL, so it takes it back now and then to let
        // Python run its SIGINT handler; a KeyboardInterrupt raised there stops the search
        // and is raised here.
        if (pyutil::on_main_thread())
          p.interrupted = [] {
            py::gil_scoped_acquire gil;
            return PyErr_CheckSignals() != 0;
          };
        zav::MctsResult r;
        {
          py::gil_scoped_release release;
          r = zav::mcts_search(real, seat, legal.data(), static_cast<int>(legal.size()), p,
                               weights, seed);
        }
        if (r.interrupted) throw py::error_already_set();
        return py::make_tuple(r.action, r.iterations);
      },
      py::arg("core"), py::arg("seat"), py::arg("legal"), py::arg("params"), py::arg("weights"),
      py::arg("seed"),
      "IS-MCTS (agents/mcts.py) for the deciding seat: returns (action, iterations).");

  m.attr("MCTS_MAX_ITERATIONS") = zav::MCTS_MAX_ITERATIONS;
  m.attr("MCTS_MAX_SECONDS") = zav::MCTS_MAX_SECONDS;

  m.def("_mcts_root_stats", []() {
    py::list out;
    for (const auto& r : zav::thread_searcher().root_stats())
      out.append(py::make_tuple(r.action, r.visits, r.avail, r.total));
    return out;
  });

  m.def(
      "_mcts_determinize",
      [](const py::object& core, int seat, uint64_t seed) {
        const zav::GameState& s = checked_core_state(core);
        check_seat(s, seat);
        zav::Determinizer det;
        det.prepare(s, seat);
        zav::PyRandom rng;
        rng.seed_u64(seed);
        auto out = std::make_unique<Core>();
        det.sample(rng, out->s);
        out->invalidate();
        return out;
      },
      py::arg("core"), py::arg("seat"), py::arg("seed"));

  m.def(
      "_mcts_evaluate_seat",
      [](const py::object& core, int seat, const zav::HeuristicWeights& weights) {
        const zav::GameState& s = checked_core_state(core);
        check_seat(s, seat);
        return zav::evaluate_seat(s, seat, weights);
      },
      py::arg("core"), py::arg("seat"), py::arg("weights"));

  m.def(
      "_mcts_curse_free",
      [](const py::object& core, const std::vector<int>& legal) {
        const zav::GameState& s = checked_core_state(core);
        int out[zav::NUM_ACTIONS];
        if (legal.size() > static_cast<std::size_t>(zav::NUM_ACTIONS))
          throw py::value_error("too many actions");
        int n = zav::curse_free(s, legal.data(), static_cast<int>(legal.size()), out);
        return std::vector<int>(out, out + n);
      },
      py::arg("core"), py::arg("legal"));
}
