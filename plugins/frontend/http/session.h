// One client connection of the OpenAI API server: what a request means and how it is answered
// (at once, or from engine events for generations), on the connection machinery every frontend
// shares (frontend::Connection: limits, deadlines, keep-alive, pipelining, cancel-on-
// disconnect).
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "access.h"
#include "connection.h"
#include "engine_api.h"
#include "generation.h"
#include "http_config.h"
#include "inflight.h"
#include "json_fields.h"
#include "listener.h"
#include "port.h"
#include "router.h"
#include "tls_stream.h"
#include "wire.h"

namespace zen::http {

// What every connection of one server shares (with the port's loopback, TLS and in-flight
// requests).
struct ServerShared : frontend::PortShared {
  ServerShared(HttpConfig c, EngineApi a) : config(std::move(c)), api(a) {}
  HttpConfig config;
  EngineApi api;
};

// The OpenAI API on one connection (frontend::Connection reads, writes and keeps it alive):
// the browser guards, routing, the key and the content type decide on the head; the body is
// read into a typed task (zen/task.h); a generation streams from engine events, tokenize,
// detokenize and embeddings answer from one result.
class Session : public frontend::Connection, private ResponseSink {
 public:
  Session(boost::asio::ip::tcp::socket socket, std::shared_ptr<const ServerShared> shared,
          frontend::ConnectionTicket ticket);

 private:
  // On the strand: a generation's events, or the whole answer of a tokenize, detokenize or
  // embeddings request.
  void on_engine_event(uint64_t serial, const task::GenerateEvent& event, bool last);
  void on_engine_answer(uint64_t serial, Reply reply);

  // frontend::Connection
  bool on_head(const Request& head) override;
  void on_request(const Request& request) override;
  void on_answered() override;
  void on_close() override;
  Reply failure_reply(unsigned status, const std::string& message) override;
  HeaderList common_headers() const override;

  void preflight();
  void start_generation(Api api, const frontend::Json& body);
  void start_tokenize(const frontend::Json& body, bool detokenize);
  void start_embeddings(const frontend::Json& body);
  void start_rerank(const frontend::Json& body);
  // After a submit: keeps the id to cancel with, or answers a host without the task (501).
  void submitted(const frontend::Submitted& sent, const char* missing);

  // ResponseSink
  void send_reply(Reply reply) override { respond(std::move(reply)); }
  void send_stream_head() override { open_stream(); }
  void send_stream_data(std::string sse) override { send_event(std::move(sse)); }
  void end_stream() override { frontend::Connection::end_stream(); }

  std::shared_ptr<const ServerShared> shared_;
  const HttpConfig& config_;
  std::string origin_;  // an allowed browser origin of the current request, or ""
  Route route_;

  std::unique_ptr<Generation> generation_;
  bool answer_pending_ = false;  // a tokenize, detokenize or embeddings request awaits its answer
  uint64_t serial_ = 0;
  std::optional<uint64_t> engine_id_;
};

}  // namespace zen::http
