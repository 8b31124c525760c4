#include "nullregion/region.h"

namespace wirebench {

Status Region::Multi(const MultiRequest& req, RegionScratch* scratch, MultiResponse* resp) {
  // Each Get may reuse the scratch and so invalidate the previous Get's
  // views: this default is right for regions whose results do not live in
  // the scratch (the null region); a region that builds results in the
  // scratch overrides Multi.
  scratch->action_results.resize(req.actions.size());
  for (size_t i = 0; i < req.actions.size(); ++i) {
    const Action& a = req.actions[i];
    ActionResult& ar = scratch->action_results[i];
    ar = ActionResult{};
    ar.index = a.index;
    Status s;
    if (a.kind == ActionKind::kMutation) {
      MutateResponse mr;
      s = Mutate(a.mutation, &mr);
    } else {
      GetResponse gr;
      s = Get(a.get, scratch, &gr);
      ar.result = gr.result;
    }
    if (!s.ok()) {
      ar.ok = false;
      ar.error = ByteView("action failed");
    }
  }
  resp->results = std::span<const ActionResult>(scratch->action_results.data(), req.actions.size());
  return Status::Ok();
}

}  // namespace wirebench
