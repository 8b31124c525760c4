// The codec registry: one line per codec. Each codec's folder defines its
// entry (docs/design.md, "Adding a codec").
#include <string>

#include "codecs/codec.h"

namespace wirebench {

const CodecInfo& RawCodecEntry();
const CodecInfo& PbCodecEntry();
const CodecInfo& PbArenaCodecEntry();
const CodecInfo& CellBlockCodecEntry();
const CodecInfo& FlatBuffersCodecEntry();
#ifdef WIREBENCH_HAVE_CAPNP
const CodecInfo& CapnpCodecEntry();
#endif
const CodecInfo& WritableCodecEntry();

const Registry<CodecInfo>& Codecs() {
  static const Registry<CodecInfo> registry("--codec", {
                                                          &RawCodecEntry(),
                                                          &PbCodecEntry(),
                                                          &PbArenaCodecEntry(),
                                                          &CellBlockCodecEntry(),
                                                          &FlatBuffersCodecEntry(),
#ifdef WIREBENCH_HAVE_CAPNP
                                                          &CapnpCodecEntry(),
#endif
                                                          &WritableCodecEntry(),
                                                      });
  return registry;
}

const CodecInfo* FindCodec(uint8_t id) {
  for (const CodecInfo* c : Codecs().all())
    if (uint8_t(c->id) == id) return c;
  return nullptr;
}

std::string CodecNames() { return Codecs().Names(); }

StatusOr<std::unique_ptr<Codec>> NewCodec(std::string_view name) {
  auto c = Codecs().Resolve(name);
  if (!c.ok()) return c.status();
  return (*c)->factory();
}

StatusOr<std::unique_ptr<Codec>> NewCodec(uint8_t id) {
  const CodecInfo* c = FindCodec(id);
  if (c == nullptr)
    return Status::InvalidArgument("unknown codec id " + std::to_string(id) +
                                   "; known codecs: " + CodecNames());
  return c->factory();
}

}  // namespace wirebench
