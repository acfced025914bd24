// A generator that draws exactly what CPython's random.Random draws (Python 3.11).
//
// The Python engine owns a random.Random; (config, seed, actions) must replay the identical game
// on either backend and a saved game (whose JSON holds random.Random.getstate()) must load in
// both, so this is not "an MT19937" but CPython's: the same seeding from an integer
// (init_by_array over the integer's 32-bit words, least significant first), the same
// random() (53 bits from two draws), getrandbits (32-bit words, least significant first),
// _randbelow (rejection sampling on bit_length bits), shuffle and sample.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace zav {

class PyRandom {
 public:
  static constexpr int N = 624;
  static constexpr int M = 397;

  // random.Random(0) (copied from a generator seeded once: seeding is the dear part).
  PyRandom() { *this = seeded_zero(); }
  explicit PyRandom(const std::vector<uint32_t>& words) { seed_words(words); }

  // random.Random.seed(n) for an integer n >= 0 given as 32-bit words, least significant first.
  void seed_words(const std::vector<uint32_t>& words) { seed_key(words.data(), words.size()); }
  void seed_u64(uint64_t seed) {
    const uint32_t key[2] = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
    seed_key(key, 2);
  }

  // The same from `used` words at key (not copied: search reseeds a generator per
  // determinization, where an allocation per seeding showed).
  void seed_key(const uint32_t* key, std::size_t used) {
    // CPython uses at least one word (seed 0 -> key [0]) and drops high zero words.
    while (used > 1 && key[used - 1] == 0) --used;
    static const uint32_t zero_key = 0;  // no words: the key [0], as for seed 0
    if (used == 0) {
      key = &zero_key;
      used = 1;
    }
    // init_genrand(19650218) is the same every time: copy it from a table made once.
    static const InitTable init19650218;
    for (int n = 0; n < N; ++n) mt_[n] = init19650218.mt[n];
    // CPython's init_by_array; the previous word is kept in a register (the loops are one long
    // dependency chain, so a store and reload per step would cost a third of the time).
    uint32_t i = 1, j = 0;
    uint32_t prev = mt_[0];
    std::size_t k = (N > used ? N : used);
    for (; k; k--) {
      prev = (mt_[i] ^ ((prev ^ (prev >> 30)) * 1664525u)) + key[j] + j;
      mt_[i] = prev;
      i++;
      j++;
      if (i >= N) {
        mt_[0] = prev;  // mt_[N - 1]
        i = 1;
      }
      if (j >= used) j = 0;
    }
    for (k = N - 1; k; k--) {
      prev = (mt_[i] ^ ((prev ^ (prev >> 30)) * 1566083941u)) - i;
      mt_[i] = prev;
      i++;
      if (i >= N) {
        mt_[0] = prev;
        i = 1;
      }
    }
    mt_[0] = 0x80000000u;
    index_ = N;
  }

  uint32_t genrand_uint32() {
    static constexpr uint32_t mag01[2] = {0x0u, 0x9908b0dfu};
    uint32_t y;
    if (index_ >= N) {
      int kk;
      for (kk = 0; kk < N - M; kk++) {
        y = (mt_[kk] & 0x80000000u) | (mt_[kk + 1] & 0x7fffffffu);
        mt_[kk] = mt_[kk + M] ^ (y >> 1) ^ mag01[y & 0x1u];
      }
      for (; kk < N - 1; kk++) {
        y = (mt_[kk] & 0x80000000u) | (mt_[kk + 1] & 0x7fffffffu);
        mt_[kk] = mt_[kk + (M - N)] ^ (y >> 1) ^ mag01[y & 0x1u];
      }
      y = (mt_[N - 1] & 0x80000000u) | (mt_[0] & 0x7fffffffu);
      mt_[N - 1] = mt_[M - 1] ^ (y >> 1) ^ mag01[y & 0x1u];
      index_ = 0;
    }
    y = mt_[index_++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= (y >> 18);
    return y;
  }

  // random.random(): 53 random bits as a double in [0, 1).
  double random() {
    uint32_t a = genrand_uint32() >> 5, b = genrand_uint32() >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
  }

  // random.getrandbits(k) for 0 < k <= 64.
  uint64_t getrandbits(int k) {
    if (k <= 32) return genrand_uint32() >> (32 - k);
    uint64_t low = genrand_uint32();
    uint64_t high = genrand_uint32() >> (64 - k);
    return low | (high << 32);
  }

  // random._randbelow(n) for n >= 1 (n == 0 returns 0, as CPython does).
  uint64_t randbelow(uint64_t n) {
    if (n == 0) return 0;
    int k = 64 - __builtin_clzll(n);  // n.bit_length()
    uint64_t r = getrandbits(k);
    while (r >= n) r = getrandbits(k);
    return r;
  }

  // random.shuffle(x).
  template <typename T>
  void shuffle(T* x, std::size_t size) {
    for (std::size_t i = size; i-- > 1;) {
      std::size_t j = static_cast<std::size_t>(randbelow(i + 1));
      T tmp = x[i];
      x[i] = x[j];
      x[j] = tmp;
    }
  }

  // random.sample(range(n), k) into out[0..k), for the small n the engine uses (n <= 21:
  // CPython's pool path; at most 64 here).
  void sample_range(int n, int k, int* out) {
    int pool[64];
    for (int i = 0; i < n; ++i) pool[i] = i;
    for (int i = 0; i < k; ++i) {
      int j = static_cast<int>(randbelow(static_cast<uint64_t>(n - i)));
      out[i] = pool[j];
      pool[j] = pool[n - i - 1];
    }
  }

  // random.getstate()[1]: the 624 words then the index (625 numbers); setstate takes the same.
  std::array<uint32_t, N + 1> get_state() const {
    std::array<uint32_t, N + 1> out{};
    for (int i = 0; i < N; ++i) out[i] = mt_[i];
    out[N] = static_cast<uint32_t>(index_);
    return out;
  }
  // Returns false (and changes nothing) for an index outside [0, N].
  bool set_state(const uint32_t* words, uint32_t index) {
    if (index > static_cast<uint32_t>(N)) return false;
    for (int i = 0; i < N; ++i) mt_[i] = words[i];
    index_ = static_cast<int>(index);
    return true;
  }

 private:
  static const PyRandom& seeded_zero() {
    static const PyRandom zero(std::vector<uint32_t>{0});
    return zero;
  }

  struct InitTable {
    uint32_t mt[N];
    InitTable() {
      mt[0] = 19650218u;
      for (int i = 1; i < N; i++) mt[i] = (1812433253u * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i);
    }
  };

  uint32_t mt_[N];
  int index_ = N + 1;
};

}  // namespace zav
