// Python bindings of the observation encoder (observe.hpp), registered into
// zavandor_env.engine._native by bindings.cpp through register_observe(m).
//
//   observation_size() -> int
//   observation_layout() -> list[tuple[str, int]]
//   set_observation_scale(scale, bound=10.0, fingerprint="", entries=None) -> None
//   observation_fingerprint() -> str
//   observe(core, seat, out) -> None                 out: float32[D], C-contiguous, writeable
//   observe_batch(cores, seats, out) -> None         seats: int64/int32[N]; out: float32[N, D]
//   observe_raw(core, seat) -> np.ndarray[float64]   ObservationEncoder.raw (tests, debugging)
//   action_mask(core, out) -> None                   out: int8/uint8/bool[NUM_ACTIONS]
//   action_mask_batch(cores, out) -> None            out: int8/uint8/bool[N, NUM_ACTIONS]
//
// The scale vector, the clip bound and the fingerprint come from
// zavandor_env.envs.observation: a wrapper may pass them with set_observation_scale (with
// ``entries=layout_entries()``, which is then compared field by field with the native layout);
// otherwise the first observe call imports that module and does exactly that.  A Python layout
// that differs from the compiled one (a renamed, moved or resized field) raises RuntimeError
// instead of producing a misaligned vector.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "engine.hpp"
#include "pyutil.hpp"
#include "observe.hpp"

namespace py = pybind11;

namespace {

using zav::pyutil::checked_array;
using zav::pyutil::is_byte;
using zav::pyutil::is_float32;
using zav::pyutil::native_order;
using zav::pyutil::shape_str;

void check_layout_entries(const py::sequence& entries, const float* scale) {
  const auto native = zav::observation_layout();
  const auto count = static_cast<std::size_t>(py::len(entries));
  if (count != native.size())
    throw std::runtime_error("the Python observation layout has " + std::to_string(count) +
                             " fields, the native encoder " + std::to_string(native.size()) +
                             ": native/src/observe.cpp must follow (then rebuild)");
  int at = 0;
  for (std::size_t i = 0; i < count; ++i) {
    auto entry = py::reinterpret_borrow<py::sequence>(entries[i]);
    const auto name = entry[0].cast<std::string>();
    const int size = entry[1].cast<int>();
    if (name != native[i].first || size != native[i].second)
      throw std::runtime_error("the Python observation layout differs from the native one at "
                               "field " + std::to_string(i) + ": Python " + name + "[" +
                               std::to_string(size) + "], native " + native[i].first + "[" +
                               std::to_string(native[i].second) +
                               "]: native/src/observe.cpp must follow (then rebuild)");
    if (scale != nullptr && py::len(entry) >= 3) {
      const float s = static_cast<float>(entry[2].cast<double>());
      for (int k = 0; k < size; ++k)
        if (std::memcmp(&scale[at + k], &s, sizeof(float)) != 0)
          throw std::runtime_error("observation scale of field " + name +
                                   " does not match its layout entry");
    }
    at += size;
  }
}

void set_scale(const py::object& scale_obj, double bound, const std::string& fingerprint,
               const py::object& entries) {
  if (!py::isinstance<py::array>(scale_obj))
    throw py::value_error("scale must be a float32 numpy array of shape (" +
                          std::to_string(zav::OBS_SIZE) + ",)");
  auto scale = py::reinterpret_borrow<py::array>(scale_obj);
  if (scale.ndim() != 1 || scale.shape(0) != zav::OBS_SIZE || !is_float32(scale.dtype()))
    throw py::value_error("scale must be a float32 numpy array of shape (" +
                          std::to_string(zav::OBS_SIZE) + ",), got " +
                          std::string(py::str(scale.dtype())) + " " + shape_str(scale));
  // A contiguous copy (the caller's array may be a strided view).
  auto contiguous = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(scale);
  const float* data = contiguous.data();
  if (!entries.is_none()) check_layout_entries(py::reinterpret_borrow<py::sequence>(entries), data);
  zav::set_observation_scale(data, zav::OBS_SIZE, static_cast<float>(bound), fingerprint);
}

// The scales come from Python: zavandor_env.envs.observation installs them when it is imported
// (configure_native, which also compares the action tables).  The core never imports that module itself: the engine layer imports only
// downward, and the observation module would bring PettingZoo and Gymnasium with it.
void ensure_configured() {
  if (zav::observation_scale_ready()) return;
  throw std::runtime_error(
      "the native observation encoder has no layout: importing zavandor_env.envs.observation "
      "installs it (if it refused this core, its configure_native() says why: rebuild)");
}

int checked_seat(const Core& core, py::handle seat_obj) {
  const long long seat = seat_obj.cast<long long>();
  const int n = core.s.config.num_players;
  if (seat < 0 || seat >= n)
    throw py::value_error("seat must be in [0, " + std::to_string(n) + "), got " +
                          std::to_string(seat));
  return static_cast<int>(seat);
}

void observe(const Core& core, py::object seat, py::object out) {
  ensure_configured();
  const int s = checked_seat(core, seat);
  py::array a = checked_array(out, "out", "float32", is_float32, {zav::OBS_SIZE});
  zav::encode_observation(core.s, s, static_cast<float*>(a.mutable_data()));
}

void observe_batch(py::sequence cores, py::object seats_obj, py::object out) {
  ensure_configured();
  const py::ssize_t n = static_cast<py::ssize_t>(py::len(cores));
  if (!py::isinstance<py::array>(seats_obj))
    throw py::value_error("seats must be an int64 numpy array of shape (" + std::to_string(n) +
                          ",)");
  auto seats = py::reinterpret_borrow<py::array>(seats_obj);
  const int num = seats.dtype().normalized_num();
  const bool i64 = num == py::dtype::num_of<int64_t>(), i32 = num == py::dtype::num_of<int32_t>();
  if (seats.ndim() != 1 || seats.shape(0) != n || !(i64 || i32) || !native_order(seats.dtype()))
    throw py::value_error("seats must be an int64 numpy array of shape (" + std::to_string(n) +
                          ",), got " + std::string(py::str(seats.dtype())) + " " +
                          shape_str(seats));
  py::array a = checked_array(out, "out", "float32", is_float32, {n, zav::OBS_SIZE});
  float* dst = static_cast<float*>(a.mutable_data());
  const auto stride = seats.strides(0);
  const char* seat_bytes = static_cast<const char*>(seats.data());
  static thread_local std::vector<std::pair<const zav::GameState*, int>> jobs;
  jobs.clear();
  for (py::ssize_t i = 0; i < n; ++i) {
    const Core& core = cores[i].cast<const Core&>();
    long long seat;
    if (i64) {
      int64_t v;
      std::memcpy(&v, seat_bytes + i * stride, sizeof v);
      seat = v;
    } else {
      int32_t v;
      std::memcpy(&v, seat_bytes + i * stride, sizeof v);
      seat = v;
    }
    const int players = core.s.config.num_players;
    if (seat < 0 || seat >= players)
      throw py::value_error("seats[" + std::to_string(i) + "] must be in [0, " +
                            std::to_string(players) + "), got " + std::to_string(seat));
    jobs.emplace_back(&core.s, static_cast<int>(seat));
  }
  // The cores stay alive (the caller's list holds them); nothing Python is touched below.
  py::gil_scoped_release release;
  for (py::ssize_t i = 0; i < n; ++i)
    zav::encode_observation(*jobs[i].first, jobs[i].second, dst + i * zav::OBS_SIZE);
}

py::array_t<double> observe_raw(const Core& core, py::object seat) {
  const int s = checked_seat(core, seat);
  py::array_t<double> raw(zav::OBS_SIZE);
  zav::encode_raw(core.s, s, raw.mutable_data());
  return raw;
}

void action_mask(Core& core, py::object out) {
  py::array a = checked_array(out, "out", "int8", is_byte, {zav::NUM_ACTIONS});
  const int n = core.refresh_legal();
  zav::encode_mask(core.legal, n, static_cast<int8_t*>(a.mutable_data()), zav::NUM_ACTIONS);
}

void action_mask_batch(py::sequence cores, py::object out) {
  const py::ssize_t n = static_cast<py::ssize_t>(py::len(cores));
  py::array a = checked_array(out, "out", "int8", is_byte, {n, zav::NUM_ACTIONS});
  auto* dst = static_cast<int8_t*>(a.mutable_data());
  for (py::ssize_t i = 0; i < n; ++i) {
    Core& core = cores[i].cast<Core&>();
    const int k = core.refresh_legal();
    zav::encode_mask(core.legal, k, dst + i * zav::NUM_ACTIONS, zav::NUM_ACTIONS);
  }
}

// Seconds for ``iterations`` native encodes of one state (a benchmark, no Python in the loop).
double observe_bench(const Core& core, py::object seat, long long iterations) {
  ensure_configured();
  const int s = checked_seat(core, seat);
  static float out[zav::OBS_SIZE];
  float sink = 0;
  py::gil_scoped_release release;
  const auto start = std::chrono::steady_clock::now();
  for (long long i = 0; i < iterations; ++i) {
    zav::encode_observation(core.s, s, out);
    sink += out[i % zav::OBS_SIZE];
  }
  const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - start;
  volatile float keep = sink;
  (void)keep;
  return spent.count();
}

}  // namespace

