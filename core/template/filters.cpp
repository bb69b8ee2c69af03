#include "filters.h"

#include <unordered_map>

#include "error.h"
#include "filters_impl.h"

namespace zen::tmpl {
namespace {

using FilterFn = Value (*)(Interpreter&, const Value&, const CallArgs&);

const std::unordered_map<std::string_view, FilterFn>& registry() {
  using namespace filters;
  static const std::unordered_map<std::string_view, FilterFn> table = {
      {"abs", f_abs},
      {"attr", f_attr},
      {"batch", f_batch},
      {"capitalize", f_capitalize},
      {"center", f_center},
      {"count", f_length},
      {"d", f_default},
      {"default", f_default},
      {"dictsort", f_dictsort},
      {"e", f_escape},
      {"escape", f_escape},
      {"filesizeformat", f_unsupported},
      {"first", f_first},
      {"float", f_float},
      {"forceescape", f_forceescape},
      {"format", f_format},
      {"groupby", f_groupby},
      {"indent", f_indent},
      {"int", f_int},
      {"items", f_items},
      {"join", f_join},
      {"last", f_last},
      {"length", f_length},
      {"list", f_list},
      {"lower", f_lower},
      {"map", f_map},
      {"max", f_max},
      {"min", f_min},
      {"pprint", f_unsupported},
      {"random", f_unsupported},
      {"reject", f_reject},
      {"rejectattr", f_rejectattr},
      {"replace", f_replace},
      {"reverse", f_reverse},
      {"round", f_round},
      {"safe", f_safe},
      {"select", f_select},
      {"selectattr", f_selectattr},
      {"slice", f_slice},
      {"sort", f_sort},
      {"string", f_string},
      {"striptags", f_striptags},
      {"sum", f_sum},
      {"title", f_title},
      {"tojson", f_tojson},
      {"trim", f_trim},
      {"truncate", f_truncate},
      {"unique", f_unique},
      {"upper", f_upper},
      {"urlencode", f_unsupported},
      {"urlize", f_unsupported},
      {"wordcount", f_wordcount},
      {"wordwrap", f_unsupported},
      {"xmlattr", f_unsupported},
  };
  return table;
}

}  // namespace

bool has_filter(std::string_view name) { return registry().count(name) != 0; }

Value run_filter(Interpreter& interp, std::string_view name, const Value& input,
                 const CallArgs& args) {
  auto it = registry().find(name);
  if (it == registry().end()) throw Failure("no filter named '" + std::string(name) + "'");
  if (it->second == filters::f_unsupported)
    throw Failure("filter '" + std::string(name) + "' is not supported by the template engine");
  return it->second(interp, input, args);
}

}  // namespace zen::tmpl
