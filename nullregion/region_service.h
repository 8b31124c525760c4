// The glue that binds a codec and a region into the RPC server's Service:
// for each call it decodes the request with the connection's codec, hands
// it to the region, and encodes the region's response with the same codec.
// This is the only place where rpc/, codecs/ and regions meet.
// Thread-safety: RegionService is shared; each CallHandler it makes owns
// one codec instance and one RegionScratch, used by one thread at a time.
#pragma once

#include <memory>
#include <string>

#include "nullregion/cluster.h"
#include "nullregion/region.h"
#include "rpc/service.h"

namespace wirebench {

// What a transport checks of a decoded request before the region runs it:
// the HBase transport answers a call through the codec only when the region
// it names (MutateRequest::region) is one this path serves, and places the
// request in that region's table (Mutation::table). The codec has refused
// what it cannot carry already; the gate refuses what the transport will not
// answer this way. False leaves the request unrun: the handler reports
// CallStatus::kBadRequest and the transport answers the call its own way.
class RequestGate {
 public:
  virtual ~RequestGate() = default;
  virtual bool Admit(MutateRequest* r) = 0;
  virtual bool Admit(GetRequest* r) = 0;
  virtual bool Admit(ScanRequest* r) = 0;
  virtual bool Admit(MultiRequest* r) = 0;
};

// What RegionService::NewCallHandler returns: a codec's handler whose
// requests can pass a transport's gate (the HBase transport answers plain
// calls through it, each call parsed once, by the codec).
class TableCallHandler : public rpc::CallHandler {
 public:
  // Every decoded request passes `gate` (which must outlive the handler's
  // calls) before the region runs it; null (the default) = none, and
  // requests are in the default table.
  virtual void set_gate(RequestGate* gate) = 0;
};

// Empty when `cluster` is null or this server holds every row `req` touches
// (a scan's start row, each of a Multi's actions); else why not, in
// NotServingRegionException's words, naming the server that holds the row.
// For a transport that runs the region itself (grpc-native).
std::string NotServingReason(const ClusterMember* cluster, const MutateRequest& req);
std::string NotServingReason(const ClusterMember* cluster, const GetRequest& req);
std::string NotServingReason(const ClusterMember* cluster, const ScanRequest& req);
std::string NotServingReason(const ClusterMember* cluster, const MultiRequest& req);

class RegionService final : public rpc::Service {
 public:
  // `region` must outlive the service; so must `cluster`, when this server
  // is one of a null cluster's: a call whose row (a scan's start row, each
  // of a Multi's actions) is in a region another server holds is refused,
  // CallStatus::kServerError with NotServingRegionException's words, before
  // the region sees it.
  explicit RegionService(Region* region, const ClusterMember* cluster = nullptr)
      : region_(region), cluster_(cluster != nullptr && cluster->plan.clustered() ? cluster : nullptr) {}
  // A TableCallHandler for the codec.
  StatusOr<std::unique_ptr<rpc::CallHandler>> NewCallHandler(const CodecInfo& codec) override;
  void AppendStats(nlohmann::json* out) override;

 private:
  Region* region_;
  const ClusterMember* cluster_;
};

}  // namespace wirebench
