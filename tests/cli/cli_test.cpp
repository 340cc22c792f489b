// The `shapescript` command as a user meets it: exit statuses, messages, files.
#include <doctest/doctest.h>

#include <algorithm>

#include "runtime/fast/gemm/sgemm.hpp"
#include "shapescript/version.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

using ss::test::kCliPath;
using ss::test::run_process;

TEST_CASE("--version prints the version, --help the commands, both exit 0") {
  const auto version = run_process({kCliPath, "--version"});
  CHECK(version.exit_code == 0);
  CHECK(version.out == "shapescript " SS_VERSION_STRING "\n");

  const auto help = run_process({kCliPath, "--help"});
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("shapescript check FILE") != std::string::npos);
  CHECK(help.out.find("shapescript devices") != std::string::npos);
  CHECK(help.out.find("SHAPESCRIPT_LOG") != std::string::npos);
  // `run` uses the fast executor unless told otherwise.
  CHECK(help.out.find("the fast executor (--executor reference: the") != std::string::npos);
}

TEST_CASE("a bad command line exits 2 with a plain error and a pointer to --help") {
  for (const auto& args : std::vector<std::vector<std::string>>{{},
                                                                {"frobnicate"},
                                                                {"check"},
                                                                {"check", "--bogus", "x.ss"},
                                                                {"--color=sometimes", "check", "x"},
                                                                {"devices", "gpu:0"},
                                                                {"run", "--device", "tpu", "x.ss"},
                                                                {"run", "x.ss", "--code-cache"}}) {
    std::vector<std::string> argv = {kCliPath};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto result = run_process(argv);
    CAPTURE(result.err);
    CHECK(result.exit_code == 2);
    CHECK(result.out.empty());
  }
  const auto unknown = run_process({kCliPath, "frobnicate"});
  CHECK(unknown.err.rfind("error: unknown command `frobnicate`", 0) == 0);
  CHECK(unknown.err.find("shapescript --help") != std::string::npos);
}

TEST_CASE("check: a clean file exits 0, a missing or non-UTF-8 one exits 1 with its code") {
  ss::test::TempDir dir;
  const auto good = dir.write("good.ss", "dim D = 4\n");
  const auto ok = run_process({kCliPath, "check", good});
  CHECK(ok.exit_code == 0);
  CHECK(ok.out == good + ": no errors\n");
  CHECK(ok.err.empty());

  const auto missing = run_process({kCliPath, "check", "missing.ss"}, {.cwd = dir.path()});
  CHECK(missing.exit_code == 1);
  CHECK(missing.err ==
        "error[E0101]: can't read `missing.ss`: no such file or directory\n"
        " --> missing.ss\n"
        "  = help: check the spelling; a relative path starts from the current folder\n");

  const auto latin1 = dir.write("latin1.ss", "# caf\xE9\n");
  const auto bad = run_process({kCliPath, "check", latin1});
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.rfind("error[E0102]: source text isn't UTF-8", 0) == 0);
  CHECK(bad.err.find(latin1 + ":1:6") != std::string::npos);
}

TEST_CASE("check goes through every file and fails if any fails") {
  ss::test::TempDir dir;
  const auto good = dir.write("good.ss", "dim D = 4\n");
  const auto result = run_process({kCliPath, "check", dir.file("gone.ss"), good});
  CHECK(result.exit_code == 1);
  CHECK(result.out == good + ": no errors\n");
  CHECK(result.err.find("E0101") != std::string::npos);
}

TEST_CASE("colour: never by default into a pipe, always when asked") {
  const auto plain = run_process({kCliPath, "check", "/nonexistent.ss"});
  CHECK(plain.err.find('\x1b') == std::string::npos);
  const auto colored = run_process({kCliPath, "--color=always", "check", "/nonexistent.ss"});
  CHECK(colored.err.find("\x1b[1;31merror[E0101]") != std::string::npos);
}

