// The platform-independent exp and log: accurate against libm, exact where they must be, and
// the vector exp rounds exactly like the scalar one.
#include "sampler/portable_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "sampler/rng.h"
#include "sampler_test_util.h"

namespace zen::sampling {
namespace {

using test::kInf;
using test::kNaN;

TEST(SamplerPortableMath, MatchesLibmWithinFourUlp) {
  double worst = 0.0;
  for (int i = 0; i <= 870000; ++i) {
    const float z = -static_cast<float>(i) * 1e-4f;  // [-87, 0]
    const double reference = std::exp(static_cast<double>(z));
    worst = std::max(worst, std::abs(exp_nonpositive(z) - reference) / reference);
  }
  // A float ulp is 2^-23 = 1.19e-7 relative at most.
  EXPECT_LT(worst, 4 * 1.19e-7);
}

TEST(SamplerPortableMath, ExactAtZeroAndZeroBelowTheNormalRange) {
  EXPECT_EQ(exp_nonpositive(0.0f), 1.0f);
  EXPECT_EQ(exp_nonpositive(-0.0f), 1.0f);
  EXPECT_EQ(exp_nonpositive(-88.0f), 0.0f);
  EXPECT_EQ(exp_nonpositive(-1e30f), 0.0f);
  EXPECT_EQ(exp_nonpositive(-kInf), 0.0f);
  EXPECT_EQ(exp_nonpositive(kNaN), 0.0f);
}

TEST(SamplerPortableMath, VectorPathRoundsLikeTheScalarPath) {
  Rng rng(7);
  std::vector<float> x(1003);  // not a multiple of 4: the tail takes the scalar path
  for (float& v : x) v = static_cast<float>(rng.uniform() * 40.0 - 30.0);
  x[5] = -kInf;
  x[6] = kNaN;
  const float shift = 10.0f, scale = 1.25f;
  std::vector<float> out(x.size());
  exp_shifted(x.data(), shift, scale, out.data(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const float scalar = exp_nonpositive((x[i] - shift) * scale);
    EXPECT_EQ(std::memcmp(&out[i], &scalar, sizeof scalar), 0) << "element " << i;
  }
}

TEST(SamplerPortableMath, LogMatchesLibmWithinOneUlp) {
  double worst = 0.0;
  for (float x = 1e-30f; x < 1e30f; x *= 1.0001f) {
    const double reference = std::log(static_cast<double>(x));
    const double error = std::abs(log_positive(x) - reference);
    worst = std::max(worst, error / std::max(std::abs(reference), 1e-3));
  }
  EXPECT_LT(worst, 1.2e-7);
  EXPECT_EQ(log_positive(1.0f), 0.0f);
  const float subnormal = 1e-45f;  // rounds to 2^-149
  EXPECT_NEAR(log_positive(subnormal), std::log(static_cast<double>(subnormal)), 1e-5);
}

}  // namespace
}  // namespace zen::sampling