void register_observe(py::module_& m) {
  m.def("observation_size", []() { return zav::OBS_SIZE; },
        "D, the length of an observation vector (observation.OBS_SIZE).");
  m.def("observation_layout", &zav::observation_layout,
        "The native layout as (name, size) pairs in vector order (layout_entries without scales).");
  m.def("set_observation_scale", &set_scale, py::arg("scale"), py::arg("bound") = 10.0,
        py::arg("fingerprint") = "", py::arg("entries") = py::none(),
        "Install the float32 scale vector, clip bound and layout fingerprint of "
        "zavandor_env.envs.observation; entries=layout_entries() is checked field by field.");
  m.def(
      "observation_fingerprint",
      []() {
        ensure_configured();
        return zav::observation_fingerprint();
      },
      "OBS_FINGERPRINT of the layout whose scales the native encoder uses.");
  m.def("observe", &observe, py::arg("core"), py::arg("seat"), py::arg("out"),
        "Write the observation of seat (ObservationEncoder.encode) into out, float32[D].");
  m.def("observe_batch", &observe_batch, py::arg("cores"), py::arg("seats"), py::arg("out"),
        "Write the observation of seats[i] in cores[i] into out[i], float32[N, D].");
  m.def("observe_raw", &observe_raw, py::arg("core"), py::arg("seat"),
        "The unscaled values (ObservationEncoder.raw) as a new float64 array.");
  m.def("action_mask", &action_mask, py::arg("core"), py::arg("out"),
        "Write the 0/1 mask of the legal actions (observation.mask_array) into out, "
        "int8[NUM_ACTIONS] (uint8 and bool accepted).");
  m.def("action_mask_batch", &action_mask_batch, py::arg("cores"), py::arg("out"),
        "Write the masks of cores[i] into out[i], int8[N, NUM_ACTIONS].");
  m.def("_observe_bench", &observe_bench, py::arg("core"), py::arg("seat"),
        py::arg("iterations"), "Seconds for iterations native encodes (benchmark only).");
}
