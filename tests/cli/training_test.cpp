// Training through the CLI, as a user runs it: the digits demo reaches its
// accuracy, a run saved half way and resumed ends where a straight one
// does, and sinks write their files.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>

#include "support/paths.hpp"
#include "support/process.hpp"
#include "support/sink_csv.hpp"

namespace {

using ss::test::kCliPath;
using ss::test::run_process;

std::string source(const std::string& relative) {
  return std::string(ss::test::kSourceDir) + "/" + relative;
}

// A small two-class-per-row CSV the resume program trains on.
std::string points_csv() {
  std::string csv = "a,b,c,d,label\n";
  for (int i = 0; i < 10; ++i) {
    for (int k = 0; k < 4; ++k) csv += std::to_string(0.1 * ((i * 7 + k * 3) % 11) - 0.5) + ",";
    csv += std::to_string(i % 3) + "\n";
  }
  return csv;
}

}  // namespace

TEST_CASE("the digits demo trains to at least 97% test accuracy, its sink to a CSV file") {
  ss::test::TempDir dir;
  for (const char* file : {"digits.ss", "digits-train.safetensors", "digits-test.safetensors"})
    std::filesystem::copy_file(source(std::string("examples/digits/") + file), dir.file(file));
  const auto result = run_process(
      {kCliPath, "run", dir.file("digits.ss"), "--sink", "metrics=" + dir.file("metrics.csv")});
  REQUIRE_MESSAGE(result.exit_code == 0, result.err);
  std::istringstream lines(result.out);
  std::string line, last;
  int epochs = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("epoch ", 0) == 0) ++epochs;
    last = line;
  }
  CHECK(epochs == 30);
  const double accuracy = std::stod(last.substr(last.rfind(' ') + 1));
  CHECK(accuracy >= 0.97);
  // One row per batch: 30 epochs of ceil(1438 / 64) = 23, under a header.
  const std::string metrics = ss::test::read_file(dir.file("metrics.csv"));
  CHECK(metrics.rfind("epoch,loss\n0,", 0) == 0);
  CHECK(std::count(metrics.begin(), metrics.end(), '\n') == 1 + 30 * 23);
  CHECK(std::filesystem::exists(dir.file("mlp.safetensors")));  // beside the program
}

TEST_CASE("training saved half way and resumed from its checkpoints ends with the same weights") {
  ss::test::TempDir dir;
  std::filesystem::copy_file(source("tests/programs/training/resume.ss"), dir.file("resume.ss"));
  dir.write("points.csv", points_csv());
  const auto straight =
      run_process({kCliPath, "run", dir.file("resume.ss"), "straight", "--arg", "total=4"});
  REQUIRE_MESSAGE(straight.exit_code == 0, straight.err);
  const auto first =
      run_process({kCliPath, "run", dir.file("resume.ss"), "first_half", "--arg", "half=2"});
  REQUIRE_MESSAGE(first.exit_code == 0, first.err);
  const auto second = run_process({kCliPath, "run", dir.file("resume.ss"), "second_half", "--arg",
                                   "half=2", "--arg", "total=4"});
  REQUIRE_MESSAGE(second.exit_code == 0, second.err);
  CHECK(second.out == straight.out);
  CHECK(!straight.out.empty());
  // A model loaded into another shape of model is E1704.
  const auto wrong = dir.write("wrong.ss",
                               "dim D = 5\ndim C = 3\nmodel Net:\n    param w: [D C] = zeros\n"
                               "    param b: [C] = zeros\nfn main():\n"
                               "    m: Net = load(\"m.safetensors\")\n    print(m.b)\n");
  const auto mismatch = run_process({kCliPath, "run", wrong});
  CHECK(mismatch.exit_code == 1);
  CHECK(mismatch.err.rfind("error[E1704]: the checkpoint's `w` is [4 3], Net's parameter is [5 3]",
                           0) == 0);
  // One whose parameter the file lacks lists what the file holds, nearest first.
  const auto renamed = dir.write("renamed.ss",
                                 "dim D = 4\ndim C = 3\nmodel Net:\n    param w: [D C] = zeros\n"
                                 "    param bias: [C] = zeros\nfn main():\n"
                                 "    m: Net = load(\"m.safetensors\")\n    print(m.bias)\n");
  const auto lacking = run_process({kCliPath, "run", renamed});
  CHECK(lacking.exit_code == 1);
  CHECK(lacking.err.rfind("error[E1704]: the checkpoint `", 0) == 0);
  CHECK(lacking.err.find("has no tensor `bias`") != std::string::npos);
  CHECK(lacking.err.find("help: the file holds `b` and `w`; load a checkpoint") !=
        std::string::npos);
}

