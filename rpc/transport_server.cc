#include "rpc/transport_server.h"

#include <nlohmann/json.hpp>

namespace wirebench::rpc {

nlohmann::json ServerWrapper::StatsJson() { return inner_->StatsJson(); }

}  // namespace wirebench::rpc
