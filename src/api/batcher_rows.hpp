// Whether an agent's rows fit a batcher's function (Batcher::rows): each
// request is checked against the function's signature before it is
// queued, so a wrong one is refused alone and never sets what the others
// must look like.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/module_impl.hpp"

namespace ss::api {

// E1603 for a request's rows, `why` they don't fit.
Diagnostic batcher_misfit(std::string why);

// Nullopt when `inputs` (one row of each batched parameter) and `outputs`
// (one row of each result) fit `function` of `impl`'s program called with
// `resident` first; else E1612 for an empty module, E1604 for a function
// that isn't a device function, E1603 for anything else (a resident
// argument missing or empty, a row of the wrong count, rank, size or
// element type).
std::optional<Diagnostic> batcher_rows_misfit(const Module::Impl& impl, const std::string& function,
                                              const std::vector<Arg>& resident,
                                              const std::vector<Tensor>& inputs,
                                              const std::vector<Tensor>& outputs);

}  // namespace ss::api
