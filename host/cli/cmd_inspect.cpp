// zen-engine inspect FILE [--json]: a GGUF file's metadata and tensor table, after full
// validation (a hostile file is refused with one clear line).
#include <iostream>

#include "gguf/gguf.h"
#include "gguf/gguf_describe.h"
#include "options.h"

namespace zen::cli {

int cmd_inspect(const Args& args, const GlobalOptions&) {
  po::options_description desc("zen-engine inspect FILE options");
  desc.add_options()("json", "print JSON")("help,h", "show this help")(
      "file", po::value<std::string>(), "GGUF file");
  po::positional_options_description pos;
  pos.add("file", 1);
  auto vm = parse(args, desc, &pos);
  if (vm.count("help") || !vm.count("file")) {
    std::cout << "usage: zen-engine inspect FILE [--json]\n" << desc;
    return vm.count("help") ? 0 : 2;
  }
  const std::string path = vm["file"].as<std::string>();
  try {
    gguf::File file = gguf::File::open(path);
    if (vm.count("json"))
      std::cout << gguf::describe_json(file).dump(2) << "\n";
    else
      gguf::describe_text(file, std::cout);
  } catch (const gguf::Error& e) {
    std::cerr << "zen-engine inspect: " << e.what() << "\n";  // what() starts with the path
    return 1;
  }
  return 0;
}

}  // namespace zen::cli
