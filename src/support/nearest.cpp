#include "support/nearest.hpp"

#include <algorithm>

namespace ss::support {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::vector<std::string> nearest(const std::string& name, std::vector<std::string> candidates,
                                 std::size_t limit) {
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (auto& c : candidates) scored.emplace_back(edit_distance(name, c), std::move(c));
  std::sort(scored.begin(), scored.end());
  scored.erase(std::unique(scored.begin(), scored.end()), scored.end());
  std::vector<std::string> out;
  for (auto& [distance, c] : scored) {
    if (out.size() == limit) break;
    out.push_back(std::move(c));
  }
  return out;
}

std::optional<std::string> did_you_mean(const std::string& name,
                                        const std::vector<std::string>& candidates) {
  const auto best = nearest(name, candidates, 1);
  if (best.empty() || best[0] == name) return std::nullopt;
  const std::size_t distance = edit_distance(name, best[0]);
  if (distance >= 3) return std::nullopt;
  return best[0];
}

std::string nearest_names(const std::string& name, const std::vector<std::string>& names,
                          const std::string& lead, std::size_t shown) {
  const auto best = did_you_mean(name, names);
  return (best ? "did you mean `" + *best + "`? " : std::string()) + lead + " " +
         quoted_list(nearest(name, names, shown)) +
         (names.size() > shown ? " and " + std::to_string(names.size() - shown) + " more" : "");
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + ("`" + names[i] + "`");
  return out;
}

}  // namespace ss::support
