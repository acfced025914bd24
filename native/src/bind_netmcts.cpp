// Python bindings of the network-guided search (netmcts.hpp), registered into
// zavandor_env.engine._native by bindings.cpp through register_netmcts(m):
//
//   netmcts_search(core, seat, legal, network, params, weights, seed)
//       -> (action, visits int32[NUM_ACTIONS], value, iterations, q float64[NUM_ACTIONS])
//       agents/netsearch.py NetworkSearch.run for the deciding seat of a Core.  network: a
//       Network (bind_net.cpp) of the observation's and the action table's sizes.  params: a
//       dict with any of NETMCTS_PARAM_KEYS (NetworkSearch's parameters, the defaults
//       generated from it: iterations in [1, MCTS_MAX_ITERATIONS], seconds in
//       (0, MCTS_MAX_SECONDS] or None, c_puct, fpu_reduction, root_noise, noise_fraction,
//       temperature, opponent_temperature (finite numbers), rollout ("none" | "network" |
//       "heuristic"), rollout_steps (int >= 0), avoid_curse (bool); max_seconds; profile
//       (bool)); unknown keys raise ValueError.  weights: HeuristicWeights (the rollouts and
//       the value of a network without a critic).  The core is only read; the GIL is
//       released while searching and taken back about every 10 ms on the main thread to
//       check for Ctrl-C (KeyboardInterrupt is raised).
//   _netmcts_profile() -> dict: seconds per part of this thread's last profiled search.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "engine.hpp"
#include "pyutil.hpp"
#include "heuristic.hpp"
#include "net.hpp"
#include "netmcts.hpp"

namespace py = pybind11;

namespace {

namespace pyutil = zav::pyutil;
constexpr const char* WHO = "netmcts_search";  // the prefix of every parameter error

zav::NetMctsParams params_from_dict(const py::dict& d) {
  zav::NetMctsParams p;
  for (auto item : d) {
    const std::string key = py::str(item.first);
    bool known = false;
    for (const char* k : zav::NETMCTS_PARAM_KEYS) known = known || key == k;
    if (!known) {
      std::string names;
      for (const char* k : zav::NETMCTS_PARAM_KEYS)
        names += (names.empty() ? "" : ", ") + std::string(k);
      throw py::value_error("netmcts_search: unknown parameter '" + key + "'; known: " + names);
    }
  }
  pyutil::read_budget(WHO, d, p, zav::MCTS_MAX_ITERATIONS, zav::MCTS_MAX_SECONDS);
  if (d.contains("c_puct")) p.c_puct = pyutil::non_negative(WHO, d["c_puct"], "c_puct");
  if (d.contains("fpu_reduction")) p.fpu_reduction = pyutil::number(WHO, d["fpu_reduction"], "fpu_reduction");
  if (d.contains("root_noise")) p.root_noise = pyutil::non_negative(WHO, d["root_noise"], "root_noise");
  if (d.contains("noise_fraction")) {
    p.noise_fraction = pyutil::non_negative(WHO, d["noise_fraction"], "noise_fraction");
    if (p.noise_fraction > 1)
      throw py::value_error("netmcts_search: 'noise_fraction' must be at most 1");
  }
  if (d.contains("temperature")) p.temperature = pyutil::non_negative(WHO, d["temperature"], "temperature");
  if (d.contains("opponent_temperature"))
    p.opponent_temperature = pyutil::non_negative(WHO, d["opponent_temperature"], "opponent_temperature");
  if (d.contains("rollout")) {
    const std::string r = py::str(d["rollout"]);
    if (r == "none")
      p.rollout = zav::NetRollout::NONE;
    else if (r == "network")
      p.rollout = zav::NetRollout::NETWORK;
    else if (r == "heuristic")
      p.rollout = zav::NetRollout::HEURISTIC;
    else
      throw py::value_error("netmcts_search: rollout must be 'none', 'network' or 'heuristic', "
                            "got '" + r + "'");
  }
  if (d.contains("rollout_steps")) {
    const long long s = pyutil::integer(WHO, d["rollout_steps"], "rollout_steps");
    if (s < 0) throw py::value_error("netmcts_search: 'rollout_steps' must not be negative");
    p.rollout_steps = static_cast<int>(std::min(s, 1000000LL));
  }
  if (d.contains("avoid_curse")) p.avoid_curse = py::bool_(d["avoid_curse"]).cast<bool>();
  if (d.contains("profile")) p.profile = py::bool_(d["profile"]).cast<bool>();
  return p;
}

}  // namespace

void register_netmcts(py::module_& m) {
  m.def(
      "netmcts_search",
      [](const py::object& core, int seat, const std::vector<int>& legal,
         const zav::Network& network, const py::dict& params,
         const zav::HeuristicWeights& weights, uint64_t seed) {
        const zav::GameState& s = checked_core_state(core);
        if (seat < 0 || seat >= s.config.num_players)
          throw py::value_error("seat must be in [0, " + std::to_string(s.config.num_players) +
                                ")");
        if (legal.empty()) throw py::value_error("netmcts_search: legal must not be empty");
        zav::NetMctsParams p = params_from_dict(params);
        zav::GameState real = s;
        if (pyutil::on_main_thread())
          p.interrupted = [] {
            py::gil_scoped_acquire gil;
            return PyErr_CheckSignals() != 0;
          };
        zav::NetMctsResult r;
        {
          py::gil_scoped_release release;
          r = zav::thread_net_searcher().search(real, seat, legal.data(),
                                                static_cast<int>(legal.size()), network, p,
                                                weights, seed);
        }
        if (r.interrupted) throw py::error_already_set();
        py::array_t<int32_t> visits(zav::NUM_ACTIONS);
        py::array_t<double> q(zav::NUM_ACTIONS);
        for (int a = 0; a < zav::NUM_ACTIONS; ++a) {
          visits.mutable_data()[a] = r.visits[a];
          q.mutable_data()[a] = r.q[a];
        }
        return py::make_tuple(r.action, visits, r.value, r.iterations, q);
      },
      py::arg("core"), py::arg("seat"), py::arg("legal"), py::arg("network"), py::arg("params"),
      py::arg("weights"), py::arg("seed"),
      "The network-guided PUCT search (agents/netsearch.py) for the deciding seat: returns "
      "(action, visits, value, iterations, q).");

  m.def("_netmcts_profile", []() {
    const zav::NetMctsProfile& p = zav::thread_net_searcher().profile();
    py::dict out;
    out["determinize"] = p.determinize;
    out["encode"] = p.encode;
    out["forward"] = p.forward;
    out["rules"] = p.rules;
    out["total"] = p.total;
    out["forwards"] = p.forwards;
    out["nodes"] = zav::thread_net_searcher().num_nodes();
    return out;
  });
}
