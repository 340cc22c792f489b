// Several processes on MPI, as a user runs them: `mpirun -np N shapescript
// run`, on loopback (Open MPI's TCP transport over lo, more processes than
// cores allowed). Digits trains on 1, 2 and 3 processes, and on 2 processes
// of cpu[0 1], as on one; a stopped process makes the others fail with
// E1806 within the collective timeout; a killed one ends the job naming it,
// with rank 0's checkpoint whole; processes that loaded different programs,
// sizes or data fail at load with E1810; cuda[0 1] under MPI makes its NCCL
// communicators across the processes (the stand-in's, shared between them).
// Each case reports itself skipped where mpirun or the adapter is missing.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>

#include "runtime/data/safetensors.hpp"
#include "support/numerics.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"
#include "support/sink_csv.hpp"
#include "support/skip.hpp"

namespace {

using ss::test::kCliPath;

std::string source(const std::string& relative) {
  return std::string(ss::test::kSourceDir) + "/" + relative;
}

// mpirun and the adapter, or a skip.
bool mpi_here() {
  if (std::string(ss::test::built::mpi).empty()) {
    ss::test::skip("the build has no MPI adapter (libopenmpi-dev missing)");
    return false;
  }
  if (ss::test::run_shell("command -v mpirun").exit_code != 0) {
    ss::test::skip("no mpirun (openmpi-bin)");
    return false;
  }
  return true;
}

// Open MPI on this machine alone: loopback TCP, as root (CI is), more
// processes than cores. Set through the environment, so the commands read
// as a user types them. Under AddressSanitizer, full stacks for each
// allocation: Open MPI's components, unloaded at MPI_Finalize, show as
// unknown modules in a fast-unwound stack, and only the frames of
// libopen-pal below them let tests/sanitizers/lsan.supp name their leaks.
std::map<std::string, std::string> mpi_env() {
  const char* asan = std::getenv("ASAN_OPTIONS");
  return {{"ASAN_OPTIONS", std::string(asan ? asan : "") + ":fast_unwind_on_malloc=0"},
          {"OMPI_ALLOW_RUN_AS_ROOT", "1"},
          {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"},
          {"OMPI_MCA_btl", "self,tcp"},
          {"OMPI_MCA_btl_tcp_if_include", "lo"},
          {"OMPI_MCA_oob_tcp_if_include", "lo"},
          {"OMPI_MCA_rmaps_base_oversubscribe", "1"},
          {"SHAPESCRIPT_MPI", ss::test::built::mpi}};
}

ss::test::ProcessResult shell(const ss::test::TempDir& dir, const std::string& command,
                              std::map<std::string, std::string> extra = {}) {
  auto env = mpi_env();
  env.merge(extra);
  return ss::test::run_shell(command, {.env = env, .cwd = dir.path(), .merge_stderr = true});
}

// The digits program for `epochs` epochs on `devices` (none: one device),
// in `dir` with its data.
void write_digits(const ss::test::TempDir& dir, const std::string& name, const std::string& devices,
                  int epochs, const std::string& after_epoch = "") {
  for (const char* file : {"digits-train.safetensors", "digits-test.safetensors"})
    if (!std::filesystem::exists(dir.file(file)))
      std::filesystem::copy_file(source(std::string("examples/digits/") + file), dir.file(file));
  std::string text = ss::test::read_file(source("examples/digits/digits.ss"));
  const std::string loop = "range(30)";
  text.replace(text.find(loop), loop.size(), "range(" + std::to_string(epochs) + ")");
  if (!after_epoch.empty()) {
    const std::string print = "accuracy(m, test |> whole))\n";
    text.insert(text.find(print) + print.size(), "        " + after_epoch + "\n");
  }
  if (!devices.empty()) text = "devices " + devices + "\n" + text;
  dir.write(name, text);
}

std::vector<double> losses(const std::string& csv) {
  return ss::test::numbers_after_commas(csv);
}

std::string mpirun(int processes) {
  return "mpirun -np " + std::to_string(processes) + " " + std::string(kCliPath);
}

// Two processes of `shapescript ARGS` under mpirun in the background, each
// leaving its pid in pid.RANK; once rank 0 prints a line starting with
// `ready`, rank 1 gets SIGNAL. Prints how mpirun exited and how long after
// the signal, what is left of rank 1 once it has had time to go, then the
// job's output. A guard kills
// mpirun after 60 s: a hang shows as exit 137 after about a minute.
ss::test::ProcessResult signal_rank_one(const ss::test::TempDir& dir, const std::string& args,
                                        const std::string& ready, const std::string& signal) {
  dir.write("signal.sh", R"sh(
timeout -s KILL 60 mpirun -np 2 sh -c 'echo $$ > pid.$OMPI_COMM_WORLD_RANK; exec "$0" "$@"' \
    "$CLI" $ARGS > out.txt 2>&1 &
job=$!
i=0; until grep -q "^$READY " out.txt 2>/dev/null; do i=$((i+1)); [ $i -gt 600 ] && break; sleep 0.1; done
start=$(date +%s%N)
kill -$SIGNAL "$(cat pid.1)"
wait $job; code=$?
end=$(date +%s%N)
echo "mpirun exited $code after $(( (end - start) / 1000000 )) ms"
# The job's end and rank 1's being reaped race: wait (10 s at most) until
# it is gone or a zombie, rather than look once.
i=0
while :; do
  state=$(ps -o stat= -p "$(cat pid.1)" 2>/dev/null | tr -d ' ')
  case "$state" in ""|Z*) break ;; esac
  i=$((i+1)); [ $i -gt 100 ] && break; sleep 0.1
done
echo "rank 1 left: ${state:-gone}"
kill -KILL "$(cat pid.1)" 2>/dev/null
cat out.txt
)sh");
  return shell(dir, "sh signal.sh",
               {{"CLI", kCliPath}, {"ARGS", args}, {"READY", ready}, {"SIGNAL", signal}});
}

}  // namespace

