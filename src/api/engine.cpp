#include "shapescript/engine.hpp"

#include <fstream>
#include <optional>
#include <variant>

#include "api/compiled.hpp"
#include "api/devices.hpp"
#include "api/engine_impl.hpp"
#include "api/host_functions.hpp"
#include "api/module_impl.hpp"
#include "api/onnx_module.hpp"
#include "api/prepare.hpp"
#include "check/checker.hpp"
#include "diag/codes.hpp"
#include "diag/reporter.hpp"
#include "ir/host.hpp"
#include "kernels/cuda_driver.hpp"
#include "kernels/cuda_libraries.hpp"
#include "kernels/nvrtc.hpp"
#include "lower/pipeline.hpp"
#include "runtime/controller/controller.hpp"
#include "runtime/core/format.hpp"
#include "runtime/data/data_error.hpp"
#include "runtime/data/files.hpp"
#include "runtime/devices/mpi_comm.hpp"
#include "runtime/fast/fast_executor.hpp"
#include "runtime/fast/gemm/sgemm.hpp"
#include "runtime/fast/jit_module.hpp"
#include "runtime/fast/onednn_conv.hpp"
#include "shapescript/version.hpp"
#include "standalone/emit_cpp.hpp"
#include "support/log.hpp"
#include "syntax/lexer.hpp"
#include "syntax/parser.hpp"
#include "syntax/source_file.hpp"

