// The glue that binds a codec and a region into the RPC server's Service:
// for each call it decodes the request with the connection's codec, hands
// it to the region, and encodes the region's response with the same codec.
// This is the only place where rpc/, codecs/ and regions meet.
// Thread-safety: RegionService is shared; each CallHandler it makes owns
// one codec instance and one RegionScratch, used by one thread at a time.
#pragma once

#include <memory>

#include "nullregion/region.h"
#include "rpc/service.h"

namespace wirebench {

class RegionService final : public rpc::Service {
 public:
  // `region` must outlive the service.
  explicit RegionService(Region* region) : region_(region) {}
  StatusOr<std::unique_ptr<rpc::CallHandler>> NewCallHandler(uint8_t codec_id) override;
  void AppendStats(nlohmann::json* out) override;

 private:
  Region* region_;
};

}  // namespace wirebench