TEST_CASE("a batch size computed at run time below 1 is E1402 there, not a crash") {
  ss::test::TempDir dir;
  dir.write("points.csv", points_csv());
  const auto file =
      dir.write("b.ss",
                "dim D = 4\ndim C = 3\ndata Point:\n    x: [D]\n"
                "    label: [] Index[C]\nfn main(n: int):\n"
                "    data: Dataset[Point] = load(\"points.csv\")\n"
                "    for batch in data |> batches(n):\n        print(shape(batch.x))\n");
  const auto one = run_process({kCliPath, "run", file, "--arg", "n=4"});
  CHECK(one.exit_code == 0);
  CHECK(one.out == "[4 4]\n[4 4]\n[2 4]\n");
  for (const char* n : {"n=0", "n=-2"}) {
    CAPTURE(n);
    const auto zero = run_process({kCliPath, "run", file, "--arg", n});
    CHECK(zero.exit_code == 1);
    CHECK(zero.err.rfind("error[E1402]: a batch size of ", 0) == 0);
  }
}

TEST_CASE("a sink writes CSV or JSON lines, an unbound one is counted, or E1705 when strict") {
  ss::test::TempDir dir;
  const auto file = dir.write("s.ss",
                              "sink metrics\nfn main():\n    for i in range(3):\n"
                              "        write(metrics, step=i, loss=0.5 * i)\n");
  CHECK(run_process({kCliPath, "run", file, "--sink", "metrics=" + dir.file("m.csv")}).exit_code ==
        0);
  CHECK(ss::test::read_file(dir.file("m.csv")) == "step,loss\n0,0\n1,0.5\n2,1\n");
  CHECK(
      run_process({kCliPath, "run", file, "--sink", "metrics=" + dir.file("m.jsonl")}).exit_code ==
      0);
  CHECK(ss::test::read_file(dir.file("m.jsonl")) ==
        "{\"step\": 0, \"loss\": 0}\n{\"step\": 1, \"loss\": 0.5}\n{\"step\": 2, \"loss\": 1}\n");
  const auto unbound = run_process({kCliPath, "run", file});
  CHECK(unbound.exit_code == 0);
  CHECK(unbound.err ==
        "note: 3 records of the sink `metrics` not kept (the last: step=2 loss=1); keep them "
        "with `--sink metrics=metrics.csv`\n");
  const auto strict = run_process({kCliPath, "run", "--strict-sinks", file});
  CHECK(strict.exit_code == 1);
  CHECK(strict.err.rfind("error[E1705]: the sink `metrics` has no destination", 0) == 0);
  CHECK(run_process({kCliPath, "run", file, "--sink", "metrics"}).exit_code == 2);
}

TEST_CASE("a device function changes a model's fields through `mut`, and copies keep theirs") {
  const auto result = run_process({kCliPath, "run", source("tests/programs/training/fields.ss")});
  CHECK(result.err.empty());
  CHECK(result.out == "[1.5 1.5 1.5] [9. 9. 9.] [0. 0. 0.]\n");
}

TEST_CASE("a gradient of a value that doesn't depend on the model is E1204 at the call") {
  ss::test::TempDir dir;
  const auto file =
      dir.write("g.ss",
                "dim D = 4\nmodel M:\n    param w: [D] = zeros\n"
                "fn loss(m: M, x: [D]) -> [] = sum(x * x) + f32(argmax(m.w, over=D))\n"
                "fn main():\n    m = M(seed=0)\n"
                "    l, g = value_and_grad(loss, m, zeros([D]) + 1.0)\n");
  const auto result = run_process({kCliPath, "run", file});
  CHECK(result.exit_code == 1);
  CHECK(result.err.rfind("error[E1204]: `loss`'s value doesn't depend on the model's parameters",
                         0) == 0);
  CHECK(result.err.find("g.ss:7:12") != std::string::npos);
}

