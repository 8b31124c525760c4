#include "bench/loadgen/stats_client.h"

#include <boost/asio.hpp>
#include <future>
#include <thread>

#include "codecs/codec.h"
#include "common/calls.h"
#include "rpc/call_channel.h"

namespace wirebench {

namespace asio = boost::asio;

void StatsReplyCall::OnReply(const rpc::CallHeader& h, ByteView payload) {
  if (h.status != uint8_t(CallStatus::kOk)) {
    done.set_value(Status::Unavailable("server Stats call failed: " + payload.ToString()));
    return;
  }
  auto j = nlohmann::json::parse(payload.str(), nullptr, false);
  if (j.is_discarded()) {
    done.set_value(Status::Corruption("server Stats reply is not JSON"));
  } else {
    done.set_value(std::move(j));
  }
}

struct StatsClient::Impl {
  asio::io_context ctx;
  asio::executor_work_guard<asio::io_context::executor_type> work{ctx.get_executor()};
  std::thread thread;
  ClientEndpoint endpoint;
  std::string peer;

  ~Impl() {
    asio::post(ctx, [this] {
      if (endpoint.channel) endpoint.channel->Close();
    });
    work.reset();
    ctx.stop();
    if (thread.joinable()) thread.join();
  }

  // Runs `f` on the connection's thread and waits for it.
  template <typename F>
  void RunOn(F&& f) {
    std::promise<void> ran;
    asio::post(ctx, [&] {
      f();
      ran.set_value();
    });
    ran.get_future().wait();
  }
};

StatsClient::StatsClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StatsClient::~StatsClient() = default;

StatusOr<std::unique_ptr<StatsClient>> StatsClient::Connect(const Transport& transport,
                                                            const std::string& host,
                                                            uint16_t port,
                                                            std::chrono::seconds timeout) {
  EndpointOptions eo;
  eo.host = host;
  eo.port = port;
  // Stats is codec-independent; any codec the transport carries will do.
  bool have_codec = false;
  for (const CodecInfo* c : Codecs().all()) {
    if (transport.CheckCodec(*c).ok()) {
      eo.codec = c;
      have_codec = true;
      break;
    }
  }
  if (!have_codec)
    return Status::Internal("--rpc " + std::string(transport.name()) + " carries no codec");
  auto impl = std::make_unique<Impl>();
  impl->peer = host + ":" + std::to_string(port);
  impl->thread = std::thread([ctx = &impl->ctx] { ctx->run(); });
  auto connected = std::make_shared<std::promise<StatusOr<ClientEndpoint>>>();
  auto result = connected->get_future();
  asio::co_spawn(
      impl->ctx,
      [&transport, ctx = &impl->ctx, eo, connected]() -> asio::awaitable<void> {
        connected->set_value(co_await transport.Connect(*ctx, eo));
      },
      asio::detached);
  if (result.wait_for(timeout) != std::future_status::ready)
    return Status::Unavailable(impl->peer + " did not accept a connection within " +
                               std::to_string(timeout.count()) + " s");
  auto ep = result.get();
  if (!ep.ok()) return ep.status();
  impl->endpoint = std::move(ep).value();
  return std::unique_ptr<StatsClient>(new StatsClient(std::move(impl)));
}

StatusOr<nlohmann::json> StatsClient::Fetch(std::chrono::seconds timeout) {
  auto call = std::make_shared<StatsReplyCall>();
  auto reply = call->done.get_future();
  uint32_t call_id = 0;
  bool sent = false;
  rpc::CallChannel* c = impl_->endpoint.channel.get();
  impl_->RunOn([&] {
    if (c->BeginCall(uint8_t(Method::kStats), call.get(), &call_id) == nullptr) return;
    c->Send();
    sent = true;
  });
  if (!sent)
    return Status::Unavailable("cannot send the Stats call to " + impl_->peer +
                               (c->error().ok() ? "" : ": " + c->error().ToString()));
  if (reply.wait_for(timeout) != std::future_status::ready) {
    impl_->RunOn([&] { c->Cancel(call_id); });
    if (reply.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
      return Status::Unavailable(impl_->peer + " did not answer the Stats call within " +
                                 std::to_string(timeout.count()) + " s");
  }
  return reply.get();
}

}  // namespace wirebench
