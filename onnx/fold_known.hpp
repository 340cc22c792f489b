// Nodes whose inputs are all known at import are evaluated there (up to
// 64 MiB of results a node): shape arithmetic, masks built by ScatterND
// from index arithmetic, Where, Equal, Expand, ConstantOfShape... so what
// they make is a constant of the program, never a computation, and a
// ScatterND of known indices never needs them computed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "onnx/translator.hpp"

namespace ss::onnx_import {

// The most a node's results may hold when folded at import: past it a
// node is left to its handler (a Range, E2007).
constexpr std::int64_t kFoldedBytes = std::int64_t{64} << 20;
// As elements of 8 bytes, the widest folded.
constexpr std::int64_t kFoldedElements = kFoldedBytes / 8;

// Folds the node being translated when every input it has is a constant
// and its op is one this evaluates: true when it did (its outputs bound
// with Translator::fold), false to leave it to its handler.
bool fold_known(Translator& t);

// Its layout ops and its scatters and gathers (fold_known_layout.cpp):
// nullopt where the op isn't one of them or its inputs don't fit.
std::optional<Constant> fold_layout(const std::string& op, const std::vector<const Constant*>& in,
                                    const Translator& t);
std::optional<Constant> fold_scatter(const std::string& op, const std::vector<const Constant*>& in,
                                     const Translator& t);

}  // namespace ss::onnx_import
