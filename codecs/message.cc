#include "codecs/message.h"

namespace wirebench {

namespace {
void AddCells(std::span<const Cell> cells, MessageSize* s) {
  for (const Cell& c : cells) {
    ++s->cells;
    s->value_bytes += c.value.size();
    s->key_bytes += c.row.size() + c.family.size() + c.qualifier.size();
  }
}
}  // namespace

MessageSize SizeOf(const Mutation& m) {
  MessageSize s;
  AddCells(m.cells, &s);
  return s;
}

MessageSize SizeOf(const Result& r) {
  MessageSize s;
  AddCells(r.cells, &s);
  return s;
}

}  // namespace wirebench
