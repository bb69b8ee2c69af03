#include "http_shared.h"

#include <boost/asio/post.hpp>

#include <cstdio>
#include <random>

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

void PostGate::post(const boost::asio::any_io_executor& ex, std::function<void()> f) {
  std::lock_guard lock(mutex_);
  if (open_) boost::asio::post(ex, std::move(f));
}

void PostGate::close() {
  std::lock_guard lock(mutex_);
  open_ = false;
}

std::shared_ptr<Protocol> SessionTable::create(EngineApi api,
                                               std::shared_ptr<PendingRequests> pending,
                                               std::string& id) {
  std::lock_guard lock(mutex_);
  if (sessions_.size() >= capacity_) return nullptr;
  id = random_session_id();
  auto protocol = std::make_shared<Protocol>(api, std::move(pending));
  sessions_[id] = protocol;
  return protocol;
}

std::shared_ptr<Protocol> SessionTable::find(const std::string& id) const {
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
}

bool SessionTable::end(const std::string& id) {
  std::shared_ptr<Protocol> ended;
  {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return false;
    ended = std::move(it->second);
    sessions_.erase(it);
  }
  ended->cancel_all();
  return true;
}

void SessionTable::end_all() {
  std::map<std::string, std::shared_ptr<Protocol>> all;
  {
    std::lock_guard lock(mutex_);
    all.swap(sessions_);
  }
  for (auto& [id, protocol] : all) protocol->cancel_all();
}

}  // namespace zen::mcp_server
