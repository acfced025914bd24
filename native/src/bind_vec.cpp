// Python bindings of VecLearner (vec.hpp), registered into zavandor_env.engine._native by
// bindings.cpp through register_vec(m):
//
//   VecLearner(config: dict, num_envs: int, seed: int, heuristic_weights=None,
//              novice_blunder=0.02, planner_params=None)
//       config: GameConfig.to_dict() (parsed by _native.Core, so the same keys and errors);
//       heuristic_weights: a _native.HeuristicWeights (zavandor_env.agents.vector_env passes
//       agents/heuristic.py's defaults), or None: then heuristic and novice seats are refused;
//       planner_params: a _native.PlannerParams (agents.planner.native_planner_params), or
//       None: then planner seats are refused (there is deliberately no default here).
//   reseed(seed)
//   reset_env(env, learner_seat, kinds, seed=None)   kinds: one int per seat (-1 the learner,
//       0 random, 1 heuristic, 2 external, 3 novice, 4 naive, 5 planner); seed: force the
//       game seed (tests)
//   reset_all(learner_seats, kinds, seeds=None)      int sequences / arrays [N], [N][P], [N]
//   step(actions: int64[N])                          READY games only; an illegal action raises
//                                                    ValueError before any game changes
//   pending(out_env: int32[N], out_seat: int32[N]) -> M   lists the PENDING games
//   observe_pending(obs: float32[M, D], mask: int8[M, A]) the listed games' deciding seats
//   act_pending(actions: int64[M])                   applies them, then plays on
//   observe(obs: float32[N, D], mask: int8[N, A])    the learner seats (mask zero unless READY)
//   observe_env(env, obs: float32[D], mask: int8[A])
//   vp(out: int32[N, P]), eliminated(out: bool[N, P]), status(out: int8[N]),
//   terminated(out: bool[N]), truncated(out: bool[N]), winners(out: int32[N]) (bit s: seat s
//   won; 0 unless terminated), rounds(out: int32[N]), decisions(out: int32[N]) (len(history)),
//   learner_seat(out: int32[N]), game_seed(out: int64[N])
//   core(env) -> Core                                a copy of the game (tests, debugging)
//   legal_actions(env) -> tuple[int, ...]
//   properties num_envs, num_players, observation_size, num_actions, novice_blunder,
//   planner_params (None if not given), agent_fallbacks (naive / planner decisions that were
//   not legal and were replaced by NaiveAgent.act's fallback; 0 in the tests)
//
// Every output is a caller-provided C-contiguous writeable NumPy array of the exact dtype and
// shape (masks and flags also accept int8 / uint8 / bool); anything else raises a one-line
// ValueError.  Nothing is allocated per step.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine.hpp"
#include "pyutil.hpp"
#include "heuristic.hpp"
#include "naive.hpp"
#include "observe.hpp"
#include "vec.hpp"

namespace py = pybind11;
using zav::VecLearner;

namespace {

constexpr const char* MODULE = "zavandor_env.engine._native";

using zav::pyutil::buffer;
using zav::pyutil::is_byte;
using zav::pyutil::is_float32;
using zav::pyutil::is_int32;
using zav::pyutil::is_int64;
using zav::pyutil::seed_words;

// An integer argument (Python or NumPy int; not bool) or a one-line ValueError.
long long integer(const py::handle& obj, const char* what) {
  if (PyBool_Check(obj.ptr()) || !PyIndex_Check(obj.ptr()))
    throw py::value_error(std::string(what) + " must be an integer, got " +
                          std::string(py::repr(obj)));
  py::object idx = py::reinterpret_steal<py::object>(PyNumber_Index(obj.ptr()));
  if (!idx) throw py::error_already_set();
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(idx.ptr(), &overflow);
  if (overflow) throw py::value_error(std::string(what) + " is out of range");
  return v;
}

void ensure_observation_scale() {
  // _native.observation_fingerprint() raises a one-line error if the Python layout's scales
  // were not installed (importing zavandor_env.envs.observation installs them).
  if (!zav::observation_scale_ready())
    py::module_::import(MODULE).attr("observation_fingerprint")();
}

struct PyVecLearner {
  std::unique_ptr<VecLearner> vec;
  int8_t kinds_buf[zav::MAX_PLAYERS];

  int n() const { return vec->num_envs(); }
  int p() const { return vec->num_players(); }

