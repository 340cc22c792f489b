// A loaded program: checked once, its device functions prepared (lowered)
// on first call and kept, so later calls at any batch size prepare nothing.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "shapescript/diagnostic.hpp"
#include "shapescript/export.hpp"
#include "shapescript/tensor.hpp"

namespace ss {

// Sizes for the program's dims declared without one (`dim V`); the CLI's
// `--dim V=32000`. Naming an unknown dim is E0405, resizing a dim the
// program sizes E0406; running with a dim still unsized is E0404.
//
// Sinks: each `sink NAME` the program declares is bound to a callback that
// receives what `write(NAME, k=v, ...)` sends, the names and values in
// order. A sink left unbound is E1705 at load.
using SinkRecord = std::vector<std::pair<std::string, double>>;
using SinkCallback = std::function<void(const SinkRecord&)>;

struct LoadOptions {
  std::map<std::string, std::int64_t> dims;
  std::map<std::string, SinkCallback> sinks;
  // Told how far a loop over a dataset's batches has got (done of total),
  // after each batch: the CLI draws a progress bar with it on a terminal.
  std::function<void(std::int64_t done, std::int64_t total)> progress;
};

struct SS_API CallResult {
  // One per returned value (a tuple gives several; a model, one per
  // parameter), then the new value of each tensor of a `mut` parameter the
  // function changed, named in `updated` ("m.w1", "opt.step").
  std::vector<Tensor> outputs;
  std::vector<std::string> updated;
  std::vector<Diagnostic> diagnostics;
  explicit operator bool() const { return !has_errors(diagnostics); }
  const Tensor& tensor(std::size_t i = 0) const { return outputs.at(i); }
};

class SS_API Module {
 public:
  Module();
  ~Module();
  Module(Module&&) noexcept;
  Module& operator=(Module&&) noexcept;

  // False when the program had errors; diagnostics() has them.
  explicit operator bool() const;
  const std::vector<Diagnostic>& diagnostics() const;

  // Calls a device function. Tensor parameters take the positional
  // arguments in order; a model's parameters and a record's fields are
  // named: {"m.w1", w1}, {"batch.pixels", x} (a named tensor parameter
  // works too: {"x", x}). A missing argument is E1605, one of the wrong
  // shape or element type E1603, an unknown function E1604; the host never
  // sees an exception or a crash.
  CallResult call(const std::string& function, const std::vector<Tensor>& positional,
                  const std::map<std::string, Tensor>& named = {}) const;

  // How many functions have been prepared (lowered) so far.
  std::size_t prepared() const;

  struct Impl;

 private:
  friend class Engine;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ss
