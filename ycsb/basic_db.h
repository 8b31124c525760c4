// YCSB's BasicDB seen from wirebench: the lines its basicdb.verbose mode
// prints for each operation ("READ usertable user38... [ <all fields>]"),
// built from the request wirebench sends, so a user sees the keys, fields
// and values wirebench generates, and its properties block.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "codecs/message.h"

namespace wirebench::ycsb {

// java.lang.String.hashCode of `s` (its bytes as chars, which YCSB's ASCII
// field names are).
int32_t JavaStringHash(std::string_view s);

// The order in which a java.util.HashMap (or HashSet) filled with `keys`, in
// this order, iterates them: by bucket (the spread hash masked by the
// table's size, 16 doubled while more than 3/4 full), then in insertion
// order. Indexes into `keys`.
std::vector<size_t> JavaHashMapOrder(std::span<const std::string_view> keys);

// BasicDB.read's line: "READ <table> <key> [ <field> ]", or "[ <all
// fields>]" when `columns` selects whole families (readallfields).
std::string BasicDbReadLine(std::string_view table, ByteView key, std::span<const Column> columns);
// BasicDB.scan's: "SCAN <table> <startkey> <recordcount> [ ... ]".
std::string BasicDbScanLine(std::string_view table, const ScanRequest& scan);
// BasicDB.update's and insert's: "<verb> <table> <key> [ field=value ... ]",
// the fields in HashMap order, as CoreWorkload's HashMap of values holds them.
std::string BasicDbWriteLine(std::string_view verb, std::string_view table, const Mutation& m);
// basicdb.count: BasicDB's hash of a read or scan (table, key, the fields
// sorted; table and key alone for all fields) and of an update or insert
// (table, key, then each field and value, sorted by field), as Java's
// String.hashCode of their concatenation.
int32_t BasicDbReadHash(std::string_view table, ByteView key, std::span<const Column> columns);
int32_t BasicDbWriteHash(std::string_view table, const Mutation& m);

// BasicDB.init's block: the stars, "\"key\"=\"value\"" per property, the stars.
std::string BasicDbPropertiesBlock(const std::vector<std::pair<std::string, std::string>>& props);

}  // namespace wirebench::ycsb
