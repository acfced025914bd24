// Python bindings of the searches and the network, registered into
// zavandor_env.engine._native by bindings.cpp through register_search(m):
//
//   Network(weights, biases, activation="tanh", value_weights=None, value_biases=None)
//       weights[i]: float numpy array [out, in] (row-major as a policy file stores it),
//       biases[i]: [out]; the actor's layers, then optionally the critic's (its last layer
//       has one output).  policy_file.native_network(policy) builds one from a NumpyPolicy.
//       A bad shape is a one-line ValueError (here, or from net.hpp).
//   Network.obs_dim, .num_actions, .has_value, .hidden (the actor's hidden sizes)
//   Network.forward(obs) -> (logits, value)
//       obs float32 (float64 is converted) [obs_dim] -> logits float32 [num_actions], value a
//       float or None; or [B, obs_dim] -> logits [B, num_actions], values float32 [B] or
//       None.  The GIL is released while computing.
//   mcts_search(core, seat, legal, params, weights, seed) -> (action, iterations)
//       agents/mcts.py MCTSAgent.search for the deciding seat of a Core.  params: a dict with
//       any of iterations (int in [1, MCTS_MAX_ITERATIONS], default 64), seconds (float in
//       (0, MCTS_MAX_SECONDS] or None: wall-clock budget, overrides iterations; the search
//       returns within twice it), max_seconds (the hard wall-clock cap of any search, default
//       and at most MCTS_MAX_SECONDS), algorithm ("flat" | "tree", default "flat"), policy
//       ("heuristic" | "naive" | "planner", default "planner"; the planner needs planner: a
//       PlannerParams, bind_bots.cpp), rollout ("heuristic" | "naive" | "planner" |
//       "random", default: the policy),
//       horizon_rounds (int, default 0: to the end), c, prior_weight, eval_scale, switch_z
//       (numbers), min_pairs, max_depth (ints >= 0), opponent_model ("search" | "policy";
//       "heuristic" = "policy"), avoid_curse (bool, default True): the
//       defaults of MCTSAgent (generated from agents/mcts.py: ZAV_MCTS_DEFAULTS, and the keys
//       MCTS_PARAM_KEYS); unknown keys raise ValueError.  weights: a HeuristicWeights
//       (bind_bots.cpp).  seed: an integer in [0, 2**64) seeding determinizations,
//       expansion tie-breaks and random rollouts.  The core is only read; the GIL is released
//       while searching, and taken back about every 10 ms on the main thread to check for
//       Ctrl-C (KeyboardInterrupt is raised).
//   MCTS_MAX_ITERATIONS, MCTS_MAX_SECONDS: the caps of a budget (mcts.hpp).
//   netmcts_search(core, seat, legal, network, params, weights, seed)
//       -> (action, visits int32[NUM_ACTIONS], value, iterations, q float64[NUM_ACTIONS])
//       agents/netsearch.py NetworkSearch.run for the deciding seat of a Core.  network: a
//       Network (above) of the observation's and the action table's sizes.  params: a
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
//
// Search parameters are read from their dict by key (pyutil.hpp's readers): a bad value is one
// ValueError line starting with the search's name and the key.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "engine.hpp"
#include "heuristic.hpp"
#include "mcts.hpp"
#include "naive.hpp"
#include "net.hpp"
#include "netmcts.hpp"
#include "pyutil.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace {

namespace pyutil = zav::pyutil;
using pyutil::shape_str;
constexpr const char* MCTS = "mcts_search";  // the prefixes of the parameter errors
constexpr const char* NETMCTS = "netmcts_search";
constexpr double INF = std::numeric_limits<double>::infinity();

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

// obj as a C-contiguous float32 array of `ndim` dimensions (float64 converted); else a
// one-line ValueError naming `what`.
FloatArray float_array(const py::handle& obj, const std::string& what, int ndim) {
  const std::string expected =
      what + " must be a float numpy array with " + std::to_string(ndim) + " dimension" +
      (ndim == 1 ? "" : "s");
  if (!py::isinstance<py::array>(obj))
    throw py::value_error(expected + ", got " +
                          std::string(py::str(py::type::of(obj).attr("__name__"))));
  auto a = py::reinterpret_borrow<py::array>(obj);
  if (a.dtype().kind() != 'f' || a.ndim() != ndim)
    throw py::value_error(expected + ", got " + std::string(py::str(a.dtype())) + " " +
                          shape_str(a));
  return FloatArray::ensure(a);
}

