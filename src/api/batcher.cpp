// Batcher (include/shapescript/batcher.hpp): requests queue; the thread
// that fills a batch, a waiting request's thread whose wait ran out, or a
// flush runs the queued requests as one call_into on rows gathered into
// the batcher's own buffers, then copies each request's result rows back.
// No thread of its own: the callers' threads run the batches. A request
// is a pointer to its rows (checked once, Batcher::Rows) and its
// completion: queueing one allocates nothing once the queue has grown.
#include "shapescript/batcher.hpp"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <utility>

#include "api/batcher_rows.hpp"
#include "diag/codes.hpp"
#include "support/inline_vector.hpp"
#include "support/log.hpp"

namespace ss {

namespace {

// An agent's rows: the host's tensors, and their data where a batch
// gathers from and scatters to.
struct RowSet {
  std::vector<Tensor> inputs, outputs;
  // Their data, inline: a batch reads them for every request.
  support::InlineVector<std::uint32_t*, 4> in, out;
};

// A run() waiting for its request.
struct Waiter {
  bool finished = false;
  std::vector<Diagnostic> diagnostics;
};

struct Pending {
  std::shared_ptr<const void> held;  // keeps the rows while queued
  const RowSet* rows = nullptr;
  std::function<void(std::vector<Diagnostic>)> done;
  Waiter* waiter = nullptr;
};

std::int64_t elements(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (const auto d : shape) n *= d;
  return n;
}

// Why a row can't be batched: empty when it is a row-major f32 or i32 tensor.
std::string unusable(const Tensor& t, const char* what, std::size_t k) {
  const std::string name = std::string(what) + " " + std::to_string(k);
  if (!t.data()) return name + " has no data";
  if (t.dtype() != DType::f32 && t.dtype() != DType::i32)
    return name + " isn't f32 or i32, the element types a batcher gathers";
  std::int64_t stride = 1;
  for (std::size_t a = t.shape().size(); a-- > 0;) {
    if (t.shape()[a] != 1 && t.strides()[a] != stride) return name + " isn't row-major";
    stride *= t.shape()[a];
  }
  return "";
}

bool same_rows(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k].shape() != b[k].shape() || a[k].dtype() != b[k].dtype()) return false;
  return true;
}

// One row's 4-byte elements, copied in a loop the compiler keeps inline
// (an agent's rows are a few dozen bytes: a memcpy call costs more).
void copy_row(std::uint32_t* to, const std::uint32_t* from, std::int64_t count) {
  for (std::int64_t i = 0; i < count; ++i) to[i] = from[i];
}

// A view of `n` rows shaped like `row`, in `data`.
Tensor rows_view(std::uint32_t* data, const Tensor& row, std::int64_t n) {
  std::vector<std::int64_t> shape{n};
  shape.insert(shape.end(), row.shape().begin(), row.shape().end());
  if (row.dtype() == DType::i32)
    return Tensor::view(reinterpret_cast<const std::int32_t*>(data), std::move(shape));
  return Tensor::view(reinterpret_cast<const float*>(data), std::move(shape));
}

}  // namespace

struct Batcher::Impl {
  const Module& module;
  std::string function;
  std::vector<Arg> resident;
  BatcherOptions options;
  support::LoggerPtr log;  // the engine's: where a done callback's throw is reported

  mutable std::mutex mutex;  // the queue, the format, the stats, waiters' flags
  std::condition_variable finished;
  std::vector<Pending> queue;
  std::shared_ptr<const RowSet> format;  // the first rows seen: every request's shapes
  BatcherStats stats;
  // One batch runs at a time, in these buffers (4-byte elements, f32 or
  // i32) kept from batch to batch.
  std::mutex running;
  std::vector<std::vector<std::uint32_t>> in_rows, out_rows;
  std::vector<Pending> spare;  // a taken batch's vector, returned for the next

  Impl(const Module& m, std::string f, std::vector<Arg> r, BatcherOptions o)
      : module(m), function(std::move(f)), resident(std::move(r)), options(o) {
    options.max_batch = std::max(1, options.max_batch);
    queue.reserve(static_cast<std::size_t>(options.max_batch));
  }