TEST_CASE("dropout: a new mask at each value_and_grad, the same each run, none in a plain call") {
  const auto first = run_process({kCliPath, "run", source("tests/programs/training/dropout.ss")});
  REQUIRE_MESSAGE(first.exit_code == 0, first.err);
  const auto again = run_process({kCliPath, "run", source("tests/programs/training/dropout.ss")});
  CHECK(again.out == first.out);  // bit for bit
  std::istringstream lines(first.out);
  std::vector<std::string> masks;
  std::string line;
  for (int i = 0; i < 3 && std::getline(lines, line); ++i) {
    // "l [g ...]": kept elements count 2 in g and add 2 to l, dropped ones 0.
    const double l = std::stod(line);
    const std::string mask = line.substr(line.find('['));
    masks.push_back(mask);
    CHECK(l == 2.0 * static_cast<double>(std::count(mask.begin(), mask.end(), '2')));
  }
  REQUIRE(masks.size() == 3);
  CHECK((masks[0] != masks[1] || masks[1] != masks[2]));
  std::getline(lines, line);
  CHECK(line == "8.0");  // outside value_and_grad, no dropout
}

TEST_CASE("pipes from the controller: map, len, and batches that keep the last partial one") {
  ss::test::TempDir dir;
  dir.write("points.csv", "1,2,0\n3,4,1\n5,6,2\n");
  const auto file =
      dir.write("m.ss",
                "dim D = 2\ndim C = 3\ndata Point:\n    x: [D]\n    label: [] Index[C]\n"
                "fn same(p: Point) -> Point = p\nfn main():\n"
                "    points: Dataset[Point] = load(\"points.csv\")\n"
                "    mapped = points |> map(same)\n    print(len(mapped))\n"
                "    for b in mapped |> batches(2):\n        print(b.x, b.label)\n"
                "    print(len(points |> take(2)))\n");
  const auto result = run_process({kCliPath, "run", file});
  CHECK(result.err.empty());
  CHECK(result.out == "3\n[[1. 2.] [3. 4.]] [0 1]\n[[5. 6.]] [2]\n2\n");
}

TEST_CASE("tinylm (a stack of two transformer blocks) reaches its PyTorch twin's test loss") {
  // The example as a user runs it, 300 steps; its twin (tinylm_twin.py) has
  // the same initial values and batches, so the two curves start together.
  ss::test::TempDir dir;
  dir.write("tinylm.ss", ss::test::read_file(source("examples/tinylm/tinylm.ss")));
  std::filesystem::copy_file(source("examples/tinylm/windows.safetensors"),
                             dir.file("windows.safetensors"));
  const auto result = run_process({kCliPath, "run", dir.file("tinylm.ss")});
  REQUIRE_MESSAGE(result.exit_code == 0, result.err);
  // "step 300: loss L, test T": the uniform baseline is ln(64) = 4.16.
  REQUIRE(result.out.find("step 300:") != std::string::npos);
  const double ours = std::stod(result.out.substr(result.out.rfind("test ") + 5));
  const std::string twin_text = ss::test::read_file(source("examples/tinylm/twin_loss.txt"));
  const double twin = std::stod(twin_text.substr(twin_text.rfind("test loss ") + 10));
  MESSAGE("test loss " << ours << ", PyTorch's twin " << twin);
  CHECK(std::abs(ours - twin) <= 0.05);
  CHECK(ours < 2.0);
  CHECK(std::filesystem::exists(dir.file("tinylm.safetensors")));
}

TEST_CASE("grad gives value_and_grad's gradient, and opt.lr set to 0 stops the updates") {
  ss::test::TempDir dir;
  const auto file =
      dir.write("g.ss",
                "dim D = 3\nmodel M:\n    param w: [D] = uniform(low=-1.0, high=1.0)\n"
                "fn loss(m: M, x: [D]) -> [] = sum(tanh(m.w * x))\n"
                "fn step(mut m: M, mut opt: SGD[M], x: [D]):\n"
                "    update(mut m, mut opt, grad(loss, m, x))\n"
                "fn main():\n    m = M(seed=3)\n    x = zeros([D]) + 0.5\n"
                "    l, g = value_and_grad(loss, m, x)\n    h = grad(loss, m, x)\n"
                "    print(norm(g - h), norm(g) > 0.0)\n"
                "    opt = SGD(m, lr=0.1)\n    before = m\n    step(mut m, mut opt, x)\n"
                "    print(norm(m - before) > 0.0)\n    opt.lr = 0.0\n    moved = m\n"
                "    step(mut m, mut opt, x)\n    print(norm(m - moved))\n");
  const auto result = run_process({kCliPath, "run", file});
  CHECK(result.err.empty());
  CHECK(result.out == "0.0 True\nTrue\n0.0\n");
}