zav::Mlp build_mlp(const py::sequence& weights, const py::sequence& biases,
                   zav::Activation activation, const std::string& what) {
  const auto n = static_cast<std::size_t>(py::len(weights));
  if (n != static_cast<std::size_t>(py::len(biases)))
    throw py::value_error(what + ": " + std::to_string(n) + " weight matrices but " +
                          std::to_string(py::len(biases)) + " bias vectors");
  zav::Mlp mlp(activation);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string name = what + " layer " + std::to_string(i);
    FloatArray w = float_array(weights[i], name + " weights", 2);
    FloatArray b = float_array(biases[i], name + " biases", 1);
    if (b.shape(0) != w.shape(0))
      throw py::value_error(name + ": weights " + shape_str(w) + " but biases " +
                            shape_str(b));
    // Past the widest layer add_layer refuses: no size wraps round in the cast to int.
    const auto size = [](py::ssize_t n) { return static_cast<int>(std::min<py::ssize_t>(n, zav::MAX_NET_WIDTH + 1)); };
    mlp.add_layer(size(w.shape(0)), size(w.shape(1)), w.data(), b.data(), name);
  }
  return mlp;
}

std::shared_ptr<zav::Network> make_network(const py::sequence& weights, const py::sequence& biases,
                                           const std::string& activation,
                                           const py::object& value_weights,
                                           const py::object& value_biases) {
  if (value_weights.is_none() != value_biases.is_none())
    throw py::value_error("network: give both value_weights and value_biases, or neither");
  const zav::Activation act = zav::parse_activation(activation);
  zav::Mlp actor = build_mlp(weights, biases, act, "actor");
  zav::Mlp critic(act);
  if (!value_weights.is_none()) {
    critic = build_mlp(py::reinterpret_borrow<py::sequence>(value_weights),
                       py::reinterpret_borrow<py::sequence>(value_biases), act, "critic");
    if (critic.depth() == 0) throw py::value_error("network: the critic has no layer");
  }
  return std::make_shared<zav::Network>(std::move(actor), std::move(critic));
}

py::tuple forward(const zav::Network& net, const py::object& obs_obj) {
  const int d = net.obs_dim(), a = net.num_actions();
  const std::string expected = "obs must be a float32 numpy array of shape (" +
                               std::to_string(d) + ",) or (B, " + std::to_string(d) + ")";
  if (!py::isinstance<py::array>(obs_obj)) throw py::value_error(expected);
  auto raw = py::reinterpret_borrow<py::array>(obs_obj);
  if (raw.dtype().kind() != 'f' || (raw.ndim() != 1 && raw.ndim() != 2) ||
      raw.shape(raw.ndim() - 1) != d)
    throw py::value_error(expected + ", got " + std::string(py::str(raw.dtype())) + " " +
                          shape_str(raw));
  FloatArray obs = FloatArray::ensure(raw);
  if (obs.ndim() == 1) {
    FloatArray logits(a);
    float value = 0.0f;
    {
      py::gil_scoped_release release;
      net.forward(obs.data(), logits.mutable_data(), &value);
    }
    return py::make_tuple(logits, net.has_value() ? py::object(py::float_(value)) : py::none());
  }
  const py::ssize_t batch = obs.shape(0);
  if (batch > (1 << 24)) throw py::value_error("obs: batch too large");
  FloatArray logits({batch, static_cast<py::ssize_t>(a)});
  FloatArray values(batch);
  {
    py::gil_scoped_release release;
    net.forward_batch(obs.data(), static_cast<int>(batch), logits.mutable_data(),
                      net.has_value() ? values.mutable_data() : nullptr);
  }
  return py::make_tuple(logits, net.has_value() ? py::object(values) : py::none());
}