  int env_index(const py::handle& env) const {
    long long i = integer(env, "env");
    if (i < 0 || i >= n())
      throw py::value_error("env must be in [0, " + std::to_string(n()) + "), got " +
                            std::to_string(i));
    return static_cast<int>(i);
  }

  const int8_t* kinds_of(const py::handle& kinds_obj) {
    if (py::isinstance<py::str>(kinds_obj) || !py::isinstance<py::sequence>(kinds_obj))
      throw py::value_error("kinds must be a sequence of " + std::to_string(p()) +
                            " integers (one per seat)");
    auto kinds = py::reinterpret_borrow<py::sequence>(kinds_obj);
    if (static_cast<int>(py::len(kinds)) != p())
      throw py::value_error("kinds must hold one integer per seat (" + std::to_string(p()) +
                            "), got " + std::to_string(py::len(kinds)));
    for (int s = 0; s < p(); ++s) {
      long long k = integer(kinds[s], "kinds[i]");
      if (k < -128 || k > 127) k = 127;  // refused by check_reset
      kinds_buf[s] = static_cast<int8_t>(k);
    }
    return kinds_buf;
  }

  void reset_env(const py::handle& env, const py::handle& seat, const py::handle& kinds,
                 const py::handle& seed) {
    const int i = env_index(env);
    const long long s = integer(seat, "learner_seat");
    const int8_t* k = kinds_of(kinds);
    long long game_seed = -1;
    if (!seed.is_none()) {
      game_seed = integer(seed, "seed");
      if (game_seed < 0 || game_seed >= (1LL << 32))
        throw py::value_error("seed must be in [0, 2**32), got " + std::to_string(game_seed));
    }
    if (s < 0 || s >= p())
      throw py::value_error("learner_seat must be in [0, " + std::to_string(p()) + "), got " +
                            std::to_string(s));
    const int seat_i = static_cast<int>(s);
    try {
      vec->check_reset(i, seat_i, k);
    } catch (const std::invalid_argument& e) {
      throw py::value_error(e.what());
    }
    py::gil_scoped_release release;
    vec->reset_env(i, seat_i, k, game_seed);
  }
};

void check_step(PyVecLearner& self, const int64_t* actions) {
  const int bad = self.vec->first_illegal(actions);
  if (bad < 0) return;
  Core& c = self.vec->game(bad).core;
  const int n = c.refresh_legal();
  std::string legal;
  for (int k = 0; k < n; ++k) legal += (k ? ", " : "") + std::to_string(c.legal[k]);
  throw py::value_error("env " + std::to_string(bad) + ": illegal action " +
                        std::to_string(actions[bad]) + " for the learner (seat " +
                        std::to_string(self.vec->game(bad).learner_seat) + "); legal: [" +
                        legal + "]");
}

template <typename F>
void fill_env(PyVecLearner& self, const py::handle& out, const char* what, const char* dt,
              bool (*ok)(const py::dtype&), F&& f) {
  void* data = buffer(out, what, dt, ok, {self.n()});
  for (int i = 0; i < self.n(); ++i) f(data, i, self.vec->game(i));
}

}  // namespace

