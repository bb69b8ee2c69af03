// Every parameter's range is checked, with a message naming the field.
#include "sampler/params.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "sampler/error.h"
#include "sampler/sampler.h"
#include "sampler_test_util.h"

namespace zen::sampling {
namespace {

using test::kInf;
using test::kNaN;

struct BadCase {
  const char* field;
  std::function<void(Params&)> set;
};

TEST(SamplerParams, DefaultsAndSensibleValuesAreAccepted) {
  EXPECT_NO_THROW(validate(Params{}, 32000));
  Params p;
  p.temperature = 0.0f;
  p.top_k = 40;
  p.top_p = 0.95f;
  p.min_p = 0.05f;
  p.typical_p = 0.9f;
  p.repeat_penalty = 1.1f;
  p.repeat_last_n = -1;
  p.frequency_penalty = -2.0f;
  p.presence_penalty = 2.0f;
  p.logit_bias = {{0, -kInf}, {31999, 100.0f}, {5, kInf}};
  p.seed = 0;
  p.logprobs = true;
  p.n_probs = kMaxNProbs;
  p.min_keep = 32000;
  EXPECT_NO_THROW(validate(p, 32000));
  EXPECT_NO_THROW(Sampler(p, 32000));
}

TEST(SamplerParams, OutOfRangeValuesAreRejectedNamingTheField) {
  const BadCase cases[] = {
      {"temperature", [](Params& p) { p.temperature = -0.1f; }},
      {"temperature", [](Params& p) { p.temperature = kInf; }},
      {"temperature", [](Params& p) { p.temperature = kNaN; }},
      {"top_k", [](Params& p) { p.top_k = -1; }},
      {"top_p", [](Params& p) { p.top_p = 1.01f; }},
      {"top_p", [](Params& p) { p.top_p = -0.01f; }},
      {"top_p", [](Params& p) { p.top_p = kNaN; }},
      {"min_p", [](Params& p) { p.min_p = 2.0f; }},
      {"typical_p", [](Params& p) { p.typical_p = -1.0f; }},
      {"repeat_penalty", [](Params& p) { p.repeat_penalty = 0.0f; }},
      {"repeat_penalty", [](Params& p) { p.repeat_penalty = kInf; }},
      {"repeat_last_n", [](Params& p) { p.repeat_last_n = -2; }},
      {"frequency_penalty", [](Params& p) { p.frequency_penalty = 2.5f; }},
      {"presence_penalty", [](Params& p) { p.presence_penalty = -2.5f; }},
      {"presence_penalty", [](Params& p) { p.presence_penalty = kNaN; }},
      {"logit_bias", [](Params& p) { p.logit_bias[100] = 1.0f; }},
      {"logit_bias", [](Params& p) { p.logit_bias[-1] = 1.0f; }},
      {"logit_bias", [](Params& p) { p.logit_bias[3] = kNaN; }},
      {"n_probs", [](Params& p) { p.n_probs = -1; }},
      {"n_probs", [](Params& p) { p.n_probs = kMaxNProbs + 1; }},
      {"min_keep", [](Params& p) { p.min_keep = 101; }},
      {"min_keep", [](Params& p) { p.min_keep = -1; }},
  };
  for (const BadCase& c : cases) {
    Params p;
    c.set(p);
    try {
      Sampler sampler(p, 100);
      ADD_FAILURE() << c.field << ": accepted";
    } catch (const InvalidParams& e) {
      EXPECT_NE(std::string(e.what()).find(c.field), std::string::npos) << e.what();
    }
  }
}

TEST(SamplerParams, VocabularyMustBePositive) {
  EXPECT_THROW(Sampler(Params{}, 0), InvalidParams);
  EXPECT_THROW(Sampler(Params{}, -5), InvalidParams);
}

}  // namespace
}  // namespace zen::sampling
