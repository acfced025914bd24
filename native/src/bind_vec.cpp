// Python bindings of VecLearner (vec.hpp), registered into zavandor_env.engine._native by
// bindings.cpp through register_vec(m):
//
//   VecLearner(config: dict, num_envs: int, seed: int, heuristic_weights=None,
//              novice_blunder=0.02, planner_params=None)
//       config: GameConfig.to_dict() (parsed by _native.Core, so the same keys and errors);
//       heuristic_weights: a _native.HeuristicWeights (zavandor_env.envs.vector passes
//       agents/heuristic.py's defaults), or None: then heuristic and novice seats are refused;
//       planner_params: a _native.PlannerParams (agents.planner.native_planner_params), or
//       None: then planner seats are refused (there is deliberately no default here).
//   reseed(seed)
//   reset_env(env, learner_seat, kinds, seed=None, networks=None)   kinds: one int per seat
//       (-1 the learner, 0 random, 1 heuristic, 2 external, 3 novice, 4 naive, 5 planner,
//       6 network, 7 greedy network); seed: force the game seed (tests); networks: one entry
//       per seat, a _native.Network for each network seat (None elsewhere)
//   step(actions: int64[N])                          READY games only; an illegal action raises
//                                                    ValueError before any game changes
//   pending(out_env: int32[N], out_seat: int32[N]) -> M   lists the PENDING games
//   observe_pending(obs: float32[M, D], mask: int8[M, A]) the listed games' deciding seats
//   act_pending(actions: int64[M])                   applies them, then plays on
//   observe(obs: float32[N, D], mask: int8[N, A])    the learner seats (mask zero unless READY)
//   observe_env(env, obs: float32[D], mask: int8[A])
//   vp(out: int32[N, P]), eliminated(out: bool[N, P]), status(out: int8[N]) (0 READY: the
//   learner decides, 1 PENDING: an external seat, 2 DONE),
//   terminated(out: bool[N]), truncated(out: bool[N]), winners(out: int32[N]) (bit s: seat s
//   won; 0 unless terminated), rounds(out: int32[N]), decisions(out: int32[N]) (len(history)),
//   learner_seat(out: int32[N]), game_seed(out: int64[N])
//   core(env) -> Core                                a copy of the game (tests, debugging)
//   properties planner_params (None if not given), agent_fallbacks (naive / planner decisions that were
//   not legal and were replaced by NaiveAgent.act's fallback; 0 in the tests)
//
// Every output is a caller-provided C-contiguous writeable NumPy array of the exact dtype and
// shape (masks and flags also accept int8 / uint8 / bool); anything else raises a one-line
// ValueError.  Nothing is allocated per step.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <climits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine.hpp"
#include "heuristic.hpp"
#include "naive.hpp"
#include "observe.hpp"
#include "pyutil.hpp"
#include "vec.hpp"

namespace py = pybind11;
using zav::VecGame;
using zav::VecLearner;

namespace {

constexpr const char* MODULE = "zavandor_env.engine._native";

using zav::pyutil::buffer;
using zav::pyutil::integer_in;
using zav::pyutil::is_byte;
using zav::pyutil::is_float32;
using zav::pyutil::is_int32;
using zav::pyutil::is_int64;
using zav::pyutil::seed_words;

struct PyVecLearner {
  std::unique_ptr<VecLearner> vec;

  int n() const { return vec->num_envs(); }
  int p() const { return vec->num_players(); }
  int env_index(const py::handle& env) const { return static_cast<int>(integer_in(env, 0, n() - 1, "env")); }

  void reset_env(const py::handle& env, const py::handle& seat, const py::handle& kinds_obj,
                 const py::handle& seed, const py::handle& nets_obj) {
    const int i = env_index(env);
    const int learner = static_cast<int>(integer_in(seat, 0, p() - 1, "learner_seat"));
    if (py::isinstance<py::str>(kinds_obj) || !py::isinstance<py::sequence>(kinds_obj) ||
        static_cast<int>(py::len(kinds_obj)) != p())
      throw py::value_error("kinds must hold one integer per seat (" + std::to_string(p()) + ")");
    int8_t kinds[zav::MAX_PLAYERS];
    for (int s = 0; s < p(); ++s) {  // outside int8: 127, which check_reset refuses
      const long long k = integer_in(kinds_obj[py::int_(s)], LLONG_MIN, LLONG_MAX, "kinds[i]");
      kinds[s] = static_cast<int8_t>(k < -128 || k > 127 ? 127 : k);
    }
    const long long game_seed = seed.is_none() ? -1 : integer_in(seed, 0, 0xFFFFFFFFLL, "seed");
    std::shared_ptr<const zav::Network> nets[zav::MAX_PLAYERS];
    if (!nets_obj.is_none()) {
      if (py::isinstance<py::str>(nets_obj) || !py::isinstance<py::sequence>(nets_obj) ||
          static_cast<int>(py::len(nets_obj)) != p())
        throw py::value_error("networks must hold one entry per seat (" + std::to_string(p()) +
                              "): a _native.Network or None");
      for (int s = 0; s < p(); ++s) {
        const py::object net = nets_obj[py::int_(s)];
        if (net.is_none()) continue;
        if (!py::isinstance<zav::Network>(net))
          throw py::value_error("networks[" + std::to_string(s) + "] must be a _native.Network or None");
        nets[s] = net.cast<std::shared_ptr<zav::Network>>();
      }
    }
    py::gil_scoped_release release;  // check_reset's std::invalid_argument is a ValueError
    vec->reset_env(i, learner, kinds, game_seed, nets);
  }