  // Checked rows, or why not (E1603, E1604, E1612 into *refused): each
  // request against the function's signature (`program`, the module's
  // now), so a wrong one never sets the format (the first good rows: the
  // sizes of other generic axes).
  std::shared_ptr<const RowSet> make_rows(const Module::Impl& program,
                                          const std::vector<Tensor>& inputs,
                                          const std::vector<Tensor>& outputs,
                                          std::optional<Diagnostic>* refused) {
    std::string why;
    for (std::size_t k = 0; k < inputs.size() && why.empty(); ++k)
      why = unusable(inputs[k], "input row", k);
    for (std::size_t k = 0; k < outputs.size() && why.empty(); ++k)
      why = unusable(outputs[k], "output row", k);
    if (!why.empty()) {
      *refused = api::batcher_misfit(why);
      return nullptr;
    }
    *refused = api::batcher_rows_misfit(program, function, resident, inputs, outputs);
    if (*refused) return nullptr;
    auto made = std::make_shared<RowSet>(RowSet{inputs, outputs, {}, {}});
    for (const Tensor& t : inputs)
      made->in.push_back(static_cast<std::uint32_t*>(const_cast<void*>(t.data())));
    for (const Tensor& t : outputs)
      made->out.push_back(static_cast<std::uint32_t*>(const_cast<void*>(t.data())));
    const std::lock_guard lock(mutex);
    if (!format) {
      format = made;
    } else if (!same_rows(inputs, format->inputs) || !same_rows(outputs, format->outputs)) {
      *refused = api::batcher_misfit(
          "its rows' shapes or element types differ from the batcher's first request's");
      return nullptr;
    }
    return made;
  }

  // Up to max_batch requests off the queue's front (the mutex held).
  std::vector<Pending> take_front() {
    std::vector<Pending> batch;
    if (static_cast<int>(queue.size()) <= options.max_batch) {
      batch.swap(spare);
      batch.swap(queue);  // the queue gets the spare's capacity
      return batch;
    }
    const auto end = queue.begin() + options.max_batch;
    batch.assign(std::make_move_iterator(queue.begin()), std::make_move_iterator(end));
    queue.erase(queue.begin(), end);
    return batch;
  }

  void run_batch(std::vector<Pending>& batch) {
    if (batch.empty()) return;
    std::vector<Diagnostic> diagnostics;
    {
      const std::lock_guard run_lock(running);
      diagnostics = call(batch);
    }
    // Every waiter's flag at once, one wake; then the callbacks.
    {
      const std::lock_guard lock(mutex);
      ++stats.batches;
      stats.requests += static_cast<std::int64_t>(batch.size());
      stats.largest = std::max(stats.largest, static_cast<std::int64_t>(batch.size()));
      if (!diagnostics.empty()) stats.failed += static_cast<std::int64_t>(batch.size());
      for (Pending& p : batch)
        if (p.waiter) {
          p.waiter->diagnostics = diagnostics;
          p.waiter->finished = true;
        }
    }
    finished.notify_all();
    for (Pending& p : batch) tell(p.done, diagnostics);
    batch.clear();
    const std::lock_guard lock(mutex);
    if (spare.capacity() < batch.capacity()) spare.swap(batch);
  }

  // The batch's rows gathered, the call, the results scattered.
  std::vector<Diagnostic> call(const std::vector<Pending>& batch) {
    const auto n = static_cast<std::int64_t>(batch.size());
    const RowSet& first = *batch[0].rows;
    std::vector<Arg> args = resident;
    in_rows.resize(first.inputs.size());
    for (std::size_t k = 0; k < first.inputs.size(); ++k) {
      const std::int64_t each = elements(first.inputs[k].shape());
      // Rows lying one after another in the host's memory (agents kept in
      // one array) are read in place; others are gathered.
      if (std::uint32_t* run = in_place(batch, k, each, &RowSet::in)) {
        args.emplace_back(rows_view(run, first.inputs[k], n));
        continue;
      }
      auto& buffer = in_rows[k];
      buffer.resize(static_cast<std::size_t>(n * each));
      for (std::int64_t i = 0; i < n; ++i)
        copy_row(buffer.data() + i * each, batch[static_cast<std::size_t>(i)].rows->in[k], each);
      args.emplace_back(rows_view(buffer.data(), first.inputs[k], n));
    }
    out_rows.resize(first.outputs.size());
    std::vector<Tensor> outputs;
    std::vector<bool> written(first.outputs.size());  // results straight into the host's rows
    for (std::size_t k = 0; k < first.outputs.size(); ++k) {
      const std::int64_t each = elements(first.outputs[k].shape());
      if (std::uint32_t* run = in_place(batch, k, each, &RowSet::out)) {
        outputs.push_back(rows_view(run, first.outputs[k], n));
        written[k] = true;
        continue;
      }
      out_rows[k].resize(static_cast<std::size_t>(n * each));
      outputs.push_back(rows_view(out_rows[k].data(), first.outputs[k], n));
    }
    CallResult result = module.call_into(function, args, outputs);
    if (!result) return std::move(result.diagnostics);
    for (std::size_t k = 0; k < first.outputs.size(); ++k) {
      if (written[k]) continue;
      const std::int64_t each = elements(first.outputs[k].shape());
      for (std::int64_t i = 0; i < n; ++i)
        copy_row(batch[static_cast<std::size_t>(i)].rows->out[k], out_rows[k].data() + i * each,
                 each);
    }
    return {};
  }

