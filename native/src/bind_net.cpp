// Python bindings of the native MLP (net.hpp), registered into zavandor_env.engine._native by
// bindings.cpp through register_net(m):
//
//   Network(weights, biases, activation="tanh", value_weights=None, value_biases=None)
//       weights[i]: float numpy array [out, in] (row-major as a policy file stores it),
//       biases[i]: [out]; the actor's layers, then optionally the critic's (its last layer
//       has one output).  policy_file.native_network(policy) builds one from a NumpyPolicy.
//       Every shape is checked here and again by the C++ (net.hpp): one-line ValueError.
//   Network.obs_dim, .num_actions, .has_value, .hidden (the actor's hidden sizes)
//   Network.forward(obs) -> (logits, value)
//       obs float32 (float64 is converted) [obs_dim] -> logits float32 [num_actions], value a
//       float or None; or [B, obs_dim] -> logits [B, num_actions], values float32 [B] or
//       None.  The GIL is released while computing.
//   _net_bench(network, obs, iterations) -> seconds for `iterations` single forward passes
//       of obs [obs_dim] with the critic (a benchmark: no Python in the loop).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "net.hpp"
#include "pyutil.hpp"

namespace py = pybind11;

namespace {

using zav::pyutil::shape_str;
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
    if (w.shape(0) > zav::MAX_NET_WIDTH || w.shape(1) > zav::MAX_NET_WIDTH)
      throw py::value_error(name + ": weights " + shape_str(w) + " exceed " +
                            std::to_string(zav::MAX_NET_WIDTH));
    mlp.add_layer(static_cast<int>(w.shape(0)), static_cast<int>(w.shape(1)), w.data(),
                  b.data(), name);
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
  if (py::len(weights) == 0) throw py::value_error("network: the actor has no layer");
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
  if (!py::isinstance<py::array>(obs_obj))
    throw py::value_error("obs must be a float32 numpy array of shape (" + std::to_string(d) +
                          ",) or (B, " + std::to_string(d) + ")");
  auto raw = py::reinterpret_borrow<py::array>(obs_obj);
  if (raw.dtype().kind() != 'f' || (raw.ndim() != 1 && raw.ndim() != 2) ||
      raw.shape(raw.ndim() - 1) != d)
    throw py::value_error("obs must be a float32 numpy array of shape (" + std::to_string(d) +
                          ",) or (B, " + std::to_string(d) + "), got " +
                          std::string(py::str(raw.dtype())) + " " + shape_str(raw));
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

double bench(const zav::Network& net, const py::object& obs_obj, long long iterations) {
  FloatArray obs = float_array(obs_obj, "obs", 1);
  if (obs.shape(0) != net.obs_dim())
    throw py::value_error("obs must have " + std::to_string(net.obs_dim()) + " values");
  std::vector<float> logits(net.num_actions());
  float value = 0.0f, sink = 0.0f;
  py::gil_scoped_release release;
  const auto start = std::chrono::steady_clock::now();
  for (long long i = 0; i < iterations; ++i) {
    net.forward(obs.data(), logits.data(), &value);
    sink += logits[0] + value;
  }
  const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - start;
  volatile float keep = sink;
  (void)keep;
  return spent.count();
}

}  // namespace

void register_net(py::module_& m) {
  py::class_<zav::Network, std::shared_ptr<zav::Network>>(
      m, "Network", "The policy file's MLP actor and optional critic (native/src/net.hpp).")
      .def(py::init(&make_network), py::arg("weights"), py::arg("biases"),
           py::arg("activation") = "tanh", py::arg("value_weights") = py::none(),
           py::arg("value_biases") = py::none())
      .def_property_readonly("obs_dim", &zav::Network::obs_dim)
      .def_property_readonly("num_actions", &zav::Network::num_actions)
      .def_property_readonly("has_value", &zav::Network::has_value)
      .def("forward", &forward, py::arg("obs"),
           "(logits, value) for obs [obs_dim], or (logits [B, A], values [B] | None) for "
           "obs [B, obs_dim].");
  m.def("_net_bench", &bench, py::arg("network"), py::arg("obs"), py::arg("iterations"),
        "Seconds for iterations single forward passes (benchmark only).");
}
