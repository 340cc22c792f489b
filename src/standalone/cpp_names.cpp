#include "standalone/cpp_names.hpp"

#include <set>

namespace ss::standalone {
namespace {

// Escaped names start with this; names that start with it are escaped too.
constexpr const char* kPrefix = "ss_";
// Each function `f` also has `f_updated` in the generated file.
constexpr const char* kCompanion = "_updated";

const std::set<std::string>& keywords() {
  static const std::set<std::string> words = {
      // C++20 keywords
      "alignas", "alignof", "asm", "auto", "bool", "break", "case", "catch", "char", "char8_t",
      "char16_t", "char32_t", "class", "co_await", "co_return", "co_yield", "concept", "const",
      "consteval", "constexpr", "constinit", "const_cast", "continue", "decltype", "default",
      "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern",
      "false", "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable",
      "namespace", "new", "noexcept", "nullptr", "operator", "private", "protected", "public",
      "register", "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
      "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
      "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
      "virtual", "void", "volatile", "wchar_t", "while",
      // alternative tokens
      "and", "and_eq", "bitand", "bitor", "compl", "not", "not_eq", "or", "or_eq", "xor", "xor_eq",
      // identifiers with a special meaning, and words reserved by TS or C
      "final", "override", "import", "module", "transaction_safe", "transaction_safe_dynamic",
      "atomic_cancel", "atomic_commit", "atomic_noexcept", "reflexpr", "synchronized", "_Pragma",
      "restrict", "_Bool", "_Complex", "_Imaginary"};
  return words;
}

// Macros the standard headers the generated file includes may define, and
// the namespaces and names the generated file itself uses at namespace scope.
const std::set<std::string>& taken() {
  static const std::set<std::string> names = {
      "assert",   "errno",    "offsetof",     "setjmp",       "longjmp",  "va_start",
      "va_arg",   "va_end",   "va_copy",      "stdin",        "stdout",   "stderr",
      "NULL",     "EOF",      "BUFSIZ",       "FILENAME_MAX", "INFINITY", "NAN",
      "HUGE_VAL", "RAND_MAX", "EXIT_SUCCESS", "EXIT_FAILURE", "CHAR_BIT", "INT_MAX",
      "INT_MIN",  "SIZE_MAX", "MB_LEN_MAX",   "major",        "minor",    "makedev",
      "unix",     "linux",    "i386",         "std",          "ssa",      "model",
      "functions"};
  return names;
}

bool reserved(const std::string& name) {
  // Any leading underscore (reserved at global scope, or with a capital
  // anywhere) and any double underscore.
  return name.empty() || name[0] == '_' || name.find("__") != std::string::npos;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

bool is_cpp_keyword(const std::string& word) {
  return keywords().count(word) > 0;
}

std::string cpp_name(const std::string& program_name) {
  const bool safe = !is_cpp_keyword(program_name) && !taken().count(program_name) &&
                    !reserved(program_name) && program_name.rfind(kPrefix, 0) != 0 &&
                    !ends_with(program_name, kCompanion);
  if (safe) return program_name;
  // `_` becomes `_0`: no `__`, no `_u` (so never the companion's suffix),
  // and decodable, so two program names never meet.
  std::string out = kPrefix;
  for (const char c : program_name) out += c == '_' ? std::string("_0") : std::string(1, c);
  return out;
}

}  // namespace ss::standalone
