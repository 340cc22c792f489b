// tests/programs/devices/batch_ops.ss, the several-device tests' program:
// loaded with a `devices` line put in front, its inputs drawn from a seed,
// and results compared with one device's.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "shapescript/shapescript.hpp"

namespace ss::test {

// "" loads it for one device.
Module load_batch_ops(const std::string& devices, const LoadOptions& options = {},
                      const EngineOptions& engine = {});

// The model's parameters and a batch of `b` examples: seeded draws.
std::map<std::string, Tensor> batch_ops_inputs(std::int64_t b, unsigned seed = 7);

// The first diagnostic, rendered; "" when none.
std::string rendered(const CallResult& r);

// Every output within float32 tolerance of one device's.
void check_close(const CallResult& one, const CallResult& several);

// Two modules of a world of four (ranks 0-1 and 2-3, as two processes of a
// multi-node job), called at once from two threads: each gives one
// device's results (split outputs joined through the world), each rank
// its part of 11 examples.
void check_two_hosts(const Module& first, const Module& second);

// Each function, and the all-reduces one call issues on every worker: one
// per parameter its loss uses with split values (however many paths it is
// used on), one for the loss; per-example logits need none.
extern const std::map<std::string, std::int64_t> kBatchOpsFunctions;

}  // namespace ss::test
