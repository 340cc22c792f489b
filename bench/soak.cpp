// A soak: the policy example under the load a game or robot gives it, for
// minutes on end. Two threads call `act` at batch 1, one trains
// (`train_step`), the program is hot-reloaded every 100 ms (its text
// alternating, so each reload is a new program) and a checkpoint is saved
// every second, then loaded back and compared. Each minute (or period) it
// prints the process's resident memory and open files; at the end it
// fails if any call, reload, save or load failed, if a checkpoint didn't
// load back as saved, or if memory or open files grew after the first
// period.
//
//   bench_soak [--seconds S] [--period P] [--dir DIR] [--source CHECKOUT]
//   (defaults 600, 60, a temporary folder, the working directory)
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "shapescript/shapescript.hpp"

namespace {

using Clock = std::chrono::steady_clock;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

long resident_kib() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

int open_files() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (readdir(d)) ++n;
    closedir(d);
  }
  return n - 3;  // ".", "..", and the one opendir holds
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

struct Counts {
  std::atomic<long> calls{0}, steps{0}, reloads{0}, checkpoints{0}, errors{0};
};

std::mutex g_say;
void say_error(Counts& c, const std::string& what, const std::vector<ss::Diagnostic>& ds) {
  ++c.errors;
  std::lock_guard lock(g_say);
  std::fprintf(stderr, "soak: %s failed\n", what.c_str());
  for (const auto& d : ds) std::fprintf(stderr, "%s", d.render().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 600, period = 60;
  std::string dir, checkout = ".";  // --source: the checkout (its policy example)
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--seconds")
      seconds = std::atof(argv[i + 1]);
    else if (a == "--period")
      period = std::atof(argv[i + 1]);
    else if (a == "--dir")
      dir = argv[i + 1];
    else if (a == "--source")
      checkout = argv[i + 1];
  }
  const bool own_dir = dir.empty();
  if (own_dir) {
    char tmpl[] = "/tmp/ss_soak.XXXXXX";
    dir = mkdtemp(tmpl);
  }
  const std::string source = read_text(checkout + "/examples/embed/policy.ss");
  const ss::Engine engine;
  ss::Module mod = engine.load_source(source, "policy.ss");
  if (!mod) {
    for (const auto& d : mod.diagnostics()) std::fprintf(stderr, "%s", d.render().c_str());
    return 1;
  }
  const ss::Value policy = mod.make("Policy", {.seed = 0});
  const ss::Value opt = mod.make_optimizer("Adam", policy, {{"lr", 1e-3}});
  std::vector<float> obs(4 * 32), action(2 * 32);
  for (std::size_t i = 0; i < obs.size(); ++i) obs[i] = static_cast<float>(i % 9) * 0.2F - 0.8F;
  for (std::size_t i = 0; i < action.size(); ++i)
    action[i] = static_cast<float>(i % 5) * 0.3F - 0.6F;
  const ss::Value batch = mod.batch("Transition", {{"obs", ss::Tensor::of(obs, {32, 4})},
                                                   {"action", ss::Tensor::of(action, {32, 2})}});
  Counts counts;
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;

  for (int t = 0; t < 2; ++t)  // two threads acting, at batch 1, into their own buffers
    threads.emplace_back([&, t] {
      float x[4] = {0.1F * static_cast<float>(t), 0.2F, -0.3F, 0.4F}, y[2];
      const std::vector<ss::Tensor> into{ss::Tensor::view(y, {1, 2})};
      while (!stop) {
        const auto r = mod.call_into("act", {policy, ss::Tensor::view(x, {1, 4})}, into);
        if (!r) say_error(counts, "a call", r.diagnostics);
        ++counts.calls;
      }
    });
  threads.emplace_back([&] {  // one training
    while (!stop) {
      const auto r = mod.call("train_step", {ss::mut(policy), ss::mut(opt), batch});
      if (!r) say_error(counts, "a training step", r.diagnostics);
      ++counts.steps;
    }
  });
  threads.emplace_back([&] {  // a reload every 100 ms, a new text each time
    for (long k = 0; !stop; ++k) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const std::string text = source + "\n# reload " + std::to_string(k % 2) + "\n";
      const auto report = mod.reload(engine, text, "policy.ss");
      if (!report || !report.dropped_values.empty())
        say_error(counts, "a reload", report.diagnostics);
      ++counts.reloads;
    }
  });
  threads.emplace_back([&] {  // a checkpoint every second, loaded back and compared
    for (long k = 0; !stop; ++k) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      const std::string path = dir + "/policy-" + std::to_string(k % 3) + ".safetensors";
      const ss::Value saved = mod.copy(policy);  // the version saved, kept still
      if (const auto errors = mod.save(saved, path); ss::has_errors(errors)) {
        say_error(counts, "a save", errors);
        continue;
      }
      std::vector<ss::Diagnostic> errors;
      const ss::Value back = mod.load("Policy", path, {}, &errors);
      if (!back || back.tensors().size() != saved.tensors().size()) {
        say_error(counts, "loading a checkpoint", errors);
        continue;
      }
      for (const auto& [name, t] : saved.tensors())
        if (back.tensors().at(name).to_floats() != t.to_floats())
          say_error(counts, "a checkpoint that loads back changed (" + name + ")", {});
      ++counts.checkpoints;
    }
  });

  std::printf("%8s %12s %10s %12s %10s %8s %12s %7s\n", "seconds", "resident MB", "open files",
              "calls", "steps", "reloads", "checkpoints", "errors");
  const auto start = Clock::now();
  long first_kib = 0, peak_after_first = 0;
  int first_files = 0, most_files = 0;
  for (int p = 1;; ++p) {
    const auto until = start + std::chrono::duration<double>(std::min(seconds, p * period));
    while (Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const long kib = resident_kib();
    // A save or load holds its file for a moment, so one look may catch it
    // open: the count is the fewest of ten looks 20 ms apart. A file left
    // open stays in every look.
    int files = open_files();
    for (int look = 1; look < 10; ++look) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      files = std::min(files, open_files());
    }
    const double at = std::chrono::duration<double>(Clock::now() - start).count();
    std::printf("%8.0f %12.1f %10d %12ld %10ld %8ld %12ld %7ld\n", at,
                static_cast<double>(kib) / 1024, files, counts.calls.load(), counts.steps.load(),
                counts.reloads.load(), counts.checkpoints.load(), counts.errors.load());
    std::fflush(stdout);
    if (p == 1) {
      first_kib = kib;
      first_files = files;
    } else {
      peak_after_first = std::max(peak_after_first, kib);
      most_files = std::max(most_files, files);
    }
    if (p * period >= seconds) break;
  }
  stop = true;
  for (auto& t : threads) t.join();
  // Stable: after the first period (code compiled, frames planned, pools
  // filled), resident memory grows by no more than 5% and 8 MB, and no file
  // stays open.
  const long growth = peak_after_first > 0 ? peak_after_first - first_kib : 0;
  // Under AddressSanitizer freed memory waits in its quarantine (256 MB)
  // and resident memory climbs until that fills: there LeakSanitizer, at
  // exit, is the check, not growth.
  const bool memory_ok = kSanitized || growth <= std::max<long>(8 * 1024, first_kib / 20);
  const bool files_ok = most_files <= first_files;
  std::printf(
      "soak: %ld errors; resident memory %+.1f MB after the first period (%s); open files %d then "
      "at most %d (%s)\n",
      counts.errors.load(), static_cast<double>(growth) / 1024,
      kSanitized  ? "not judged under AddressSanitizer"
      : memory_ok ? "stable"
                  : "GROWING",
      first_files, most_files, files_ok ? "stable" : "GROWING");
  if (own_dir) std::filesystem::remove_all(dir);
  return counts.errors == 0 && memory_ok && files_ok && counts.checkpoints > 0 ? 0 : 1;
}
