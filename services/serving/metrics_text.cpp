#include "metrics_text.h"

#include <cstdio>
#include <functional>
#include <sstream>

namespace zen::serving {
namespace {

using Models = std::vector<std::pair<std::string, engine::Metrics>>;

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// One metric family: its HELP and TYPE lines, then a sample per model.
void family(std::ostringstream& out, const Models& models, const char* name, const char* type,
            const char* help, const std::function<double(const engine::Metrics&)>& value) {
  out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n';
  for (const auto& [id, m] : models)
    out << name << "{model=\"" << escape_label(id) << "\"} " << number(value(m)) << '\n';
}

void ttft_histogram(std::ostringstream& out, const Models& models) {
  const char* name = "zen_time_to_first_token_seconds";
  out << "# HELP " << name << " Time from a request's arrival to its first generated token.\n"
      << "# TYPE " << name << " histogram\n";
  for (const auto& [id, m] : models) {
    const std::string label = "model=\"" + escape_label(id) + "\"";
    for (size_t i = 0; i < m.ttft_bucket_bounds.size() && i < m.ttft_bucket_counts.size(); ++i)
      out << name << "_bucket{" << label << ",le=\"" << number(m.ttft_bucket_bounds[i]) << "\"} "
          << m.ttft_bucket_counts[i] << '\n';
    out << name << "_bucket{" << label << ",le=\"+Inf\"} " << m.ttft_count << '\n'
        << name << "_sum{" << label << "} " << number(m.ttft_sum) << '\n'
        << name << "_count{" << label << "} " << m.ttft_count << '\n';
  }
}

}  // namespace

std::string escape_label(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string prometheus_text(const Models& models) {
  using M = engine::Metrics;
  std::ostringstream out;
  family(out, models, "zen_queue_depth", "gauge", "Requests waiting to be admitted.",
         [](const M& m) { return m.queued; });
  family(out, models, "zen_running_sequences", "gauge", "Sequences being prefilled or decoded.",
         [](const M& m) { return m.running; });
  family(out, models, "zen_kv_blocks_used", "gauge", "KV cache blocks referenced by sequences.",
         [](const M& m) { return m.kv.blocks_used; });
  family(out, models, "zen_kv_blocks_total", "gauge", "KV cache blocks in the pool.",
         [](const M& m) { return m.kv.blocks_total; });
  family(out, models, "zen_kv_blocks_cached", "gauge",
         "Unreferenced KV blocks kept for prefix reuse.",
         [](const M& m) { return m.kv.blocks_cached; });
  family(out, models, "zen_prefix_cache_queries_total", "counter", "Prefix cache lookups.",
         [](const M& m) { return static_cast<double>(m.kv.prefix_queries); });
  family(out, models, "zen_prefix_cache_hit_tokens_total", "counter",
         "Prompt tokens found in the prefix cache.",
         [](const M& m) { return static_cast<double>(m.kv.prefix_hit_tokens); });
  family(out, models, "zen_requests_total", "counter", "Requests accepted.",
         [](const M& m) { return static_cast<double>(m.requests_total); });
  family(out, models, "zen_prompt_tokens_total", "counter", "Prompt tokens of accepted requests.",
         [](const M& m) { return static_cast<double>(m.prompt_tokens_total); });
  family(out, models, "zen_generated_tokens_total", "counter", "Tokens generated.",
         [](const M& m) { return static_cast<double>(m.generated_tokens_total); });
  family(out, models, "zen_generation_tokens_per_second", "gauge",
         "Tokens generated per second over the last 10 seconds.",
         [](const M& m) { return m.generated_tokens_per_second; });
  ttft_histogram(out, models);
  return out.str();
}

}  // namespace zen::serving
