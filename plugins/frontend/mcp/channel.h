// Where the answer to one incoming request goes, and the notifications that belong to it
// (progress). Implemented by each transport; callable from any thread, including an engine
// thread, so implementations only queue and never block.
#pragma once

#include "jsonrpc.h"

namespace zen::mcp_server {

class Channel {
 public:
  virtual ~Channel() = default;
  virtual void notify(const Json& notification) = 0;  // zero or more, before the answer
  virtual void answer(const Json& response) = 0;      // exactly once per request
};

}  // namespace zen::mcp_server