TEST_CASE("devices: the CPU is always there, a CUDA device without a driver is E1901") {
  const auto cpu = run_process({kCliPath, "devices", "cpu"});
  CHECK(cpu.exit_code == 0);
  CHECK(cpu.out == "cpu: available\n");

  const auto cuda =
      run_process({kCliPath, "devices", "cuda:0"},
                  {.env = {{"SHAPESCRIPT_CUDA_DRIVER", "/nonexistent/libcuda.so.1"}}});
  CHECK(cuda.exit_code == 1);
  CHECK(cuda.err.rfind("error[E1901]: CUDA isn't available: can't load the driver "
                       "`/nonexistent/libcuda.so.1`\n",
                       0) == 0);

  const auto report = run_process(
      {kCliPath, "devices"}, {.env = {{"SHAPESCRIPT_CUDA_DRIVER", "/nonexistent/libcuda.so.1"}}});
  CHECK(report.exit_code == 0);
  // The CPU's line names its GEMM kernel and whether bf16 contractions run.
  const std::string cpu_line = report.out.substr(0, report.out.find('\n'));
  CHECK(cpu_line.rfind("cpu         available, GEMM ", 0) == 0);
  const std::string bf16 = ss::gemm::bf16_kernel();
  CHECK((cpu_line.find("bf16 contractions yes (") != std::string::npos) ==
        (__builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw")));
  CHECK((cpu_line.find("bf16 contractions yes (AMX)") != std::string::npos) == (bf16 == "amx"));
  CHECK((cpu_line.find("bf16 contractions yes (AVX512-BF16)") != std::string::npos) ==
        (bf16 == "avx512bf16"));
  CHECK(report.out.find("\ncuda        not found: CUDA isn't available") != std::string::npos);
  for (const char* line : {"\nonednn ", "\njit ", "\nnvrtc ", "\ncublas ", "\ncudnn ", "\nnccl "})
    CHECK(report.out.find(line) != std::string::npos);
}

TEST_CASE("run --device cuda:0 needs the device: E1901 without a driver, before the program") {
  const std::string prints = std::string(ss::test::kSourceDir) + "/tests/programs/run/prints.ss";
  const auto cuda =
      run_process({kCliPath, "run", "--device", "cuda:0", prints},
                  {.env = {{"SHAPESCRIPT_CUDA_DRIVER", "/nonexistent/libcuda.so.1"}}});
  CHECK(cuda.exit_code == 1);
  CHECK(cuda.out.empty());
  CHECK(cuda.err.rfind("error[E1901]: CUDA isn't available", 0) == 0);
  CHECK(run_process({kCliPath, "run", "--device", "cpu", prints}).exit_code == 0);
}

TEST_CASE("SHAPESCRIPT_LOG=debug makes the CLI talk on standard error") {
  ss::test::TempDir dir;
  const auto file = dir.write("m.ss", "dim D = 4\n");
  const auto quiet = run_process({kCliPath, "check", file});
  CHECK(quiet.err.empty());
  const auto loud = run_process({kCliPath, "check", file}, {.env = {{"SHAPESCRIPT_LOG", "debug"}}});
  CHECK(loud.exit_code == 0);
  CHECK(loud.err.find("shapescript: debug: checked " + file + " (10 bytes)") != std::string::npos);
}

TEST_CASE("--explain prints a code's catalog entry, an unknown code is a usage error") {
  const auto explained = run_process({kCliPath, "--explain", "E1803"});
  CHECK(explained.exit_code == 0);
  CHECK(explained.out.rfind("### E1803: device work in a function that runs in the controller\n",
                            0) == 0);
  CHECK(explained.out.find("fn fit(mut m: M, mut opt: AdamW[M], data: Dataset[Ex]):") !=
        std::string::npos);
  const auto unknown = run_process({kCliPath, "--explain", "E4242"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.rfind("error: `E4242` is not an error code", 0) == 0);
  CHECK(run_process({kCliPath, "--explain"}).exit_code == 2);
}

TEST_CASE("--format=json prints one object per diagnostic on standard output") {
  ss::test::TempDir dir;
  const auto file =
      dir.write("m.ss", "dim D = 4\nfn f(x: [D]) -> [D] = y\nfn g(x: [D]) -> [D] = z\n");
  const auto result = run_process({kCliPath, "check", "--format=json", file});
  CHECK(result.exit_code == 1);
  CHECK(result.err.empty());
  CHECK(std::count(result.out.begin(), result.out.end(), '\n') == 2);
  CHECK(result.out.rfind(
            "{\"code\":\"E0301\",\"severity\":\"error\",\"file\":\"" + file + "\",\"line\":2,",
            0) == 0);
  const auto clean =
      run_process({kCliPath, "check", "--format=json", dir.write("ok.ss", "dim D = 4\n")});
  CHECK(clean.exit_code == 0);
  CHECK(clean.out.empty());
  CHECK(run_process({kCliPath, "check", "--format=xml", file}).exit_code == 2);
  // `--format json`, as docs/language.md writes it, is the same.
  const auto spaced = run_process({kCliPath, "check", "--format", "json", file});
  CHECK(spaced.exit_code == 1);
  CHECK(spaced.out == result.out);
  CHECK(run_process({kCliPath, "check", "--color", "never", file}).exit_code == 1);
}

TEST_CASE("check reports a program's checker errors rustc-style with the source line") {
  ss::test::TempDir dir;
  const auto file = dir.write("m.ss", "dim D = 4\ndim C = 3\nfn f(x: [b D]) -> [b C] = x\n");
  const auto result = run_process({kCliPath, "check", file});
  CHECK(result.exit_code == 1);
  CHECK(result.err.find("error[E0605]: `f` returns [b D], declared [b C]\n") == 0);
  CHECK(result.err.find("3 | fn f(x: [b D]) -> [b C] = x\n") != std::string::npos);
}

TEST_CASE(
    "check --dump-ir prints each function's graph or compact form, and says what isn't lowered "
    "yet") {
  const auto result =
      run_process({kCliPath, "check", "--dump-ir",
                   std::string(ss::test::kSourceDir) + "/examples/digits/digits.ss"});
  CHECK(result.exit_code == 0);
  CHECK(result.out.find(ss::test::read_file(std::string(ss::test::kSourceDir) +
                                            "/tests/goldens/logits.ir")) != std::string::npos);
  // Training lowers too: the step's outputs name the tensors it changes.
  CHECK(result.out.find("%77->m.w1") != std::string::npos);
  CHECK(result.out.find("graph main") == std::string::npos);  // the controller's code isn't a graph
  CHECK(result.out.find("controller main()\n") != std::string::npos);  // but its compact form
  const auto bad = run_process({kCliPath, "check", "--dump-ir", "/nonexistent.ss"});
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.find("E0101") != std::string::npos);
}

TEST_CASE("check --dump-ir=PASS prints the lowered program after that pass of the pipeline") {
  const std::string digits = std::string(ss::test::kSourceDir) + "/examples/digits/digits.ss";
  const std::string several =
      std::string(ss::test::kSourceDir) + "/tests/programs/valid/several_cpu_devices.ss";
  const auto dump = [](const std::string& pass, const std::string& file) {
    return run_process({kCliPath, "check", "--dump-ir=" + pass, file});
  };
  const auto lowered = dump("lower", digits);
  CHECK(lowered.exit_code == 0);
  CHECK(lowered.out == run_process({kCliPath, "check", "--dump-ir", digits}).out);
  CHECK(dump("verify", digits).out == lowered.out);  // verifying changes nothing
  // One device: nothing to distribute; several: the batch sums meet an all_reduce.
  const auto one = dump("distribute", digits);
  CHECK(one.out.find("# one device: the graphs run as lowered\n") == 0);
  CHECK(one.out.find("all_reduce") == std::string::npos);
  CHECK(dump("lower", several).out.find("all_reduce") == std::string::npos);
  CHECK(dump("distribute", several).out.find("all_reduce") != std::string::npos);
  const auto fused = dump("fuse", digits);
  CHECK(fused.out.find("graph logits: ") != std::string::npos);
  CHECK(fused.out.find(" fused kernels\n") != std::string::npos);    // train_step's
  CHECK(fused.out.find("graph logits: 2 fused kernels\n") != std::string::npos);  // its layers'
  CHECK(fused.out.find("  kernel %") != std::string::npos);
  const auto plan = dump("plan", digits);
  CHECK(plan.out.find("graph logits\n") != std::string::npos);
  CHECK(plan.out.find(" drop %") != std::string::npos);
  const auto bad = dump("inline", digits);
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("`--dump-ir=inline`: the passes are lower, verify, distribute, fuse, plan") !=
        std::string::npos);
}

TEST_CASE("run prints what the program prints, numpy-style, and exits 0") {
  const std::string dir = std::string(ss::test::kSourceDir) + "/tests/programs/run/";
  const auto result = run_process({kCliPath, "run", dir + "prints.ss"});
  CHECK(result.err.empty());
  CHECK(result.exit_code == 0);
  CHECK(result.out == ss::test::read_file(dir + "prints.expected"));
}

TEST_CASE(
    "run: a chosen function, its returned value printed, errors coded, a missing function named") {
  ss::test::TempDir dir;
  const auto file = dir.write(
      "m.ss", "dim D = 3\nfn three() -> [D] = arange(D) * 1.5\nfn main():\n    print(1)\n");
  const auto three = run_process({kCliPath, "run", file, "three"});
  CHECK(three.exit_code == 0);
  CHECK(three.out == "[0.  1.5 3. ]\n");
  const auto missing = run_process({kCliPath, "run", file, "nothing"});
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.find("has no function `nothing`") != std::string::npos);
  const auto bad = dir.write("bad.ss", "fn main():\n    print(y)\n");
  const auto checked = run_process({kCliPath, "run", bad});
  CHECK(checked.exit_code == 1);
  CHECK(checked.err.rfind("error[E0301]", 0) == 0);  // nothing runs when the check fails
  CHECK(run_process({kCliPath, "run"}).exit_code == 2);
}