TEST_CASE("digits on 1, 2 and 3 MPI processes, and 2 of cpu[0 1], trains as one process does") {
  if (!mpi_here()) return;
  ss::test::TempDir dir;
  write_digits(dir, "one.ss", "", 2);
  write_digits(dir, "two.ss", "cpu[0 1]", 2);
  write_digits(dir, "four.ss", "cpu[0 1 2 3]", 2);
  const auto one = shell(dir, std::string(kCliPath) + " run one.ss --sink metrics=one.csv");
  REQUIRE_MESSAGE(one.exit_code == 0, one.out);
  std::filesystem::rename(dir.file("mlp.safetensors"), dir.file("one.safetensors"));
  const auto curve = losses(ss::test::read_file(dir.file("one.csv")));
  REQUIRE(curve.size() == 46);

  struct Run {
    int processes;
    std::string program;
  };
  for (const Run& run : {Run{1, "one.ss"}, Run{2, "one.ss"}, Run{3, "one.ss"}, Run{2, "two.ss"}}) {
    CAPTURE(run.processes);
    CAPTURE(run.program);
    const auto r = shell(
        dir, mpirun(run.processes) + " run " + run.program + " --sink metrics=mpi.csv --stats");
    REQUIRE_MESSAGE(r.exit_code == 0, r.out);
    // Rank 0's process alone prints: the same epochs' lines as one process.
    std::istringstream printed(r.out);
    int epochs = 0;
    for (std::string line; std::getline(printed, line);)
      if (line.rfind("epoch ", 0) == 0) ++epochs;
    CHECK_MESSAGE(epochs == 2, r.out);
    // Each process's workers took their part: every rank below the world's
    // size ran the 46 steps.
    const int world = run.processes * (run.program == "two.ss" ? 2 : 1);
    for (int rank = 0; rank < world; ++rank)
      CHECK_MESSAGE(std::regex_search(r.out, std::regex("train_step +cpu\\[[01]\\] +" +
                                                        std::to_string(rank) + " +46 ")),
                    "rank " << rank << "\n"
                            << r.out);
    const auto& row = ss::test::tolerance("processes");
    const auto mine = losses(ss::test::read_file(dir.file("mpi.csv")));
    REQUIRE(mine.size() == curve.size());
    for (std::size_t i = 0; i < curve.size(); ++i)
      CHECK_MESSAGE(ss::test::agrees(mine[i], curve[i], 0, row),
                    "step " << i << ": " << mine[i] << ", one process " << curve[i]);
    // The same model saved, once, by rank 0's process: every weight within
    // the numerics table's `processes` row of one process's.
    const auto saved = ss::runtime::read_safetensors(dir.file("mlp.safetensors"));
    const auto want = ss::runtime::read_safetensors(dir.file("one.safetensors"));
    REQUIRE(saved.size() == want.size());
    for (const auto& [name, t] : want) {
      REQUIRE(saved.count(name));
      ss::test::check_agrees(saved.at(name), t, "processes", name);
    }
  }

  // Two processes of cpu[0 1] are the four ranks of one process's cpu[0 1 2
  // 3]: the same parts, the same sums in the same order, so the same bits.
  const auto four = shell(dir, std::string(kCliPath) + " run four.ss");
  REQUIRE_MESSAGE(four.exit_code == 0, four.out);
  const std::string four_model = ss::test::read_file(dir.file("mlp.safetensors"));
  const auto two = shell(dir, mpirun(2) + " run two.ss");
  REQUIRE_MESSAGE(two.exit_code == 0, two.out);
  CHECK(ss::test::read_file(dir.file("mlp.safetensors")) == four_model);
}

