// Checks of what a command or a report printed.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>

namespace wirebench::testing {

// `text` holds each of `parts`; a failure names the part missing and prints
// the text.
inline void ExpectHoldsAll(const std::string& text, std::initializer_list<std::string_view> parts) {
  for (std::string_view part : parts)
    EXPECT_NE(text.find(part), std::string::npos) << "no \"" << part << "\" in:\n" << text;
}

}  // namespace wirebench::testing