TEST_CASE("run --arg binds a controller function's parameters, a bad one is a coded error") {
  const std::string file = std::string(ss::test::kSourceDir) + "/tests/programs/run/controller.ss";
  const auto ran = run_process({kCliPath, "run", file, "main", "--arg", "steps=1", "--arg", "lr=2",
                                "--arg", "x=[[1, 0, -1]]"});
  CHECK(ran.exit_code == 0);
  CHECK(ran.err.empty());
  CHECK(ran.out.find("[[ 2.  0. -2.]]\n2.0\n") != std::string::npos);
  const auto missing = run_process({kCliPath, "run", file, "main", "--arg", "steps=1"});
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.rfind("error[E1605]: `main` needs `lr`", 0) == 0);
  const auto fractional =
      run_process({kCliPath, "run", file, "grid", "--arg", "rows=1.5", "--arg", "cols=2"});
  CHECK(fractional.err.rfind("error[E1603]: `rows` is an integer, given 1.5", 0) == 0);
}

TEST_CASE("run's help speaks the command line: --arg for a missing input, i32: for ids") {
  ss::test::TempDir dir;
  const auto file = dir.write(
      "m.ss", "dim V = 5\ndim D = 2\nfn embed(ids: [n] Index[V], x: [D]) -> [D] = x * 2.0\n");
  const auto missing = run_process({kCliPath, "run", file, "embed", "--arg", "x=[1, 2]"});
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.rfind("error[E1605]: `embed` needs `ids`", 0) == 0);
  CHECK(missing.err.find("help: give it with `--arg ids=VALUE`") != std::string::npos);
  CHECK(missing.err.find("{\"") == std::string::npos);  // no C++ braces
  const auto floats =
      run_process({kCliPath, "run", file, "embed", "--arg", "ids=[1, 2]", "--arg", "x=[1, 2]"});
  CHECK(floats.exit_code == 1);
  CHECK(floats.err.rfind("error[E1603]", 0) == 0);
  CHECK(floats.err.find("`--arg ids=i32:[1, 2]`") != std::string::npos);
  const auto ids =
      run_process({kCliPath, "run", file, "embed", "--arg", "ids=i32:[1, 2]", "--arg", "x=[1, 2]"});
  CHECK(ids.exit_code == 0);
  CHECK(ids.out == "[2. 4.]\n");
  const auto misspelt = run_process({kCliPath, "run", file, "embedd"});
  CHECK(misspelt.err.find("did you mean `embed`?") != std::string::npos);
}

