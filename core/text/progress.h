// Progress of a long byte-counted job (a download, in-situ quantization) on stderr: a bar
// redrawn in place (bytes, %, MB/s) on a terminal, one plain line per 10% otherwise (logs and
// CI output stay short and readable).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace zen::text {

// "241.4 MiB", "12 B".
std::string format_bytes(uint64_t bytes);

class Progress {
 public:
  // `interactive`: redraw one line with \r (stderr is a TTY) instead of printing lines.
  Progress(std::ostream& out, std::string label, bool interactive);

  // A (re)started transfer: `done` bytes already present, `total` when the size is known.
  void start(uint64_t done, std::optional<uint64_t> total);
  void update(uint64_t done);
  // Ends the bar's line (a final redraw at 100% when interactive).
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  std::string line(uint64_t done) const;
  double rate(uint64_t done) const;  // bytes/s fetched since start()

  std::ostream& out_;
  std::string label_;
  bool interactive_;
  std::optional<uint64_t> total_;
  uint64_t start_bytes_ = 0, done_ = 0;
  Clock::time_point start_time_, last_draw_;
  int last_decile_ = -1;
  uint64_t last_line_bytes_ = 0;
  bool drawn_ = false;
};

}  // namespace zen::text
