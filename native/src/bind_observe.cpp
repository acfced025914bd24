// Python bindings of the observation encoder (observe.hpp), registered into
// zavandor_env.engine._native by bindings.cpp through register_observe(m).
//
//   observation_size() -> int
//   observation_layout() -> list[tuple[str, int]]
//   set_observation_scale(scale, bound=10.0, fingerprint="", entries=None) -> None
//   observation_fingerprint() -> str
//   observe(core, seat, out) -> None                 out: float32[D], C-contiguous, writeable
//   observe_raw(core, seat) -> np.ndarray[float64]   ObservationEncoder.raw (tests, debugging)
//   action_mask(core, out) -> None                   out: int8/uint8/bool[NUM_ACTIONS]
//
// The scale vector, the clip bound and the fingerprint come from
// zavandor_env.encoding.observation: it passes them with set_observation_scale (with
// ``entries=layout_entries()``, which is then compared field by field with the native layout)
// when it is imported.  A Python layout that differs from the compiled one (a renamed, moved or
// resized field) raises RuntimeError instead of producing a misaligned vector.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "engine.hpp"
#include "observe.hpp"
#include "pyutil.hpp"

namespace py = pybind11;

namespace {

using zav::pyutil::buffer;
using zav::pyutil::is_byte;
using zav::pyutil::is_float32;

[[noreturn]] void layout_differs(const std::string& what) {
  throw std::runtime_error("the Python observation layout " + what +
                           ": native/src/observe.cpp must follow (then rebuild)");
}

void check_layout_entries(const py::handle& entries, const float* scale) {
  const auto native = zav::observation_layout();
  const auto python = entries.cast<std::vector<std::tuple<std::string, int, double>>>();
  if (python.size() != native.size())
    layout_differs("has " + std::to_string(python.size()) + " fields, the native encoder " +
                   std::to_string(native.size()));
  for (std::size_t i = 0, at = 0; i < native.size(); at += native[i++].second) {
    const auto& [name, size, s] = python[i];
    if (name != native[i].first || size != native[i].second)
      layout_differs("differs from the native one at field " + std::to_string(i) + ": Python " +
                     name + "[" + std::to_string(size) + "], native " + native[i].first + "[" +
                     std::to_string(native[i].second) + "]");
    const float f = static_cast<float>(s);
    for (int k = 0; k < size; ++k)
      if (std::memcmp(&scale[at + k], &f, sizeof f) != 0)
        throw std::runtime_error("observation scale of field " + name +
                                 " does not match its layout entry");
  }
}

void set_scale(const py::object& scale_obj, double bound, const std::string& fingerprint,
               const py::object& entries) {
  // A contiguous copy: the caller's array may be a strided view.
  auto scale = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(
      zav::pyutil::checked_array(scale_obj, "scale", "float32", is_float32, {zav::OBS_SIZE}, true,
                                 false));
  if (!entries.is_none()) check_layout_entries(entries, scale.data());
  // A NaN or infinite scale (or bound) would poison every observation the core encodes.
  if (!std::isfinite(bound) || bound <= 0)
    throw py::value_error("bound must be a finite number > 0, got " + std::to_string(bound));
  for (int i = 0; i < zav::OBS_SIZE; ++i)
    if (!std::isfinite(scale.data()[i]))
      throw py::value_error("observation scale " + std::to_string(i) + " is not finite");
  zav::set_observation_scale(scale.data(), zav::OBS_SIZE, static_cast<float>(bound), fingerprint);
}

// The scales come from Python: zavandor_env.encoding.observation installs them when it is
// imported (configure_native, which also compares the action tables).  The core never imports
// that module itself: the engine layer imports only downward.
void ensure_configured() {
  if (!zav::observation_scale_ready())
    throw std::runtime_error(
        "the native observation encoder has no layout: importing "
        "zavandor_env.encoding.observation installs it (if it refused this core, its "
        "configure_native() says why: rebuild)");
}

int checked_seat(const Core& core, const py::handle& seat) {
  return static_cast<int>(zav::pyutil::integer_in(seat, 0, core.s.config.num_players - 1, "seat"));
}

}  // namespace

void register_observe(py::module_& m) {
  m.def("observation_size", []() { return zav::OBS_SIZE; });
  m.def("observation_layout", &zav::observation_layout);
  m.def("set_observation_scale", &set_scale, py::arg("scale"), py::arg("bound") = 10.0,
        py::arg("fingerprint") = "", py::arg("entries") = py::none());
  m.def("observation_fingerprint", []() {
    ensure_configured();
    return zav::observation_fingerprint();
  });
  m.def(
      "observe",
      [](const Core& core, const py::handle& seat, const py::object& out) {
        ensure_configured();
        auto* dst = static_cast<float*>(buffer(out, "out", "float32", is_float32, {zav::OBS_SIZE}));
        zav::encode_observation(core.s, checked_seat(core, seat), dst);
      },
      py::arg("core"), py::arg("seat"), py::arg("out"));
  m.def(
      "observe_raw",
      [](const Core& core, const py::handle& seat) {
        py::array_t<double> raw(zav::OBS_SIZE);
        zav::encode_raw(core.s, checked_seat(core, seat), raw.mutable_data());
        return raw;
      },
      py::arg("core"), py::arg("seat"));
  m.def(
      "action_mask",
      [](Core& core, const py::object& out) {
        auto* dst = static_cast<int8_t*>(buffer(out, "out", "int8", is_byte, {zav::NUM_ACTIONS}));
        zav::encode_mask(core.legal, core.refresh_legal(), dst, zav::NUM_ACTIONS);
      },
      py::arg("core"), py::arg("out"));
}
