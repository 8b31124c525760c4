// rpc/write_loop.h's tagged operations (AsyncReadSome, AsyncWriteAll,
// AsyncWaitTimer): the network core's reads, writes and waits go through
// them so that its Asio code is its own copy. They must behave as
// `op(..., as_tuple(use_awaitable))` does: the same results, and the
// coroutine's cancellation slot reaching the operation (the handler wrapper
// forwards its associators).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include <boost/asio.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>

#include "rpc/write_loop.h"

namespace wirebench::rpc {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using namespace asio::experimental::awaitable_operators;

struct TestTag {};

// A connected pair of loopback sockets on `ctx`.
void Connect(asio::io_context& ctx, tcp::socket* a, tcp::socket* b) {
  tcp::acceptor acceptor(ctx, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  a->connect(acceptor.local_endpoint());
  acceptor.accept(*b);
}

TEST(NetServerTaggedIo, WriteAllAndReadSomeCarryEveryByteThenEof) {
  asio::io_context ctx;
  tcp::socket a(ctx), b(ctx);
  Connect(ctx, &a, &b);
  std::string sent(300 * 1024, '\0');
  for (size_t i = 0; i < sent.size(); ++i) sent[i] = char(i * 7 + 1);
  boost::system::error_code write_ec, eof_ec;
  size_t written = 0;
  std::string received;
  bool done = false;
  asio::co_spawn(
      ctx,
      [&]() -> asio::awaitable<void> {
        auto [ec, n] = co_await AsyncWriteAll<TestTag>(a, asio::buffer(sent));
        write_ec = ec;
        written = n;
        a.shutdown(tcp::socket::shutdown_send);
      },
      asio::detached);
  asio::co_spawn(
      ctx,
      [&]() -> asio::awaitable<void> {
        std::vector<char> buf(16 * 1024);
        for (;;) {
          auto [ec, n] = co_await AsyncReadSome<TestTag>(b, asio::buffer(buf));
          if (ec) {
            eof_ec = ec;
            break;
          }
          received.append(buf.data(), n);
        }
        done = true;
      },
      asio::detached);
  ctx.run_for(std::chrono::seconds(20));
  ASSERT_TRUE(done) << "the reader never saw the end of the stream";
  EXPECT_FALSE(write_ec) << write_ec.message();
  EXPECT_EQ(written, sent.size());
  EXPECT_EQ(received, sent);
  EXPECT_EQ(eof_ec, asio::error::eof);
}

TEST(NetServerTaggedIo, TimerWaitEndsWithItsExpiryOrItsCancel) {
  asio::io_context ctx;
  asio::steady_timer expires(ctx), cancelled(ctx);
  boost::system::error_code expired_ec = asio::error::would_block;
  boost::system::error_code cancelled_ec;
  asio::co_spawn(
      ctx,
      [&]() -> asio::awaitable<void> {
        expires.expires_after(std::chrono::milliseconds(1));
        auto [ec] = co_await AsyncWaitTimer<TestTag>(expires);
        expired_ec = ec;
        cancelled.cancel();
      },
      asio::detached);
  asio::co_spawn(
      ctx,
      [&]() -> asio::awaitable<void> {
        cancelled.expires_at(std::chrono::steady_clock::time_point::max());
        auto [ec] = co_await AsyncWaitTimer<TestTag>(cancelled);
        cancelled_ec = ec;
      },
      asio::detached);
  ctx.run_for(std::chrono::seconds(20));
  EXPECT_FALSE(expired_ec) << expired_ec.message();
  EXPECT_EQ(cancelled_ec, asio::error::operation_aborted);
}

// The coroutine's cancellation slot reaches a tagged read: `||` cancels the
// read when the timer wins. Were the slot not forwarded, the read would wait
// for bytes that never come and the group would never finish.
TEST(NetServerTaggedIo, ReadIsCancelledThroughTheCoroutinesSlot) {
  asio::io_context ctx;
  tcp::socket a(ctx), b(ctx);
  Connect(ctx, &a, &b);
  asio::steady_timer timer(ctx);
  bool finished = false;
  bool timer_won = false;
  asio::co_spawn(
      ctx,
      [&]() -> asio::awaitable<void> {
        char buf[64];
        timer.expires_after(std::chrono::milliseconds(20));
        auto winner = co_await (AsyncReadSome<TestTag>(b, asio::buffer(buf)) ||
                                AsyncWaitTimer<TestTag>(timer));
        timer_won = winner.index() == 1;
        finished = true;
      },
      asio::detached);
  ctx.run_for(std::chrono::seconds(10));
  EXPECT_TRUE(finished) << "the read was not cancelled when the timer completed first";
  EXPECT_TRUE(timer_won);
}

}  // namespace
}  // namespace wirebench::rpc
