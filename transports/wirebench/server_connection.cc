// The wirebench protocol's side of one connection: the preamble, then frames
// parsed in place and dispatched. The network core (rpc/net_server.h) reads
// the socket, writes the replies and watches the connection.
#include <chrono>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "codecs/codec.h"
#include "common/callgrind_marks.h"
#include "rpc/log.h"
#include "transports/wirebench/server_internal.h"

namespace wirebench::wbrpc {

void WirebenchConnection::Fatal(CallStatus status, uint32_t call_id, const std::string& why) {
  rpc::LogRateLimited("closing connection from " + host_->peer() + ": " + why);
  AppendErrorFrame(out_, call_id, 0, status, why);
  BumpShared(io_->stats.frames_out, 1);
  host_->FinishAfterFlush();
}

void WirebenchConnection::AppendRefusal(rpc::Refusal why, const std::string& text, ByteView pending,
                                        ByteBuffer* out) {
  // The call refused room, when its header is in.
  const uint32_t call_id =
      why == rpc::Refusal::kBufferBudget && preamble_done_ && pending.size() >= 8
          ? LoadLE32(pending.data() + 4)
          : 0;
  AppendErrorFrame(out, call_id, 0, CallStatus::kOverloaded, text);
  BumpShared(io_->stats.frames_out, 1);
}

const char* WirebenchConnection::PartialState(size_t pending_input) const {
  // The handshake is done only with the first frame: a connection with a
  // preamble and no call yet is part-way through it.
  if (!preamble_done_) return "with an incomplete preamble";
  if (pending_input > 0) return "with an incomplete frame";
  if (!frame_seen_) return "after its preamble without making a call";
  return nullptr;
}

size_t WirebenchConnection::UnitSize(ByteView in) const {
  if (!preamble_done_ || in.size() < kLengthSize) return 0;
  const uint32_t length = LoadLE32(in.data());
  // An oversized length is refused by Consume, not buffered for.
  if (length > protocol_->options().max_call_bytes) return 0;
  return kLengthSize + length;
}

size_t WirebenchConnection::ConsumePreamble(ByteView in) {
  Preamble p;
  std::string why;
  ParseResult r = ParsePreamble(in, &p, &why);
  if (r == ParseResult::kNeedMore) return 0;
  if (r == ParseResult::kBad) {
    Fatal(CallStatus::kBadPreamble, 0, why);
    return 0;
  }
  if (p.version != kProtocolVersion) {
    Fatal(CallStatus::kBadPreamble, 0,
          "unsupported protocol version " + std::to_string(p.version) +
              "; this server speaks version " + std::to_string(kProtocolVersion));
    return 0;
  }
  // The preamble's codec byte, resolved through the registry once for the
  // connection.
  const CodecInfo* codec = FindCodec(p.codec_id);
  if (codec == nullptr) {
    Fatal(CallStatus::kBadPreamble, 0,
          "unknown codec id " + std::to_string(p.codec_id) + "; known codecs: " + CodecNames());
    return 0;
  }
  auto handler = protocol_->service()->NewCallHandler(*codec);
  if (!handler.ok()) {
    Fatal(CallStatus::kBadPreamble, 0, std::string(handler.status().message()));
    return 0;
  }
  codec_ = codec;
  if (protocol_->pool() == nullptr) handler_ = std::move(handler).value();
  preamble_done_ = true;
  return kPreambleSize;
}

size_t WirebenchConnection::Consume(ByteView in) {
  size_t pos = 0;
  if (!preamble_done_) {
    pos = ConsumePreamble(in);
    if (!preamble_done_) return pos;
  }
  const uint32_t max_frame = protocol_->options().max_call_bytes;
  std::string why;
  // What Backlogged() says, without a virtual call per call.
  const size_t out_limit = out_->size() + host_->QueueRoom();
  while (out_->size() < out_limit && !Holding()) {
    Frame f;
    ByteView rest(in.data() + pos, in.size() - pos);
    ParseResult r = ParseFrame(rest, max_frame, &f, &why);
    if (r == ParseResult::kNeedMore) break;
    if (r == ParseResult::kBad) {
      uint32_t call_id = rest.size() >= 8 ? LoadLE32(rest.data() + 4) : 0;
      uint32_t length = LoadLE32(rest.data());
      Fatal(length > max_frame ? CallStatus::kCallTooLarge : CallStatus::kBadRequest, call_id,
            why);
      break;
    }
    BumpShared(io_->stats.frames_in, 1);
    frame_seen_ = true;
    Dispatch(f);
    pos += f.total_size;
  }
  return pos;
}

void WirebenchConnection::QueueReply(ByteView frame) {
  out_->Append(frame);
  BumpShared(io_->stats.frames_out, 1);
  if (frame.size() >= kFrameHeaderSize && frame[kLengthSize + 5] != uint8_t(CallStatus::kOk))
    BumpShared(io_->stats.failed_calls, 1);
}

inline void WirebenchConnection::HandleInline(const Frame& f) {
  const FrameHeader& h = f.header;
  ByteBuffer& out = *out_;
  const size_t off = BeginFrame(&out, h.call_id, h.method, 0);
  rpc::CallOutcome outcome;
  handler_->Handle(h, f.payload, &out, &outcome);
  if (outcome.status != CallStatus::kOk || outcome.reply_delay_us > 0) [[unlikely]] {
    FinishUnusualReply(off, outcome);
    return;
  }
  EndFrame(&out, off);
  BumpShared(io_->stats.frames_out, 1);
}

void WirebenchConnection::Dispatch(const Frame& f) {
  const FrameHeader& h = f.header;
  ByteBuffer& out = *out_;
  if (!IsKnownMethod(h.method)) {
    BumpShared(io_->stats.unknown_method_calls, 1);
    BumpShared(io_->stats.failed_calls, 1);
    BumpShared(io_->stats.frames_out, 1);
    AppendErrorFrame(&out, h.call_id, h.method, CallStatus::kUnknownMethod,
                     "unknown method " + std::to_string(h.method) + "; known methods are 1-" +
                         std::to_string(kMaxMethod));
    return;
  }
  BumpShared(io_->stats.calls[h.method], 1);
  switch (Method(h.method)) {
    case Method::kPing: {
      size_t off = BeginFrame(&out, h.call_id, h.method, 0);
      out.Append(f.payload);
      EndFrame(&out, off);
      BumpShared(io_->stats.frames_out, 1);
      return;
    }
    case Method::kStats: {
      // The instrument's own work: excluded from this thread's allocation
      // counts so they show only the calls being measured.
      const CounterTotals at_entry = ThisThreadTotals();
      // Hook (--instructions): under callgrind, the phase since the last
      // Stats call is dumped here and the next starts once the reply is built.
      callgrind::EndPhase(callgrind::kServerStatsLabel);
      {
        std::string json = protocol_->StatsReply(at_entry);
        size_t off = BeginFrame(&out, h.call_id, h.method, 0);
        out.Append(ByteView(json));
        EndFrame(&out, off);
      }
      callgrind::StartPhase();
      ExcludeFromThisThread(ThisThreadTotals() - at_entry);
      BumpShared(io_->stats.frames_out, 1);
      return;
    }
    default:
      break;
  }
  if (protocol_->pool() == nullptr) {
    HandleInline(f);
    return;
  }
  std::unique_ptr<PooledCall> call = io_->AcquireCall();
  call->keep_alive = host_->KeepAlive();
  call->conn = this;
  call->executor = host_->executor();
  call->codec = codec_;
  call->header = h;
  call->request.Clear();
  call->request.Append(f.payload);
  ++inflight_;
  protocol_->pool()->Submit(std::move(call));
}

// A reply that is an error, or one held back (--delay-us): out of
// HandleInline's way, which every call takes.
void WirebenchConnection::FinishUnusualReply(size_t off, const rpc::CallOutcome& outcome) {
  ByteBuffer& out = *out_;
  if (outcome.status != CallStatus::kOk) {
    out.Resize(off + kFrameHeaderSize);
    SetFrameStatus(&out, off, uint8_t(outcome.status));
    out.Append(ByteView(outcome.error));
    BumpShared(io_->stats.failed_calls, 1);
  }
  EndFrame(&out, off);
  if (outcome.reply_delay_us > 0) {
    ByteView frame(out.data() + off, out.size() - off);
    DelayReply(frame, outcome.reply_delay_us);
    out.Resize(off);
    return;
  }
  BumpShared(io_->stats.frames_out, 1);
}

void WirebenchConnection::DelayReply(ByteView frame, uint32_t delay_us) {
  // Calibration path only: one timer per held reply.
  std::unique_ptr<PooledCall> call = io_->AcquireCall();
  call->reply.Clear();
  call->reply.Append(frame);
  ++inflight_;
  auto timer = std::make_shared<boost::asio::steady_timer>(host_->executor(),
                                                           std::chrono::microseconds(delay_us));
  PooledCall* raw = call.release();
  raw->keep_alive = host_->KeepAlive();
  timer->async_wait([this, timer, raw](const boost::system::error_code&) {
    std::unique_ptr<PooledCall> c(raw);
    std::shared_ptr<void> alive = std::move(c->keep_alive);
    --inflight_;
    if (!host_->closed()) {
      QueueReply(c->reply.view());
      host_->Flush();
      host_->ResumeReading();
    }
    io_->ReleaseCall(std::move(c));
  });
}

void WirebenchConnection::OnHandled(std::unique_ptr<PooledCall> call) {
  std::shared_ptr<void> alive = std::move(call->keep_alive);
  call->conn = nullptr;
  if (host_->closed()) {
    io_->ReleaseCall(std::move(call));
    return;
  }
  if (call->reply_delay_us > 0) {
    DelayReply(call->reply.view(), call->reply_delay_us);
    --inflight_;
  } else {
    --inflight_;
    QueueReply(call->reply.view());
    host_->Flush();
  }
  io_->ReleaseCall(std::move(call));
  host_->ResumeReading();
}

}  // namespace wirebench::wbrpc