namespace ss {

Engine::Engine(EngineOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->log = support::make_logger(impl_->options);
  impl_->workers = impl_->options.task_runner ? runtime::runner_workers(impl_->options.task_runner)
                                              : runtime::own_workers(impl_->options.spin);
  if (impl_->options.trace) {
    impl_->trace = std::make_shared<api::TraceSink>();
    impl_->trace->callback = impl_->options.trace;
    impl_->trace->born = std::chrono::steady_clock::now();
  }
  impl_->log->debug("engine {} on {}", SS_VERSION_STRING, impl_->options.device.name());
  if (impl_->options.device.kind == Device::Kind::cuda)
    impl_->open_cuda(impl_->options.device.index);
}

Engine::~Engine() = default;
Engine::Engine(Engine&&) noexcept = default;
Engine& Engine::operator=(Engine&&) noexcept = default;

bool Engine::ok() const {
  return impl_ && !has_errors(impl_->diagnostics);
}

const std::vector<Diagnostic>& Engine::diagnostics() const {
  static const std::vector<Diagnostic> moved_from{api::empty_engine()};
  return impl_ ? impl_->diagnostics : moved_from;
}

const Device& Engine::device() const {
  static const Device none = Device::cpu();
  return impl_ ? impl_->options.device : none;
}

EngineStats Engine::stats() const {
  return impl_ ? EngineStats{support::unwaited_throws(impl_->log)} : EngineStats{};
}

BackendReport Engine::backends() const {
  BackendReport report;
  if (!impl_) return report;
  report.cpu_gemm = gemm::sgemm_kernel();
  report.cpu_bf16 = gemm::bf16_supported();
  report.cpu_bf16_kernel = gemm::bf16_kernel();
  const std::string onednn = runtime::fast::onednn_status();
  report.onednn.found = onednn.rfind("available", 0) == 0;
  if (report.onednn.found) {
    report.onednn.path = runtime::fast::onednn_path();
    report.onednn.version = runtime::fast::onednn_version();
    report.onednn.detail = onednn.substr(onednn.find(", ") + 2);
  } else {
    report.onednn.detail = onednn;
  }

  std::string why;
  if (auto jit = runtime::JitModule::load(impl_->options.jit_library, &why)) {
    report.jit.found = true;
    report.jit.path = jit->path();
    report.jit.version = std::string("LLVM ") + jit->api().llvm_version();
    report.jit.detail = std::string("host cpu ") + jit->api().host_cpu();
  } else {
    report.jit.detail = why;
  }

  auto driver_or = cuda::Driver::open(impl_->options.cuda_driver_library);
  if (auto* driver = std::get_if<cuda::Driver>(&driver_or)) {
    report.cuda_driver.found = true;
    report.cuda_driver.path = driver->path();
    report.cuda_driver.version = std::to_string(driver->version() / 1000) + "." +
                                 std::to_string(driver->version() % 1000 / 10);
    report.cuda_devices = driver->devices();
  } else {
    report.cuda_driver.detail = std::get<Diagnostic>(driver_or).message;
  }

  auto nvrtc_or = nvrtc::Compiler::open(impl_->options.nvrtc_library);
  if (auto* compiler = std::get_if<nvrtc::Compiler>(&nvrtc_or)) {
    report.nvrtc.found = true;
    report.nvrtc.path = compiler->path();
    report.nvrtc.version = compiler->version();
  } else {
    report.nvrtc.detail = std::get<Diagnostic>(nvrtc_or).message;
  }

  report.cublas = cuda::probe_cublas();
  report.cudnn = cuda::probe_cudnn();
  report.nccl = cuda::probe_nccl(impl_->options.nccl_library);
  report.mpi.found =
      runtime::MpiComm::probe("", &report.mpi.path, &report.mpi.version, &report.mpi.detail);
  report.onnx.found =
      api::probe_onnx_module("", &report.onnx.path, &report.onnx.version, &report.onnx.detail);
  return report;
}

namespace {

// Checking includes preparing: what lowering finds is found by `check` too.
std::vector<Diagnostic> checked(api::Compiled& c, const EngineOptions& options) {
  api::check_lowering(c, api::executor_name(c, options, c.typed.device_count > 1));
  return c.diagnostics;
}

}  // namespace

std::vector<Diagnostic> Engine::check_file(const std::string& path) const {
  if (!impl_) return {api::empty_engine()};
  return checked(*api::compile_file(path, *impl_->log), impl_->options);
}

std::vector<Diagnostic> Engine::check_source(std::string_view text, std::string_view name) const {
  if (!impl_) return {api::empty_engine()};
  return checked(*api::compile_text(text, name, *impl_->log), impl_->options);
}

Module Engine::load_file(const std::string& path, const LoadOptions& options) const {
  if (!impl_) return Module(Module::Impl::failed_load(path, api::empty_engine()));
  try {
    auto m = std::make_shared<Module::Impl>();
    const FileAccess& files = options.files;
    if (files.read || !files.root.empty() || !files.allow_read) {
      // The host's file access serves (or confines) the program's own source too.
      try {
        m->compiled = api::compile_text(runtime::read_bytes(files, path), path, *impl_->log);
      } catch (const runtime::DataError& e) {
        return Module(Module::Impl::failed_load(path, diag::error(e.code, e.what(), e.help)));
      }
    } else {
      m->compiled = api::compile_file(path, *impl_->log);
    }
    m->workers = impl_->workers;
    m->trace = impl_->trace;
    m->bind(options, impl_->options);
    m->log = impl_->log;
    m->set_file(path);
    return Module(std::move(m));
  } catch (const std::exception& e) {  // memory the machine refused (E1611), or a bug
    return Module(Module::Impl::failed_load(path, runtime::unexpected_failure(e)));
  }
}

Module Engine::load_source(std::string_view text, std::string_view name,
                           const LoadOptions& options) const {
  if (!impl_) return Module(Module::Impl::failed_load(std::string(name), api::empty_engine()));
  try {
    auto m = std::make_shared<Module::Impl>();
    m->compiled = api::compile_text(text, name, *impl_->log);
    m->workers = impl_->workers;
    m->trace = impl_->trace;
    m->bind(options, impl_->options);
    m->log = impl_->log;
    return Module(std::move(m));
  } catch (const std::exception& e) {  // memory the machine refused (E1611), or a bug
    return Module(Module::Impl::failed_load(std::string(name), runtime::unexpected_failure(e)));
  }
}

std::string Engine::ir_listing(const std::string& path, std::vector<Diagnostic>* diagnostics,
                               std::string_view pass) const {
  if (!impl_) {
    if (diagnostics) *diagnostics = {api::empty_engine()};
    return {};
  }
  const auto c = api::compile_file(path, *impl_->log);
  if (!c->ok()) {
    if (diagnostics) *diagnostics = c->diagnostics;
    return {};
  }
  // What doesn't lower is a line of the listing, not an error. The plans
  // listed are the engine's executor's, as a load would make them.
  const bool several = c->typed.device_count > 1;
  const auto executor = api::make_executor(*c, impl_->options, several);
  return lower::run_pipeline(c->typed, {.distribute = several,
                                        .dump_after = std::string(pass),
                                        .map = c->map.get(),
                                        .planner = executor.get()})
      .dump;
}

std::vector<std::string> Engine::ir_passes() {
  return {lower::pass_names().begin(), lower::pass_names().end()};
}

std::vector<Diagnostic> Engine::build_standalone(const std::string& path,
                                                 const std::string& output) const {
  if (!impl_) return {api::empty_engine()};
  const auto compiled = api::compile_file(path, *impl_->log);
  if (!compiled->ok()) return compiled->diagnostics;
  const auto& typed = compiled->typed;
  if (typed.device_count > 1) {
    Diagnostic d = diag::error(
        diag::Code::E1805,
        "a standalone build can't run on " + std::to_string(typed.device_count) + " devices",
        "build without --standalone, or for one device");
    if (!compiled->program.devices.empty()) {
      d.labels.push_back(compiled->map->label(compiled->program.devices.front().span,
                                              "a controller with a worker per device", true));
      d.location = d.labels.back().start;
    }
    return {d};
  }
  // One device: the output is C++ source, or nothing is written.
  const auto dot = output.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : output.substr(dot);
  if (ext != ".cpp" && ext != ".cc" && ext != ".cxx" && ext != ".hpp" && ext != ".h")
    return {diag::error(diag::Code::E1807,
                        "a standalone build writes C++ source, and `" + output +
                            "` isn't a C++ "
                            "file",
                        "name the output .cpp, .cc, .cxx, .hpp or .h: `-o model.cpp`")};
  const auto emitted = standalone::emit_cpp(lower::run_pipeline(typed).program, path);
  if (const auto& bad = emitted.unsupported) {
    Diagnostic d = diag::error(
        diag::Code::E1808,
        "`" + bad->function + "` uses " + bad->op + ", which a standalone build doesn't take yet",
        "run the program with the library (`shapescript run`, or a host), or build a program "
        "without it");
    d.labels.push_back(compiled->map->label(bad->span, "here", true));
    d.location = d.labels.back().start;
    return {d};
  }
  // Whole or not at all: an earlier build stays as it was when the disk is full.
  try {
    runtime::write_bytes(FileAccess{}, output, emitted.source);
  } catch (const runtime::DataError& e) {
    return {diag::error(diag::Code::E1706,
                        "can't write the standalone source to `" + output + "`: " + e.what(),
                        "check that its folder exists, can be written and has room")};
  }
  return {};
}

std::vector<Diagnostic> Engine::run_file(const std::string& path, const std::string& function,
                                         const std::function<void(std::string_view)>& print,
                                         const std::map<std::string, Tensor>& args,
                                         const LoadOptions& options) const {
  // A moved-from engine: the load below is E1612.
  const bool built = path.size() > 3 && path.compare(path.size() - 3, 3, ".so") == 0;
  Module module = built ? load_built(path, options) : load_file(path, options);
  if (!module) return module.diagnostics();
  const auto impl = module.held();
  impl->command_line = true;
  if (auto unsized = api::unsized_dims(*impl->compiled); !unsized.empty()) return unsized;
  const auto& c = *impl->compiled;
  const auto fn = c.typed.functions.find(function);
  if (fn == c.typed.functions.end() || fn->second.item->is_extern)
    return {diag::error(diag::Code::E1604,
                        "`" + path + "` has no function `" + function + "` to run",
                        api::unknown_function_help(c.typed, function, false) +
                            ": `shapescript run FILE FUNCTION`")};
  impl_->log->debug("running {} of {}", function, path);
  if (fn->second.controller) {
    std::map<std::string, runtime::Tensor> values;
    for (const auto& [name, tensor] : args) {
      if (auto bad = Module::Impl::unusable(name, tensor)) return {std::move(*bad)};
      values[name] = Module::Impl::to_runtime(tensor);
    }
    try {
      std::optional<api::CallTrace> trace;  // each graph the run calls, and the run
      if (impl->trace) trace.emplace(*impl->trace, function, "controller", impl->graphs_run_on());
      runtime::RunOptions run = impl->run_options(print);
      auto errors = runtime::run_function(impl->program, *c.map, function, values, run);
      if (trace) trace->finish(0);
      if (options.executor_stats)
        runtime::host_call("the executor_stats callback",
                           [&] { options.executor_stats(module.executor_stats()); });
      return errors;
    } catch (const std::exception& e) {
      return {runtime::unexpected_failure(e)};
    }
  }
  // A device function: called as a host would, its results printed.
  const CallResult result = module.call(function, {}, args);
  try {
    if (options.executor_stats)
      runtime::host_call("the executor_stats callback",
                         [&] { options.executor_stats(module.executor_stats()); });
    if (!result) return result.diagnostics;
    for (const auto& out : result.outputs)
      if (print)
        runtime::host_call("the print callback", [&] {
          print(runtime::format_tensor(runtime::Tensor::borrow(
                    const_cast<void*>(out.data()), static_cast<runtime::DType>(out.dtype()),
                    out.shape())) +
                "\n");
        });
  } catch (const std::exception& e) {
    return {runtime::unexpected_failure(e)};
  }
  return {};
}

const char* version() {
  return SS_VERSION_STRING;
}

}  // namespace ss
