// `shapescript devices [DEVICE]`: what this machine offers the library, or
// whether one device can be used (its E19xx error when not).
#include <cstdio>
#include <iostream>

#include "cli.hpp"
#include "shapescript/shapescript.hpp"

namespace ss::cli {
namespace {

void print_library(const char* name, const LibraryStatus& status) {
  std::printf("%-12s", name);
  if (!status.found) {
    std::printf("not found: %s\n", status.detail.c_str());
    return;
  }
  std::printf("%s", status.version.c_str());
  if (!status.detail.empty()) std::printf(", %s", status.detail.c_str());
  std::printf(" (%s)\n", status.path.c_str());
}

int report_all() {
  const BackendReport report = Engine().backends();
  const std::string bf16 = report.cpu_bf16_kernel == "amx" ? "yes (AMX)"
                           : report.cpu_bf16               ? "yes (AVX512-BF16)"
                                                           : "no (--precision bf16 runs f32)";
  std::printf("%-12savailable, GEMM %s, bf16 contractions %s\n", "cpu", report.cpu_gemm.c_str(),
              bf16.c_str());
  print_library("onednn", report.onednn);
  print_library("jit", report.jit);
  print_library("cuda", report.cuda_driver);
  for (const auto& d : report.cuda_devices)
    std::printf("  cuda:%-6d%s, %.1f GiB, sm_%d%d\n", d.index, d.name.c_str(),
                static_cast<double>(d.memory_bytes) / (1 << 30), d.compute_major, d.compute_minor);
  print_library("nvrtc", report.nvrtc);
  print_library("cublas", report.cublas);
  print_library("cudnn", report.cudnn);
  print_library("nccl", report.nccl);
  print_library("mpi", report.mpi);
  print_library("onnx", report.onnx);
  return kOk;
}

}  // namespace

int run_devices(const std::vector<std::string>& devices, const Options& options) {
  if (devices.empty()) return report_all();
  int status = kOk;
  for (const auto& name : devices) {
    const auto device = Device::parse(name);
    if (!device) return usage_error("`" + name + "` isn't a device; use cpu, cuda or cuda:N");
    Engine engine({.device = *device});
    if (engine.ok()) {
      std::cout << device->name() << ": available\n";
      continue;
    }
    for (const auto& d : engine.diagnostics()) std::cerr << d.render({.color = options.color});
    status = kFailed;
  }
  return status;
}

}  // namespace ss::cli
