// A JSON string literal, quoted and escaped (UTF-8 kept as it is): the
// diagnostics' JSON and the safetensors header both write them.
#pragma once

#include <string>
#include <string_view>

namespace ss::support {

void append_json_string(std::string& out, std::string_view text);

}  // namespace ss::support