TEST_CASE("run --dim sizes a dim declared without one, and refuses bad sizes") {
  ss::test::TempDir dir;
  const auto file = dir.write("v.ss", "dim V\nfn main():\n    print(zeros([V]) + 1.0)\n");
  const auto sized = run_process({kCliPath, "run", file, "--dim", "V=3"});
  CHECK(sized.exit_code == 0);
  CHECK(sized.out == "[1. 1. 1.]\n");
  CHECK(run_process({kCliPath, "run", file}).err.rfind("error[E0404]", 0) == 0);
  CHECK(run_process({kCliPath, "run", file, "--dim", "V=0"}).err.rfind("error[E0402]", 0) == 0);
  for (const char* bad : {"V", "=3", "V=x", "V=3x"})
    CHECK(run_process({kCliPath, "run", file, "--dim", bad}).exit_code == 2);
  CHECK(run_process({kCliPath, "check", file}).exit_code == 0);  // checking needs no size
}

TEST_CASE(
    "run: a split that doesn't divide a size known only at run time is E0708 at the pattern") {
  ss::test::TempDir dir;
  const auto file =
      dir.write("split.ss",
                "fn total(x: [n]) -> [] = sum(rearrange(x, (h m) -> h m, h=2))\n"
                "fn main():\n    print(total(zeros([4]) + 1.0))\n    print(total(zeros([5])))\n");
  const auto result = run_process({kCliPath, "run", file});
  CHECK(result.exit_code == 1);
  CHECK(result.out == "4.0\n");  // what ran before the failure was printed
  CHECK(result.err.rfind("error[E0708]: an axis of size 5 doesn't split into parts of 2\n", 0) ==
        0);
  CHECK(result.err.find(file + ":1:30") != std::string::npos);
}

