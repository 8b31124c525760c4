// The well-behaved client of the bad-input matrices, for any registered
// transport: one endpoint opened through the registry (Transport::Connect,
// the transport's own client and codec), on its own thread, alternating a
// Mutate and a Get, one call in flight, until stopped. A call that fails,
// comes back wrong or gets no reply within 10 s is counted as failed (the
// first reason is kept) and ends the client.
// Thread-safety: construct, Stop and destroy on one thread; the counters and
// WaitForMoreCalls may be used from any.
#pragma once

#include <atomic>
#include <boost/asio.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "codecs/codec.h"
#include "common/calls.h"
#include "common/status.h"
#include "rpc/call_channel.h"
#include "tests/test_workloads.h"
#include "transports/transport.h"

namespace wirebench::testing {

class EndpointSteadyClient {
 public:
  EndpointSteadyClient(const Transport& transport, uint16_t port, uint8_t codec_id)
      : transport_(transport) {
    options_.port = port;
    options_.codec = FindCodec(codec_id);
    thread_ = std::thread([this] {
      boost::asio::co_spawn(ctx_, Run(), boost::asio::detached);
      ctx_.run();
    });
  }
  ~EndpointSteadyClient() { Stop(); }
  EndpointSteadyClient(const EndpointSteadyClient&) = delete;
  EndpointSteadyClient& operator=(const EndpointSteadyClient&) = delete;

  void Stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  uint64_t ok() const { return ok_.load(); }
  uint64_t failed() const { return failed_.load(); }
  std::string first_error() {
    std::lock_guard<std::mutex> lock(mu_);
    return first_error_;
  }
  // Waits until `n` more calls have succeeded; false if that takes over 20 s
  // or a call failed.
  bool WaitForMoreCalls(uint64_t n) {
    const uint64_t target = ok() + n;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (ok() < target && failed() == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return ok() >= target;
  }

 private:
  struct Waiter final : rpc::PendingCall {
    boost::asio::steady_timer* wake = nullptr;
    Codec* codec = nullptr;
    Method method = Method::kMutate;
    bool done = false;
    std::string error;
    void OnReply(const rpc::CallHeader& h, ByteView payload) override {
      done = true;
      if (h.status != uint8_t(CallStatus::kOk)) {
        error = "call failed with " + std::string(CallStatusName(CallStatus(h.status))) + ": " +
                payload.ToString();
      } else if (method == Method::kMutate) {
        MutateResponse resp;
        Status s = codec->DecodeResponse(payload, &resp);
        if (!s.ok() || !resp.processed) error = "bad Mutate reply: " + s.ToString();
      } else {
        GetResponse resp;
        Status s = codec->DecodeResponse(payload, &resp);
        if (!s.ok()) error = "bad Get reply: " + s.ToString();
      }
      if (wake != nullptr) wake->cancel();
    }
    void OnFailure(const Status& status) override {
      done = true;
      error = status.ToString();
      if (wake != nullptr) wake->cancel();
    }
  };

  void Fail(const std::string& why) {
    failed_.fetch_add(1);
    std::lock_guard<std::mutex> lock(mu_);
    if (first_error_.empty()) first_error_ = why;
  }

  boost::asio::awaitable<void> Run() {
    constexpr auto kNoThrow = boost::asio::as_tuple(boost::asio::use_awaitable);
    auto made = co_await transport_.Connect(ctx_, options_);
    if (!made.ok()) {
      Fail(made.status().ToString());
      co_return;
    }
    std::shared_ptr<rpc::CallChannel> conn = made->channel;
    std::unique_ptr<Codec> codec = std::move(made->codec);
    Record rec;
    boost::asio::steady_timer wake(ctx_);
    // On the heap: a call that never ends keeps a pointer to it (see below).
    auto* w = new Waiter;
    w->wake = &wake;
    w->codec = codec.get();
    for (uint64_t n = 0; !stop_.load(); ++n) {
      w->done = false;
      w->error.clear();
      w->method = n % 2 == 0 ? Method::kMutate : Method::kGet;
      uint32_t id = 0;
      ByteBuffer* out = conn->BeginCall(uint8_t(w->method), w, &id);
      if (out == nullptr) {
        Fail("BeginCall failed: " + conn->error().ToString());
        break;
      }
      Status s;
      if (w->method == Method::kMutate) {
        MutateRequest req;
        req.mutation = Mutation{ByteView(rec.row), MutationType::kPut, 0, rec.cells};
        s = codec->EncodeRequest(id, req, out);
      } else {
        GetRequest req;
        req.row = ByteView(rec.row);
        s = codec->EncodeRequest(id, req, out);
      }
      if (!s.ok()) {
        conn->Abandon();
        Fail("encode failed: " + s.ToString());
        break;
      }
      conn->Send();
      wake.expires_after(std::chrono::seconds(10));
      if (!w->done) co_await wake.async_wait(kNoThrow);
      if (!w->done) {
        Fail("no reply within 10 s");
        // Closing fails the call (now, or later on a transport whose calls
        // end on their own): the waiter stays allocated for that.
        w->wake = nullptr;
        conn->Close();
        co_return;
      }
      if (!w->error.empty()) {
        Fail(w->error);
        break;
      }
      ok_.fetch_add(1);
    }
    // No call of `w` is outstanding here.
    w->wake = nullptr;
    conn->Close();
    delete w;
  }

  const Transport& transport_;
  EndpointOptions options_;
  boost::asio::io_context ctx_{1};
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> ok_{0}, failed_{0};
  std::mutex mu_;
  std::string first_error_;
};

}  // namespace wirebench::testing
