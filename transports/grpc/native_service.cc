#include "transports/grpc/native_service.h"

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <optional>
#include <type_traits>
#include <vector>

#include "codecs/hbase/pb_mapping.h"
#include "common/thread_stats.h"
#include "nullregion/region_service.h"
#include "wirebench_region.grpc.pb.h"

namespace wirebench {

namespace {

using AsyncService = native::Region::AsyncService;

// Per completion-queue thread; the counters are read by Stats.
struct QueueState {
  pb::ModelBuilder builder;
  RegionScratch scratch;
  std::atomic<uint64_t> calls[kMaxMethod + 1] = {};
  std::atomic<uint64_t> failed{0};
};

Status Apply(Region* r, const MutateRequest& q, RegionScratch*, MutateResponse* p) {
  return r->Mutate(q.mutation, p);
}
Status Apply(Region* r, const GetRequest& q, RegionScratch* s, GetResponse* p) {
  return r->Get(q, s, p);
}
Status Apply(Region* r, const ScanRequest& q, RegionScratch* s, ScanResponse* p) {
  return r->Scan(q, s, p);
}
Status Apply(Region* r, const MultiRequest& q, RegionScratch* s, MultiResponse* p) {
  return r->Multi(q, s, p);
}

// One call slot of one generated method: requested, served, requested again.
template <typename PbReq, typename PbResp, typename Req, typename Resp>
class NativeCall final : public grpcrpc::GrpcTag {
 public:
  using RequestFn = void (AsyncService::*)(grpc::ServerContext*, PbReq*,
                                           grpc::ServerAsyncResponseWriter<PbResp>*,
                                           grpc::CompletionQueue*, grpc::ServerCompletionQueue*,
                                           void*);
  NativeCall(AsyncService* service, RequestFn fn, Region* region, const ClusterMember* cluster,
             QueueState* q, grpc::ServerCompletionQueue* cq, grpcrpc::GrpcRequestGate* gate)
      : service_(service), fn_(fn), region_(region), cluster_(cluster), q_(q), cq_(cq),
        gate_(gate) {}

  void Request() override {
    ctx_.emplace();
    writer_.emplace(&*ctx_);
    request_.Clear();
    response_.Clear();
    serving_ = false;
    (service_->*fn_)(&*ctx_, &request_, &*writer_, cq_, cq_, this);
  }

  bool Proceed(bool ok) override {
    if (serving_) return gate_->RequestAgain(this);
    if (!ok) return false;  // Shutting down.
    serving_ = true;
    Serve();
    return true;
  }

 private:
  void Serve() {
    Bump(q_->calls[uint8_t(MethodOf())], 1);
    Req req;
    Status s = q_->builder.Read(request_, &req);
    CountDecodeCopy(q_->builder.copied());
    if (!s.ok()) {
      Bump(q_->failed, 1);
      writer_->FinishWithError(
          grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "bad request: " + s.ToString()), this);
      return;
    }
    if (cluster_ != nullptr) {
      if (std::string why = NotServingReason(cluster_, req); !why.empty()) {
        Bump(q_->failed, 1);
        writer_->FinishWithError(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, why), this);
        return;
      }
    }
    Resp resp;
    s = Apply(region_, req, &q_->scratch, &resp);
    if (!s.ok()) {
      Bump(q_->failed, 1);
      writer_->FinishWithError(grpc::Status(grpc::StatusCode::INTERNAL,
                                            "region '" + std::string(region_->name()) +
                                                "' failed: " + s.ToString()),
                               this);
      return;
    }
    CountEncodeCopy(pb::Fill(resp, &response_));
    writer_->Finish(response_, grpc::Status::OK, this);
  }

  static constexpr Method MethodOf() {
    if constexpr (std::is_same_v<Req, MutateRequest>) return Method::kMutate;
    if constexpr (std::is_same_v<Req, GetRequest>) return Method::kGet;
    if constexpr (std::is_same_v<Req, ScanRequest>) return Method::kScan;
    return Method::kMulti;
  }

  AsyncService* service_;
  RequestFn fn_;
  Region* region_;
  const ClusterMember* cluster_;
  QueueState* q_;
  grpc::ServerCompletionQueue* cq_;
  grpcrpc::GrpcRequestGate* gate_;
  bool serving_ = false;
  std::optional<grpc::ServerContext> ctx_;
  std::optional<grpc::ServerAsyncResponseWriter<PbResp>> writer_;
  PbReq request_;
  PbResp response_;
};

}  // namespace

struct NativeRegionService::Impl {
  AsyncService service;
  Region* region = nullptr;
  const ClusterMember* cluster = nullptr;
  std::mutex mu;  // Guards `queues` (growing in Start, read by Stats).
  std::vector<std::unique_ptr<QueueState>> queues;  // Pointees are stable.
};

NativeRegionService::NativeRegionService(Region* region, const ClusterMember* cluster)
    : impl_(std::make_unique<Impl>()) {
  impl_->region = region;
  impl_->cluster = cluster != nullptr && cluster->plan.clustered() ? cluster : nullptr;
}
NativeRegionService::~NativeRegionService() = default;

grpc::Service* NativeRegionService::service() { return &impl_->service; }

void NativeRegionService::StartQueue(int index, grpc::ServerCompletionQueue* cq,
                                     grpcrpc::GrpcRequestGate* gate, int calls) {
  QueueState* q;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->queues.push_back(std::make_unique<QueueState>());
    q = impl_->queues.back().get();
  }
  AsyncService* s = &impl_->service;
  Region* r = impl_->region;
  const ClusterMember* cl = impl_->cluster;
  for (int i = 0; i < calls; ++i) {
    (new NativeCall<hbase::MutateRequest, hbase::MutateResponse, MutateRequest, MutateResponse>(
         s, &AsyncService::RequestMutate, r, cl, q, cq, gate))
        ->Request();
    (new NativeCall<hbase::GetRequest, hbase::GetResponse, GetRequest, GetResponse>(
         s, &AsyncService::RequestGet, r, cl, q, cq, gate))
        ->Request();
    (new NativeCall<hbase::ScanRequest, hbase::ScanResponse, ScanRequest, ScanResponse>(
         s, &AsyncService::RequestScan, r, cl, q, cq, gate))
        ->Request();
    (new NativeCall<hbase::MultiRequest, hbase::MultiResponse, MultiRequest, MultiResponse>(
         s, &AsyncService::RequestMulti, r, cl, q, cq, gate))
        ->Request();
  }
}

void NativeRegionService::AppendStats(nlohmann::json* out) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  nlohmann::json calls = nlohmann::json::object();
  uint64_t failed = 0;
  for (Method m : {Method::kMutate, Method::kGet, Method::kScan, Method::kMulti}) {
    uint64_t n = 0;
    for (const auto& q : impl_->queues) n += q->calls[uint8_t(m)].load(std::memory_order_relaxed);
    calls[std::string(MethodName(m))] = n;
  }
  for (const auto& q : impl_->queues) failed += q->failed.load(std::memory_order_relaxed);
  (*out)["native_calls"] = calls;
  (*out)["native_failed_calls"] = failed;
}

}  // namespace wirebench
