// An ephemeral TCP port that is free now, for `serve --port 0`: the port is chosen before the
// frontend starts so the URL printed (and read by scripts and tests) is the real one.
#pragma once

#include <cstdint>
#include <string>

namespace zen::serving {

// Binds port 0 on `host` (an address, "localhost" or "0.0.0.0"), reads the port the kernel
// gave, and releases it. Throws zen::Error naming the host when nothing can be bound.
uint16_t pick_free_port(const std::string& host);

// "http://127.0.0.1:3690", with IPv6 addresses in brackets.
std::string http_url(const std::string& host, uint16_t port);

}  // namespace zen::serving
