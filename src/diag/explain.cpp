// `explain`: one entry of the built-in copy of docs/errors.md.
#include <string>
#include <string_view>

#include "shapescript/diagnostic.hpp"

extern const unsigned char ss_error_catalog[];
extern const unsigned long ss_error_catalog_size;

namespace ss {

std::string explain(std::string_view code) {
  if (code.size() != 5 || code[0] != 'E') return {};
  const std::string_view catalog(reinterpret_cast<const char*>(ss_error_catalog),
                                 ss_error_catalog_size);
  const std::string heading = "\n### " + std::string(code) + ":";
  const auto start = catalog.find(heading);
  if (start == std::string_view::npos) return {};
  // The entry runs to the next entry or chapter.
  auto end = catalog.find("\n##", start + heading.size());
  if (end == std::string_view::npos) end = catalog.size();
  std::string entry(catalog.substr(start + 1, end - start - 1));
  while (!entry.empty() && entry.back() == '\n') entry.pop_back();
  return entry + "\n";
}

}  // namespace ss