TEST_CASE("a stopped MPI process makes the others fail with E1806 within the timeout, no hang") {
  if (!mpi_here()) return;
  ss::test::TempDir dir;
  write_digits(dir, "long.ss", "", 500);
  // Rank 1 is stopped (SIGSTOP) once training is under way; rank 0 waits
  // for it in a collective for the 6 s timeout, reports E1806 and aborts the
  // job. (Under AddressSanitizer on a loaded machine one rank can fall 2 s
  // behind the other while compiling its kernels: a shorter timeout ends the
  // job before the signal.)
  const auto r = signal_rank_one(dir, "run --collective-timeout 6000 long.ss", "epoch 1", "STOP");
  CAPTURE(r.out);
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex("mpirun exited ([0-9]+) after ([0-9]+) ms")));
  CHECK(m[1] != "0");
  CHECK(m[1] != "137");  // not the guard's kill
  CHECK(std::stoi(m[2]) >= 6000);
  CHECK(std::stoi(m[2]) < 30000);
  CHECK(std::regex_search(r.out, std::regex("rank 1 left: (gone|Z)")));  // nothing left running
  CHECK(r.out.find("error[E1806]: a collective failed: the all-reduce waited more than 6000 ms "
                   "for other processes; MPI process 1 (rank 1) didn't answer") !=
        std::string::npos);
  CHECK(r.out.find("on MPI process 0 of 2") != std::string::npos);
}

TEST_CASE("a killed MPI process ends the job naming its rank, and rank 0's checkpoint is whole") {
  if (!mpi_here()) return;
  ss::test::TempDir dir;
  write_digits(dir, "ckpt.ss", "", 500, "save(m, \"ckpt.safetensors\")");
  const auto r = signal_rank_one(dir, "run ckpt.ss", "epoch 3", "KILL");
  CAPTURE(r.out);
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex("mpirun exited ([0-9]+) after ([0-9]+) ms")));
  CHECK(m[1] != "0");
  CHECK(std::stoi(m[2]) < 20000);  // mpirun's own end (137: the signal), not the guard's
  CHECK(std::regex_search(r.out, std::regex("process rank 1 .* exited on signal 9")));
  // The checkpoint, written to a temporary and renamed, is whole: it loads.
  std::string check = ss::test::read_file(source("examples/digits/digits.ss"));
  check = check.substr(0, check.find("fn main():")) +
          "fn main():\n"
          "    test: Dataset[Digit] = load(\"digits-test.safetensors\")\n"
          "    m: Mlp = load(\"ckpt.safetensors\")\n"
          "    print(\"accuracy\", accuracy(m, test |> whole))\n";
  dir.write("check.ss", check);
  const auto loaded = shell(dir, std::string(kCliPath) + " run check.ss");
  CHECK_MESSAGE(loaded.exit_code == 0, loaded.out);
  CHECK(loaded.out.rfind("accuracy 0.", 0) == 0);
}

