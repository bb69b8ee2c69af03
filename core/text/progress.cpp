#include "text/progress.h"

#include <algorithm>
#include <cstdio>

namespace zen::text {

namespace {

// Without a known size, a plain line every this many bytes.
constexpr uint64_t kUnknownSizeLineBytes = 64ull << 20;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);

}  // namespace

std::string format_bytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else
    std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[u]);
  return buf;
}

Progress::Progress(std::ostream& out, std::string label, bool interactive)
    : out_(out), label_(std::move(label)), interactive_(interactive) {}

void Progress::start(uint64_t done, std::optional<uint64_t> total) {
  total_ = total;
  start_bytes_ = done_ = last_line_bytes_ = done;
  start_time_ = last_draw_ = Clock::now();
  last_decile_ = total_ && *total_ > 0 ? static_cast<int>(done * 10 / *total_) : -1;
  if (done > 0) {
    if (drawn_ && interactive_) out_ << "\n";
    out_ << label_ << ": resuming at " << format_bytes(done) << "\n";
    drawn_ = false;
  }
}

double Progress::rate(uint64_t done) const {
  double seconds = std::chrono::duration<double>(Clock::now() - start_time_).count();
  return seconds > 0 ? static_cast<double>(done - start_bytes_) / seconds : 0.0;
}

std::string Progress::line(uint64_t done) const {
  char buf[160];
  double mbps = rate(done) / 1e6;
  if (total_ && *total_ > 0) {
    int pct = static_cast<int>(std::min<uint64_t>(done * 100 / *total_, 100));
    std::snprintf(buf, sizeof buf, "%s / %s  %3d%%  %.1f MB/s", format_bytes(done).c_str(),
                  format_bytes(*total_).c_str(), pct, mbps);
  } else {
    std::snprintf(buf, sizeof buf, "%s  %.1f MB/s", format_bytes(done).c_str(), mbps);
  }
  return label_ + ": " + buf;
}

void Progress::update(uint64_t done) {
  done_ = done;
  if (interactive_) {
    auto now = Clock::now();
    if (drawn_ && now - last_draw_ < kRedrawInterval) return;
    last_draw_ = now;
    out_ << "\r" << line(done) << "\x1b[K" << std::flush;
    drawn_ = true;
    return;
  }
  if (total_ && *total_ > 0) {
    int decile = static_cast<int>(std::min<uint64_t>(done * 10 / *total_, 10));
    if (decile <= last_decile_) return;
    last_decile_ = decile;
  } else {
    if (done - last_line_bytes_ < kUnknownSizeLineBytes) return;
    last_line_bytes_ = done;
  }
  out_ << line(done) << "\n" << std::flush;
}

void Progress::finish() {
  if (interactive_) {
    out_ << "\r" << line(done_) << "\x1b[K\n" << std::flush;
    drawn_ = false;
  } else if (!total_ || last_decile_ < 10) {
    out_ << line(done_) << "\n" << std::flush;
  }
}

}  // namespace zen::text
