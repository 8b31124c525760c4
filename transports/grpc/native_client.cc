#include "transports/grpc/native_client.h"

#include <grpcpp/grpcpp.h>

#include <chrono>

#include "codecs/hbase/pb_mapping.h"
#include "common/thread_stats.h"
#include "transports/grpc/completion_drain.h"
#include "wirebench_region.grpc.pb.h"

namespace wirebench {

namespace asio = boost::asio;

struct NativeConnection::Grpc {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<native::Region::Stub> stub;
  std::vector<std::unique_ptr<grpc::CompletionQueue>> cqs;
};

class NativeConnection::CallBase {
 public:
  virtual ~CallBase() = default;
  // Reads the reply into the model and tells the pending call.
  virtual void Deliver(const std::string& peer) = 0;
  grpc::ClientContext ctx;
  grpc::Status status;
  NativePendingCall* pending = nullptr;
};

namespace {

// The protobuf types, the generated stub's PrepareAsync<Method> and the reply
// slot of a model request type.
template <typename PbRequest, typename PbResponse, typename Response, Method kM,
          const Response* NativeReply::*kSlot, auto kPrepareAsync>
struct NativeTypesOf {
  using PbReq = PbRequest;
  using PbResp = PbResponse;
  using Resp = Response;
  static constexpr Method kMethod = kM;
  static void Set(NativeReply* r, const Resp* p) { r->*kSlot = p; }
  static auto Prepare(native::Region::Stub* s, grpc::ClientContext* c, const PbReq& r,
                      grpc::CompletionQueue* cq) {
    return (s->*kPrepareAsync)(c, r, cq);
  }
};

template <typename Req> struct NativeTypes;
template <> struct NativeTypes<MutateRequest>
    : NativeTypesOf<hbase::MutateRequest, hbase::MutateResponse, MutateResponse, Method::kMutate,
                    &NativeReply::mutate, &native::Region::Stub::PrepareAsyncMutate> {};
template <> struct NativeTypes<GetRequest>
    : NativeTypesOf<hbase::GetRequest, hbase::GetResponse, GetResponse, Method::kGet,
                    &NativeReply::get, &native::Region::Stub::PrepareAsyncGet> {};
template <> struct NativeTypes<ScanRequest>
    : NativeTypesOf<hbase::ScanRequest, hbase::ScanResponse, ScanResponse, Method::kScan,
                    &NativeReply::scan, &native::Region::Stub::PrepareAsyncScan> {};
template <> struct NativeTypes<MultiRequest>
    : NativeTypesOf<hbase::MultiRequest, hbase::MultiResponse, MultiResponse, Method::kMulti,
                    &NativeReply::multi, &native::Region::Stub::PrepareAsyncMulti> {};

template <typename Req>
class TypedCall final : public NativeConnection::CallBase {
 public:
  using T = NativeTypes<Req>;
  typename T::PbReq request;
  typename T::PbResp response;
  std::unique_ptr<grpc::ClientAsyncResponseReader<typename T::PbResp>> reader;

  void Deliver(const std::string& peer) override {
    NativeReply reply;
    reply.method = T::kMethod;
    if (!status.ok()) {
      pending->OnNativeReply(Status::Unavailable("gRPC " + std::string(grpcrpc::GrpcCodeName(status.error_code())) +
                                                 " from server " + peer + ": " +
                                                 status.error_message()),
                             reply);
      return;
    }
    pb::ModelBuilder builder;
    typename T::Resp resp;
    Status s = builder.Read(response, &resp);
    CountDecodeCopy(builder.copied());
    if (s.ok()) T::Set(&reply, &resp);
    pending->OnNativeReply(s, reply);
  }
};

}  // namespace

StatusOr<std::shared_ptr<NativeConnection>> NativeConnection::Connect(asio::io_context& ctx,
                                                                      grpcrpc::GrpcClientOptions options) {
  std::shared_ptr<NativeConnection> c(new NativeConnection(ctx, std::move(options)));
  auto channel = OpenGrpcChannel(c->options_, &c->socket_);
  if (!channel.ok()) return channel.status();
  c->grpc_ = std::make_unique<Grpc>();
  c->grpc_->channel = std::move(channel).value();
  c->grpc_->stub = native::Region::NewStub(c->grpc_->channel);
  for (int i = 0; i < c->options_.cq_threads; ++i) {
    c->grpc_->cqs.push_back(std::make_unique<grpc::CompletionQueue>());
    c->threads_.emplace_back([raw = c.get(), i] { raw->Drain(i); });
  }
  return c;
}

NativeConnection::NativeConnection(asio::io_context& ctx, grpcrpc::GrpcClientOptions options)
    : ctx_(ctx), options_(std::move(options)) {}

NativeConnection::~NativeConnection() {
  if (!threads_.empty()) {
    for (CallBase* c : inflight_) c->ctx.TryCancel();
    for (auto& cq : grpc_->cqs) cq->Shutdown();
    for (auto& t : threads_) t.join();
  }
  for (CallBase* c : inflight_) delete c;
}

std::string NativeConnection::peer() const {
  return options_.host + ":" + std::to_string(options_.port);
}

template <typename Req>
Status NativeConnection::Start(const Req& req, NativePendingCall* pending) {
  if (closed_) return Status::Aborted("gRPC connection to " + peer() + " is closed");
  auto* call = new TypedCall<Req>;
  call->pending = pending;
  CountEncodeCopy(pb::Fill(req, &call->request));
  grpc::CompletionQueue* cq = grpc_->cqs[next_cq_++ % grpc_->cqs.size()].get();
  call->reader = NativeTypes<Req>::Prepare(grpc_->stub.get(), &call->ctx, call->request, cq);
  call->reader->StartCall();
  call->reader->Finish(&call->response, &call->status, static_cast<CallBase*>(call));
  inflight_.insert(call);
  return Status::Ok();
}

Status NativeConnection::Call(const MutateRequest& r, NativePendingCall* p) { return Start(r, p); }
Status NativeConnection::Call(const GetRequest& r, NativePendingCall* p) { return Start(r, p); }
Status NativeConnection::Call(const ScanRequest& r, NativePendingCall* p) { return Start(r, p); }
Status NativeConnection::Call(const MultiRequest& r, NativePendingCall* p) { return Start(r, p); }

void NativeConnection::Drain(int index) {
  grpcrpc::DrainCompletionQueue(*grpc_->cqs[index], "grpc-native-cq-" + std::to_string(index),
                                weak_from_this(), ctx_, [](NativeConnection& self, void* tag) {
                                  self.OnComplete(static_cast<CallBase*>(tag));
                                });
}

void NativeConnection::OnComplete(CallBase* call) {
  inflight_.erase(call);
  std::unique_ptr<CallBase> owned(call);
  call->Deliver(peer());
}

grpcrpc::SocketBytes NativeConnection::wire_bytes() { return socket_.Read(); }

void NativeConnection::Close() {
  if (closed_) return;
  closed_ = true;
  for (CallBase* c : inflight_) c->ctx.TryCancel();
  for (auto& cq : grpc_->cqs) cq->Shutdown();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

}  // namespace wirebench
