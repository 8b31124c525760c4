// The transport registry: one line per transport built into this binary.
#include <algorithm>
#include <string>
#include <vector>

#include "common/str_cat.h"
#include "transports/transport.h"

namespace wirebench {

// Each transport's folder defines its entry's accessor.
const Transport& WirebenchTransport();
const Transport& HBaseTransport();
#ifdef WIREBENCH_HAVE_GRPC
const Transport& GrpcTransport();
const Transport& GrpcNativeTransport();
#else
// What a user who asks for a transport this build left out is told.
constexpr std::string_view kWithoutGrpc =
    "this wirebench was built without gRPC (WIREBENCH_GRPC=OFF); install libgrpc++-dev and "
    "protobuf-compiler-grpc and rebuild";
#endif

const Registry<Transport>& Transports() {
  static const Registry<Transport> registry("--rpc",
                                            {
                                                &WirebenchTransport(),
#ifdef WIREBENCH_HAVE_GRPC
                                                &GrpcTransport(),
                                                &GrpcNativeTransport(),
#endif
                                                &HBaseTransport(),
                                            },
#ifdef WIREBENCH_HAVE_GRPC
                                            {}
#else
                                            {{"grpc", kWithoutGrpc}, {"grpc-native", kWithoutGrpc}}
#endif
  );
  return registry;
}

const Transport& DefaultTransport() { return Transports().front(); }

std::string TransportNames() { return Transports().Names(); }

std::string TransportHelp() {
  std::string out;
  for (const Transport* t : Transports()) {
    const auto& codecs = t->traits().codecs;
    std::string carried = ListedWithAnd(codecs);
    if (!carried.empty())
      carried = (codecs.size() > 1 ? ", codecs " : ", codec ") + carried + " only";
    out += (out.empty() ? "" : "; ") + std::string(t->name()) + ": " + std::string(t->summary()) +
           carried;
  }
  return out;
}

Status Transport::CheckCodec(const CodecInfo& codec) const {
  const auto& carried = traits_.codecs;
  if (carried.empty() || std::find(carried.begin(), carried.end(), codec.name()) != carried.end())
    return Status::Ok();
  std::string use;
  for (std::string_view c : carried)
    use += (use.empty() ? "" : " or ") + std::string("--codec ") + std::string(c);
  const std::string got(codec.name());
  return Status::InvalidArgument("--rpc " + std::string(name()) + " carries " +
                                 std::string(traits_.codecs_why) + "; got codec '" + got +
                                 "': use " + use + ", or --rpc " +
                                 std::string(traits_.codecs_otherwise) + " for '" + got + "'");
}

StatusOr<std::unique_ptr<rpc::SharedConnection>> Transport::ConnectShared(
    const rpc::SharedConnectionOptions&) const {
  return Status::Internal("--rpc " + std::string(name()) +
                          " has no connections shared across threads");
}

}  // namespace wirebench
