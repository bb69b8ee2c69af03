#include "stdio_transport.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace zen::mcp_server {
namespace {

// How often the reader looks up from a quiet stdin to see whether it should stop.
constexpr int kPollMillis = 100;
constexpr auto kDrainTimeout = std::chrono::seconds(10);

// stdio has one stream for everything, so a request's answer and notifications share it.
class LineChannel : public Channel {
 public:
  explicit LineChannel(std::shared_ptr<LineOutbox> outbox) : outbox_(std::move(outbox)) {}
  void notify(const Json& notification) override { outbox_->push(dump(notification)); }
  void answer(const Json& response) override { outbox_->push(dump(response)); }

 private:
  std::shared_ptr<LineOutbox> outbox_;
};

bool write_all(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

void LineOutbox::push(std::string line) {
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    lines_.push_back(std::move(line));
  }
  ready_.notify_one();
}

std::optional<std::string> LineOutbox::pop() {
  std::unique_lock lock(mutex_);
  ready_.wait(lock, [&] { return closed_ || !lines_.empty(); });
  if (lines_.empty()) return std::nullopt;
  std::string line = std::move(lines_.front());
  lines_.pop_front();
  return line;
}

void LineOutbox::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  ready_.notify_all();
}

StdioTransport::StdioTransport(EngineApi api, int in_fd, int out_fd, uint64_t max_line_bytes,
                               std::function<void()> on_eof)
    : pending_(std::make_shared<frontend::Inflight>()),
      protocol_(api, pending_),
      in_fd_(in_fd),
      out_fd_(out_fd),
      max_line_bytes_(max_line_bytes),
      on_eof_(std::move(on_eof)),
      outbox_(std::make_shared<LineOutbox>()),
      channel_(std::make_shared<LineChannel>(outbox_)) {}

StdioTransport::~StdioTransport() { stop(); }

void StdioTransport::start() {
  writer_ = std::thread([this] { write_loop(); });
  reader_ = std::thread([this] { read_loop(); });
}

void StdioTransport::stop() {
  if (stopped_) return;
  stopped_ = true;
  stopping_ = true;
  if (reader_.joinable()) reader_.join();
  protocol_.cancel_all();
  if (!pending_->wait_idle(kDrainTimeout))
    std::fprintf(stderr, "mcp: the engine did not finish cancelled requests in time\n");
  outbox_->close();  // the writer flushes what is queued, then ends
  if (writer_.joinable()) writer_.join();
}

void StdioTransport::read_loop() {
  std::string pending;
  bool discarding = false;  // inside a line that exceeded the limit
  char buf[65536];
  while (!stopping_) {
    pollfd p{in_fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, kPollMillis);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = ::read(in_fd_, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;  // EOF: the client closed its end
    for (ssize_t i = 0; i < n; ++i) {
      const char c = buf[i];
      if (c != '\n') {
        if (!discarding) pending.push_back(c);
        if (!discarding && pending.size() > max_line_bytes_) {
          discarding = true;
          pending.clear();
          outbox_->push(dump(
              jsonrpc::error(nullptr, jsonrpc::kInvalidRequest,
                             "the message exceeds " + std::to_string(max_line_bytes_) + " bytes")));
        }
        continue;
      }
      if (!discarding) on_line(pending);
      pending.clear();
      discarding = false;
    }
  }
  if (stopping_) return;
  // stdin ended: no more requests. Generations already asked for finish and their answers go
  // out (`printf REQUESTS | zen-engine mcp` gets every answer), unless stop() comes first.
  while (!stopping_ && !pending_->wait_idle(std::chrono::milliseconds(kPollMillis))) {
  }
  if (!stopping_ && on_eof_) on_eof_();
}

void StdioTransport::on_line(const std::string& line) {
  if (!line.empty() && line.back() == '\r') return on_line(line.substr(0, line.size() - 1));
  if (line.find_first_not_of(" \t") == std::string::npos) return;  // blank lines carry nothing
  try {
    protocol_.handle(parse_message(line), channel_);
  } catch (const RpcError& e) {
    outbox_->push(dump(error_response(e.id, e)));
  }
}

void StdioTransport::write_loop() {
  while (std::optional<std::string> line = outbox_->pop()) {
    line->push_back('\n');
    if (!write_all(out_fd_, *line)) return;  // the reader is gone; nothing else to do
  }
}

}  // namespace zen::mcp_server
