// Typed access to the diagnostic registry (codes.def): a code is an enum value,
// so a diagnostic can only be made with a code the catalog knows.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "shapescript/diagnostic.hpp"

namespace ss::diag {

enum class Code {
#define SS_DIAG(code, title) code,
#include "diag/codes.def"
#undef SS_DIAG
};

inline constexpr std::array kAllCodes = {
#define SS_DIAG(code, title) Code::code,
#include "diag/codes.def"
#undef SS_DIAG
};

std::string_view code_name(Code code);   // "E0101"
std::string_view code_title(Code code);  // "source file can't be read"
std::optional<Code> find_code(std::string_view name);

// An error diagnostic with this code. Fill location and help as needed.
Diagnostic error(Code code, std::string message, std::string help = {});

}  // namespace ss::diag
