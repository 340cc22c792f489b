// The controller's training and data operations on values: making models
// and optimisers, loading and saving files, dataset pipes and batches.
// File problems throw DataError; the controller points them at the call.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "ir/program.hpp"
#include "runtime/controller/value.hpp"

namespace ss::runtime {

Value new_model(const ir::Program& program, const std::string& model, std::uint64_t seed);
// Nullopt for a kind that isn't an optimiser.
std::optional<Value> new_optimizer(const std::string& kind, const Value& model,
                                   const std::map<std::string, double>& settings);

// `load(path)` typed as a dataset of `record`, or a model `name`.
Value load_dataset_value(const ir::Program& program, const std::string& record,
                         const std::string& path, const FileAccess& files);
// A checkpoint must hold every parameter at its shape (E1704 names the
// tensor and both shapes); other tensors in the file are an error too.
// `names` renames the file's tensors first, prefix to prefix (the longest
// that fits; PyTorch's nn.Sequential keys: {"0.", "fc1."}).
using NameMap = std::map<std::string, std::string>;
Value load_model_value(const ir::Program& program, const std::string& model,
                       const std::string& path, const FileAccess& files, const NameMap& names = {});
// `opt: AdamW[M] = load(path)`: settings, step and state, as `save(opt)`
// wrote them for a model M (E1704 for a mismatch).
Value load_optimizer_value(const ir::Program& program, const std::string& kind,
                           const std::string& model, const std::string& path,
                           const FileAccess& files, const NameMap& names = {});
// Models and optimisers, in safetensors, written atomically.
void save_value(const Value& v, const std::string& path, const FileAccess& files);

// `data |> stage`: shuffle(seed=), take(k), batches(n), whole, split(frac=,
// seed=). `positional` is the stage's one positional argument, if any.
Value pipe_stage(const Value& data, const std::string& stage, std::optional<double> positional,
                 const std::map<std::string, double>& keywords, const std::string& record);
std::int64_t length(const Value& v);

// The k-th item of a dataset (an example) or of batches (a batch), as a
// record; nullopt past the end.
std::optional<Value> nth_item(const Value& iterable, std::int64_t k);

}  // namespace ss::runtime
