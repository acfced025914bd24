// Include first in a file whose double arithmetic must equal Python's bit for bit (the ported
// agents: heuristic.cpp, naive.cpp): Python rounds every product and sum on its own, so the
// compiler must not contract a * b + c into a fused multiply-add.
#pragma once

#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif
