// `--arg` values: a number or a nested list of numbers, `[[1.0, 2.0]]`;
// f32, or i32 when written `i32:[1, 2]`.
#pragma once

#include <optional>
#include <string>

#include "shapescript/tensor.hpp"

namespace ss::cli {

// nullopt, with *why set, for text that isn't such a value (a ragged list).
std::optional<Tensor> parse_value(const std::string& text, std::string* why);

}  // namespace ss::cli
