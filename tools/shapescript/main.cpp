// shapescript: check (and later run and build) shapescript programs.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "shapescript/shapescript.hpp"

namespace {

constexpr const char* kHelp = R"(shapescript: check and run shapescript programs

usage:
  shapescript check FILE...       check programs; errors are printed rustc-style
  shapescript run FILE [FN]       check a program and run FN (main by default) on
                                  the fast executor (--executor reference: the
                                  reference runtime), printing what it prints; a
                                  sink without --sink is counted, not kept
  shapescript build FILE -o OUT.so
                                  the program with its code compiled by the JIT, in
                                  a shared object `run` (and hosts) load without
                                  compiling: `shapescript run OUT.so`
  shapescript build --standalone FILE -o OUT
                                  emit one self-contained C++ source (refused for
                                  several devices, E1805; OUT a C++ file, E1807)
  shapescript import MODEL.onnx -o OUT.ss
                                  translate an ONNX model to shapescript: OUT.ss
                                  and its weights, OUT.safetensors (docs/onnx.md)
  shapescript run MODEL.onnx --inputs IN.safetensors [--outputs OUT.safetensors]
                                  run an ONNX model's forward on the named
                                  tensors; its outputs, named as the graph's
  shapescript --explain CODE      print an error code's entry of the catalog
  shapescript devices [DEVICE]    list the back ends and devices found; with a
                                  DEVICE (cpu, cuda, cuda:N), fail with its
                                  error code unless it can be used
  shapescript --version           print the version
  shapescript --help              print this help

options:
  --color=auto|always|never       colour the diagnostics (auto: on a terminal);
                                  `--color never` works too
  --format=text|json              json: one object per diagnostic, on standard
                                  output; `--format json` works too
  --dump-ir[=PASS]                with check: print the lowered program after PASS
                                  (lower, the default; verify, distribute, fuse, plan)
  --dim NAME=SIZE                 with run: the size of a dim declared without one
  --frozen NAME                   with import and run of a .onnx: the initializer
                                  NAME stays a constant, never trained (repeatable)
  --sink NAME=FILE                with run: where the sink NAME writes: a .csv file
                                  (a header line, then a row per write) or JSON lines
                                  (any other name: one object per write)
  --arg NAME=VALUE                with run: a device function's input, as a number or
                                  nested list ([[1.0, 2.0]]); f32, or i32 with `i32:`
  --executor fast|reference       with run: the fast executor (default: a packed
                                  GEMM for contractions, vectorised elementwise
                                  loops), or the reference runtime's plain loops
  --threads N                     with run and --executor fast: threads for a
                                  large contraction (default 1)
  --code-cache DIR                with run: where compiled kernels are kept between
                                  runs (default: $XDG_CACHE_HOME/shapescript, else
                                  ~/.cache/shapescript)
  --no-code-cache                 with run: keep compiled kernels in memory only
  --device DEVICE                 with run: the device the host asks for (cpu,
                                  cuda, cuda:N); a program's `devices` line wins,
                                  and one that doesn't name it is E1908
  --precision f32|tf32|bf16       with run: the contractions' compute (on a CUDA
                                  device tf32 or bf16 tensor cores; on the CPU bf16
                                  where it has AVX512-BF16, else f32; accumulating
                                  in f32; weights stay f32); default f32
  --numerics fast|portable        with run: portable gives the same bits on every
                                  x86-64 CPU with FMA and any --threads (lockstep
                                  games, replayed logs: docs/numerics.md); default
                                  fast. SHAPESCRIPT_ISA=avx512|avx2|scalar forces
                                  the CPU kernels either way (baseline: as on a
                                  CPU without FMA, where portable is E1911)
  --deterministic                 with run: on a CUDA device, sums that atomics
                                  would order (an embedding's gradient) in index
                                  order, so runs repeat their bits
  --files-root DIR                 with run: `load` and `save` may touch only files
                                  inside DIR (E1707 otherwise)
  --read-only                     with run: the program may not `save` (E1707)
  --strict-sinks                  with run: a sink without --sink is E1705, not
                                  counted and dropped
  --time-limit MS                 with run: stop the program after MS milliseconds
                                  (E1609), at its next loop turn, branch or graph
  --memory-limit BYTES            with run: the tensor memory the program may hold
                                  at once (E1610 past it)
  --collective-timeout MS         with run: how long a worker waits for the others in
                                  a collective before the run fails (E1806)
  --distributed mpi|none          with run: one process of an MPI job (the default
                                  when mpirun started it): the world is every
                                  process's devices, each takes its part of every
                                  batch, rank 0 prints, saves and writes; after an
                                  error the job is aborted (MPI_Abort)
  --trace FILE.json               with run: each call's and each node's time, in
                                  Chrome's trace format (Perfetto opens it)
  --stats                         with run: after it, on standard error, what each
                                  worker of a several-device program did, per
                                  function: calls, examples, all-reduces; what
                                  ran the device functions' nodes: the GEMM,
                                  fused kernels, loops, or the reference; and per
                                  function, what ran it (the fast or reference
                                  executor; compiled or interpreted controller code)

environment:
  SHAPESCRIPT_LOG                 log level: trace, debug, info, warn, error, off
  SHAPESCRIPT_JIT                 path of libshapescript_jit.so (the LLVM JIT)
  SHAPESCRIPT_CUDA_DRIVER         path of the CUDA driver (default libcuda.so.1)
  SHAPESCRIPT_NVRTC               path of NVRTC (default libnvrtc.so.13, .12)
  SHAPESCRIPT_NCCL                path of NCCL (default: the loader's libnccl.so.2)
  SHAPESCRIPT_MPI                 path of libshapescript_mpi.so (the MPI adapter)

exit status: 0 success, 1 errors in a program or a device, 2 a bad command line
error codes are explained in docs/errors.md
)";

bool terminal_wants_color() {
  const char* term = std::getenv("TERM");
  return ::isatty(STDERR_FILENO) && std::getenv("NO_COLOR") == nullptr &&
         !(term && std::strcmp(term, "dumb") == 0);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ss::cli;
  Options options;
  options.color = terminal_wants_color();
  std::vector<std::string> words;
  for (int i = 1; i < argc; ++i) {
    // `--format json` and `--color never` are read as `--format=json` and
    // `--color=never`: both spellings work.
    std::string joined;
    if ((std::string_view(argv[i]) == "--format" || std::string_view(argv[i]) == "--color") &&
        i + 1 < argc) {
      joined = std::string(argv[i]) + "=" + argv[i + 1];
      ++i;
    }
    const std::string_view arg = joined.empty() ? std::string_view(argv[i]) : joined;
    if (arg == "--help" || arg == "-h") {
      std::cout << kHelp;
      return kOk;
    }
    if (arg == "--version" || arg == "-V") {
      std::cout << "shapescript " << ss::version() << "\n";
      return kOk;
    }
    if (arg == "--explain") {
      if (i + 1 >= argc) return usage_error("`--explain` needs a code, such as E0603");
      return run_explain(argv[i + 1]);
    }
    if (arg == "--dim") {
      const std::string value = i + 1 < argc ? argv[++i] : "";
      const auto eq = value.find('=');
      char* end = nullptr;
      const long long size =
          eq == std::string::npos ? 0 : std::strtoll(value.c_str() + eq + 1, &end, 10);
      if (eq == std::string::npos || eq == 0 || !end || *end != '\0' ||
          end == value.c_str() + eq + 1)
        return usage_error("`--dim` takes NAME=SIZE, such as V=32000");
      options.dims[value.substr(0, eq)] = size;
      continue;
    }
    if (arg == "--sink") {
      const std::string value = i + 1 < argc ? argv[++i] : "";
      const auto eq = value.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == value.size())
        return usage_error("`--sink` takes NAME=FILE, such as metrics=metrics.csv");
      options.sinks[value.substr(0, eq)] = value.substr(eq + 1);
      continue;
    }
    if (arg == "--arg") {
      const std::string value = i + 1 < argc ? argv[++i] : "";
      const auto eq = value.find('=');
      if (eq == std::string::npos || eq == 0)
        return usage_error("`--arg` takes NAME=VALUE, such as x=[[1.0, 2.0]]");
      options.args.emplace_back(value.substr(0, eq), value.substr(eq + 1));
      continue;
    }
    if (arg == "--frozen") {
      if (i + 1 >= argc || !*argv[i + 1])
        return usage_error("`--frozen` needs the name of one of the graph's initializers");
      options.frozen.emplace_back(argv[++i]);
      continue;
    }
    if (arg == "--inputs" || arg == "--outputs") {
      if (i + 1 >= argc) return usage_error("`" + std::string(arg) + "` needs a FILE.safetensors");
      (arg == "--inputs" ? options.inputs : options.outputs) = argv[++i];
      continue;
    }
    if (arg == "--stats") {
      options.stats = true;
      continue;
    }
    if (arg == "--trace") {
      options.trace = i + 1 < argc ? argv[++i] : "";
      if (options.trace.empty()) return usage_error("`--trace` takes a FILE.json");
      continue;
    }
    if (arg == "--collective-timeout") {
      const std::string value = i + 1 < argc ? argv[++i] : "";
      char* end = nullptr;
      const long long ms = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || !end || *end != '\0' || ms < 0)
        return usage_error("`--collective-timeout` takes milliseconds, such as 60000");
      options.collective_timeout_ms = ms;
      continue;
    }
    if (arg == "--distributed") {
      const std::string value = i + 1 < argc ? argv[++i] : "";
      if (value != "mpi" && value != "none")
        return usage_error("`--distributed` takes mpi or none");
      options.distributed = value;
      continue;
    }
    if (arg == "--executor") {
      const std::string value = i + 1 < argc ? argv[++i] : "";
      if (value != "fast" && value != "reference")
        return usage_error("`--executor` takes reference or fast");
      options.fast = value == "fast";
      continue;
    }
    if (arg == "--threads") {
      const std::string value = i + 1 < argc ? argv[++i] : "";
      char* end = nullptr;
      const long n = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || !end || *end != '\0' || n < 1 || n > 256)
        return usage_error("`--threads` takes a number of threads, 1 to 256");
      options.threads = static_cast<int>(n);
      continue;
    }
    if (arg == "--code-cache") {
      options.code_cache = i + 1 < argc ? argv[++i] : "";
      if (options.code_cache.empty()) return usage_error("`--code-cache` takes a directory");
      continue;
    }
    if (arg == "--no-code-cache") {
      options.no_code_cache = true;
      continue;
    }
    if (arg == "--device") {
      options.device = i + 1 < argc ? argv[++i] : "";
      if (!ss::Device::parse(options.device))
        return usage_error("`--device` takes cpu, cuda or cuda:N");
      continue;
    }
    if (arg == "--files-root") {
      options.files_root = i + 1 < argc ? argv[++i] : "";
      if (options.files_root.empty()) return usage_error("`--files-root` takes a folder");
      continue;
    }
    if (arg == "--strict-sinks") {
      options.strict_sinks = true;
      continue;
    }
    if (arg == "--read-only") {
      options.read_only = true;
      continue;
    }
    if (arg == "--time-limit") {
      const std::string value = i + 1 < argc ? argv[++i] : "";
      char* end = nullptr;
      const long long ms = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || !end || *end != '\0' || ms < 1)
        return usage_error("`--time-limit` takes milliseconds, 1 or more");
      options.time_limit_ms = ms;
      continue;
    }
    if (arg == "--memory-limit") {
      const std::string value = i + 1 < argc ? argv[++i] : "";
      char* end = nullptr;
      const long long bytes = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || !end || *end != '\0' || bytes < 1)
        return usage_error("`--memory-limit` takes bytes, 1 or more");
      options.memory_limit = bytes;
      continue;
    }
    if (arg == "--precision") {
      options.precision = i + 1 < argc ? argv[++i] : "";
      if (!ss::parse_precision(options.precision))
        return usage_error("`--precision` takes f32, tf32 or bf16");
      continue;
    }
    if (arg == "--numerics") {
      options.numerics = i + 1 < argc ? argv[++i] : "";
      if (!ss::parse_numerics(options.numerics))
        return usage_error("`--numerics` takes fast or portable");
      continue;
    }
    if (arg == "--deterministic") {
      options.deterministic = true;
      continue;
    }
    if (arg == "--standalone") {
      options.standalone = true;
      continue;
    }
    if (arg == "-o") {
      if (i + 1 >= argc) return usage_error("`-o` needs a FILE");
      options.output = argv[++i];
      continue;
    }
    if (arg == "--dump-ir" || arg.rfind("--dump-ir=", 0) == 0) {
      options.dump_ir = arg == "--dump-ir" ? "lower" : arg.substr(10);
      const auto passes = ss::Engine::ir_passes();
      if (std::find(passes.begin(), passes.end(), options.dump_ir) == passes.end()) {
        std::string names;
        for (const auto& p : passes) names += (names.empty() ? "" : ", ") + p;
        return usage_error("`--dump-ir=" + options.dump_ir + "`: the passes are " + names);
      }
      continue;
    }
    if (arg == "--format=json" || arg == "--format=text") {
      options.json = arg == "--format=json";
      continue;
    }
    if (arg.substr(0, 9) == "--format=")
      return usage_error("`--format` takes text or json, not `" + std::string(arg.substr(9)) + "`");
    if (arg.substr(0, 8) == "--color=") {
      const std::string_view when = arg.substr(8);
      if (when == "always")
        options.color = true;
      else if (when == "never")
        options.color = false;
      else if (when == "auto")
        options.color = terminal_wants_color();
      else
        return usage_error("`--color` takes auto, always or never, not `" + std::string(when) +
                           "`");
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-')
      return usage_error("unknown option `" + std::string(arg) + "`");
    words.emplace_back(arg);
  }

  if (words.empty()) {
    std::cerr << kHelp;
    return kUsage;
  }
  const std::string command = words.front();
  words.erase(words.begin());
  if (command == "check") {
    if (words.empty()) return usage_error("`check` needs a FILE");
    return run_check(words, options);
  }
  if (command == "devices") return run_devices(words, options);
  if (command == "run") return run_run(words, options);
  if (command == "build") return run_build(words, options);
  if (command == "import") return run_import(words, options);
  return usage_error("unknown command `" + command + "`");
}
