// The policy file's MLP in C++; see net.hpp.
#include "net.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <utility>

namespace zav {

namespace {

// Outputs are padded to a multiple of this many floats, so the inner loop is whole blocks of a
// constant length, which GCC's and Clang's vectorisers turn into SIMD at -O2.
constexpr int BLOCK = 8;

int padded(int n) { return (n + BLOCK - 1) / BLOCK * BLOCK; }

// y[0..padded) = b + x W^T (x: [in], the layer's transposed weights [in, padded]).  Inputs
// equal to 0 add nothing and are skipped: most of an observation is 0, so the first layer --
// the largest -- reads a fraction of its rows.
// The indices are std::size_t: Python's build flags include -fwrapv, under which int indices
// may wrap and the loop is no longer vectorised (measured 3x slower).
void affine(const float* __restrict wt, const float* __restrict b, int in, int pad,
            const float* __restrict x, float* __restrict y) {
  const std::size_t n_in = static_cast<std::size_t>(in), n_out = static_cast<std::size_t>(pad);
  std::copy(b, b + n_out, y);
  for (std::size_t i = 0; i < n_in; ++i) {
    const float xi = x[i];
    if (xi == 0.0f) continue;
    const float* __restrict row = wt + i * n_out;
    for (std::size_t o = 0; o < n_out; o += BLOCK)
      for (std::size_t k = 0; k < BLOCK; ++k) y[o + k] += xi * row[o + k];
  }
}

void activate(Activation a, float* y, int n) {
  if (a == Activation::TANH) {
    for (int i = 0; i < n; ++i) y[i] = std::tanh(y[i]);
  } else {
    for (int i = 0; i < n; ++i) y[i] = y[i] > 0.0f ? y[i] : 0.0f;
  }
}

std::vector<float>& thread_scratch(std::size_t n) {
  thread_local std::vector<float> scratch;
  if (scratch.size() < n) scratch.resize(n);
  return scratch;
}

}  // namespace

Activation parse_activation(const std::string& name) {
  if (name == "tanh") return Activation::TANH;
  if (name == "relu") return Activation::RELU;
  throw std::invalid_argument("activation must be 'tanh' or 'relu', got '" + name + "'");
}

void Mlp::add_layer(int out, int in, const float* weights, const float* biases,
                    const std::string& what) {
  if (static_cast<int>(layers_.size()) >= MAX_NET_LAYERS)
    throw std::invalid_argument(what + ": a network has at most " +
                                std::to_string(MAX_NET_LAYERS) + " layers");
  if (out < 1 || in < 1 || out > MAX_NET_WIDTH || in > MAX_NET_WIDTH)
    throw std::invalid_argument(what + ": layer shape [" + std::to_string(out) + ", " +
                                std::to_string(in) + "] must have sizes in [1, " +
                                std::to_string(MAX_NET_WIDTH) + "]");
  if (!layers_.empty() && in != layers_.back().out)
    throw std::invalid_argument(what + ": takes " + std::to_string(in) +
                                " inputs, but the previous layer gives " +
                                std::to_string(layers_.back().out));
  if (weights == nullptr || biases == nullptr)
    throw std::invalid_argument(what + ": missing weights or biases");
  Layer layer;
  layer.in = in;
  layer.out = out;
  layer.padded = padded(out);
  layer.wt.assign(static_cast<std::size_t>(in) * layer.padded, 0.0f);
  layer.b.assign(layer.padded, 0.0f);
  for (int o = 0; o < out; ++o) {
    for (int i = 0; i < in; ++i) {
      const float w = weights[static_cast<std::size_t>(o) * in + i];
      if (!std::isfinite(w))
        throw std::invalid_argument(what + ": weight [" + std::to_string(o) + ", " +
                                    std::to_string(i) + "] is not finite");
      layer.wt[static_cast<std::size_t>(i) * layer.padded + o] = w;
    }
    if (!std::isfinite(biases[o]))
      throw std::invalid_argument(what + ": bias [" + std::to_string(o) + "] is not finite");
    layer.b[o] = biases[o];
  }
  max_width_ = std::max(max_width_, layer.padded);
  layers_.push_back(std::move(layer));
}

void Mlp::forward(const float* x, float* y, float* scratch) const {
  const float* in = x;
  const int last = depth() - 1;
  for (int l = 0; l <= last; ++l) {
    const Layer& layer = layers_[l];
    float* out = scratch + (l % 2) * max_width_;
    affine(layer.wt.data(), layer.b.data(), layer.in, layer.padded, in, out);
    if (l < last) activate(activation_, out, layer.out);
    in = out;
  }
  std::copy(in, in + out_size(), y);
}

Network::Network(Mlp actor, Mlp critic) : actor_(std::move(actor)), critic_(std::move(critic)) {
  if (actor_.depth() < 1) throw std::invalid_argument("network: the actor has no layer");
  if (critic_.depth() > 0) {
    if (critic_.in_size() != actor_.in_size())
      throw std::invalid_argument("network: the critic reads " +
                                  std::to_string(critic_.in_size()) + " inputs, the actor " +
                                  std::to_string(actor_.in_size()));
    if (critic_.out_size() != 1)
      throw std::invalid_argument("network: the critic must have 1 output, it has " +
                                  std::to_string(critic_.out_size()));
    if (critic_.activation() != actor_.activation())
      throw std::invalid_argument("network: the critic and the actor must share an activation");
  }
}

void Network::forward(const float* obs, float* logits, float* value) const {
  const int width = std::max(actor_.max_width(), critic_.max_width());
  float* scratch = thread_scratch(2 * static_cast<std::size_t>(width)).data();
  actor_.forward(obs, logits, scratch);
  if (value != nullptr && has_value()) critic_.forward(obs, value, scratch);
}

void Network::forward_batch(const float* obs, int batch, float* logits, float* values) const {
  if (batch < 0) throw std::invalid_argument("network: negative batch size");
  const std::size_t d = obs_dim(), a = num_actions();
  for (int b = 0; b < batch; ++b)
    forward(obs + b * d, logits + b * a, values != nullptr ? values + b : nullptr);
}

void masked_softmax(const float* logits, const int* legal, int n, double temperature,
                    double* probs) {
  if (n <= 0) return;
  const double inv_t = temperature > 0 ? 1.0 / temperature : 1.0;
  double top = -std::numeric_limits<double>::infinity();
  for (int i = 0; i < n; ++i) top = std::max(top, static_cast<double>(logits[legal[i]]) * inv_t);
  double total = 0.0;
  for (int i = 0; i < n; ++i) {
    probs[i] = std::exp(static_cast<double>(logits[legal[i]]) * inv_t - top);
    total += probs[i];
  }
  for (int i = 0; i < n; ++i) probs[i] /= total;
}

}  // namespace zav
