#include "args.h"

#include "error.h"

namespace zen::tmpl {

ArgReader::ArgReader(std::string_view function, const CallArgs& args,
                     std::initializer_list<std::string_view> params)
    : bound_(params.size(), nullptr) {
  std::vector<std::string_view> names(params);
  if (args.positional.size() > names.size())
    throw Failure(std::string(function) + "() takes at most " + std::to_string(names.size()) +
                  " argument(s) (" + std::to_string(args.positional.size()) + " given)");
  for (size_t i = 0; i < args.positional.size(); ++i) bound_[i] = &args.positional[i];
  for (const auto& [key, value] : args.named) {
    size_t i = 0;
    while (i < names.size() && names[i] != key) ++i;
    if (i == names.size())
      throw Failure(std::string(function) + "() got an unexpected keyword argument '" + key + "'");
    if (bound_[i])
      throw Failure(std::string(function) + "() got multiple values for argument '" + key + "'");
    bound_[i] = &value;
  }
}

int64_t int_arg(const Value& v, std::string_view what) {
  if (v.is_integral()) return v.as_int();
  require_defined(v);
  throw Failure(std::string(what) + ": '" + type_name(v) +
                "' object cannot be interpreted as an integer");
}

const std::string& string_arg(const Value& v, std::string_view what) {
  if (v.is_string()) return v.as_string();
  require_defined(v);
  throw Failure(std::string(what) + " must be str, not " + type_name(v));
}

}  // namespace zen::tmpl