zav::MctsParams mcts_params(const py::dict& d) {
  using zav::ScriptedPolicy;
  zav::MctsParams p;
  pyutil::check_keys(MCTS, d, zav::MCTS_PARAM_KEYS);
  pyutil::read_budget(MCTS, d, p, zav::MCTS_MAX_ITERATIONS, zav::MCTS_MAX_SECONDS);
  // The scripted players: "policy" (the prior and the modelled opponents) and "rollout"
  // (absent: the policy; or "random").
  p.policy = static_cast<ScriptedPolicy>(pyutil::choice(MCTS, d, "policy", {"heuristic", "naive",
                                         "planner"}, static_cast<int>(p.policy)));
  const int rollout = pyutil::choice(MCTS, d, "rollout", {"heuristic", "naive", "planner",
                                     "random"}, static_cast<int>(p.policy));
  p.random_rollout = rollout == 3;
  p.rollout_policy = p.random_rollout ? p.policy : static_cast<ScriptedPolicy>(rollout);
  if (p.policy == ScriptedPolicy::PLANNER || p.rollout_policy == ScriptedPolicy::PLANNER) {
    if (!d.contains("planner") || !py::isinstance<zav::PlannerParams>(d["planner"]))
      throw py::value_error("mcts_search: the planner needs 'planner': a PlannerParams "
                            "(agents.planner.native_planner_params)");
    p.planner = d["planner"].cast<zav::PlannerParams>();
  }
  p.horizon_rounds = std::max(-1, pyutil::count(MCTS, d, "horizon_rounds", LLONG_MIN, 1000000,
                                                p.horizon_rounds));
  p.c = pyutil::number_in(MCTS, d, "c", -INF, INF, p.c);
  p.prior_weight = pyutil::number_in(MCTS, d, "prior_weight", -INF, INF, p.prior_weight);
  p.eval_scale = pyutil::number_in(MCTS, d, "eval_scale", -INF, INF, p.eval_scale);
  if (p.eval_scale == 0) throw py::value_error("mcts_search: eval_scale must not be 0");
  p.avoid_curse = pyutil::flag(d, "avoid_curse", p.avoid_curse);
  p.policy_opponents = pyutil::choice(MCTS, d, "opponent_model", {"search", "policy", "heuristic"},
                                      p.policy_opponents) > 0;  // "heuristic": the old "policy"
  p.max_depth = pyutil::count(MCTS, d, "max_depth", 0, 1000000, p.max_depth);
  p.flat = pyutil::choice(MCTS, d, "algorithm", {"tree", "flat"}, p.flat) == 1;
  p.switch_z = pyutil::number_in(MCTS, d, "switch_z", -INF, INF, p.switch_z);
  p.min_pairs = pyutil::count(MCTS, d, "min_pairs", 0, 1000000000, p.min_pairs);
  return p;
}

// A search for `seat` on a copy of the core's state (the core stays untouched and usable by
// other threads): run(state, params) without the GIL; Ctrl-C raises KeyboardInterrupt.
template <class Params, class Run>
auto run_search(const char* who, const py::object& core, int seat, const std::vector<int>& legal,
                Params p, Run&& run) {
  zav::GameState real = checked_core_state(core);
  if (seat < 0 || seat >= real.config.num_players)
    throw py::value_error("seat must be in [0, " + std::to_string(real.config.num_players) + ")");
  if (legal.empty()) throw py::value_error(std::string(who) + ": legal must not be empty");
  p.interrupted = pyutil::ctrl_c_poll();
  py::gil_scoped_release release;
  return run(real, p);
}

py::tuple mcts(const py::object& core, int seat, const std::vector<int>& legal,
               const py::dict& params, const zav::HeuristicWeights& weights, uint64_t seed) {
  const zav::MctsResult r = run_search(MCTS, core, seat, legal, mcts_params(params),
                                       [&](const zav::GameState& s, const zav::MctsParams& p) {
    return zav::mcts_search(s, seat, legal.data(), static_cast<int>(legal.size()), p, weights, seed);
  });
  if (r.interrupted) throw py::error_already_set();
  return py::make_tuple(r.action, r.iterations);
}

