#include "nullregion/region_service.h"

#include <nlohmann/json.hpp>
#include <string>

#include "codecs/codec.h"

namespace wirebench {

namespace {

// The rows a request touches, for a cluster's ownership check.
template <typename F>
void ForEachRow(const MutateRequest& r, F&& f) { f(r.mutation.row); }
template <typename F>
void ForEachRow(const GetRequest& r, F&& f) { f(r.row); }
template <typename F>
void ForEachRow(const ScanRequest& r, F&& f) { f(r.start_row); }
template <typename F>
void ForEachRow(const MultiRequest& r, F&& f) {
  for (const Action& a : r.actions) f(a.kind == ActionKind::kGet ? a.get.row : a.mutation.row);
}

// Empty when this server holds every row `req` touches, else why not in
// NotServingRegionException's words, naming the server that holds it.
template <typename Req>
std::string NotServing(const ClusterMember& cluster, const Req& req) {
  std::string why;
  ForEachRow(req, [&](ByteView row) {
    const uint32_t region = cluster.plan.layout.RegionOfRow(row.str());
    if (!why.empty() || cluster.Holds(region)) return;
    const rpc::Endpoint& holder = cluster.plan.servers[cluster.plan.ServerOfRegion(region)];
    why = "org.apache.hadoop.hbase.NotServingRegionException: row '" + row.ToString() +
          "' is in region " + std::to_string(region) + " (start key '" +
          cluster.plan.layout.StartKey(region) + "'), held by server " +
          std::to_string(cluster.plan.ServerOfRegion(region)) + " (" + holder.host + ":" +
          std::to_string(holder.port) + "), not by this one (server " +
          std::to_string(cluster.self) + ")";
  });
  return why;
}

class CodecCallHandler final : public TableCallHandler {
 public:
  CodecCallHandler(std::unique_ptr<Codec> codec, Region* region, const ClusterMember* cluster)
      : codec_(std::move(codec)),
        region_(region),
        cluster_(cluster),
        reply_delay_us_(region->reply_delay_us()) {}

  void set_gate(RequestGate* gate) override { gate_ = gate; }

  void Handle(const rpc::CallHeader& h, ByteView payload, ByteBuffer* reply,
              rpc::CallOutcome* outcome) override {
    Status s;
    switch (Method(h.method)) {
      case Method::kMutate:
        s = Serve<MutateRequest, MutateResponse>(h, payload, reply, outcome,
                                                 [&](const MutateRequest& rq, MutateResponse* rs) {
                                                   return region_->Mutate(rq.mutation, rs);
                                                 });
        break;
      case Method::kGet:
        s = Serve<GetRequest, GetResponse>(
            h, payload, reply, outcome,
            [&](const GetRequest& rq, GetResponse* rs) { return region_->Get(rq, &scratch_, rs); });
        break;
      case Method::kScan:
        s = Serve<ScanRequest, ScanResponse>(
            h, payload, reply, outcome,
            [&](const ScanRequest& rq, ScanResponse* rs) { return region_->Scan(rq, &scratch_, rs); });
        break;
      case Method::kMulti:
        s = Serve<MultiRequest, MultiResponse>(h, payload, reply, outcome,
                                               [&](const MultiRequest& rq, MultiResponse* rs) {
                                                 return region_->Multi(rq, &scratch_, rs);
                                               });
        break;
      default:
        outcome->status = CallStatus::kUnknownMethod;
        outcome->error = "method " + std::to_string(h.method) + " is not a region method";
        return;
    }
    outcome->reply_delay_us = reply_delay_us_;
  }

