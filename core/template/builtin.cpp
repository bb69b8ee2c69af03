// builtin_template(): which embedded template serves an architecture without its own.
#include <string_view>

#include "builtin_data.h"
#include "template.h"

namespace zen::tmpl {
namespace {

std::optional<std::string_view> embedded(std::string_view name) {
  for (size_t i = 0; i < builtin_data::kEntryCount; ++i) {
    const builtin_data::Entry& e = builtin_data::kEntries[i];
    if (name == e.name) return std::string_view(reinterpret_cast<const char*>(e.data), e.size);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string_view> builtin_template(std::string_view architecture) {
  // general.architecture values that share a template.
  if (architecture == "gemma3" || architecture == "gemma3_text") return embedded("gemma3");
  if (architecture == "chatml") return embedded("chatml");
  return std::nullopt;
}

}  // namespace zen::tmpl
