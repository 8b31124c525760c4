// kSanitizedBuild: whether this test binary was built with AddressSanitizer
// or ThreadSanitizer (GCC defines __SANITIZE_*__, Clang has __has_feature).
// Tests whose subject the sanitizer runtime changes (its own CPU, its own
// address-space reservations, Valgrind) check it and skip or relax.
#pragma once

namespace wirebench::testing {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitizedBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif
#else
inline constexpr bool kSanitizedBuild = false;
#endif

}  // namespace wirebench::testing
