// NVRTC on a machine without a GPU: CUDA C in, PTX and a cubin for sm_90 out.
#include <doctest/doctest.h>

#include <variant>

#include "kernels/nvrtc.hpp"
#include "support/skip.hpp"

namespace {

constexpr const char* kSaxpy = R"(
extern "C" __global__ void saxpy(float a, const float* __restrict__ x, float* __restrict__ y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)";

const ss::nvrtc::Compiler* compiler() {
  static auto opened = ss::nvrtc::Compiler::open("");
  return std::get_if<ss::nvrtc::Compiler>(&opened);
}

}  // namespace

TEST_CASE("NVRTC compiles a kernel to PTX for compute_90") {
  const auto* nvrtc = compiler();
  if (!nvrtc) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  CHECK(nvrtc->version().find('.') != std::string::npos);
  const auto result = nvrtc->compile(kSaxpy, "saxpy.cu", {.sm = 90, .cubin = false});
  if (const auto* failure = std::get_if<ss::nvrtc::Failure>(&result))
    FAIL(failure->message << "\n" << failure->log);
  const auto& ptx = std::get<ss::nvrtc::Output>(result).code;
  CHECK(ptx.find(".target sm_90") != std::string::npos);
  CHECK(ptx.find(".entry saxpy(") != std::string::npos);
  CHECK(ptx.find("fma.rn.f32") != std::string::npos);
}

TEST_CASE("NVRTC compiles a kernel to an sm_90 cubin") {
  const auto* nvrtc = compiler();
  if (!nvrtc) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  const auto result = nvrtc->compile(kSaxpy, "saxpy.cu", {.sm = 90, .cubin = true});
  if (const auto* failure = std::get_if<ss::nvrtc::Failure>(&result))
    FAIL(failure->message << "\n" << failure->log);
  const auto& cubin = std::get<ss::nvrtc::Output>(result).code;
  REQUIRE(cubin.size() > 64);
  CHECK(cubin.substr(0, 4) ==
        "\x7f"
        "ELF");
  const auto machine = static_cast<unsigned char>(cubin[18]) | static_cast<unsigned char>(cubin[19])
                                                                   << 8;
  CHECK(machine == 190);  // EM_CUDA
}

TEST_CASE("a kernel that doesn't compile comes back with NVRTC's log, not a crash") {
  const auto* nvrtc = compiler();
  if (!nvrtc) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  const auto result =
      nvrtc->compile("__global__ void k() { undefined_name = 1; }", "broken.cu", {});
  REQUIRE(std::holds_alternative<ss::nvrtc::Failure>(result));
  const auto& failure = std::get<ss::nvrtc::Failure>(result);
  CHECK(failure.message.find("COMPILATION") != std::string::npos);
  CHECK(failure.log.find("broken.cu(1)") != std::string::npos);
  CHECK(failure.log.find("undefined_name") != std::string::npos);

  const auto bad_arch = nvrtc->compile(kSaxpy, "saxpy.cu", {.sm = 1});
  CHECK(std::holds_alternative<ss::nvrtc::Failure>(bad_arch));
}

TEST_CASE("E1903 when NVRTC can't be loaded or isn't NVRTC") {
  auto missing = ss::nvrtc::Compiler::open("/nonexistent/libnvrtc.so.13");
  REQUIRE(std::holds_alternative<ss::Diagnostic>(missing));
  const auto& d = std::get<ss::Diagnostic>(missing);
  CHECK(d.code == "E1903");
  CHECK(d.message ==
        "can't load NVRTC (`/nonexistent/libnvrtc.so.13`), which compiles the CUDA kernels");
  REQUIRE(d.notes.size() == 1);
  CHECK(d.notes[0].find("No such file") != std::string::npos);

  auto foreign = ss::nvrtc::Compiler::open("libm.so.6");
  REQUIRE(std::holds_alternative<ss::Diagnostic>(foreign));
  CHECK(std::get<ss::Diagnostic>(foreign).message.find("isn't NVRTC") != std::string::npos);
}
