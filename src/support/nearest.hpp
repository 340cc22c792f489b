// "Did you mean": the names nearest a misspelt one, by edit distance, for
// every stage's hints (unknown names, members, checkpoint tensors, functions).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ss::support {

// Levenshtein distance: insertions, deletions and substitutions.
std::size_t edit_distance(const std::string& a, const std::string& b);

// `candidates` ordered nearest first (ties by name), at most `limit`.
std::vector<std::string> nearest(const std::string& name, std::vector<std::string> candidates,
                                 std::size_t limit);

// The one candidate near enough to be a misspelling (fewer than 3 edits), if
// any: the nearest, ties by name.
std::optional<std::string> did_you_mean(const std::string& name,
                                        const std::vector<std::string>& candidates);

// "`a`, `b` and `c`": names quoted for a message.
std::string quoted_list(const std::vector<std::string>& names);

// A help line's "did you mean `w1`? " (when one is near) and the names,
// nearest first, at most `shown` of them ("... and 3 more"): what
// `<lead> <names>` reads as, e.g. "did you mean `w1`? the file holds `w1`".
std::string nearest_names(const std::string& name, const std::vector<std::string>& names,
                          const std::string& lead, std::size_t shown = 8);

}  // namespace ss::support