TEST_CASE("numbers: Python's rules in the controller and in folded constants, E1509 for zero") {
  ss::test::TempDir dir;
  const auto file =
      dir.write("n.ss",
                "fn main():\n    a = -7\n    print(a // 2, a % 2, 7 % -2, 2147483647 + 1, 7 / 2)\n"
                "fn big(x: [2] i32) -> [2] i32 = x + (16777216 + 1) - 7 // 2\n"
                "fn zero():\n    n = 0\n    print(1.5 % n)\n");
  const auto ran = run_process({kCliPath, "run", file});
  CHECK(ran.err.empty());
  CHECK(ran.out == "-4 1 -1 2147483648 3.5\n");
  const auto big = run_process({kCliPath, "run", file, "big", "--arg", "x=i32:[0, 1]"});
  CHECK(big.out == "[16777214 16777215]\n");  // 2^24 + 1 - 3, not rounded through f32
  const auto zero = run_process({kCliPath, "run", file, "zero"});
  CHECK(zero.exit_code == 1);
  CHECK(zero.err.rfind("error[E1509]: `%` divides by zero", 0) == 0);
  // A device function's static `7 // 0` is found at load: nothing runs.
  const auto folded_file = dir.write("folded.ss",
                                     "fn main():\n    print(\"ran\")\n"
                                     "fn folded(x: [2]) -> [2] = x * (7 // 0)\n");
  const auto folded = run_process({kCliPath, "run", folded_file});
  CHECK(folded.exit_code == 1);
  CHECK(folded.out.empty());
  CHECK(folded.err.rfind("error[E1509]: `//` divides by zero", 0) == 0);
}

TEST_CASE("controller integers are 64-bit: exact arithmetic, comparisons and prints, E1510 past") {
  ss::test::TempDir dir;
  const auto file =
      dir.write("big.ss",
                "fn main():\n    a = 9007199254740993\n    b = a + 1\n"
                "    print(a, b, a == b - 1, a > 9007199254740992.0, 2147483648 > 2147483647)\n"
                "    print(f\"{a:d} {b:18} {2 ** 62}\", 16777217 == 16777216)\n"
                "fn over():\n    n = 9223372036854775807\n    print(n + 1)\n"
                "fn into_tensor():\n    n = 3000000000\n    print(zeros([2]) + n)\n");
  const auto ran = run_process({kCliPath, "run", file});
  CHECK(ran.err.empty());
  // Python: print(2**53 + 1, 2**53 + 2, True, True, True) and the f-string's
  CHECK(ran.out ==
        "9007199254740993 9007199254740994 True True True\n"
        "9007199254740993   9007199254740994 4611686018427387904 False\n");
  const auto over = run_process({kCliPath, "run", file, "over"});
  CHECK(over.exit_code == 1);
  CHECK(over.err.rfind("error[E1510]: `+` overflows 64 bits", 0) == 0);
  const auto into = run_process({kCliPath, "run", file, "into_tensor"});
  CHECK(into.exit_code == 1);
  CHECK(into.err.rfind("error[E1510]: `n` is 3000000000, past a tensor's i32", 0) == 0);
}
