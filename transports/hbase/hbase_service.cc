#include "codecs/schemas/RPC.pb.h"
#include "transports/hbase/hbase_service.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

#include "codecs/hbase/pb_wire.h"

namespace wirebench::hbaserpc {

std::string ServerIdentity::ServerNameString() const {
  return host + "," + std::to_string(port) + "," + std::to_string(start_code);
}

namespace {

// A version-4 UUID's text from 128 bits.
std::string UuidText(uint64_t a, uint64_t b) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-%04x-%012llx", uint32_t(a >> 32),
                uint32_t(a >> 16) & 0xFFFF, uint32_t(a) & 0xFFF,
                uint32_t(0x8000 | ((b >> 48) & 0x3FFF)),
                static_cast<unsigned long long>(b & 0xFFFFFFFFFFFFull));
  return buf;
}

// SplitMix64's finalizer: every bit of the input moves every bit of the output.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

std::string NewClusterId() {
  std::random_device rd;
  std::mt19937_64 gen((uint64_t(rd()) << 32) ^ rd());
  const uint64_t a = gen();
  return UuidText(a, gen());
}

std::string ClusterIdOf(const ClusterPlan& plan) {
  const uint64_t a = Mix(plan.start_code_base);
  return UuidText(a, Mix(a));
}

void HBaseService::Configure(RegionLayout layout, const ClusterMember* cluster) {
  if (cluster != nullptr && cluster->plan.clustered()) {
    cluster_ = *cluster;
    layout_ = cluster->plan.layout;
  } else {
    cluster_.reset();
    layout_ = std::move(layout);
  }
  codec_path_ = layout_.regions() == 1 || cluster_.has_value();
}

void HBaseService::set_identity(ServerIdentity id) {
  identity_ = std::move(id);
  members_.clear();
  if (!cluster_) {
    members_.push_back(identity_);
    return;
  }
  for (uint32_t k = 0; k < cluster_->plan.size(); ++k) {
    const rpc::Endpoint& e = cluster_->plan.servers[k];
    members_.push_back(
        ServerIdentity{e.host, e.port, cluster_->plan.StartCode(k), identity_.cluster_id});
  }
  members_[cluster_->self] = identity_;
}

uint64_t ScannerNowMs() {
  return uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

void HBaseService::EraseLocked(Table::iterator it) {
  const Scanner& s = it->second->scanner;
  auto owner = per_owner_.find(s.owner);
  if (owner != per_owner_.end() && --owner->second == 0) per_owner_.erase(owner);
  scanner_bytes_ -= std::min(scanner_bytes_, s.bytes);
  scanners_.erase(it);
}

bool HBaseService::Expired(const ScannerSlot& slot, uint64_t now_ms) {
  return slot.running == 0 && now_ms - slot.scanner.last_used_ms > kScannerLeaseMs;
}

HBaseService::Table::iterator HBaseService::FindLocked(uint64_t id, uint64_t now_ms) {
  auto it = scanners_.find(id);
  if (it != scanners_.end() && Expired(*it->second, now_ms)) {
    EraseLocked(it);  // Its lease ran out: gone, as in HBase.
    return scanners_.end();
  }
  return it;
}

std::shared_ptr<HBaseService::ScannerSlot> HBaseService::CheckOut(uint64_t id) {
  const uint64_t now = ScannerNowMs();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = FindLocked(id, now);
  if (it == scanners_.end()) return nullptr;
  ++it->second->running;
  it->second->scanner.last_used_ms = now;
  return it->second;
}

void HBaseService::CheckIn(ScannerSlot* slot) {
  const uint64_t now = ScannerNowMs();
  std::lock_guard<std::mutex> lock(mu_);
  --slot->running;
  slot->scanner.last_used_ms = now;  // The lease counts from the end of the call.
}

bool HBaseService::MayBlock(uint64_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = scanners_.find(id);
  // The filter pointer is set when the scanner opens and never changes.
  return it != scanners_.end() &&
         (it->second->running > 0 || it->second->scanner.filter != nullptr);
}

bool HBaseService::Renew(uint64_t id) {
  const uint64_t now = ScannerNowMs();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = FindLocked(id, now);
  if (it == scanners_.end()) return false;
  it->second->scanner.last_used_ms = now;
  return true;
}

void HBaseService::ExpireScanners(uint64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = scanners_.begin(); it != scanners_.end();) {
    auto next = std::next(it);
    if (Expired(*it->second, now_ms)) EraseLocked(it);
    it = next;
  }
}

uint64_t HBaseService::NewOwner() {
  std::lock_guard<std::mutex> lock(mu_);
  return next_owner_++;
}

