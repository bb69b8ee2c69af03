// store::http_request as the MCP HTTP transport uses it (methods other than GET, a request
// body, redirects of a POST, the abort hook), against a loopback server in Python's standard
// library. `pull` covers the GET side (tests/integration/test_store.py).
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include <zen/plugin.hpp>

#include "mcp/child_process.h"
#include "store/http_client.h"

namespace zen::store {
namespace {

// Answers "<METHOD> <path> <body>"; /307 and /303 redirect to /echo; /slow waits 5 s.
constexpr const char* kServer = R"(
import http.server, sys, time
class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args): pass
    def answer(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        if self.path in ("/307", "/303"):
            self.send_response(int(self.path[1:]))
            self.send_header("Location", "/echo")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.path == "/slow":
            time.sleep(5)
        text = f"{self.command} {self.path} {body}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)
    do_GET = do_POST = do_DELETE = answer
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], file=sys.stderr, flush=True)
server.serve_forever()
)";

class HttpRequest : public ::testing::Test {
 protected:
  void SetUp() override {
    script_ = std::filesystem::temp_directory_path() /
              ("zen-http-request-test-" + std::to_string(::getpid()) + ".py");
    std::ofstream(script_) << kServer;
    server_ = std::make_unique<mcp::ChildProcess>(
        mcp::ChildSpec{"python3", {script_.string()}, {}, std::nullopt, {}});
    std::string port;
    char c;
    pollfd fd{server_->stderr_fd(), POLLIN, 0};
    while (::poll(&fd, 1, 30000) > 0 && ::read(server_->stderr_fd(), &c, 1) == 1 && c != '\n')
      port += c;
    ASSERT_FALSE(port.empty()) << "the Python HTTP server did not start";
    base_ = "http://127.0.0.1:" + port;
  }
  void TearDown() override {
    if (server_) server_->terminate(std::chrono::milliseconds(100));
    std::filesystem::remove(script_);
  }

  // The status and body of one request.
  std::pair<unsigned, std::string> request(const std::string& method, const std::string& path,
                                           const std::string& body, HttpOptions options = {}) {
    unsigned status = 0;
    std::string received;
    http_request(
        method, parse_url(base_ + path), {{"Content-Type", "text/plain"}}, body, options,
        [&](const Response& r) {
          status = r.status;
          return true;
        },
        [&](std::span<const char> bytes) { received.append(bytes.data(), bytes.size()); });
    return {status, received};
  }

  std::filesystem::path script_;
  std::unique_ptr<mcp::ChildProcess> server_;
  std::string base_;
};

TEST_F(HttpRequest, SendsTheMethodAndTheBody) {
  EXPECT_EQ(request("POST", "/echo", "{\"x\": 1}"),
            std::make_pair(200u, std::string("POST /echo {\"x\": 1}")));
  EXPECT_EQ(request("DELETE", "/echo", ""), std::make_pair(200u, std::string("DELETE /echo ")));
  EXPECT_EQ(request("GET", "/echo", ""), std::make_pair(200u, std::string("GET /echo ")));
}

TEST_F(HttpRequest, A307RepeatsThePostAndA303TurnsItIntoAGet) {
  EXPECT_EQ(request("POST", "/307", "payload"),
            std::make_pair(200u, std::string("POST /echo payload")));
  EXPECT_EQ(request("POST", "/303", "payload"), std::make_pair(200u, std::string("GET /echo ")));
}

TEST_F(HttpRequest, ShouldAbortAbandonsARequestPromptly) {
  HttpOptions options;
  auto start = std::chrono::steady_clock::now();
  options.should_abort = [&] {
    return std::chrono::steady_clock::now() - start > std::chrono::milliseconds(300);
  };
  try {
    request("GET", "/slow", "", options);
    FAIL() << "not abandoned";
  } catch (const Error& e) {
    EXPECT_EQ(e.status, ZEN_ERR_CANCELLED);
    EXPECT_EQ(e.message, "GET " + base_ + "/slow abandoned");
  }
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took.count(), 2.0);
  // A request that finishes is not held up by the abort poll.
  options.should_abort = [] { return false; };
  EXPECT_EQ(request("GET", "/echo", "", options).first, 200u);
}

}  // namespace
}  // namespace zen::store