  void step(const py::handle& actions_obj) {
    auto* actions = static_cast<const int64_t*>(
        buffer(actions_obj, "actions", "int64", is_int64, {n()}, true));
    const int bad = vec->first_illegal(actions);
    if (bad >= 0) {
      const py::tuple legal = legal_tuple(vec->game(bad).core);
      throw py::value_error("env " + std::to_string(bad) + ": illegal action " +
                            std::to_string(actions[bad]) + " for the learner (seat " +
                            std::to_string(vec->game(bad).learner_seat) + "); legal: " +
                            std::string(py::str(py::list(legal))));
    }
    py::gil_scoped_release release;
    vec->step(actions);
  }

  void act_pending(const py::handle& actions_obj) {
    auto* a = static_cast<const int64_t*>(
        buffer(actions_obj, "actions", "int64", is_int64, {vec->num_listed()}, true));
    check_fresh();
    const int bad = vec->first_illegal_listed(a);
    if (bad >= 0)
      throw py::value_error("env " + std::to_string(vec->listed_env(bad)) + ": illegal action " +
                            std::to_string(a[bad]) + " for external seat " +
                            std::to_string(vec->listed_seat(bad)) + " (actions[" +
                            std::to_string(bad) + "])");
    py::gil_scoped_release release;
    vec->act_listed(a);
  }

  void check_fresh() const {
    if (vec->first_stale_listed() >= 0)
      throw py::value_error("the pending list is stale: call pending() again");
  }

  float* obs(const py::handle& o, py::ssize_t rows) const {
    if (rows < 0) return static_cast<float*>(buffer(o, "obs", "float32", is_float32, {zav::OBS_SIZE}));
    return static_cast<float*>(buffer(o, "obs", "float32", is_float32, {rows, zav::OBS_SIZE}));
  }
  int8_t* mask(const py::handle& o, py::ssize_t rows) const {
    if (rows < 0) return static_cast<int8_t*>(buffer(o, "mask", "int8", is_byte, {zav::NUM_ACTIONS}));
    return static_cast<int8_t*>(buffer(o, "mask", "int8", is_byte, {rows, zav::NUM_ACTIONS}));
  }
};

int32_t winner_bits(const VecGame& g) {
  int w[zav::MAX_PLAYERS];
  const int k = g.started && g.core.s.terminated ? zav::winners(g.core.s, w) : 0;
  int32_t bits = 0;
  for (int j = 0; j < k; ++j) bits |= int32_t{1} << w[j];
  return bits;
}

}  // namespace

// One output per game (shape [N]) or per game and seat ([N, P]): out[i] = expr of game g
// (and seat q), into a caller's array of element type T.
#define ZAV_PER_GAME(name, T, ok, dtype, expr)                                             \
  def(                                                                                          \
      name,                                                                                     \
      [](PyVecLearner& s, const py::handle& out) {                                              \
        auto* d = static_cast<T*>(buffer(out, "out", dtype, ok, {s.n()}));                      \
        for (int i = 0; i < s.n(); ++i) {                                                       \
          const VecGame& g = s.vec->game(i);                                                    \
          d[i] = static_cast<T>(expr);                                                          \
        }                                                                                       \
      },                                                                                        \
      py::arg("out"))
#define ZAV_PER_SEAT(name, T, ok, dtype, expr)                                             \
  def(                                                                                          \
      name,                                                                                     \
      [](PyVecLearner& s, const py::handle& out) {                                              \
        auto* d = static_cast<T*>(buffer(out, "out", dtype, ok, {s.n(), s.p()}));               \
        for (int i = 0; i < s.n(); ++i) {                                                       \
          const auto& players = s.vec->game(i).core.s.players;                                  \
          for (int q = 0; q < s.p(); ++q) d[i * s.p() + q] = q < players.size() ? (expr) : 0;   \
        }                                                                                       \
      },                                                                                        \
      py::arg("out"))