uint64_t HBaseService::OpenScanner(Scanner s, std::string* why) {
  const uint64_t now = ScannerNowMs();
  ExpireScanners(now);
  s.last_used_ms = now;
  std::lock_guard<std::mutex> lock(mu_);
  const size_t mine = per_owner_.count(s.owner) ? per_owner_[s.owner] : 0;
  if (scanners_.size() >= kMaxOpenScanners) {
    *why = std::to_string(kMaxOpenScanners) + " scanners are open on this server";
  } else if (mine >= kMaxScannersPerConnection) {
    *why = std::to_string(kMaxScannersPerConnection) + " scanners are open on this connection";
  } else if (scanner_bytes_ + s.bytes > kMaxScannerBytes) {
    *why = "open scanners hold " + std::to_string(scanner_bytes_ >> 20) + " MiB of keys, columns "
           "and filters (at most " + std::to_string(kMaxScannerBytes >> 20) + " MiB)";
  } else {
    const uint64_t id = next_scanner_++;
    ++per_owner_[s.owner];
    scanner_bytes_ += s.bytes;
    auto slot = std::make_shared<ScannerSlot>();
    slot->scanner = std::move(s);
    scanners_.emplace(id, std::move(slot));
    return id;
  }
  ++refused_scanners_;
  return 0;
}

uint64_t HBaseService::FinishedId() {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t id = next_scanner_++;
  finished_.push_back(id);
  if (finished_.size() > kRememberedScanners) finished_.pop_front();
  return id;
}

uint64_t HBaseService::refused_scanners() const {
  std::lock_guard<std::mutex> lock(mu_);
  return refused_scanners_;
}

void HBaseService::CloseScanner(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = scanners_.find(id);
  if (it == scanners_.end()) return;
  EraseLocked(it);
  finished_.push_back(id);  // RSRpcServices' closedScanners.
  if (finished_.size() > kRememberedScanners) finished_.pop_front();
}

void HBaseService::FinishScanner(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = scanners_.find(id);
  if (it != scanners_.end()) EraseLocked(it);
  finished_.push_back(id);
  if (finished_.size() > kRememberedScanners) finished_.pop_front();
}

bool HBaseService::WasFinished(uint64_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return std::find(finished_.begin(), finished_.end(), id) != finished_.end();
}

bool HBaseService::ReserveFilter(size_t wire_bytes, size_t* reserved, std::string* why) {
  const size_t want = kFilterParseFactor * wire_bytes;
  std::lock_guard<std::mutex> lock(mu_);
  if (scanner_bytes_ + want > kMaxScannerBytes) {
    *why = "open scanners hold " + std::to_string(scanner_bytes_ >> 20) +
           " MiB of keys, columns and filters (at most " + std::to_string(kMaxScannerBytes >> 20) +
           " MiB) and a filter of " + std::to_string(wire_bytes) + " bytes takes up to " +
           std::to_string((want + (size_t{1} << 20) - 1) >> 20) +
           " MiB to parse: close scanners, or send a smaller filter";
    return false;
  }
  scanner_bytes_ += want;
  *reserved = want;
  return true;
}

void HBaseService::ReleaseFilter(size_t reserved) {
  std::lock_guard<std::mutex> lock(mu_);
  scanner_bytes_ -= std::min(scanner_bytes_, reserved);
}

size_t HBaseService::open_scanners() const {
  std::lock_guard<std::mutex> lock(mu_);
  return scanners_.size();
}

void AppendReply(const hbase::ResponseHeader& h, const google::protobuf::MessageLite* resp,
                 ByteBuffer* out) {
  const size_t hs = h.ByteSizeLong();
  const size_t rs = resp ? resp->ByteSizeLong() : 0;
  const size_t total =
      pb::VarintSize(hs) + hs + (resp ? pb::VarintSize(rs) + rs : 0);
  uint8_t* p = out->Extend(4 + total);
  StoreBE32(p, uint32_t(total));
  p = pb::WriteVarint(p + 4, hs);
  p = h.SerializeWithCachedSizesToArray(p);
  if (resp) {
    p = pb::WriteVarint(p, rs);
    resp->SerializeWithCachedSizesToArray(p);
  }
}

void AppendExceptionReply(uint32_t call_id, std::string_view exception_class,
                          std::string_view message, bool do_not_retry, ByteBuffer* out) {
  hbase::ResponseHeader h;
  h.set_call_id(call_id);
  hbase::ExceptionResponse* e = h.mutable_exception();
  e->set_exception_class_name(std::string(exception_class));
  // HBase sends the stringified exception: "Class: message" and its stack.
  e->set_stack_trace(std::string(exception_class) + ": " + std::string(message));
  e->set_do_not_retry(do_not_retry);
  AppendReply(h, nullptr, out);
}

}  // namespace wirebench::hbaserpc
