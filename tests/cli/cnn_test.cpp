// The CNN example (examples/cnn/cnn.ss: conv, relu, max_pool twice, then a
// linear layer) as a user runs it: its mean test accuracy over seeds 0, 1
// and 2 is at least 0.98 and within one point of its PyTorch twin's
// (examples/cnn/twin_accuracy.txt, printed by cnn_twin.py); on cpu[0 1 2]
// it follows one device's loss curve step by step.
#include <doctest/doctest.h>

#include <filesystem>
#include <regex>
#include <sstream>

#include "support/paths.hpp"
#include "support/process.hpp"

namespace {

using ss::test::kCliPath;
using ss::test::run_process;

std::string source(const std::string& relative) {
  return std::string(ss::test::kSourceDir) + "/" + relative;
}

double mean_accuracy(const std::string& printed) {
  std::smatch m;
  const std::regex line("mean accuracy ([0-9.]+)");
  REQUIRE_MESSAGE(std::regex_search(printed, m, line), printed);
  return std::stod(m[1].str());
}

void replace(std::string& text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("the CNN example reaches its PyTorch twin's accuracy: a mean over three seeds") {
  const auto result = run_process({kCliPath, "run", source("examples/cnn/cnn.ss")});
  REQUIRE_MESSAGE(result.exit_code == 0, result.err);
  const double ours = mean_accuracy(result.out);
  const double twin = mean_accuracy(ss::test::read_file(source("examples/cnn/twin_accuracy.txt")));
  MESSAGE("mean test accuracy " << ours << ", PyTorch's twin " << twin);
  CHECK(ours >= 0.98);
  CHECK(std::abs(ours - twin) <= 0.01);
}

TEST_CASE("the CNN on cpu[0 1 2] follows one device's loss curve, step by step") {
  ss::test::TempDir dir;
  std::filesystem::create_directories(dir.file("digits"));
  std::filesystem::create_directories(dir.file("cnn"));
  for (const char* file : {"digits-train.safetensors", "digits-test.safetensors"})
    std::filesystem::copy_file(source(std::string("examples/digits/") + file),
                               dir.file(std::string("digits/") + file));
  std::vector<double> curves[2];
  for (int k = 0; k < 2; ++k) {
    CAPTURE(k);
    std::string text = ss::test::read_file(source("examples/cnn/cnn.ss"));
    replace(text, "range(3)", "range(1)");
    replace(text, "range(20)", "range(1)");
    replace(text, "l = train_step(mut m, mut opt, batch)",
            "l = train_step(mut m, mut opt, batch)\n                write(metrics, loss=l)");
    text = (k ? "devices cpu[0 1 2]\n" : "") + std::string("sink metrics\n") + text;
    const std::string program = dir.write("cnn/cnn" + std::to_string(k) + ".ss", text);
    const std::string metrics = dir.file("metrics" + std::to_string(k) + ".csv");
    const auto result = run_process({kCliPath, "run", program, "--sink", "metrics=" + metrics});
    REQUIRE_MESSAGE(result.exit_code == 0, result.err);
    std::istringstream lines(ss::test::read_file(metrics));
    std::string line;
    std::getline(lines, line);  // the header
    while (std::getline(lines, line)) curves[k].push_back(std::stod(line));
  }
  REQUIRE(curves[0].size() == 23);  // 1438 examples in batches of 64
  REQUIRE(curves[1].size() == curves[0].size());
  for (std::size_t i = 0; i < curves[0].size(); ++i)
    CHECK_MESSAGE(std::abs(curves[1][i] - curves[0][i]) <= 1e-4 * (1 + std::abs(curves[0][i])),
                  "step " << i << ": " << curves[1][i] << ", one device " << curves[0][i]);
}