void register_vec(py::module_& m) {
  py::class_<PyVecLearner>(m, "VecLearner")
      .def(py::init([](const py::dict& config, const py::handle& num_envs, const py::handle& seed,
                       const py::object& weights, double novice_blunder,
                       const py::object& planner_params) {
             // The config is parsed by _native.Core (the same keys, checks and errors).
             py::object core = py::module_::import(MODULE).attr("Core")(config, 0);
             const long long count = integer_in(num_envs, 1, 1 << 20, "num_envs");
             if (!(novice_blunder >= 0.0 && novice_blunder <= 1.0))
               throw py::value_error("novice_blunder must be a probability in [0, 1]");
             auto self = std::make_unique<PyVecLearner>();
             self->vec = std::make_unique<VecLearner>(py::cast<const Core&>(core).s.config,
                                                      static_cast<int>(count), seed_words(seed));
             // The caller resolves the agents' defaults (zavandor_env.envs.vector does): the
             // engine layer does not import the agents layer.  None: those seats are refused.
             if (!weights.is_none() && !py::isinstance<zav::HeuristicWeights>(weights))
               throw py::value_error("heuristic_weights must be a _native.HeuristicWeights or None");
             if (!planner_params.is_none() && !py::isinstance<zav::PlannerParams>(planner_params))
               throw py::value_error("planner_params must be a _native.PlannerParams or None");
             if (!weights.is_none()) self->vec->set_weights(weights.cast<zav::HeuristicWeights>());
             if (!planner_params.is_none()) self->vec->set_planner(planner_params.cast<zav::PlannerParams>());
             self->vec->set_novice_blunder(novice_blunder);
             // Raises a one-line error if the Python layout's scales were not installed.
             if (!zav::observation_scale_ready())
               py::module_::import(MODULE).attr("observation_fingerprint")();
             return self;
           }),
           py::arg("config"), py::arg("num_envs"), py::arg("seed"),
           py::arg("heuristic_weights") = py::none(),
           py::arg("novice_blunder") = zav::NOVICE_DEFAULT_BLUNDER,
           py::arg("planner_params") = py::none())
      .def_property_readonly(
          "planner_params",
          [](const PyVecLearner& s) {
            return s.vec->has_planner() ? py::cast(s.vec->planner()) : py::object(py::none());
          })
      .def_property_readonly("agent_fallbacks",
                             [](const PyVecLearner& s) { return s.vec->agent_fallbacks(); })
      .def("reseed", [](PyVecLearner& s, const py::handle& seed) { s.vec->reseed(seed_words(seed)); },
           py::arg("seed"))
      .def("reset_env", &PyVecLearner::reset_env, py::arg("env"), py::arg("learner_seat"),
           py::arg("kinds"), py::arg("seed") = py::none(), py::arg("networks") = py::none())
      .def("step", &PyVecLearner::step, py::arg("actions"))
      .def(
          "pending",
          [](PyVecLearner& s, const py::handle& out_env, const py::handle& out_seat) {
            auto* e = static_cast<int32_t*>(buffer(out_env, "out_env", "int32", is_int32, {s.n()}));
            auto* t = static_cast<int32_t*>(buffer(out_seat, "out_seat", "int32", is_int32, {s.n()}));
            return s.vec->list_pending(e, t);
          },
          py::arg("out_env"), py::arg("out_seat"))
      .def(
          "observe_pending",
          [](PyVecLearner& s, const py::handle& obs, const py::handle& mask) {
            float* o = s.obs(obs, s.vec->num_listed());
            int8_t* k = s.mask(mask, s.vec->num_listed());
            s.check_fresh();
            py::gil_scoped_release release;
            s.vec->observe_listed(o, k);
          },
          py::arg("obs"), py::arg("mask"))
      .def("act_pending", &PyVecLearner::act_pending, py::arg("actions"))
      .def(
          "observe",
          [](PyVecLearner& s, const py::handle& obs, const py::handle& mask) {
            float* o = s.obs(obs, s.n());
            int8_t* k = s.mask(mask, s.n());
            py::gil_scoped_release release;
            for (int i = 0; i < s.n(); ++i)
              s.vec->observe(i, o + static_cast<std::size_t>(i) * zav::OBS_SIZE,
                             k + static_cast<std::size_t>(i) * zav::NUM_ACTIONS);
          },
          py::arg("obs"), py::arg("mask"))
      .def(
          "observe_env",
          [](PyVecLearner& s, const py::handle& env, const py::handle& obs,
             const py::handle& mask) { s.vec->observe(s.env_index(env), s.obs(obs, -1), s.mask(mask, -1)); },
          py::arg("env"), py::arg("obs"), py::arg("mask"))
      .ZAV_PER_SEAT("vp", int32_t, is_int32, "int32", players[q].vp)
      .ZAV_PER_SEAT("eliminated", int8_t, is_byte, "bool", players[q].eliminated)
      .ZAV_PER_GAME("status", int8_t, is_byte, "int8", g.status)
      .ZAV_PER_GAME("terminated", int8_t, is_byte, "bool", g.started && g.core.s.terminated)
      .ZAV_PER_GAME("truncated", int8_t, is_byte, "bool", g.started && g.core.s.truncated)
      .ZAV_PER_GAME("winners", int32_t, is_int32, "int32", winner_bits(g))
      .ZAV_PER_GAME("rounds", int32_t, is_int32, "int32", g.core.s.round)
      .ZAV_PER_GAME("decisions", int32_t, is_int32, "int32", g.core.s.history.size())
      .ZAV_PER_GAME("learner_seat", int32_t, is_int32, "int32", g.learner_seat)
      .ZAV_PER_GAME("game_seed", int64_t, is_int64, "int64", g.game_seed)
      .def(
          "core",
          [](PyVecLearner& s, const py::handle& env) {
            return std::make_unique<Core>(s.vec->game(s.env_index(env)).core);
          },
          py::arg("env"));
}
