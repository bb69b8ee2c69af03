#include "utf8_text.h"

#include "text/utf8.h"

namespace zen::serving {

std::string valid_utf8(std::string_view bytes) {
  namespace utf8 = text::utf8;
  std::string out;
  out.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size();) {
    const utf8::Step step = utf8::next_strict(bytes, i);
    if (step.status == utf8::Status::kComplete)
      out.append(bytes.substr(i, step.length));
    else
      utf8::append(out, 0xFFFD);
    i += step.length > 0 ? step.length : 1;
  }
  return out;
}

}  // namespace zen::serving