namespace {

// The digits program for `epochs` epochs, with a `devices` line (none when
// empty), beside its data in `dir`.
std::string digits_variant(const ss::test::TempDir& dir, const std::string& devices, int epochs) {
  std::string text = ss::test::read_file(source("examples/digits/digits.ss"));
  const std::string loop = "range(30)";
  text.replace(text.find(loop), loop.size(), "range(" + std::to_string(epochs) + ")");
  if (!devices.empty()) text = "devices " + devices + "\n" + text;
  const std::string name = "digits_" + std::to_string(devices.size()) + ".ss";
  dir.write(name, text);
  return dir.file(name);
}

using ss::test::numbers_after_commas;

}  // namespace

TEST_CASE("digits on cpu[0 1 2] and cpu[0 1] follow one device's loss curve, step by step") {
  ss::test::TempDir dir;
  for (const char* file : {"digits-train.safetensors", "digits-test.safetensors"})
    std::filesystem::copy_file(source(std::string("examples/digits/") + file), dir.file(file));
  std::vector<double> curves[3];
  std::string printed[3];
  const char* devices[3] = {"", "cpu[0 1]", "cpu[0 1 2]"};
  for (int k = 0; k < 3; ++k) {
    CAPTURE(k);
    const std::string metrics = dir.file("metrics" + std::to_string(k) + ".csv");
    const auto result = run_process({kCliPath, "run", digits_variant(dir, devices[k], 2), "--sink",
                                     "metrics=" + metrics, "--stats"});
    REQUIRE_MESSAGE(result.exit_code == 0, result.err);
    curves[k] = numbers_after_commas(ss::test::read_file(metrics));
    printed[k] = result.out;
    if (k == 0) {
      CHECK(result.err.find("no call ran on several workers") != std::string::npos);
      continue;
    }
    // --stats: 46 steps of 1438 examples over 2 epochs; each step one
    // all-reduce per parameter gradient (4) and one for the loss.
    for (int w = 0; w <= k; ++w) {
      const std::string worker = "cpu[" + std::to_string(w) + "]";
      std::istringstream lines(result.err);
      std::string line;
      bool seen = false;
      while (std::getline(lines, line)) {
        std::istringstream cells(line);
        std::string fn, device;
        std::int64_t rank = 0, calls = 0, examples = 0, reduces = 0;
        cells >> fn >> device >> rank >> calls >> examples >> reduces;
        if (fn != "train_step" || device != worker) continue;
        seen = true;
        CHECK(calls == 46);
        CHECK(reduces == 46 * 5);
        CHECK(examples >= 2 * 1438 / (k + 1) - 46);
        CHECK(examples <= 2 * 1438 / (k + 1) + 46);
      }
      CHECK_MESSAGE(seen, result.err);
    }
  }
  REQUIRE(curves[0].size() == 46);
  for (int k = 1; k < 3; ++k) {
    REQUIRE(curves[k].size() == curves[0].size());
    for (std::size_t i = 0; i < curves[0].size(); ++i)
      CHECK_MESSAGE(
          std::abs(curves[k][i] - curves[0][i]) <= 1e-4 * (1 + std::abs(curves[0][i])),
          devices[k] << " step " << i << ": " << curves[k][i] << ", one device " << curves[0][i]);
    // The printed accuracies, over the whole test set split across the workers.
    CHECK(printed[k].substr(printed[k].rfind(' ')) == printed[0].substr(printed[0].rfind(' ')));
  }
}

