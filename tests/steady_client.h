// The well-behaved client of the bad-input matrices (tests/bad_input_test.cc
// for the wirebench transport, tests/grpc_bad_input_test.cc for gRPC): one
// connection on its own thread, alternating a raw-codec Mutate and a Ping,
// one call in flight, until stopped. A call that fails, comes back wrong or
// gets no reply within 10 s is counted as failed (the first reason is kept)
// and ends the client.
//
// `Connection` is rpc::ClientConnection or rpc::GrpcConnection (anything
// with their BeginCall/Send/Abandon/Cancel/Close/error); the test says how
// to connect one.
// Thread-safety: construct, Stop and destroy on one thread; the counters
// and WaitForMoreCalls may be used from any.
#pragma once

#include <atomic>
#include <boost/asio.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "codecs/codec.h"
#include "common/status.h"
#include "transports/wirebench/client.h"
#include "transports/wirebench/frame.h"
#include "tests/test_workloads.h"

namespace wirebench::testing {

template <typename Connection>
class SteadyClient {
 public:
  using Connect = std::function<boost::asio::awaitable<StatusOr<std::shared_ptr<Connection>>>(
      boost::asio::io_context&)>;
  // `cancelled_call_still_ends`: whether a call given up with Cancel still
  // ends through its PendingCall (gRPC's do; the wirebench client's are
  // unregistered at once), which the client then waits for.
  SteadyClient(Connect connect, bool cancelled_call_still_ends)
      : connect_(std::move(connect)), cancelled_call_still_ends_(cancelled_call_still_ends) {
    thread_ = std::thread([this] {
      boost::asio::co_spawn(ctx_, Run(), boost::asio::detached);
      ctx_.run();
    });
  }
  ~SteadyClient() { Stop(); }
  SteadyClient(const SteadyClient&) = delete;
  SteadyClient& operator=(const SteadyClient&) = delete;

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
    Method method = Method::kPing;
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
      } else if (payload.str() != "ping") {
        error = "ping echoed '" + payload.ToString() + "'";
      }
      wake->cancel();
    }
    void OnFailure(const Status& status) override {
      done = true;
      error = status.ToString();
      wake->cancel();
    }
  };

  void Fail(const std::string& why) {
    failed_.fetch_add(1);
    std::lock_guard<std::mutex> lock(mu_);
    if (first_error_.empty()) first_error_ = why;
  }

  boost::asio::awaitable<void> Run() {
    constexpr auto kNoThrow = boost::asio::as_tuple(boost::asio::use_awaitable);
    auto made = co_await connect_(ctx_);
    if (!made.ok()) {
      Fail(made.status().ToString());
      co_return;
    }
    std::shared_ptr<Connection> conn = *made;
    auto codec = NewCodec(uint8_t(CodecId::kRaw));
    if (!codec.ok()) {
      Fail(codec.status().ToString());
      conn->Close();
      co_return;
    }
    Record rec;
    boost::asio::steady_timer wake(ctx_);
    Waiter w;
    w.wake = &wake;
    w.codec = codec->get();
    for (uint64_t n = 0; !stop_.load(); ++n) {
      w.done = false;
      w.error.clear();
      w.method = n % 2 == 0 ? Method::kMutate : Method::kPing;
      uint32_t id = 0;
      ByteBuffer* out = conn->BeginCall(uint8_t(w.method), &w, &id);
      if (out == nullptr) {
        Fail("BeginCall failed: " + conn->error().ToString());
        break;
      }
      if (w.method == Method::kMutate) {
        MutateRequest req;
        req.mutation = Mutation{ByteView(rec.row), MutationType::kPut, 0, rec.cells};
        Status s = (*codec)->EncodeRequest(id, req, out);
        if (!s.ok()) {
          conn->Abandon();
          Fail("encode failed: " + s.ToString());
          break;
        }
      } else {
        out->Append(ByteView("ping"));
      }
      conn->Send();
      wake.expires_after(std::chrono::seconds(10));
      if (!w.done) co_await wake.async_wait(kNoThrow);
      if (!w.done) {
        Fail("no reply within 10 s");
        conn->Cancel(id);
        while (cancelled_call_still_ends_ && !w.done) {  // It ends through w.
          wake.expires_after(std::chrono::milliseconds(100));
          co_await wake.async_wait(kNoThrow);
        }
        break;
      }
      if (!w.error.empty()) {
        Fail(w.error);
        break;
      }
      ok_.fetch_add(1);
    }
    conn->Close();
  }

  Connect connect_;
  const bool cancelled_call_still_ends_;
  boost::asio::io_context ctx_{1};
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> ok_{0}, failed_{0};
  std::mutex mu_;
  std::string first_error_;
};

}  // namespace wirebench::testing
