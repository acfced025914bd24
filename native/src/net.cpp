// The policy file's MLP in C++; see net.hpp.
#include "net.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// tanh without libm: tanh|x| = (1 - e) / (1 + e) with e = exp(-2|x|), the exponential from a
// range reduction (-2|x| = n ln2 + r, |r| <= ln2/2, ln2 split in two so n ln2 is exact) and a
// degree-7 polynomial; |x| is capped at 9, where tanh rounds to 1 in float.  Within 1e-7 of
// the true tanh (tests/agents/test_native_net.py), which the next layer's sums cannot tell from float
// rounding.  Why: std::tanh took about 22 ns a call, 11 of a 30 us forward pass (512 calls for
// the 128x128 actor and critic), and the forward pass is most of the network search; four at
// a time in SSE2 (every x86-64 has it) it takes about 2 ns.  The scalar version does the same
// operations in the same order, so both give the same bits.
constexpr float TANH_CAP = 9.0f, LOG2E = 1.44269504f, LN2_HI = 0.693359375f,
                LN2_LO = 2.12194440e-4f;  // ln2 = LN2_HI - LN2_LO
constexpr float EXP_POLY[8] = {1.98412698e-4f, 1.38888889e-3f, 8.33333333e-3f, 4.16666667e-2f,
                               1.66666667e-1f, 0.5f, 1.0f, 1.0f};  // 1/7! ... 1/0!

inline float fast_tanh(float x) {
  if (x != x) return x;
  float a = std::fabs(x);
  a = a < TANH_CAP ? a : TANH_CAP;
  const float y = -2.0f * a;
  // n = round(y / ln2) in [-26, 0]: truncation towards 0 of a value <= 0 is its ceiling
  const std::int32_t k = static_cast<std::int32_t>(y * LOG2E - 0.5f);
  const float n = static_cast<float>(k);
  const float r = (y - n * LN2_HI) + n * LN2_LO;
  float p = EXP_POLY[0];
  for (int i = 1; i < 8; ++i) p = p * r + EXP_POLY[i];
  const std::int32_t bits = (k + 127) << 23;  // 2^n as a float's exponent field
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  const float e = p * scale;
  return std::copysign((1.0f - e) / (1.0f + e), x);
}

void tanh_inplace(float* y, int n) {
  int i = 0;
#if defined(__SSE2__)
  const __m128 sign = _mm_set1_ps(-0.0f), one = _mm_set1_ps(1.0f);
  for (; i + 4 <= n; i += 4) {
    const __m128 x = _mm_loadu_ps(y + i);
    const __m128 a = _mm_min_ps(_mm_andnot_ps(sign, x), _mm_set1_ps(TANH_CAP));
    const __m128 v = _mm_mul_ps(_mm_set1_ps(-2.0f), a);
    const __m128i k = _mm_cvttps_epi32(_mm_sub_ps(_mm_mul_ps(v, _mm_set1_ps(LOG2E)),
                                                  _mm_set1_ps(0.5f)));
    const __m128 nk = _mm_cvtepi32_ps(k);
    const __m128 r = _mm_add_ps(_mm_sub_ps(v, _mm_mul_ps(nk, _mm_set1_ps(LN2_HI))),
                                _mm_mul_ps(nk, _mm_set1_ps(LN2_LO)));
    __m128 p = _mm_set1_ps(EXP_POLY[0]);
    for (int j = 1; j < 8; ++j) p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(EXP_POLY[j]));
    const __m128 scale =
        _mm_castsi128_ps(_mm_slli_epi32(_mm_add_epi32(k, _mm_set1_epi32(127)), 23));
    const __m128 e = _mm_mul_ps(p, scale);
    const __m128 t = _mm_or_ps(_mm_div_ps(_mm_sub_ps(one, e), _mm_add_ps(one, e)),
                               _mm_and_ps(sign, x));
    const __m128 nan = _mm_cmpunord_ps(x, x);  // NaN stays NaN (its lanes keep x)
    _mm_storeu_ps(y + i, _mm_or_ps(_mm_and_ps(nan, x), _mm_andnot_ps(nan, t)));
  }
#endif
  for (; i < n; ++i) y[i] = fast_tanh(y[i]);
}

void activate(Activation a, float* y, int n) {
  if (a == Activation::TANH) {
    tanh_inplace(y, n);
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
