// The mcp frontend's entry points: zen_frontend_v1.start/stop/address over the streamable HTTP
// transport (default) or the stdio transport ({"transport": "stdio"}).
#include <signal.h>
#include <unistd.h>

#include <zen/frontend.h>
#include <zen/plugin.hpp>

#include <cstring>
#include <memory>
#include <stdexcept>

#include "http_transport.h"
#include "mcp_config.h"
#include "stdio_transport.h"

struct zen_frontend {
  std::unique_ptr<zen::mcp_server::HttpTransport> http;
  std::unique_ptr<zen::mcp_server::StdioTransport> stdio;
};

namespace {

using zen::mcp_server::McpConfig;

// The client closed stdin: the process has nobody left to serve. SIGTERM is what a host
// already handles as "stop" (zen-engine takes it with sigwait), so stdin EOF ends the process
// the same orderly way a signal would.
void end_process() { kill(getpid(), SIGTERM); }

zen_status start(const zen_engine_api* api, zen_engine* engine, const char* config_json,
                 zen_frontend** out, char* err, size_t err_len) {
  try {
    if (!out) throw std::invalid_argument("no place for the frontend handle");
    McpConfig config = zen::mcp_server::parse_mcp_config(config_json ? config_json : "");
    const zen::mcp_server::EngineApi engine_api(api, engine);
    auto fe = std::make_unique<zen_frontend>();
    if (config.transport == McpConfig::Transport::kStdio) {
      fe->stdio = std::make_unique<zen::mcp_server::StdioTransport>(
          engine_api, STDIN_FILENO, config.output_fd, config.max_body_bytes, end_process);
      fe->stdio->start();
    } else {
      fe->http = std::make_unique<zen::mcp_server::HttpTransport>(std::move(config), engine_api);
      fe->http->start();
    }
    *out = fe.release();
    return ZEN_OK;
  } catch (const std::invalid_argument& e) {
    zen::write_reason(err, err_len, std::string("mcp: ") + e.what());
    return ZEN_ERR_INVALID_ARG;
  } catch (const std::exception& e) {
    zen::write_reason(err, err_len, std::string("mcp: ") + e.what());
    return ZEN_ERR_IO;
  }
}

zen_status address(zen_frontend* fe, char* out, size_t out_len) {
  if (!fe) return ZEN_ERR_INVALID_ARG;
  const std::string where = fe->http ? fe->http->url() : std::string("stdio");
  if (!out || out_len <= where.size()) return ZEN_ERR_INVALID_ARG;
  std::memcpy(out, where.c_str(), where.size() + 1);
  return ZEN_OK;
}

void stop(zen_frontend* fe) {
  if (!fe) return;
  if (fe->http) fe->http->stop();
  if (fe->stdio) fe->stdio->stop();
  delete fe;
}

const zen_frontend_v1 kFrontendTable = {ZEN_HDR_INIT(zen_frontend_v1), start, stop, address};

}  // namespace

ZEN_DEFINE_PLUGIN(ZEN_KIND_FRONTEND, "mcp", zen::mcp_server::kServerVersion, nullptr,
                  &kFrontendTable, 1u, (void)0)
