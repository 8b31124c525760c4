// The transport registry: one line per transport built into this binary.
#include <array>
#include <vector>

#include "transports/transport.h"
#include "transports/wirebench/shared_connection.h"  // The default ConnectShared's return type.

namespace wirebench {

// Each transport's folder defines its entry's accessor.
const Transport& WirebenchTransport();
const Transport& HBaseTransport();
#ifdef WIREBENCH_HAVE_GRPC
const Transport& GrpcTransport();
const Transport& GrpcNativeTransport();
#endif

namespace {

const std::vector<const Transport*>& Registry() {
  static const std::vector<const Transport*> entries = {
      &WirebenchTransport(),
#ifdef WIREBENCH_HAVE_GRPC
      &GrpcTransport(),
      &GrpcNativeTransport(),
#endif
      &HBaseTransport(),
  };
  return entries;
}

// Transports this source tree has but a build may leave out, with the
// switch that builds them in.
struct Optional {
  std::string_view name;
  std::string_view how;
};
constexpr std::array<Optional, 2> kOptional = {{
    {"grpc", "this wirebench was built without gRPC (WIREBENCH_GRPC=OFF); install "
             "libgrpc++-dev and protobuf-compiler-grpc and rebuild"},
    {"grpc-native", "this wirebench was built without gRPC (WIREBENCH_GRPC=OFF); install "
                    "libgrpc++-dev and protobuf-compiler-grpc and rebuild"},
}};

}  // namespace

StatusOr<std::unique_ptr<rpc::SharedConnection>> Transport::ConnectShared(
    const rpc::SharedConnectionOptions&) const {
  return Status::Internal("--rpc " + std::string(name()) +
                          " has no connections shared across threads");
}

const Transport& DefaultTransport() { return WirebenchTransport(); }

std::span<const Transport* const> Transports() { return Registry(); }

std::string TransportNames() {
  std::string names;
  for (const Transport* t : Registry()) names += (names.empty() ? "" : ", ") + std::string(t->name());
  return names;
}

StatusOr<const Transport*> FindTransport(std::string_view name) {
  for (const Transport* t : Registry())
    if (t->name() == name) return t;
  for (const Optional& o : kOptional)
    if (o.name == name)
      return Status::InvalidArgument("--rpc " + std::string(name) + ": " + std::string(o.how) +
                                     ", or use --rpc " + std::string(DefaultTransport().name()));
  return Status::InvalidArgument("--rpc must be one of " + TransportNames() + ", got '" +
                                 std::string(name) + "'");
}

}  // namespace wirebench
