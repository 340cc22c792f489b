// `shapescript run FILE [FUNCTION]`: checks the program and runs FUNCTION
// (main by default) on the fast executor (`--executor reference`: the
// reference runtime), printing what it prints; `--sink NAME=FILE` sends a
// sink's records to a file, and a sink it doesn't bind is counted and shown.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "chrome_trace.hpp"
#include "cli.hpp"
#include "file_sink.hpp"
#include "shapescript/shapescript.hpp"
#include "value_parser.hpp"

namespace ss::cli {

namespace {

void print_stats(const std::vector<CallStats>& totals, std::ostream& err) {
  if (totals.empty()) {
    err << "stats: no call ran on several workers\n";
    return;
  }
  err << "stats: what each worker did, per function called on the workers\n";
  err << std::left << std::setw(16) << "function" << std::setw(10) << "worker" << std::right
      << std::setw(6) << "rank" << std::setw(8) << "calls" << std::setw(10) << "examples"
      << std::setw(13) << "all-reduces" << std::setw(16) << "values reduced" << std::setw(14)
      << "in them (s)"
      << "\n";
  for (const auto& call : totals)
    for (const auto& w : call.workers)
      err << std::left << std::setw(16) << call.function << std::setw(10) << w.device << std::right
          << std::setw(6) << w.rank << std::setw(8) << w.calls << std::setw(10) << w.examples
          << std::setw(13) << w.all_reduces << std::setw(16) << w.reduced_values << std::setw(14)
          << std::fixed << std::setprecision(3) << w.collective_seconds << "\n";
}

}  // namespace

// Compiled kernels live in the XDG cache unless the options say otherwise.
CodeCache code_cache(const Options& options) {
  if (options.no_code_cache) return {};
  if (!options.code_cache.empty()) return directory_code_cache(options.code_cache);
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg == '/') return directory_code_cache(std::string(xdg) + "/shapescript");
  const char* home = std::getenv("HOME");
  if (home && *home) return directory_code_cache(std::string(home) + "/.cache/shapescript");
  return {};
}

namespace {

// Per function: what ran it (the fast or reference executor for device
// functions, compiled or interpreted controller code), its calls and its
// fused kernels.
void print_functions(const ExecutorStats& s, std::ostream& err) {
  if (s.functions.empty()) return;
  std::size_t width = 10;
  for (const auto& [name, f] : s.functions) width = std::max(width, name.size() + 2);
  err << std::left << std::setw(static_cast<int>(width)) << "function" << std::setw(12) << "kind"
      << std::setw(13) << "ran by" << std::right << std::setw(10) << "calls" << std::setw(15)
      << "fused kernels"
      << "\n";
  for (const auto& [name, f] : s.functions) {
    err << std::left << std::setw(static_cast<int>(width)) << name << std::setw(12) << f.kind
        << std::setw(13) << f.executor << std::right << std::setw(10) << f.calls;
    if (f.kind == "device") err << std::setw(15) << f.fused_kernels;
    err << "\n";
  }
}

// What ran the device functions: the executor and its paths, nodes each.
void print_executor(const ExecutorStats& s, std::ostream& err) {
  err << "executor: " << s.executor;
  if (s.executor == "fast")
    err << " (JIT module " << (s.jit ? "loaded" : "not found: nothing fused") << "; "
        << s.kernels_compiled << " fused kernels compiled, "
        << s.kernels_from_cache + s.kernels_from_memory << " found in the code cache; run "
        << s.kernel_runs << " times)";
  if (s.executor.rfind("cuda", 0) == 0)
    err << " (" << s.kernels_compiled << " kernels compiled by NVRTC, " << s.kernels_from_cache
        << " found in the code cache; fused kernels run " << s.kernel_runs << " times)";
  err << "\n";
  if (s.jit_failures > 0)
    err << "  the JIT failed " << s.jit_failures
        << " times (that code ran without it): " << s.jit_error << "\n";
  if (s.executor == "reference") {
    err << "  every node on the reference operations\n";
    print_functions(s, err);
    return;
  }
  err << std::right << std::setw(12) << "nodes run"
      << "  by\n";
  for (const auto& [path, count] : s.nodes) err << std::setw(12) << count << "  " << path << "\n";
  print_functions(s, err);
}

}  // namespace

