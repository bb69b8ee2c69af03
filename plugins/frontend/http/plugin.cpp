// The http frontend's entry points: zen_frontend_v1.start/stop over zen::http::Server.
#include <zen/frontend.h>
#include <zen/plugin.hpp>

#include <cstring>
#include <memory>
#include <stdexcept>

#include "http_config.h"
#include "server.h"

struct zen_frontend {
  std::unique_ptr<zen::http::Server> server;
};

namespace {

zen_status start(const zen_engine_api* api, zen_engine* engine, const char* config_json,
                 zen_frontend** out, char* err, size_t err_len) {
  try {
    if (!out) throw std::invalid_argument("no place for the frontend handle");
    auto config = zen::http::parse_http_config(config_json ? config_json : "");
    auto server =
        std::make_unique<zen::http::Server>(std::move(config), zen::http::EngineApi(api, engine));
    server->start();
    *out = new zen_frontend{std::move(server)};
    return ZEN_OK;
  } catch (const std::invalid_argument& e) {
    zen::write_reason(err, err_len, std::string("http: ") + e.what());
    return ZEN_ERR_INVALID_ARG;
  } catch (const std::exception& e) {
    zen::write_reason(err, err_len, std::string("http: ") + e.what());
    return ZEN_ERR_IO;
  }
}

zen_status address(zen_frontend* fe, char* out, size_t out_len) {
  const std::string url =
      fe ? std::string(fe->server->scheme()) + "://" + fe->server->address() : std::string();
  if (url.empty() || !out || out_len <= url.size()) return ZEN_ERR_INVALID_ARG;
  std::memcpy(out, url.c_str(), url.size() + 1);
  return ZEN_OK;
}

void stop(zen_frontend* fe) {
  if (!fe) return;
  fe->server->stop();
  delete fe;
}

const zen_frontend_v1 kFrontendTable = {ZEN_HDR_INIT(zen_frontend_v1), start, stop, address};

}  // namespace

ZEN_DEFINE_PLUGIN(ZEN_KIND_FRONTEND, "http", "0.1.0", nullptr, &kFrontendTable, 1u, (void)0)
