// Products of sizes in 64 bits that say when they overflow instead of
// wrapping (a shape of 2^32 x 2^32 elements must be an error, not a small
// number or undefined behaviour).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>

namespace kb {

// ceil(a / b) for a >= 0 and b > 0.
constexpr int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// a * b, or nothing when it does not fit in uint64_t.
inline std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// The product of non-negative factors, or nothing when one is negative or the
// product exceeds INT64_MAX (so it also fits every int64_t size).
inline std::optional<uint64_t> checked_product(std::initializer_list<int64_t> factors) {
  uint64_t r = 1;
  for (int64_t f : factors) {
    if (f < 0) return std::nullopt;
    const auto p = checked_mul(r, static_cast<uint64_t>(f));
    if (!p || *p > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    r = *p;
  }
  return r;
}

}  // namespace kb
