// `--region memstore`: an in-memory sorted store (no options).
#include "nullregion/region_entry.h"
#include "regions/memstore/memstore_region.h"

namespace wirebench {

const RegionEntry& MemstoreRegionEntry() {
  static const RegionEntry entry{
      "memstore",
      "an in-memory sorted store: puts kept, reads answered",
      {},
      [](const RegionSettings&) { return Status::Ok(); },
      [](const RegionSettings&) -> StatusOr<std::unique_ptr<Region>> {
        return NewMemstoreRegion();
      },
      nullptr};
  return entry;
}

}  // namespace wirebench