 private:
  // Inlined into Handle's cases, with every refusal's message made out of
  // line: the common path then keeps its values in registers (a call's
  // saved registers and a frame for the strings cost about 40 instructions).
  template <typename Req, typename Resp, typename Fn>
  [[gnu::always_inline]] Status Serve(const rpc::CallHeader& h, ByteView payload,
                                      ByteBuffer* reply, rpc::CallOutcome* outcome, Fn&& apply) {
    Req req;
    Status s = codec_->DecodeRequest(payload, &req);
    if (!s.ok()) [[unlikely]]
      return Refuse(h, Step::kDecode, std::move(s), outcome);
    if (gate_ != nullptr && !gate_->Admit(&req)) [[unlikely]]
      return NotForThisPath(h, outcome);
    if (cluster_ != nullptr) [[unlikely]] {
      if (Status st = NotServing(req, outcome); !st.ok()) return st;
    }
    Resp resp;
    s = apply(req, &resp);
    if (!s.ok()) [[unlikely]]
      return Refuse(h, Step::kRegion, std::move(s), outcome);
    s = codec_->EncodeResponse(h.call_id, resp, reply);
    if (!s.ok()) [[unlikely]]
      return Refuse(h, Step::kEncode, std::move(s), outcome);
    return s;
  }

  // A call the codec could not decode, the region failed or the codec could
  // not encode: the outcome says which, naming the method and the codec.
  enum class Step { kDecode, kRegion, kEncode };
  [[gnu::cold, gnu::noinline]] Status Refuse(const rpc::CallHeader& h, Step step, Status s,
                                             rpc::CallOutcome* outcome) const {
    const std::string method(MethodName(Method(h.method)));
    outcome->status = step == Step::kDecode ? CallStatus::kBadRequest : CallStatus::kServerError;
    switch (step) {
      case Step::kDecode:
        outcome->error = "cannot decode " + method + " request with codec '" +
                         std::string(codec_->name()) + "': " + s.ToString();
        break;
      case Step::kRegion:
        outcome->error = "region '" + std::string(region_->name()) + "' failed " + method +
                         ": " + s.ToString();
        break;
      case Step::kEncode:
        outcome->error = "cannot encode " + method + " response: " + s.ToString();
        break;
    }
    return s;
  }

  // Not for this path: the transport answers the call its own way.
  [[gnu::cold, gnu::noinline]] Status NotForThisPath(const rpc::CallHeader& h,
                                                     rpc::CallOutcome* outcome) const {
    outcome->status = CallStatus::kBadRequest;
    outcome->error = "the transport does not answer this " +
                     std::string(MethodName(Method(h.method))) + " request through codec '" +
                     std::string(codec_->name()) + "'";
    return Status::InvalidArgument(outcome->error);
  }

  // A cluster member's check that it holds the request's region, out of
  // line: a one-server run never takes it.
  template <typename Req>
  [[gnu::noinline]] Status NotServing(const Req& req, rpc::CallOutcome* outcome) const {
    std::string why = NotServingReason(cluster_, req);
    if (why.empty()) return Status::Ok();
    outcome->status = CallStatus::kServerError;
    outcome->error = std::move(why);
    return Status::NotFound(outcome->error);
  }

  std::unique_ptr<Codec> codec_;
  Region* region_;
  const ClusterMember* cluster_;
  const uint32_t reply_delay_us_;  // The region's, read once (it is fixed).
  RegionScratch scratch_;
  RequestGate* gate_ = nullptr;
};

}  // namespace

std::string NotServingReason(const ClusterMember* cluster, const MutateRequest& req) {
  return cluster == nullptr ? std::string() : NotServing(*cluster, req);
}
std::string NotServingReason(const ClusterMember* cluster, const GetRequest& req) {
  return cluster == nullptr ? std::string() : NotServing(*cluster, req);
}
std::string NotServingReason(const ClusterMember* cluster, const ScanRequest& req) {
  return cluster == nullptr ? std::string() : NotServing(*cluster, req);
}
std::string NotServingReason(const ClusterMember* cluster, const MultiRequest& req) {
  return cluster == nullptr ? std::string() : NotServing(*cluster, req);
}

StatusOr<std::unique_ptr<rpc::CallHandler>> RegionService::NewCallHandler(const CodecInfo& codec) {
  return std::unique_ptr<rpc::CallHandler>(
      std::make_unique<CodecCallHandler>(codec.factory(), region_, cluster_));
}

void RegionService::AppendStats(nlohmann::json* out) { region_->AppendStats(out); }

}  // namespace wirebench
