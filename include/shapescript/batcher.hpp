// Many agents, one call: a Batcher collects batch-1 requests for one device
// function from any number of threads and runs them as one call whose
// batch axis is their number (a generic axis: no recompile at any count),
// each request getting its own rows of the results.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "shapescript/diagnostic.hpp"
#include "shapescript/export.hpp"
#include "shapescript/module.hpp"
#include "shapescript/tensor.hpp"
#include "shapescript/value.hpp"

namespace ss {

struct BatcherOptions {
  // The most requests one call takes: a batch runs as soon as this many
  // are queued.
  int max_batch = 256;
  // How long a request waits in `run` for others to join it before its
  // thread runs the batch queued so far.
  std::chrono::microseconds max_wait{500};
};

struct BatcherStats {
  std::int64_t requests = 0;  // run in a batch, failed ones included
  std::int64_t failed = 0;    // of those, in a batch whose call failed
  std::int64_t batches = 0;   // calls run
  std::int64_t largest = 0;   // requests in the largest batch
};

class SS_API Batcher {
 public:
  // `function`, a device function of `module`, takes `resident` first (a
  // model value, say: every batch reads its version current when the batch
  // starts), then tensors whose leading axis is a generic batch axis; each
  // of its results has that axis leading too. The module must outlive the
  // batcher.
  Batcher(const Module& module, std::string function, std::vector<Arg> resident,
          BatcherOptions options = {});
  // Runs what is still queued.
  ~Batcher();
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // An agent's rows, checked once and kept: `inputs` holds one row of each
  // batched parameter (its shape without the batch axis), `outputs` one
  // writable row of each result (Tensor::view of the host's memory), both
  // row-major f32 or i32. Each request is checked against the function's
  // signature (E1603 in *errors otherwise, and an empty Rows: a wrong
  // request is refused alone, and never sets what the others must look
  // like); rows() also refuses a function that isn't a device function
  // (E1604), an empty Module (E1612), and resident arguments missing or
  // empty (E1603). Sizes of generic axes besides the batch are set by the
  // first good request. Queueing a request with Rows copies no
  // tensor and allocates nothing: the agent writes its observation into
  // its row and asks, frame after frame.
  class Rows {
   public:
    Rows() = default;
    explicit operator bool() const { return held_ != nullptr; }

   private:
    friend class Batcher;
    std::shared_ptr<const void> held_;
  };
  Rows rows(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
            std::vector<Diagnostic>* errors = nullptr);

  // One request, waiting for its result: returns when its output rows are
  // written, or with the diagnostics of its batch's call (E1603 for rows
  // that don't fit, E1612 for an empty Rows).
  std::vector<Diagnostic> run(const Rows& rows);
  std::vector<Diagnostic> run(const std::vector<Tensor>& inputs,
                              const std::vector<Tensor>& outputs);
  // The same without waiting: `done` (may be empty) is called, on the
  // thread that runs its batch, once its rows are written or with the
  // diagnostics. A queued request runs when a batch fills, when a waiting
  // `run`'s wait ends, at flush, or when the batcher goes. The rows'
  // memory must stay valid until then (the batcher keeps the Rows).
  void submit(const Rows& rows, std::function<void(std::vector<Diagnostic>)> done = {});
  void submit(std::vector<Tensor> inputs, std::vector<Tensor> outputs,
              std::function<void(std::vector<Diagnostic>)> done);
  // Runs every queued request now, on this thread.
  void flush();
  BatcherStats stats() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ss