void register_vec(py::module_& m) {
  py::class_<PyVecLearner>(
      m, "VecLearner",
      "A batch of games with one learner seat each; random / heuristic / novice / naive / "
      "planner opponents play natively, external seats wait for Python (see "
      "native/src/vec.hpp and zavandor_env.agents.vector_env).")
      .def(py::init([](const py::dict& config, const py::handle& num_envs, const py::handle& seed,
                       const py::object& heuristic_weights, double novice_blunder,
                       const py::object& planner_params) {
             // The config is parsed by _native.Core (the same keys, checks and errors).
             py::object core = py::module_::import(MODULE).attr("Core")(config, 0);
             zav::Config cfg = py::cast<const Core&>(core).s.config;
             const long long count = integer(num_envs, "num_envs");
             if (count < 1 || count > (1 << 20))
               throw py::value_error("num_envs must be in [1, 2**20], got " +
                                     std::to_string(count));
             if (!(novice_blunder >= 0.0 && novice_blunder <= 1.0))
               throw py::value_error("novice_blunder must be a probability in [0, 1]");
             auto self = std::make_unique<PyVecLearner>();
             self->vec = std::make_unique<VecLearner>(cfg, static_cast<int>(count),
                                                      seed_words(seed));
             // The caller resolves the agents' default weights (zavandor_env.agents.vector_env
             // does): the engine layer does not import the agents layer.
             const py::object& weights = heuristic_weights;
             if (!weights.is_none()) {  // else heuristic / novice seats are refused
               try {
                 self->vec->set_weights(py::cast<const zav::HeuristicWeights&>(weights));
               } catch (const py::cast_error&) {
                 throw py::value_error(
                     "heuristic_weights must be a _native.HeuristicWeights or None, got " +
                     std::string(py::str(py::type::of(weights).attr("__name__"))));
               }
             }
             self->vec->set_novice_blunder(novice_blunder);
             if (!planner_params.is_none()) {  // else planner seats are refused
               try {
                 self->vec->set_planner(py::cast<const zav::PlannerParams&>(planner_params));
               } catch (const py::cast_error&) {
                 throw py::value_error(
                     "planner_params must be a _native.PlannerParams or None, got " +
                     std::string(py::str(py::type::of(planner_params).attr("__name__"))));
               }
             }
             ensure_observation_scale();
             return self;
           }),
           py::arg("config"), py::arg("num_envs"), py::arg("seed"),
           py::arg("heuristic_weights") = py::none(), py::arg("novice_blunder") = zav::NOVICE_DEFAULT_BLUNDER,
           py::arg("planner_params") = py::none())
      .def_property_readonly("num_envs", [](const PyVecLearner& s) { return s.n(); })
      .def_property_readonly("num_players", [](const PyVecLearner& s) { return s.p(); })
      .def_property_readonly("observation_size", [](const PyVecLearner&) { return zav::OBS_SIZE; })
      .def_property_readonly("num_actions", [](const PyVecLearner&) { return zav::NUM_ACTIONS; })
      .def_property_readonly("novice_blunder",
                             [](const PyVecLearner& s) { return s.vec->novice_blunder(); })
      .def_property_readonly(
          "planner_params",
          [](const PyVecLearner& s) -> py::object {
            if (!s.vec->has_planner()) return py::none();
            return py::cast(s.vec->planner());  // a copy
          },
          "The planner seats' _native.PlannerParams (a copy), or None (planner seats refused).")
      .def_property_readonly(
          "agent_fallbacks", [](const PyVecLearner& s) { return s.vec->agent_fallbacks(); },
          "Naive / planner decisions that were not legal, replaced by NaiveAgent.act's "
          "fallback (end turn, pass or the first legal action), over this object's life.")
      .def(
          "reseed", [](PyVecLearner& s, const py::handle& seed) { s.vec->reseed(seed_words(seed)); },
          py::arg("seed"),
          "Reseed the game-seed generator and every slot's random generator as the "
          "constructor does.")
      .def(
          "reset_env",
          [](PyVecLearner& s, const py::handle& env, const py::handle& seat,
             const py::handle& kinds, const py::handle& seed) {
            s.reset_env(env, seat, kinds, seed);
          },
          py::arg("env"), py::arg("learner_seat"), py::arg("kinds"), py::arg("seed") = py::none(),
          "New game in slot env (its seed drawn, or `seed`), then play the opponents until "
          "the learner or an external seat must decide or the game is over.")
      .def(
          "reset_all",
          [](PyVecLearner& s, const py::sequence& seats, const py::sequence& kinds,
             const py::object& seeds) {
            const int n = s.n();
            if (static_cast<int>(py::len(seats)) != n || static_cast<int>(py::len(kinds)) != n)
              throw py::value_error("reset_all needs one learner seat and one kinds list per "
                                    "env (" + std::to_string(n) + ")");
            if (!seeds.is_none() && static_cast<int>(py::len(seeds)) != n)
              throw py::value_error("seeds must hold one seed per env (" + std::to_string(n) +
                                    ")");
            for (int i = 0; i < n; ++i)
              s.reset_env(py::int_(i), seats[i], kinds[i],
                          seeds.is_none() ? py::none() : py::object(seeds[py::int_(i)]));
          },
          py::arg("learner_seats"), py::arg("kinds"), py::arg("seeds") = py::none())
      .def(
          "step",
          [](PyVecLearner& s, const py::handle& actions_obj) {
            auto* actions = static_cast<const int64_t*>(
                buffer(actions_obj, "actions", "int64", is_int64, {s.n()}, true));
            check_step(s, actions);
            py::gil_scoped_release release;
            s.vec->step(actions);
          },
          py::arg("actions"),
          "Apply actions[i] in every READY game (all checked first), then play on.")
      .def(
          "pending",
          [](PyVecLearner& s, const py::handle& out_env, const py::handle& out_seat) {
            auto* e = static_cast<int32_t*>(buffer(out_env, "out_env", "int32", is_int32, {s.n()}));
            auto* t =
                static_cast<int32_t*>(buffer(out_seat, "out_seat", "int32", is_int32, {s.n()}));
            return s.vec->list_pending(e, t);
          },
          py::arg("out_env"), py::arg("out_seat"),
          "List the PENDING games (env, deciding seat) into the first M entries; returns M.")
      .def(
          "observe_pending",
          [](PyVecLearner& s, const py::handle& obs, const py::handle& mask) {
            const int m = s.vec->num_listed();
            auto* o = static_cast<float*>(buffer(obs, "obs", "float32", is_float32,
                                                 {m, zav::OBS_SIZE}));
            auto* k = static_cast<int8_t*>(buffer(mask, "mask", "int8", is_byte,
                                                  {m, zav::NUM_ACTIONS}));
            if (s.vec->first_stale_listed() >= 0)
              throw py::value_error("the pending list is stale: call pending() again");
            py::gil_scoped_release release;
            s.vec->observe_listed(o, k);
          },
          py::arg("obs"), py::arg("mask"))
      .def(
          "act_pending",
          [](PyVecLearner& s, const py::handle& actions_obj) {
            const int m = s.vec->num_listed();
            auto* a = static_cast<const int64_t*>(
                buffer(actions_obj, "actions", "int64", is_int64, {m}, true));
            if (s.vec->first_stale_listed() >= 0)
              throw py::value_error("the pending list is stale: call pending() again");
            const int bad = s.vec->first_illegal_listed(a);
            if (bad >= 0)
              throw py::value_error("env " + std::to_string(s.vec->listed_env(bad)) +
                                    ": illegal action " + std::to_string(a[bad]) +
                                    " for external seat " +
                                    std::to_string(s.vec->listed_seat(bad)) + " (actions[" +
                                    std::to_string(bad) + "])");
            py::gil_scoped_release release;
            s.vec->act_listed(a);
          },
          py::arg("actions"), "Apply the listed pending decisions, then play on.")
      .def(
          "observe",
          [](PyVecLearner& s, const py::handle& obs, const py::handle& mask) {
            auto* o = static_cast<float*>(
                buffer(obs, "obs", "float32", is_float32, {s.n(), zav::OBS_SIZE}));
            auto* k = static_cast<int8_t*>(
                buffer(mask, "mask", "int8", is_byte, {s.n(), zav::NUM_ACTIONS}));
            py::gil_scoped_release release;
            for (int i = 0; i < s.n(); ++i)
              s.vec->observe(i, o + static_cast<std::size_t>(i) * zav::OBS_SIZE,
                             k + static_cast<std::size_t>(i) * zav::NUM_ACTIONS);
          },
          py::arg("obs"), py::arg("mask"),
          "The learner seat's observation of every game; its mask (zeros unless READY).")
      .def(
          "observe_env",
          [](PyVecLearner& s, const py::handle& env, const py::handle& obs,
             const py::handle& mask) {
            const int i = s.env_index(env);
            auto* o = static_cast<float*>(buffer(obs, "obs", "float32", is_float32, {zav::OBS_SIZE}));
            auto* k = static_cast<int8_t*>(buffer(mask, "mask", "int8", is_byte, {zav::NUM_ACTIONS}));
            s.vec->observe(i, o, k);
          },
          py::arg("env"), py::arg("obs"), py::arg("mask"))
      .def(
          "vp",
          [](PyVecLearner& s, const py::handle& out) {
            auto* d = static_cast<int32_t*>(buffer(out, "out", "int32", is_int32, {s.n(), s.p()}));
            for (int i = 0; i < s.n(); ++i) {
              const auto& players = s.vec->game(i).core.s.players;
              for (int q = 0; q < s.p(); ++q)
                d[i * s.p() + q] = q < players.size() ? players[q].vp : 0;
            }
          },
          py::arg("out"), "Every seat's VP now: out[env, seat].")
      .def(
          "eliminated",
          [](PyVecLearner& s, const py::handle& out) {
            auto* d = static_cast<int8_t*>(buffer(out, "out", "bool", is_byte, {s.n(), s.p()}));
            for (int i = 0; i < s.n(); ++i) {
              const auto& players = s.vec->game(i).core.s.players;
              for (int q = 0; q < s.p(); ++q)
                d[i * s.p() + q] = q < players.size() && players[q].eliminated ? 1 : 0;
            }
          },
          py::arg("out"))
      .def(
          "status",
          [](PyVecLearner& s, const py::handle& out) {
            fill_env(s, out, "out", "int8", is_byte, [](void* d, int i, const zav::VecGame& g) {
              static_cast<int8_t*>(d)[i] = g.status;
            });
          },
          py::arg("out"), "0 READY (the learner decides), 1 PENDING (an external seat), 2 DONE.")
      .def(
          "terminated",
          [](PyVecLearner& s, const py::handle& out) {
            fill_env(s, out, "out", "bool", is_byte, [](void* d, int i, const zav::VecGame& g) {
              static_cast<int8_t*>(d)[i] = g.started && g.core.s.terminated ? 1 : 0;
            });
          },
          py::arg("out"))
      .def(
          "truncated",
          [](PyVecLearner& s, const py::handle& out) {
            fill_env(s, out, "out", "bool", is_byte, [](void* d, int i, const zav::VecGame& g) {
              static_cast<int8_t*>(d)[i] = g.started && g.core.s.truncated ? 1 : 0;
            });
          },
          py::arg("out"))
      .def(
          "winners",
          [](PyVecLearner& s, const py::handle& out) {
            fill_env(s, out, "out", "int32", is_int32, [](void* d, int i, const zav::VecGame& g) {
              int32_t bits = 0;
              if (g.started && g.core.s.terminated) {
                int w[zav::MAX_PLAYERS];
                const int k = zav::winners(g.core.s, w);
                for (int j = 0; j < k; ++j) bits |= int32_t{1} << w[j];
              }
              static_cast<int32_t*>(d)[i] = bits;
            });
          },
          py::arg("out"), "Bit s set: seat s won by the rules (0 unless terminated).")
      .def(
          "rounds",
          [](PyVecLearner& s, const py::handle& out) {
            fill_env(s, out, "out", "int32", is_int32, [](void* d, int i, const zav::VecGame& g) {
              static_cast<int32_t*>(d)[i] = g.core.s.round;
            });
          },
          py::arg("out"))
      .def(
          "decisions",
          [](PyVecLearner& s, const py::handle& out) {
            fill_env(s, out, "out", "int32", is_int32, [](void* d, int i, const zav::VecGame& g) {
              static_cast<int32_t*>(d)[i] = static_cast<int32_t>(g.core.s.history.size());
            });
          },
          py::arg("out"), "Decisions applied in each game (len(history): forced ones excluded).")
      .def(
          "learner_seat",
          [](PyVecLearner& s, const py::handle& out) {
            fill_env(s, out, "out", "int32", is_int32, [](void* d, int i, const zav::VecGame& g) {
              static_cast<int32_t*>(d)[i] = g.learner_seat;
            });
          },
          py::arg("out"))
      .def(
          "game_seed",
          [](PyVecLearner& s, const py::handle& out) {
            fill_env(s, out, "out", "int64", is_int64, [](void* d, int i, const zav::VecGame& g) {
              static_cast<int64_t*>(d)[i] = g.game_seed;
            });
          },
          py::arg("out"), "The seed of each game in progress (Game.new(config, seed)).")
      .def(
          "core", [](PyVecLearner& s, const py::handle& env) {
            return std::make_unique<Core>(s.vec->game(s.env_index(env)).core);
          },
          py::arg("env"), "A copy of game env as a _native.Core (tests, debugging).")
      .def(
          "legal_actions",
          [](PyVecLearner& s, const py::handle& env) {
            Core& c = s.vec->game(s.env_index(env)).core;
            const int n = c.refresh_legal();
            py::tuple t(n);
            for (int k = 0; k < n; ++k) t[k] = py::int_(c.legal[k]);
            return t;
          },
          py::arg("env"));
}
