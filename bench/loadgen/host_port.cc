#include "bench/loadgen/host_port.h"

#include <charconv>

namespace wirebench {

Status ParseHostPort(const std::string& s, std::string* host, uint16_t* port,
                     const std::string& flag) {
  const Status bad = Status::InvalidArgument(
      flag + " must be HOST:PORT or [IPV6]:PORT (e.g. 127.0.0.1:16020 or [::1]:16020), got '" + s +
      "'");
  size_t colon;
  if (!s.empty() && s[0] == '[') {
    const size_t close = s.find(']');
    if (close == std::string::npos || close + 1 >= s.size() || s[close + 1] != ':' || close == 1)
      return bad;
    *host = s.substr(1, close - 1);
    colon = close + 1;
  } else {
    colon = s.rfind(':');
    if (colon == std::string::npos || colon == 0) return bad;
    *host = s.substr(0, colon);
    if (host->find(':') != std::string::npos) return bad;  // Bare IPv6 needs brackets.
  }
  const std::string port_text = s.substr(colon + 1);
  int p = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), p);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() ||
      p < 1 || p > 65535)
    return Status::InvalidArgument(flag + " port must be 1-65535, got '" + s + "'");
  *port = uint16_t(p);
  return Status::Ok();
}

}  // namespace wirebench
