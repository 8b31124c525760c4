// `--region memstore`: an in-memory sorted store with HBase's data model.
#include "nullregion/region_entry.h"
#include "regions/memstore/memstore_region.h"

namespace wirebench {

namespace {

constexpr std::string_view kMaxVersions = "--max-versions";
constexpr std::string_view kLimitMb = "--memstore-limit-mb";

StatusOr<MemstoreOptions> Options(const RegionSettings& settings) {
  MemstoreOptions o;
  if (!settings.Get(kMaxVersions).empty()) {
    auto v = settings.GetUint32(kMaxVersions, 1, 1000000);
    if (!v.ok()) return v.status();
    o.max_versions = *v;
  }
  if (!settings.Get(kLimitMb).empty()) {
    auto v = settings.GetUint32(kLimitMb, 0, 4u << 20);
    if (!v.ok()) return v.status();
    o.limit_bytes = uint64_t(*v) << 20;
  }
  return o;
}

}  // namespace

const RegionEntry& MemstoreRegionEntry() {
  static const RegionEntry entry{
      {"memstore",
       "an in-memory sorted store with HBase's data model: puts kept, reads answered",
       {"wirebench::MemstoreRegion::", "wirebench::ResultBuilder::"}},
      {{kMaxVersions,
        "memstore region: versions kept per column, for every family (HBase's VERSIONS; "
        "default 1)",
        ""},
       {kLimitMb,
        "memstore region: MiB the memstore may hold (cells, delete markers and their overhead) "
        "before writes are refused with RegionTooBusyException, as HBase blocks writes over its "
        "memstore limit; deletes of whole rows are still taken, to free room (0 = no limit; "
        "default 512)",
        ""}},
      [](const RegionSettings& settings) { return Options(settings).status(); },
      [](const RegionSettings& settings) -> StatusOr<std::unique_ptr<Region>> {
        auto o = Options(settings);
        if (!o.ok()) return o.status();
        return NewMemstoreRegion(*o);
      },
      nullptr};
  return entry;
}

}  // namespace wirebench
