#include <algorithm>
#include <string>
#include <vector>

#include "codecs/hbase/key_value.h"
#include "codecs/schemas/Client.pb.h"
#include "codecs/wire_reader.h"
#include "transports/hbase/hbase_calls.h"
#include "transports/hbase/hbase_regions.h"

namespace wirebench::hbaserpc {

namespace {

// A failed action's exception as HBase names it: the status's own class
// when it names NotServingRegionException or RegionTooBusyException
// ("Class: text"), or WrongRegionException, else DoNotRetryIOException.
void SetActionException(const Status& s, hbase::NameBytesPair* e) {
  std::string msg(s.message());
  for (std::string_view cls :
       {exceptions::kNotServingRegion, exceptions::kWrongRegion, exceptions::kRegionTooBusy}) {
    if (msg.compare(0, cls.size(), cls) == 0 && msg.size() > cls.size() + 1) {
      e->set_name(std::string(cls));
      e->set_value(msg.substr(cls.size() + 2));
      return;
    }
  }
  e->set_name(std::string(exceptions::kDoNotRetry));
  e->set_value(msg);
}

// Moves `block` past the cells of a mutation that is not applied.
bool SkipCells(const hbase::Action& a, WireReader* block) {
  for (int32_t i = 0; a.has_mutation() && i < a.mutation().associated_cell_count(); ++i) {
    Cell skip;
    if (!pb::ReadKeyValue(*block, &skip)) return false;
  }
  return true;
}

}  // namespace

Status CallHandler::DoMulti(const Call& c, hbase::MultiResponse* resp) {
  hbase::MultiRequest req;
  if (!req.ParseFromArray(c.param.data(), int(c.param.size())))
    return Status::InvalidArgument("malformed MultiRequest");
  // A filtered Get anywhere in the batch: nothing is applied here.
  if (defer_filters_)
    for (const hbase::RegionAction& ra : req.regionaction())
      for (const hbase::Action& a : ra.action())
        if (a.has_get() && a.get().has_filter()) return Defer();
  WireReader block(c.block);
  bool all_processed = true;
  for (const hbase::RegionAction& ra : req.regionaction()) {
    hbase::RegionActionResult* rar = resp->add_regionactionresult();
    const ByteView region(ra.region().value());
    // A region this server does not hold (RSRpcServices.getRegion), or
    // mutations for the catalog: the whole region action fails.
    const Status named = CheckRegionName(region, *service_);
    if (!named.ok() ||
        (IsMetaRegion(region) && std::any_of(ra.action().begin(), ra.action().end(),
                                             [](const auto& a) { return a.has_mutation(); }))) {
      auto* e = rar->mutable_exception();
      e->set_name(std::string(exceptions::kNotServingRegion));
      e->set_value(named.ok() ? "Region " + region.ToString() + " takes no mutations on this server"
                              : std::string(named.message().substr(exceptions::kNotServingRegion.size() + 2)));
      // Skip the cells of this region action's mutations in the block.
      for (const auto& a : ra.action())
        if (!SkipCells(a, &block))
          return Status::InvalidArgument("the cell block is shorter than the Multi announces");
      continue;
    }
    // A condition on the region action (checkAndMutate with a RowMutations
    // or a batch of them): all of its mutations or none, in one atomic step.
    const hbase::Condition* cond =
        ra.has_condition() ? &ra.condition() : (req.has_condition() ? &req.condition() : nullptr);
    if (cond != nullptr) {
      bool processed = false;
      WB_RETURN_IF_ERROR(ConditionalActions(ra, *cond, &block, rar, &processed));
      all_processed = all_processed && processed;
      continue;
    }
    WB_RETURN_IF_ERROR(RegionActions(ra, &block, rar));
  }
  if (req.has_condition() || std::any_of(req.regionaction().begin(), req.regionaction().end(),
                                         [](const auto& ra) { return ra.has_condition(); }))
    resp->set_processed(all_processed);
  return Status::Ok();
}

Status CallHandler::ConditionalActions(const hbase::RegionAction& ra, const hbase::Condition& cond,
                                       WireReader* block, hbase::RegionActionResult* rar,
                                       bool* processed) {
  const ByteView region(ra.region().value());
  auto condition = ReadCondition(cond);
  if (!condition.ok()) return condition.status();
  condition->table = ByteView(TableOf(region.str()));
  std::vector<std::vector<Cell>> cells(size_t(ra.action_size()));
  std::vector<Mutation> mutations;
  for (int i = 0; i < ra.action_size(); ++i) {
    const hbase::Action& a = ra.action(i);
    if (!a.has_mutation())
      return Status::InvalidArgument("a conditional RegionAction holds only mutations");
    Mutation m;
    WB_RETURN_IF_ERROR(ReadMutation(a.mutation(), block, &m, &cells[size_t(i)]));
    WB_RETURN_IF_ERROR(CheckRow(region, m.row));
    m.table = condition->table;
    mutations.push_back(m);
  }
  *processed = false;
  WB_RETURN_IF_ERROR(
      service_->region()->CheckAndMutate(*condition, mutations, &scratch_, processed));
  rar->set_processed(*processed);
  for (const hbase::Action& a : ra.action()) {
    hbase::ResultOrException* roe = rar->add_resultorexception();
    roe->set_index(a.index());
    roe->mutable_result();
  }
  return Status::Ok();
}

Status CallHandler::RegionActions(const hbase::RegionAction& ra, WireReader* block,
                                  hbase::RegionActionResult* rar) {
  const ByteView region(ra.region().value());
  for (const hbase::Action& a : ra.action()) {
    hbase::ResultOrException* roe = rar->add_resultorexception();
    roe->set_index(a.index());
    Status s;
    if (a.has_service_call()) {
      s = Status::Unimplemented(std::string(exceptions::kUnknownProtocol) +
                                ": wirebench runs no coprocessor services");
    } else if (a.has_mutation()) {
      const auto t = a.mutation().mutate_type();
      hbase::Result* r = roe->mutable_result();
      s = ApplyMutation(region, a.mutation(), block, r);
      if (s.ok() && t != hbase::MutationProto::INCREMENT && t != hbase::MutationProto::APPEND)
        r->Clear();
    } else if (a.has_get()) {
      s = GetRow(region, a.get(), roe->mutable_result());
    }
    if (!s.ok()) {
      if (s.code() == Status::Code::kInvalidArgument && ra.atomic())
        return s;  // An atomic action's bad mutation fails the whole call.
      roe->clear_result();
      SetActionException(s, roe->mutable_exception());
    }
  }
  return Status::Ok();
}

}  // namespace wirebench::hbaserpc
