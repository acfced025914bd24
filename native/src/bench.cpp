// The native benchmarks' loops (no Python inside; bindings.cpp times them without the GIL and
// zavandor_env/bench/engine.py reports them as the "[C++ loop]" rows).  See engine.hpp.
#include <vector>

#include "engine.hpp"

namespace zav {

long long bench_random_games(const Config& config, const std::vector<std::vector<uint32_t>>& seeds) {
  long long total = 0;
  Core c;
  for (const auto& words : seeds) {  // the game and its random player: one seed, two copies
    PyRandom seeded(words);
    c.new_game(config, seeded);
    total += c.play_random(seeded, -1);
  }
  return total;
}

long long bench_replay_games(const Config& config, const std::vector<std::vector<uint32_t>>& seeds,
                             const std::vector<std::vector<int>>& actions, long long repeats) {
  long long total = 0;
  Core c;
  for (long long r = 0; r < repeats; ++r)
    for (std::size_t g = 0; g < actions.size(); ++g) {
      c.new_game(config, PyRandom(seeds[g]));
      for (int a : actions[g]) {
        if (c.s.phase == ROUND_END || !c.is_legal(a)) return -1;
        c.apply(a, false);
        ++total;
      }
    }
  return total;
}

long long bench_clone_ring(const Core& core, long long count) {
  std::vector<Core> ring(8);
  long long checksum = 0;  // returned, so the copies are kept
  for (long long i = 0; i < count; ++i) {
    Core& slot = ring[static_cast<std::size_t>(i % 8)];
    slot = core;
    checksum += slot.s.num_decisions;
  }
  return checksum;
}

}  // namespace zav