  // The first request's row `k` when every request's row k follows the
  // one before it in memory (`each` elements apart); else null.
  static std::uint32_t* in_place(const std::vector<Pending>& batch, std::size_t k,
                                 std::int64_t each,
                                 support::InlineVector<std::uint32_t*, 4> RowSet::*side) {
    std::uint32_t* const first = (batch[0].rows->*side)[k];
    for (std::size_t i = 1; i < batch.size(); ++i)
      if ((batch[i].rows->*side)[k] != first + static_cast<std::int64_t>(i) * each) return nullptr;
    return first;
  }

  // A submit's done callback, told its diagnostics: what it throws, no call
  // waits on, so it is counted and reported to the engine's log.
  void tell(const std::function<void(std::vector<Diagnostic>)>& done,
            std::vector<Diagnostic> diagnostics) const {
    if (done)
      support::unwaited_call(log, "Batcher::submit's done callback",
                             [&] { done(std::move(diagnostics)); });
  }

  // Queues a request; runs a batch here when the queue filled one.
  void enqueue(Pending p) {
    std::vector<Pending> full;
    {
      const std::lock_guard lock(mutex);
      queue.push_back(std::move(p));
      if (static_cast<int>(queue.size()) >= options.max_batch) full = take_front();
    }
    run_batch(full);
  }

  void flush() {
    while (true) {
      std::vector<Pending> batch;
      {
        const std::lock_guard lock(mutex);
        batch = take_front();
      }
      if (batch.empty()) return;
      run_batch(batch);
    }
  }

  // (`held` keeps the rows: the batch may run on another thread.)
  std::vector<Diagnostic> wait(const RowSet* rows, std::shared_ptr<const void> held) {
    Waiter waiter;
    const auto deadline = std::chrono::steady_clock::now() + options.max_wait;
    enqueue({std::move(held), rows, {}, &waiter});
    std::unique_lock lock(mutex);
    while (!waiter.finished) {
      if (finished.wait_until(lock, deadline, [&] { return waiter.finished; })) break;
      // The wait ran out: while this request is still queued, this thread
      // runs the queue's front batches; once another thread took it, wait.
      const bool queued = std::any_of(queue.begin(), queue.end(),
                                      [&](const Pending& p) { return p.waiter == &waiter; });
      if (!queued) {
        finished.wait(lock, [&] { return waiter.finished; });
        break;
      }
      auto batch = take_front();
      lock.unlock();
      run_batch(batch);
      lock.lock();
    }
    return std::move(waiter.diagnostics);
  }
};

Batcher::Batcher(const Module& module, std::string function, std::vector<Arg> resident,
                 BatcherOptions options)
    : impl_(std::make_unique<Impl>(module, std::move(function), std::move(resident), options)) {
  impl_->log = module.current()->log;
}

Batcher::~Batcher() {
  impl_->flush();
}

Batcher::Rows Batcher::rows(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                            std::vector<Diagnostic>* errors) {
  std::optional<Diagnostic> refused;
  Rows r;
  r.held_ = impl_->make_rows(*impl_->module.current(), inputs, outputs, &refused);
  if (refused && errors) errors->push_back(std::move(*refused));
  return r;
}

namespace {

Diagnostic empty_rows() {
  return diag::error(diag::Code::E1612, "a batcher's request with empty rows",
                     "make an agent's rows with Batcher::rows, and check them");
}

}  // namespace

std::vector<Diagnostic> Batcher::run(const Rows& rows) {
  if (!rows) return {empty_rows()};
  return impl_->wait(static_cast<const RowSet*>(rows.held_.get()), rows.held_);
}

std::vector<Diagnostic> Batcher::run(const std::vector<Tensor>& inputs,
                                     const std::vector<Tensor>& outputs) {
  std::vector<Diagnostic> errors;
  const Rows r = rows(inputs, outputs, &errors);
  if (!r) return errors;
  return impl_->wait(static_cast<const RowSet*>(r.held_.get()), r.held_);
}

void Batcher::submit(const Rows& rows, std::function<void(std::vector<Diagnostic>)> done) {
  if (!rows) {
    impl_->tell(done, {empty_rows()});
    return;
  }
  impl_->enqueue(
      {rows.held_, static_cast<const RowSet*>(rows.held_.get()), std::move(done), nullptr});
}

void Batcher::submit(std::vector<Tensor> inputs, std::vector<Tensor> outputs,
                     std::function<void(std::vector<Diagnostic>)> done) {
  std::vector<Diagnostic> errors;
  const Rows r = rows(inputs, outputs, &errors);
  if (!r) {
    impl_->tell(done, std::move(errors));
    return;
  }
  impl_->enqueue({r.held_, static_cast<const RowSet*>(r.held_.get()), std::move(done), nullptr});
}

void Batcher::flush() {
  impl_->flush();
}

BatcherStats Batcher::stats() const {
  const std::lock_guard lock(impl_->mutex);
  return impl_->stats;
}

}  // namespace ss
