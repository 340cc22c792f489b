// One imported ONNX model of bench/onnx.sh (issue 44) through
// Engine::load_onnx and call_into, as a host serves it: the model loaded
// once, its weights resident, one float32 input read from IN.bin and the
// output written into the host's buffer (and to OUT.bin, for the script to
// hold to ONNX Runtime's).
//
//   bench_onnx MODEL.onnx THREADS CALLS IN.bin IN_SHAPE OUT.bin OUT_SHAPE [PRECISION]
//
// Prints `ours P50 P99 FIRST ALLOCS LOAD_MS`: microseconds over CALLS timed
// calls after CALLS / 10 + 3 untimed ones, FIRST the first call after the
// load, ALLOCS the heap allocations per steady call, LOAD_MS the import's
// and compile's milliseconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "allocation_counter.hpp"
#include "shapescript/shapescript.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double us_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

std::vector<std::int64_t> parse_shape(const std::string& text) {
  std::vector<std::int64_t> dims;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t comma = text.find(',', at);
    dims.push_back(std::stoll(text.substr(at, comma - at)));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return dims;
}

std::int64_t count_of(const std::vector<std::int64_t>& dims) {
  std::int64_t n = 1;
  for (const auto d : dims) n *= d;
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 8) {
    std::fprintf(stderr,
                 "usage: %s MODEL.onnx THREADS CALLS IN.bin IN_SHAPE OUT.bin OUT_SHAPE "
                 "[f32|bf16]\n",
                 argv[0]);
    return 2;
  }
  const int threads = std::atoi(argv[2]), calls = std::atoi(argv[3]);
  const auto in_shape = parse_shape(argv[5]), out_shape = parse_shape(argv[7]);
  const auto precision = ss::parse_precision(argc > 8 ? argv[8] : "f32");
  if (!precision) {
    std::fprintf(stderr, "bench_onnx: unknown precision %s\n", argv[8]);
    return 2;
  }
  std::ifstream in_file(argv[4], std::ios::binary);
  const std::string in_bytes((std::istreambuf_iterator<char>(in_file)),
                             std::istreambuf_iterator<char>());
  std::vector<float> x(static_cast<std::size_t>(count_of(in_shape)));
  if (in_bytes.size() != x.size() * sizeof(float)) {
    std::fprintf(stderr, "bench_onnx: %s holds %zu bytes, not %s's\n", argv[4], in_bytes.size(),
                 argv[5]);
    return 1;
  }
  std::copy(in_bytes.begin(), in_bytes.end(), reinterpret_cast<char*>(x.data()));
  std::vector<float> y(static_cast<std::size_t>(count_of(out_shape)));

  ss::Engine engine({.executor = ss::Executor::fast, .threads = threads, .precision = *precision});
  const auto load_start = Clock::now();
  const ss::OnnxModel model = engine.load_onnx(argv[1]);
  const double load_ms = us_since(load_start) / 1000;
  if (!model) {
    for (const auto& d : model.diagnostics) std::fprintf(stderr, "%s", d.render().c_str());
    return 1;
  }
  const std::vector<ss::Arg> args = model.arguments({ss::Tensor::view(x.data(), in_shape)});
  const std::vector<ss::Tensor> into{ss::Tensor::view(y.data(), out_shape)};
  const auto call = [&] {
    if (!model.module.call_into("forward", args, into)) {
      std::fprintf(stderr, "bench_onnx: the call failed\n");
      std::exit(1);
    }
  };
  const auto first_start = Clock::now();
  call();
  const double first = us_since(first_start);
  for (int i = 0; i < calls / 10 + 3; ++i) call();
  std::vector<double> us(static_cast<std::size_t>(calls));
  const long allocated = ss::bench::allocations();
  for (auto& t : us) {
    const auto start = Clock::now();
    call();
    t = us_since(start);
  }
  const double per_call =
      static_cast<double>(ss::bench::allocations() - allocated) / static_cast<double>(calls);
  std::sort(us.begin(), us.end());
  std::printf("ours %.1f %.1f %.1f %.2f %.0f\n", us[us.size() / 2],
              us[static_cast<std::size_t>(0.99 * static_cast<double>(us.size() - 1))], first,
              per_call, load_ms);
  // SS_BENCH_PATHS=1: the nodes each path ran, on standard error.
  if (const char* paths = std::getenv("SS_BENCH_PATHS"); paths && *paths == '1')
    for (const auto& [path, count] : model.module.executor_stats().nodes)
      std::fprintf(stderr, "%12lld  %s\n", static_cast<long long>(count), path.c_str());
  std::ofstream out_file(argv[6], std::ios::binary);
  out_file.write(reinterpret_cast<const char*>(y.data()),
                 static_cast<std::streamsize>(y.size() * sizeof(float)));
  return out_file ? 0 : 1;
}
