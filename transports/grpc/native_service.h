// The `grpc-native` server side: HBase's Mutate, Get, Scan and Multi as
// gRPC's own generated async service (transports/grpc/wirebench_region.proto),
// messages parsed and serialized by gRPC's protobuf glue, served by a
// Region. It is an grpcrpc::GrpcExtraService: an grpcrpc::GrpcServer hosts it next to the
// generic service (which still answers Stats and Ping, and every codec),
// on the same completion queues and threads. Each queue's thread keeps its
// own ModelBuilder and RegionScratch; the region is shared.
//
// Thread-safety: StartQueue is called by grpcrpc::GrpcServer::Start only; calls run
// on their completion queue's thread.
#pragma once

#include <memory>

#include "nullregion/cluster.h"
#include "nullregion/region.h"
#include "transports/grpc/grpc_server.h"

namespace wirebench {

class NativeRegionService final : public grpcrpc::GrpcExtraService {
 public:
  // `region` must outlive the service, and so must `cluster` (this server's
  // place in a null cluster, or null): a call whose row another server
  // holds fails with FAILED_PRECONDITION and NotServingRegionException's
  // words (nullregion/region_service.h), before the region sees it.
  NativeRegionService(Region* region, const ClusterMember* cluster);
  ~NativeRegionService() override;

  grpc::Service* service() override;
  void StartQueue(int index, grpc::ServerCompletionQueue* cq, grpcrpc::GrpcRequestGate* gate,
                  int calls) override;
  // "native_calls": calls per method and failed calls of the generated
  // service (the generic service's are under "calls").
  void AppendStats(nlohmann::json* out) override;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace wirebench