int run_run(const std::vector<std::string>& words, const Options& options) {
  if (words.empty() || words.size() > 2)
    return usage_error("`run` takes a FILE and, optionally, a FUNCTION");
  if (words[0].size() > 5 && words[0].substr(words[0].size() - 5) == ".onnx") {
    if (words.size() == 2)
      return usage_error("`run MODEL.onnx` runs its forward; it takes no FUNCTION");
    return run_onnx(words[0], options);
  }
  if (!options.inputs.empty() || !options.outputs.empty())
    return usage_error("`--inputs` and `--outputs` are for `run MODEL.onnx`");
  const std::string function = words.size() == 2 ? words[1] : "main";
  std::map<std::string, Tensor> args;
  for (const auto& [name, text] : options.args) {
    std::string why;
    auto value = parse_value(text, &why);
    if (!value) return usage_error("`--arg " + name + "=" + text + "`: " + why);
    args[name] = std::move(*value);
  }
  // One process of an MPI job: the others run the same command; this one
  // prints, and keeps sinks' records, only where it holds rank 0.
  std::shared_ptr<MpiWorld> world;
  if (options.distributed == "mpi" || (options.distributed.empty() && launched_by_mpi())) {
    std::vector<Diagnostic> errors;
    world = MpiWorld::open(nullptr, &errors);
    if (!world) {
      for (const auto& d : errors) std::cerr << d.render({.color = options.color});
      return kFailed;
    }
  }
  const bool quiet = world && world->process() != 0;
  std::vector<std::unique_ptr<FileSink>> files;
  LoadOptions load{.dims = options.dims};
  load.mpi = world;
  load.files.root = options.files_root;
  load.files.allow_write = !options.read_only;
  load.time_limit = std::chrono::milliseconds(options.time_limit_ms);
  load.memory_limit = options.memory_limit;
  load.strict_sinks = options.strict_sinks;
  for (const auto& [name, path] : options.sinks) {
    if (quiet) {  // rank 0's process writes the file; the others never write
      load.sinks[name] = [](const SinkRecord&) {};
      continue;
    }
    files.push_back(std::make_unique<FileSink>(path));
    if (!files.back()->ok()) {
      std::cerr << "error: can't write the sink file `" << path << "`\n";
      return kFailed;
    }
    load.sinks[name] = [sink = files.back().get()](const SinkRecord& r) { sink->write(r); };
  }
  // A sink without `--sink`: its records aren't kept, but the last one
  // shows on the progress line and the end says how many were dropped.
  std::map<std::string, UnboundSink> unbound;
  load.unbound_sink = [&unbound](const std::string& name, const SinkRecord& r) {
    auto& u = unbound[name];
    ++u.records;
    u.last = r;
  };
  // On a terminal, a progress bar for loops over batches, on standard
  // error, wiped before each printed line.
  bool bar = false;
  if (::isatty(STDERR_FILENO) && !quiet)
    load.progress = [&bar, &unbound](std::int64_t done, std::int64_t total) {
      constexpr int kWidth = 30;
      const int filled = total ? static_cast<int>(kWidth * done / total) : kWidth;
      std::cerr << "\r\033[K[" << std::string(static_cast<std::size_t>(filled), '#')
                << std::string(static_cast<std::size_t>(kWidth - filled), '.') << "] " << done
                << "/" << total;
      for (const auto& [name, u] : unbound)
        std::cerr << "  " << name << ": " << record_text(u.last);
      std::cerr << std::flush;
      bar = true;
    };
  if (options.collective_timeout_ms >= 0)
    load.collective_timeout = std::chrono::milliseconds(options.collective_timeout_ms);
  // --stats: per function, each worker's calls, examples and collectives;
  // then what ran the device functions.
  std::vector<CallStats> totals;
  std::optional<ExecutorStats> executor;
  if (options.stats) load.executor_stats = [&executor](const ExecutorStats& s) { executor = s; };
  if (options.stats)
    load.stats = [&totals](const CallStats& call) {
      auto it = std::find_if(totals.begin(), totals.end(),
                             [&](const CallStats& t) { return t.function == call.function; });
      if (it == totals.end()) {
        totals.push_back(call);
        return;
      }
      for (std::size_t k = 0; k < call.workers.size() && k < it->workers.size(); ++k) {
        auto& w = it->workers[k];
        w.calls += call.workers[k].calls;
        w.examples += call.workers[k].examples;
        w.all_reduces += call.workers[k].all_reduces;
        w.reduced_values += call.workers[k].reduced_values;
        w.collective_seconds += call.workers[k].collective_seconds;
      }
    };
  ChromeTrace trace;
  Engine engine(
      {.device =
           Device::parse(options.device.empty() ? "cpu" : options.device).value_or(Device::cpu()),
       .executor = options.fast ? Executor::fast : Executor::reference,
       .threads = options.threads,
       .precision = parse_precision(options.precision).value_or(Precision::f32),
       .numerics = parse_numerics(options.numerics).value_or(Numerics::fast),
       .deterministic = options.deterministic,
       .code_cache = code_cache(options),
       .trace = options.trace.empty() ? TraceCallback{} : trace.callback()});
  const auto diagnostics = !engine.ok() ? engine.diagnostics()
                                        : engine.run_file(
                                              words[0], function,
                                              [&bar](std::string_view line) {
                                                if (bar) std::cerr << "\r\033[K" << std::flush;
                                                bar = false;
                                                std::cout << line;
                                                std::cout.flush();
                                              },
                                              args, load);
  if (bar) std::cerr << "\r\033[K" << std::flush;
  if (!options.trace.empty()) {
    std::ofstream out(options.trace);
    trace.write(out);
    out.close();
    if (!out) std::cerr << "error: can't write the trace to `" << options.trace << "`\n";
  }
  for (const auto& [name, u] : unbound)
    std::cerr << "note: " << u.records << (u.records == 1 ? " record" : " records")
              << " of the sink `" << name << "` not kept (the last: " << record_text(u.last)
              << "); keep them with `--sink " << name << "=" << name << ".csv`\n";
  if (options.stats) {  // one write: an MPI job's processes share the terminal
    std::ostringstream report;
    print_stats(totals, report);
    if (executor) print_executor(*executor, report);
    std::cerr << report.str() << std::flush;
  }
  const bool failed = has_errors(diagnostics);
  for (auto d : diagnostics) {
    if (quiet && d.severity != Severity::error) continue;  // rank 0's process says it
    if (world && world->processes() > 1)
      d.notes.push_back("on MPI process " + std::to_string(world->process()) + " of " +
                        std::to_string(world->processes()));
    if (options.json)
      std::cout << to_json(d) << "\n";
    else
      std::cerr << d.render({.color = options.color});
  }
  // The others may be waiting in a collective for this one, or be stuck
  // themselves: end the whole job, never leave it hanging.
  if (failed && world && world->processes() > 1) {
    std::cout.flush();
    std::cerr.flush();
    world->abort_job(kFailed);
  }
  return failed ? kFailed : kOk;
}

}  // namespace ss::cli
