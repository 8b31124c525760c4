#include "rpc/net_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace wirebench::rpc {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

void SocketDeadline::Arm(tcp::socket& socket) {
  state_->socket = &socket;
  timer_.expires_after(after_);
  timer_.async_wait([state = state_](const boost::system::error_code& ec) {
    if (ec || state->socket == nullptr) return;
    state->expired = true;
    boost::system::error_code ignored;
    state->socket->close(ignored);
  });
}

void SocketDeadline::Cancel() {
  state_->socket = nullptr;
  timer_.cancel();
}

std::string LossCause(const boost::system::error_code& ec) {
  return ec == asio::error::eof ? "closed by the server" : ec.message();
}

asio::awaitable<Status> Dial(tcp::socket& socket, const DialOptions& o,
                             SocketDeadline* deadline) {
  const std::string where = o.host + ":" + std::to_string(o.port);
  tcp::resolver resolver(socket.get_executor());
  auto [rec, endpoints] = co_await resolver.async_resolve(o.host, std::to_string(o.port), kNoThrow);
  if (rec) co_return Status::Unavailable("cannot resolve server " + where + ": " + rec.message());
  if (deadline != nullptr) deadline->Arm(socket);
  auto [cec, ep] = co_await asio::async_connect(socket, endpoints, kNoThrow);
  if (cec)
    co_return Status::Unavailable("cannot connect to server " + where + ": " + cec.message() +
                                  " (" + o.connect_hint + ")");
  boost::system::error_code ignored;
  if (o.tcp_nodelay) socket.set_option(tcp::no_delay(true), ignored);
  co_return Status::Ok();
}

}  // namespace wirebench::rpc