TEST_CASE(
    "the seed's E1801-E1804 programs, fixed as their help says, run on CPU workers as on one") {
  for (const char* name : {"e1801", "e1802", "e1803", "e1804"}) {
    CAPTURE(name);
    ss::test::TempDir dir;
    const std::string folder = source("tests/programs/devices/seed_fixed/");
    for (const char* data : {"x4.csv", "xy.csv"})
      std::filesystem::copy_file(folder + data, dir.file(data));
    const std::string text = ss::test::read_file(folder + name + ".ss");
    REQUIRE(text.find("\ndevices cpu[") != std::string::npos);
    std::string one = text;  // the same program on one device
    const auto line = one.find("\ndevices ");
    one.erase(line + 1, one.find('\n', line + 1) - line);
    dir.write("several.ss", text);
    dir.write("one.ss", one);
    const auto several = run_process({kCliPath, "run", dir.file("several.ss"), "--stats"});
    const auto single = run_process({kCliPath, "run", dir.file("one.ss")});
    REQUIRE_MESSAGE(several.exit_code == 0, several.err);
    REQUIRE_MESSAGE(single.exit_code == 0, single.err);
    CHECK(several.out == single.out);
    CHECK(!several.out.empty());
    // Each ran its batch work on the workers (E1804's `both` too: `double`
    // of the batch is split).
    CHECK_MESSAGE(several.err.find("cpu[1]") != std::string::npos, several.err);
  }
}

TEST_CASE(
    "digits on the fast executor follows the reference's loss curve, on one and two workers") {
  ss::test::TempDir dir;
  for (const char* file : {"digits-train.safetensors", "digits-test.safetensors"})
    std::filesystem::copy_file(source(std::string("examples/digits/") + file), dir.file(file));
  std::string printed[3], stats[3];
  const auto curve = [&](const std::string& devices, const std::string& executor, int k) {
    const std::string metrics = dir.file("metrics-" + executor + devices + ".csv");
    const auto result =
        run_process({kCliPath, "run", digits_variant(dir, devices, 2), "--sink",
                     "metrics=" + metrics, "--executor", executor, "--threads", "2", "--stats"});
    REQUIRE_MESSAGE(result.exit_code == 0, result.err);
    printed[k] = result.out;
    stats[k] = result.err;
    return numbers_after_commas(ss::test::read_file(metrics));
  };
  const auto reference = curve("", "reference", 0);
  REQUIRE(reference.size() == 46);
  const auto fast = curve("", "fast", 1);
  const auto fast_two = curve("cpu[0 1]", "fast", 2);
  // --stats says what ran the nodes: the GEMM and fused kernels (where the
  // JIT is built), or the reference for everything.
  CHECK(stats[0].find("executor: reference\n  every node on the reference operations") !=
        std::string::npos);
  for (int k = 1; k < 3; ++k) {
    CAPTURE(stats[k]);
    CHECK(stats[k].find("executor: fast (JIT module ") != std::string::npos);
    CHECK(stats[k].find(" gemm\n") != std::string::npos);
    if (!std::string(ss::test::kJitPath).empty()) {
      CHECK(stats[k].find(" fused\n") != std::string::npos);
      // Per function: main's controller code compiled; the training step's
      // 23 steps an epoch (2 epochs) on the fast executor, with fused
      // kernels, its graph run once a step by each worker.
      CHECK(std::regex_search(stats[k], std::regex("\nmain +controller +compiled +1\n")));
      const std::string runs = k == 1 ? "46" : "92";
      CHECK(std::regex_search(
          stats[k], std::regex("\ntrain_step +device +fast +" + runs + " +[1-9][0-9]*\n")));
    }
  }
  CHECK(std::regex_search(stats[0], std::regex("\nmain +controller +interpreted +1\n")));
  for (const auto* other : {&fast, &fast_two}) {
    REQUIRE(other->size() == reference.size());
    for (std::size_t i = 0; i < reference.size(); ++i)
      CHECK_MESSAGE(std::abs((*other)[i] - reference[i]) <= 1e-4 * (1 + std::abs(reference[i])),
                    "step " << i << ": " << (*other)[i] << ", the reference " << reference[i]);
  }
  for (int k = 1; k < 3; ++k)  // the same test accuracy
    CHECK(printed[k].substr(printed[k].rfind(' ')) == printed[0].substr(printed[0].rfind(' ')));
}
