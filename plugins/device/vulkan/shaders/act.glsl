// Activations shared by unary.comp and binary.comp (GLU), as the CPU device defines them.
float silu(float x) { return x / (1.0 + exp(-x)); }
// 0.5 (1 + tanh(u)) = 1 / (1 + e^(-2u)): no cancellation where tanh(u) is near -1.
float gelu_tanh(float x) {
  const float u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
  return x / (1.0 + exp(-2.0 * u));
}
// GLSL has no erf: Abramowitz & Stegun 7.1.26 is only good to 1.5e-7 absolute, so use the
// complementary-error-function fit of Numerical Recipes (erfc, fractional error < 1.2e-7).
float erf_(float x) {
  const float z = abs(x), t = 1.0 / (1.0 + 0.5 * z);
  const float r = t * exp(-z * z - 1.26551223 +
                          t * (1.00002368 +
                          t * (0.37409196 +
                          t * (0.09678418 +
                          t * (-0.18628806 +
                          t * (0.27886807 +
                          t * (-1.13520398 +
                          t * (1.48851587 +
                          t * (-0.82215223 + t * 0.17087277)))))))));
  return x >= 0.0 ? 1.0 - r : r - 1.0;
}
float gelu_erf(float x) { return 0.5 * x * (1.0 + erf_(x * 0.70710678118654752)); }
