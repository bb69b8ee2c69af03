#include "mcp/tool_hub.h"

#include <algorithm>
#include <regex>
#include <sstream>
#include <thread>

#include <zen/plugin.hpp>

#include "mcp/http_transport.h"
#include "mcp/session.h"
#include "mcp/stdio_transport.h"
#include "mcp/tool_result.h"

namespace zen::mcp {

namespace {

using nlohmann::json;

constexpr size_t kMaxExposedName = 64;  // OpenAI's limit on a function name

std::string seconds_text(std::chrono::milliseconds ms) {
  std::ostringstream out;
  out << static_cast<double>(ms.count()) / 1000.0 << " s";
  return out.str();
}

// Why an exposed name cannot be used, or "" when it can.
std::string exposed_name_problem(const std::string& name) {
  static const std::regex allowed("[A-Za-z0-9_-]+");
  if (name.size() > kMaxExposedName)
    return "is longer than " + std::to_string(kMaxExposedName) + " characters";
  if (!std::regex_match(name, allowed)) return "has characters outside [A-Za-z0-9_-]";
  return "";
}

// "mcp server 'x' exited (status 2)" -> "exited (status 2)", for "mcp server 'x' left out: ...".
std::string without_server_name(const std::string& reason, const std::string& server) {
  const std::string prefix = "mcp server '" + server + "'";
  if (reason.rfind(prefix, 0) != 0) return reason;
  std::string rest = reason.substr(prefix.size());
  if (rest.rfind(": ", 0) == 0) rest.erase(0, 2);
  if (rest.rfind(' ', 0) == 0) rest.erase(0, 1);
  return rest;
}

std::string exposed_name(const std::string& server, const std::string& tool) {
  return server + "__" + tool;
}

// Whose requests get a server's tools, for its "ready" line.
std::string offered_to_text(const ServerConfig& config) {
  if (config.all_models) return "for every model";
  if (config.models.empty()) return "for no model (its \"models\" names none)";
  std::string out = "for model";
  if (config.models.size() > 1) out += "s";
  for (size_t i = 0; i < config.models.size(); ++i)
    out += (i ? ", '" : " '") + config.models[i] + "'";
  return out;
}

}  // namespace

struct ToolHub::Server {
  ServerConfig config;
  std::mutex mutex;                  // guards everything below
  std::shared_ptr<Session> session;  // null while down
  std::vector<ToolInfo> tools;       // allowed tools with usable exposed names
  bool listed = false;               // came up once: its tools are offered from then on
  Clock::time_point last_start{};
};

std::shared_ptr<ToolHub> ToolHub::start(const std::filesystem::path& config, LogFn log) {
  return start(load_config(config), std::move(log));
}

std::shared_ptr<ToolHub> ToolHub::start(Config config, LogFn log) {
  std::shared_ptr<ToolHub> hub(new ToolHub(std::move(config), std::move(log)));
  // Servers start in parallel: connect_timeout_s bounds the whole startup, not each server.
  std::vector<std::thread> starting;
  for (auto& server : hub->servers_) {
    starting.emplace_back([&hub, &server] {
      std::lock_guard lock(server->mutex);
      hub->connect(*server);
    });
  }
  for (auto& thread : starting) thread.join();
  hub->publish_tools();
  return hub;
}

ToolHub::ToolHub(Config config, LogFn log)
    : config_(std::move(config)), slots_(config_.max_concurrent_calls) {
  // Transports log from their reader threads: one line at a time reaches `log`.
  auto mutex = std::make_shared<std::mutex>();
  log_ = [mutex, log = std::move(log)](const std::string& line) {
    std::lock_guard lock(*mutex);
    if (log) log(line);
  };
  for (const auto& server_config : config_.servers) {
    auto server = std::make_unique<Server>();
    server->config = server_config;
    servers_.push_back(std::move(server));
  }
}

ToolHub::~ToolHub() { stop(); }

// Starts (or restarts) one server: transport, initialize, tools/list. Called with its mutex
// held. Failures are logged; the server stays down.
void ToolHub::connect(Server& server) {
  const ServerConfig& config = server.config;
  server.last_start = Clock::now();
  CallControl control = CallControl::within(config_.connect_timeout, &stopping_);
  try {
    std::unique_ptr<Transport> transport;
    if (config.is_stdio())
      transport = std::make_unique<StdioTransport>(config, log_);
    else
      transport = std::make_unique<HttpTransport>(config, config_.connect_timeout);
    auto session = std::make_shared<Session>(config.name, std::move(transport));
    session->initialize(control);
    std::vector<ToolInfo> listed = session->list_tools(control);

    std::vector<ToolInfo> tools;
    for (const auto& tool : listed) {
      if (!config.allows(tool.name)) continue;
      std::string name = exposed_name(config.name, tool.name);
      if (std::string problem = exposed_name_problem(name); !problem.empty()) {
        log_("mcp server '" + config.name + "': tool '" + tool.name + "' skipped: '" + name + "' " +
             problem);
        continue;
      }
      tools.push_back(tool);
    }
    for (const auto& wanted : config.tools) {
      bool offered = std::any_of(listed.begin(), listed.end(),
                                 [&](const ToolInfo& t) { return t.name == wanted; });
      if (!offered)
        log_("mcp server '" + config.name + "': allowed tool '" + wanted +
             "' is not offered by the server");
    }
    log_("mcp server '" + config.name + "' ready: " + std::to_string(tools.size()) + " of " +
         std::to_string(listed.size()) + " tools (" + (config.is_stdio() ? "stdio" : config.url) +
         ", protocol " + session->protocol_version() + "), " + offered_to_text(config));
    server.session = std::move(session);
    server.tools = std::move(tools);
    server.listed = true;
  } catch (const CallAbandoned&) {
    log_("mcp server '" + config.name + "' left out: not ready within " +
         seconds_text(config_.connect_timeout) + " (connect_timeout_s)");
  } catch (const std::exception& e) {
    log_("mcp server '" + config.name +
         "' left out: " + without_server_name(e.what(), config.name));
  }
}

void ToolHub::publish_tools() {
  std::map<std::string, Exposed, std::less<>> exposed;
  std::vector<Offered> offered;
  for (auto& server : servers_) {
    std::lock_guard lock(server->mutex);
    if (!server->listed) continue;
    for (const auto& tool : server->tools) {
      std::string name = exposed_name(server->config.name, tool.name);
      exposed[name] = {server.get(), tool.name};
      offered.push_back({server.get(),
                         {{"type", "function"},
                          {"function",
                           {{"name", name},
                            {"description", tool.description},
                            {"parameters", tool.input_schema}}}}});
    }
  }
  std::lock_guard lock(tools_mutex_);
  exposed_ = std::move(exposed);
  offered_ = std::move(offered);
}

json ToolHub::openai_tools() const {
  std::lock_guard lock(tools_mutex_);
  json tools = json::array();
  for (const Offered& o : offered_) tools.push_back(o.tool);
  return tools;
}

// A server's config never changes after start: offered_to() needs no server lock.
json ToolHub::openai_tools(std::string_view model) const {
  std::lock_guard lock(tools_mutex_);
  json tools = json::array();
  for (const Offered& o : offered_)
    if (o.server->config.offered_to(model)) tools.push_back(o.tool);
  return tools;
}

bool ToolHub::owns(std::string_view exposed_name) const {
  std::lock_guard lock(tools_mutex_);
  return exposed_.find(exposed_name) != exposed_.end();
}

bool ToolHub::owns(std::string_view exposed_name, std::string_view model) const {
  std::lock_guard lock(tools_mutex_);
  auto it = exposed_.find(exposed_name);
  return it != exposed_.end() && it->second.server->config.offered_to(model);
}

// The server's live session, restarting a dead stdio server if its last start is at least
// restart_interval ago. Null with `why_not` set when there is none.
std::shared_ptr<Session> ToolHub::session_for_call(Server& server, std::string& why_not) {
  bool restarted = false;
  {
    std::lock_guard lock(server.mutex);
    const std::string& name = server.config.name;
    if (server.session && server.session->alive()) return server.session;
    if (stopping_) {
      why_not = "mcp tool hub is stopped";
      return nullptr;
    }
    auto since_start = Clock::now() - server.last_start;
    if (since_start < config_.restart_interval) {
      auto wait = std::chrono::ceil<std::chrono::seconds>(config_.restart_interval - since_start);
      why_not = "mcp server '" + name + "' is not running (next restart attempt in " +
                std::to_string(wait.count()) + " s)";
      return nullptr;
    }
    log_("mcp server '" + name +
         "' is not running: " + (server.config.is_stdio() ? "restarting it" : "reconnecting"));
    if (server.session) server.session->close();
    server.session.reset();
    connect(server);
    if (!server.session) {
      why_not = "mcp server '" + name + "' is not running (restart failed, see the log)";
      return nullptr;
    }
    restarted = true;
  }
  if (restarted) publish_tools();  // its tool list may have changed
  std::lock_guard lock(server.mutex);
  return server.session;
}

json ToolHub::call_on_session(Server& server, const std::string& tool, const json& arguments,
                              const CallControl& control) {
  std::string why_not;
  std::shared_ptr<Session> session = session_for_call(server, why_not);
  if (!session) throw CallError(why_not);
  return session->call_tool(tool, arguments, control);
}

ToolCallResult ToolHub::call(std::string_view exposed_name, const json& arguments,
                             const std::atomic<bool>* cancelled) {
  const std::string name(exposed_name);
  Exposed target;
  {
    std::lock_guard lock(tools_mutex_);
    auto it = exposed_.find(exposed_name);
    if (it == exposed_.end()) return {"unknown mcp tool '" + name + "'", true};
    target = it->second;
  }
  if (!arguments.is_null() && !arguments.is_object())
    return {"mcp tool '" + name + "': arguments must be a JSON object", true};

  if (!slots_.acquire(cancelled, stopping_))
    return stopping_ ? ToolCallResult{"mcp tool hub is stopped", true}
                     : ToolCallResult{"cancelled", true};
  SlotGuard slot(slots_);

  const json& args = arguments.is_null() ? json::object() : arguments;
  CallControl control = CallControl::within(config_.call_timeout, cancelled);
  try {
    json result;
    try {
      result = call_on_session(*target.server, target.tool, args, control);
    } catch (const SessionExpired&) {
      // The HTTP server forgot the session (it restarted): the call was not run; once more
      // on a new session.
      result = call_on_session(*target.server, target.tool, args, control);
    }
    FlatResult flat = flatten_tool_result(result);
    return {std::move(flat.text), flat.is_error};
  } catch (const CallAbandoned& e) {
    if (e.reason == CallAbandoned::Reason::cancelled) return {"cancelled", true};
    return {"mcp tool '" + name + "' timed out after " + seconds_text(config_.call_timeout), true};
  } catch (const RpcError& e) {
    return {"mcp tool '" + name + "' failed: " + e.what(), true};
  } catch (const CallError& e) {
    return {e.what(), true};
  } catch (const std::exception& e) {
    return {"mcp tool '" + name + "' failed: " + e.what(), true};
  }
}

void ToolHub::stop() {
  if (stopping_.exchange(true)) return;
  // Closing fails the calls still waiting on a session, so they return promptly.
  for (auto& server : servers_) {
    std::shared_ptr<Session> session;
    {
      std::lock_guard lock(server->mutex);
      session = std::move(server->session);
    }
    if (session) session->close();
  }
}

}  // namespace zen::mcp
