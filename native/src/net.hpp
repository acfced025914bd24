// The policy file's MLP (zavandor_env/agents/policy_file.py, NumpyPolicy) evaluated natively:
// float32 throughout, any depth and hidden sizes, tanh or relu between the layers and nothing
// after the last, as NumpyPolicy._forward.  A Network is the actor (the action logits) plus,
// when the file has one, the critic (the value head: one output).
//
// Layers are given as the file stores them, row-major [out, in] weights and [out] biases.
// Internally each weight matrix is kept transposed, [in, out_padded] with the output padded to
// a multiple of BLOCK floats: the forward pass is then y = b + sum_i x[i] * W^T[i, :], an
// "axpy" over contiguous rows, which the compiler vectorises at -O2 without reassociating
// a sum (a dot product per output would need -ffast-math for that), and an input of 0 -- most
// of an observation vector -- skips its whole row.  The summation order differs from NumPy's
// matmul, so results agree to float rounding (about 1e-6 relative), not bit for bit.
//
// Defence in depth: whatever the caller checked, every constructor checks every shape (a
// layer's input is the previous layer's output, sizes within MAX_NET_WIDTH, the critic's input
// the actor's and its output 1) and that every weight is finite, and throws
// std::invalid_argument with a one-line message otherwise.  A constructed Network is
// immutable, so one object may be used from several threads.
#pragma once

#include <string>
#include <vector>

namespace zav {

enum class Activation { TANH, RELU };

// "tanh" or "relu" (policy_file.ACTIVATIONS); std::invalid_argument otherwise.
Activation parse_activation(const std::string& name);

// The widest layer accepted (policy_file.MAX_ARRAY_BYTES allows a 4096 x 4096 layer).
inline constexpr int MAX_NET_WIDTH = 1 << 16;
// The most layers accepted (policy_file.MAX_ARRAYS entries hold at most 31 layers).
inline constexpr int MAX_NET_LAYERS = 64;

class Mlp {
 public:
  Mlp() = default;
  explicit Mlp(Activation activation) : activation_(activation) {}

  // Appends a layer: weights row-major [out, in], biases [out].  `in` must be the previous
  // layer's `out` (the first layer sets the input size).  `what` names the layer in errors.
  void add_layer(int out, int in, const float* weights, const float* biases,
                 const std::string& what);

  int in_size() const { return layers_.empty() ? 0 : layers_.front().in; }
  int out_size() const { return layers_.empty() ? 0 : layers_.back().out; }
  int depth() const { return static_cast<int>(layers_.size()); }
  int max_width() const { return max_width_; }  // the widest padded layer output
  Activation activation() const { return activation_; }

  // y[out_size()] from x[in_size()]; `scratch` holds at least 2 * max_width() floats.
  void forward(const float* x, float* y, float* scratch) const;

 private:
  struct Layer {
    int in = 0, out = 0, padded = 0;
    std::vector<float> wt;  // [in, padded]: row i is the weights of input i to every output
    std::vector<float> b;   // [padded], zeros past out
  };
  Activation activation_ = Activation::TANH;
  std::vector<Layer> layers_;
  int max_width_ = 0;
};

// The actor (logits over num_actions()) and an optional critic (one value), on the same input.
class Network {
 public:
  // Throws std::invalid_argument unless the critic (when given: depth > 0) reads the actor's
  // input size and has one output, and the actor has at least one layer.
  Network(Mlp actor, Mlp critic);

  int obs_dim() const { return actor_.in_size(); }
  int num_actions() const { return actor_.out_size(); }
  bool has_value() const { return critic_.depth() > 0; }

  // One observation: logits[num_actions()] and, when value is not null and the critic
  // exists, *value.  Uses a per-thread scratch buffer.
  void forward(const float* obs, float* logits, float* value) const;
  // A batch, row-major: obs[batch, obs_dim], logits[batch, num_actions], values[batch] (or
  // null).  Row b gives exactly forward(obs + b * obs_dim, ...).
  void forward_batch(const float* obs, int batch, float* logits, float* values) const;

 private:
  Mlp actor_, critic_;
};

// The masked softmax of `logits` over legal[0..n) (float64, as NumpyPolicy.probabilities):
// probs[i] is the probability of legal[i].  temperature > 0 divides the logits first.
void masked_softmax(const float* logits, const int* legal, int n, double temperature,
                    double* probs);

}  // namespace zav