zav::NetMctsParams netmcts_params(const py::dict& d) {
  zav::NetMctsParams p;
  pyutil::check_keys(NETMCTS, d, zav::NETMCTS_PARAM_KEYS);
  pyutil::read_budget(NETMCTS, d, p, zav::MCTS_MAX_ITERATIONS, zav::MCTS_MAX_SECONDS);
  p.c_puct = pyutil::number_in(NETMCTS, d, "c_puct", 0, INF, p.c_puct);
  p.fpu_reduction = pyutil::number_in(NETMCTS, d, "fpu_reduction", -INF, INF, p.fpu_reduction);
  p.root_noise = pyutil::number_in(NETMCTS, d, "root_noise", 0, INF, p.root_noise);
  p.noise_fraction = pyutil::number_in(NETMCTS, d, "noise_fraction", 0, 1, p.noise_fraction);
  p.temperature = pyutil::number_in(NETMCTS, d, "temperature", 0, INF, p.temperature);
  p.opponent_temperature =
      pyutil::number_in(NETMCTS, d, "opponent_temperature", 0, INF, p.opponent_temperature);
  p.rollout = static_cast<zav::NetRollout>(pyutil::choice(
      NETMCTS, d, "rollout", {"none", "network", "heuristic"}, static_cast<int>(p.rollout)));
  p.rollout_steps = pyutil::count(NETMCTS, d, "rollout_steps", 0, 1000000, p.rollout_steps);
  p.avoid_curse = pyutil::flag(d, "avoid_curse", p.avoid_curse);
  p.profile = pyutil::flag(d, "profile", p.profile);
  return p;
}

py::tuple netmcts(const py::object& core, int seat, const std::vector<int>& legal,
                  const zav::Network& network, const py::dict& params,
                  const zav::HeuristicWeights& weights, uint64_t seed) {
  const zav::NetMctsResult r = run_search(NETMCTS, core, seat, legal, netmcts_params(params),
                                          [&](const zav::GameState& s, const zav::NetMctsParams& p) {
    return zav::thread_net_searcher().search(s, seat, legal.data(), static_cast<int>(legal.size()),
                                             network, p, weights, seed);
  });
  if (r.interrupted) throw py::error_already_set();
  return py::make_tuple(r.action, py::array_t<int32_t>(zav::NUM_ACTIONS, r.visits), r.value,
                        r.iterations, py::array_t<double>(zav::NUM_ACTIONS, r.q));
}

}  // namespace

void register_search(py::module_& m) {
  py::class_<zav::Network, std::shared_ptr<zav::Network>>(m, "Network")
      .def(py::init(&make_network), py::arg("weights"), py::arg("biases"),
           py::arg("activation") = "tanh", py::arg("value_weights") = py::none(),
           py::arg("value_biases") = py::none())
      .def_property_readonly("obs_dim", &zav::Network::obs_dim)
      .def_property_readonly("num_actions", &zav::Network::num_actions)
      .def_property_readonly("has_value", &zav::Network::has_value)
      .def("forward", &forward, py::arg("obs"));
  m.def("mcts_search", &mcts, py::arg("core"), py::arg("seat"), py::arg("legal"),
        py::arg("params"), py::arg("weights"), py::arg("seed"));
  m.attr("MCTS_MAX_ITERATIONS") = zav::MCTS_MAX_ITERATIONS;
  m.attr("MCTS_MAX_SECONDS") = zav::MCTS_MAX_SECONDS;
  m.def("netmcts_search", &netmcts, py::arg("core"), py::arg("seat"), py::arg("legal"),
        py::arg("network"), py::arg("params"), py::arg("weights"), py::arg("seed"));
  m.def("_netmcts_profile", []() {
    const auto& searcher = zav::thread_net_searcher();
    const zav::NetMctsProfile& p = searcher.profile();
    return py::dict("determinize"_a = p.determinize, "encode"_a = p.encode,
                    "forward"_a = p.forward, "rules"_a = p.rules, "total"_a = p.total,
                    "forwards"_a = p.forwards, "nodes"_a = searcher.num_nodes());
  });
}
