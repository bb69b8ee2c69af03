#include "http_shared.h"

#include <boost/asio/post.hpp>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

namespace zen::mcp_server {
namespace {

// 128 random bits as hex: unguessable, visible ASCII as the spec asks of session ids.
std::string random_session_id() {
  static std::mutex mutex;
  static std::random_device device;
  std::lock_guard lock(mutex);
  std::string id;
  for (int i = 0; i < 4; ++i) {
    char part[9];
    std::snprintf(part, sizeof part, "%08x", static_cast<unsigned>(device()));
    id += part;
  }
  return id;
}

}  // namespace

std::shared_ptr<Protocol> SessionTable::create(EngineApi api,
                                               std::shared_ptr<frontend::Inflight> pending,
                                               std::string& id) {
  std::vector<std::shared_ptr<Protocol>> ended;
  std::shared_ptr<Protocol> protocol;
  {
    std::lock_guard lock(mutex_);
    const auto now = Clock::now();
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      if (now - it->second.last_used < idle_timeout_) {
        ++it;
        continue;
      }
      ended.push_back(std::move(it->second.protocol));
      it = sessions_.erase(it);
    }
    if (sessions_.size() >= capacity_) {
      auto oldest = std::min_element(
          sessions_.begin(), sessions_.end(),
          [](const auto& a, const auto& b) { return a.second.last_used < b.second.last_used; });
      ended.push_back(std::move(oldest->second.protocol));
      sessions_.erase(oldest);
    }
    id = random_session_id();
    protocol = std::make_shared<Protocol>(api, std::move(pending));
    sessions_[id] = {protocol, now};
  }
  for (auto& p : ended) p->cancel_all();  // outside the lock: it reaches the engine
  return protocol;
}

std::shared_ptr<Protocol> SessionTable::find(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return nullptr;
  it->second.last_used = Clock::now();
  return it->second.protocol;
}

bool SessionTable::end(const std::string& id) {
  std::shared_ptr<Protocol> ended;
  {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return false;
    ended = std::move(it->second.protocol);
    sessions_.erase(it);
  }
  ended->cancel_all();
  return true;
}

void SessionTable::end_all() {
  std::map<std::string, Entry> all;
  {
    std::lock_guard lock(mutex_);
    all.swap(sessions_);
  }
  for (auto& [id, entry] : all) entry.protocol->cancel_all();
}

}  // namespace zen::mcp_server