TEST_CASE("MPI processes that loaded other programs, sizes or data fail at load with E1810") {
  if (!mpi_here()) return;
  ss::test::TempDir dir;
  const std::string total = "dim D\n\nfn total(x: [D]) -> [] = sum(x, over=D)\n\nfn main():\n";
  dir.write("a.ss", total + "    print(total(ones([D])))\n");
  dir.write("b.ss", total + "    print(total(ones([D]) * 2.0))\n");
  const std::string cli = kCliPath;
  // Two programs.
  auto r = shell(
      dir, "mpirun -np 1 " + cli + " run a.ss --dim D=3 : -np 1 " + cli + " run b.ss --dim D=3");
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(r.out.find("error[E1810]: MPI process 1 loaded another program or other sizes "
                           "than process 0") != std::string::npos,
                r.out);
  // One program, other sizes.
  r = shell(dir,
            "mpirun -np 1 " + cli + " run a.ss --dim D=3 : -np 1 " + cli + " run a.ss --dim D=4");
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(r.out.find("error[E1810]") != std::string::npos, r.out);
  // The same program and sizes agree.
  r = shell(dir, "mpirun -np 2 " + cli + " run a.ss --dim D=3");
  CHECK_MESSAGE(r.exit_code == 0, r.out);
  CHECK(r.out == "3.0\n");  // rank 0's process alone prints

  // Each process loads its dataset from its own folder: one has a row more.
  std::filesystem::create_directories(dir.file("p0"));
  std::filesystem::create_directories(dir.file("p1"));
  const std::string program =
      "devices cpu\n\ndim D = 2\n\ndata Ex:\n    x: [D]\n\nfn total(batch: [b] Ex) -> [D] = "
      "sum(batch.x, over=b)\n\nfn main():\n    data: Dataset[Ex] = load(\"ex.csv\")\n    "
      "print(total(data |> whole))\n";
  dir.write("p0/ex.ss", program);
  dir.write("p1/ex.ss", program);
  dir.write("p0/ex.csv", "1,2\n3,4\n");
  dir.write("p1/ex.csv", "1,2\n3,4\n5,6\n");
  r = shell(dir, "mpirun -np 1 " + cli + " run p0/ex.ss : -np 1 " + cli + " run p1/ex.ss");
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(r.out.find("with 3 examples, process 0 2") != std::string::npos, r.out);
  CHECK(r.out.find("error[E1810]") != std::string::npos);
  dir.write("p1/ex.csv", "1,2\n3,4\n");
  r = shell(dir, "mpirun -np 1 " + cli + " run p0/ex.ss : -np 1 " + cli + " run p1/ex.ss");
  CHECK_MESSAGE(r.exit_code == 0, r.out);
  CHECK(r.out == "[4. 6.]\n");
}

TEST_CASE("cuda[0 1] on two MPI processes makes NCCL communicators across them (stand-in)") {
  if (!mpi_here()) return;
  ss::test::TempDir dir;
  write_digits(dir, "one.ss", "", 1);
  write_digits(dir, "cuda.ss", "cuda[0 1]", 1);
  // The stand-in runs no kernels: the reference executor computes on the
  // CPU, and the stand-in's NCCL sums across the processes in shared memory.
  const std::map<std::string, std::string> fake = {
      {"SHAPESCRIPT_CUDA_DRIVER", ss::test::built::fake_cuda},
      {"SHAPESCRIPT_NCCL", ss::test::built::fake_cuda},
      {"SS_FAKE_NCCL_PROCESSES", "1"}};
  const auto one =
      shell(dir, std::string(kCliPath) + " run one.ss --executor reference --sink metrics=one.csv");
  REQUIRE_MESSAGE(one.exit_code == 0, one.out);
  const auto r = shell(
      dir, mpirun(2) + " run cuda.ss --executor reference --sink metrics=cuda.csv --stats", fake);
  REQUIRE_MESSAGE(r.exit_code == 0, r.out);
  for (int rank = 0; rank < 4; ++rank)
    CHECK_MESSAGE(std::regex_search(r.out, std::regex("train_step +cuda\\[[01]\\] +" +
                                                      std::to_string(rank) + " +23 ")),
                  r.out);
  const auto curve = losses(ss::test::read_file(dir.file("one.csv")));
  const auto mine = losses(ss::test::read_file(dir.file("cuda.csv")));
  REQUIRE(mine.size() == curve.size());
  for (std::size_t i = 0; i < curve.size(); ++i)
    CHECK(ss::test::agrees(mine[i], curve[i], 0, ss::test::tolerance("processes")));
}
