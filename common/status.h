// Status and StatusOr<T>: the error vocabulary of every wirebench layer.
//
// A Status is one pointer: null means OK, otherwise it points to a heap block
// holding a code and a message (the LevelDB shape). OK statuses cost nothing to
// create, copy or test, so they can be returned from hot-path functions; error
// statuses allocate, which is fine because errors are not the hot path.
// Thread-safety: a Status is a value; distinct objects may be used from
// distinct threads.
#pragma once

#include <cassert>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace wirebench {

class [[nodiscard]] Status {
 public:
  enum class Code : unsigned char {
    kOk = 0,
    kInvalidArgument = 1,  // The caller (or the peer's bytes) is wrong.
    kCorruption = 2,       // Bytes do not decode.
    kNotFound = 3,
    kUnavailable = 4,      // A peer or resource is not reachable right now.
    kResourceExhausted = 5,
    kIoError = 6,
    kInternal = 7,
    kUnimplemented = 8,
    kAborted = 9,          // Stopped on request (shutdown, SIGINT).
  };

  Status() noexcept = default;
  Status(const Status& other) : state_(other.state_ ? new State(*other.state_) : nullptr) {}
  Status& operator=(const Status& other) {
    if (this != &other) state_.reset(other.state_ ? new State(*other.state_) : nullptr);
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string_view msg) { return Status(Code::kInvalidArgument, msg); }
  static Status Corruption(std::string_view msg) { return Status(Code::kCorruption, msg); }
  static Status NotFound(std::string_view msg) { return Status(Code::kNotFound, msg); }
  static Status Unavailable(std::string_view msg) { return Status(Code::kUnavailable, msg); }
  static Status ResourceExhausted(std::string_view msg) {
    return Status(Code::kResourceExhausted, msg);
  }
  static Status IoError(std::string_view msg) { return Status(Code::kIoError, msg); }
  static Status Internal(std::string_view msg) { return Status(Code::kInternal, msg); }
  static Status Unimplemented(std::string_view msg) { return Status(Code::kUnimplemented, msg); }
  static Status Aborted(std::string_view msg) { return Status(Code::kAborted, msg); }

  bool ok() const { return state_ == nullptr; }
  Code code() const { return state_ ? state_->code : Code::kOk; }
  // The message without the code name; empty for OK.
  std::string_view message() const { return state_ ? std::string_view(state_->msg) : ""; }
  // "OK" or "<CodeName>: <message>".
  std::string ToString() const;

 private:
  struct State {
    Code code;
    std::string msg;
  };
  Status(Code code, std::string_view msg) : state_(new State{code, std::string(msg)}) {}

  std::unique_ptr<State> state_;
};

// Either a T or a non-OK Status.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  // REQUIRES: !status.ok()
  StatusOr(Status status) : status_(std::move(status)) { assert(!status_.ok()); }  // NOLINT
  StatusOr(T value) : value_(std::move(value)) {}                                  // NOLINT

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  // REQUIRES: ok()
  T& value() & {
    assert(ok());
    return *value_;
  }
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace wirebench

// Returns from the enclosing function when the expression yields a non-OK Status.
#define WB_RETURN_IF_ERROR(expr)                 \
  do {                                           \
    ::wirebench::Status wb_status_ = (expr);     \
    if (!wb_status_.ok()) return wb_status_;     \
  } while (0)
