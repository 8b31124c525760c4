#include "nullregion/region_service.h"

#include <nlohmann/json.hpp>
#include <string>

#include "codecs/codec.h"

namespace wirebench {

namespace {

class CodecCallHandler final : public TableCallHandler {
 public:
  CodecCallHandler(std::unique_ptr<Codec> codec, Region* region)
      : codec_(std::move(codec)), region_(region) {}

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
    outcome->reply_delay_us = region_->reply_delay_us();
  }

 private:
  template <typename Req, typename Resp, typename Fn>
  Status Serve(const rpc::CallHeader& h, ByteView payload, ByteBuffer* reply,
               rpc::CallOutcome* outcome, Fn&& apply) {
    Req req;
    Status s = codec_->DecodeRequest(payload, &req);
    if (!s.ok()) {
      outcome->status = CallStatus::kBadRequest;
      outcome->error = "cannot decode " + std::string(MethodName(Method(h.method))) +
                       " request with codec '" + std::string(codec_->name()) +
                       "': " + s.ToString();
      return s;
    }
    if (gate_ != nullptr && !gate_->Admit(&req)) {
      // Not for this path: the transport answers the call its own way.
      outcome->status = CallStatus::kBadRequest;
      outcome->error = "the transport does not answer this " +
                       std::string(MethodName(Method(h.method))) + " request through codec '" +
                       std::string(codec_->name()) + "'";
      return Status::InvalidArgument(outcome->error);
    }
    Resp resp;
    s = apply(req, &resp);
    if (!s.ok()) {
      outcome->status = CallStatus::kServerError;
      outcome->error = "region '" + std::string(region_->name()) + "' failed " +
                       std::string(MethodName(Method(h.method))) + ": " + s.ToString();
      return s;
    }
    s = codec_->EncodeResponse(h.call_id, resp, reply);
    if (!s.ok()) {
      outcome->status = CallStatus::kServerError;
      outcome->error = "cannot encode " + std::string(MethodName(Method(h.method))) +
                       " response: " + s.ToString();
    }
    return s;
  }

  std::unique_ptr<Codec> codec_;
  Region* region_;
  RegionScratch scratch_;
  RequestGate* gate_ = nullptr;
};

}  // namespace

StatusOr<std::unique_ptr<rpc::CallHandler>> RegionService::NewCallHandler(const CodecInfo& codec) {
  return std::unique_ptr<rpc::CallHandler>(
      std::make_unique<CodecCallHandler>(codec.factory(), region_));
}

void RegionService::AppendStats(nlohmann::json* out) { region_->AppendStats(out); }

}  // namespace wirebench
