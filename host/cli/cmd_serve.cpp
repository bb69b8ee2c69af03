// zen-engine serve -m MODEL [-m ...]: the OpenAI-compatible server, and with --mcp-port the MCP
// server on a port of its own. The frontend plugins start first (so /health and /ready answer
// at once), then the models load on a thread of their own; SIGINT/SIGTERM stop the frontends,
// then the engines, and the process exits 0.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "serve_runtime.h"

namespace zen::cli {
namespace {

struct ServeOptions {
  EngineOptions engine;
  std::vector<std::string> cors;
  std::string host = "127.0.0.1", api_key, api_key_file, ssl_cert, ssl_key;
  int port = -1;      // -1: the config's, else 3690
  int mcp_port = -1;  // -1: no MCP frontend unless the config lists it
  unsigned max_body_mb = 0;
  double header_timeout = 0;
  bool host_given = false;
};

// The key in a file (a secret store's mount, a file readable by the service only): its first
// line, surrounding whitespace trimmed. Keeps the key out of `ps` and shell history.
std::string read_key_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw po::error("--api-key-file " + path + ": cannot be read");
  std::string line;
  std::getline(in, line);
  const auto first = line.find_first_not_of(" \t\r");
  const auto last = line.find_last_not_of(" \t\r");
  if (first == std::string::npos)
    throw po::error("--api-key-file " + path + ": the first line holds no key");
  return line.substr(first, last - first + 1);
}

// --api-key, else --api-key-file, else $ZEN_API_KEY; empty when none is set.
std::string api_key(const ServeOptions& o) {
  if (!o.api_key.empty()) return o.api_key;
  if (!o.api_key_file.empty()) return read_key_file(o.api_key_file);
  const char* k = std::getenv("ZEN_API_KEY");
  return k ? k : "";
}

nlohmann::json section(const host::Config& config, const char* name) {
  if (config.raw.contains("frontend") && config.raw["frontend"].contains(name))
    return config.raw["frontend"][name];
  return nlohmann::json::object();
}

// The http frontend's config: the config file's "frontend.http" section, overridden by flags.
nlohmann::json http_config(const host::Config& config, const ServeOptions& o) {
  nlohmann::json c = section(config, "http");
  if (o.host_given || !c.contains("host")) c["host"] = o.host;
  if (o.port >= 0) c["port"] = o.port;
  if (!c.contains("port")) c["port"] = 3690;
  if (const std::string key = api_key(o); !key.empty()) c["api_key"] = key;
  if (!o.cors.empty()) c["cors_origins"] = o.cors;
  if (o.max_body_mb) c["max_body_bytes"] = uint64_t{o.max_body_mb} << 20;
  if (o.header_timeout > 0) c["header_timeout_s"] = o.header_timeout;
  if (!o.ssl_cert.empty()) c["ssl_cert"] = o.ssl_cert;
  if (!o.ssl_key.empty()) c["ssl_key"] = o.ssl_key;
  if (!c["host"].is_string() || !c["port"].is_number_integer() || c["port"].get<int>() < 0 ||
      c["port"].get<int>() > 65535)
    throw host::ConfigError("frontend.http: 'host' must be a string and 'port' 0 to 65535");
  return c;
}

// The mcp frontend's config: "frontend.mcp", with --mcp-port, --host, the API key and TLS
// applied: a key that guards the OpenAI port guards the MCP port too, and so does its
// certificate (--ssl-cert/--ssl-key, else frontend.http's pair unless frontend.mcp names one),
// so no port of a TLS server is left in clear text.
nlohmann::json mcp_config(const host::Config& config, const ServeOptions& o) {
  nlohmann::json c = section(config, "mcp");
  if (o.host_given) c["host"] = o.host;
  if (o.mcp_port >= 0) c["port"] = o.mcp_port;
  if (const std::string key = api_key(o); !key.empty() && !c.contains("api_key"))
    c["api_key"] = key;
  if (!c.contains("ssl_cert") && !c.contains("ssl_key")) {
    const nlohmann::json http = section(config, "http");
    for (const char* key : {"ssl_cert", "ssl_key"})
      if (http.contains(key)) c[key] = http[key];
  }
  if (!o.ssl_cert.empty()) c["ssl_cert"] = o.ssl_cert;
  if (!o.ssl_key.empty()) c["ssl_key"] = o.ssl_key;
  return c;
}

std::vector<serving::FrontendConfig> frontends(const host::Config& config, const ServeOptions& o) {
  std::vector<std::string> names = config.serve.frontends;
  if (o.mcp_port >= 0 && std::find(names.begin(), names.end(), "mcp") == names.end())
    names.push_back("mcp");
  std::vector<serving::FrontendConfig> out;
  for (const std::string& name : names) {
    if (name == "http")
      out.push_back({name, http_config(config, o)});
    else if (name == "mcp")
      out.push_back({name, mcp_config(config, o)});
    else
      out.push_back({name, section(config, name.c_str())});
  }
  return out;
}

}  // namespace

int cmd_serve(const Args& args, const GlobalOptions& global) {
  ServeOptions o;
  po::options_description desc("zen-engine serve options");
  add_engine_options(desc, o.engine);
  desc.add_options()("host", po::value(&o.host), "address to listen on (default 127.0.0.1)")(
      "port", po::value(&o.port), "port (default 3690; 0 = any free port)")(
      "mcp-port", po::value(&o.mcp_port),
      "also serve MCP (streamable HTTP, path /mcp) on this port (0 = any free port)")(
      "mcp-config", po::value(&o.engine.mcp_config),
      "JSON file of MCP servers whose tools the models may call (docs/MCP-CLIENT.md)")(
      "api-key", po::value(&o.api_key), "require this key (Bearer); also $ZEN_API_KEY")(
      "ssl-cert", po::value(&o.ssl_cert),
      "serve https (and MCP over TLS): PEM certificate chain file")(
      "ssl-key", po::value(&o.ssl_key), "serve https: PEM private key file of --ssl-cert")(
      "api-key-file", po::value(&o.api_key_file),
      "require the key on this file's first line (keeps it out of ps and shell history)")(
      "cors", po::value(&o.cors)->multitoken()->composing(),
      "allowed browser origins (exact, or *)")("max-body-mb", po::value(&o.max_body_mb),
                                               "largest request body in MiB (default 8)")(
      "header-timeout", po::value(&o.header_timeout), "seconds a client has to send headers")(
      "help,h", "show this help");
  auto vm = parse(args, desc);
  if (vm.count("help") || o.engine.models.empty()) {
    std::cout << "usage: zen-engine serve -m MODEL [-m MODEL ...] [--port N] [--host ADDR] "
                 "[--api-key K] [--parallel N] [--deterministic] [--mcp-port N]\n"
              << desc;
    return vm.count("help") ? 0 : 2;
  }
  note_engine_flags(vm, o.engine);
  if (!o.api_key.empty() && !o.api_key_file.empty())
    throw po::error("--api-key and --api-key-file: give one of them");
  o.host_given = vm.count("host") > 0;
  if (o.port > 65535 || (vm.count("port") && o.port < 0))
    throw po::error("--port must be from 0 to 65535");
  if (o.mcp_port > 65535 || (vm.count("mcp-port") && o.mcp_port < 0))
    throw po::error("--mcp-port must be from 0 to 65535");

  RunPlan plan;
  plan.frontends = [&](const host::Config& config) { return frontends(config, o); };
  return run_engine(global, o.engine, plan);
}

}  // namespace zen::cli
