// Out of memory anywhere, and nothing breaks (as SQLite's and Lua's tests
// fail each allocation in turn): this binary replaces operator new only
// (malloc stays the sanitizer's, so LeakSanitizer sees every block) and
// fails one allocation of a step of the policy example, through the C API,
// for each allocation in turn until the step completes without reaching
// it: the engine and a load with a warm code cache, a call, a training
// call, a save and a reload. Each failure must be E1611 (never E0001,
// never an abort), the values must stay as they were, and under
// the sanitize preset's LeakSanitizer must find nothing at exit.
//
// Allocations made inside LLVM (the JIT module) and oneDNN aren't failed:
// they are built without exceptions, so an allocation failing there ends
// the process whatever we do (LLVM's own handler). A failing allocation
// whose stack passes through them is let through, and the next one fails.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <execinfo.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "alloc/loaded_objects.hpp"
#include "shapescript/shapescript.h"
#include "support/build_paths.hpp"

namespace {

// Armed: allocation number g_fail_at (counting from 1 since arming) fails,
// or the first after it whose stack is all ours.
std::atomic<bool> g_armed{false};
std::atomic<long> g_seen{0}, g_fail_at{0}, g_failed_at{0};
thread_local bool t_inside = false;

using Range = ss::test::AddressRange;
std::vector<Range> g_excluded;  // set before arming, read while armed

// The loaded objects whose file names contain one of `parts`.
std::vector<Range> loaded_ranges(const std::vector<std::string>& parts) {
  return ss::test::loaded_ranges([&](const std::string& path) {
    const auto base = path.substr(path.rfind('/') + 1);
    return std::any_of(parts.begin(), parts.end(), [&](const std::string& p) {
      return !base.empty() && base.find(p) != std::string::npos;
    });
  });
}

// Whether the allocation being made comes through an excluded library.
[[gnu::noinline]] bool excluded_stack() {
  void* frames[64];
  const int n = backtrace(frames, 64);
  for (int i = 0; i < n; ++i)
    for (const auto& r : g_excluded)
      if (r.holds(frames[i])) return true;
  return false;
}

// Whether this allocation is the one to fail.
bool fails_now() {
  if (!g_armed.load(std::memory_order_relaxed) || t_inside) return false;
  const long k = ++g_seen;
  if (k < g_fail_at.load(std::memory_order_relaxed) || g_failed_at.load() != 0) return false;
  t_inside = true;
  const bool theirs = excluded_stack();
  t_inside = false;
  if (theirs) return false;
  g_failed_at = k;
  return true;
}

}  // namespace

// Replacing the operators is what this file is for: malloc's blocks freed
// with free, which GCC can't see is the pairing.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

void* operator new(std::size_t size) {
  if (fails_now()) throw std::bad_alloc();
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  return operator new(size);
}
void* operator new(std::size_t size, std::align_val_t align) {
  if (fails_now()) throw std::bad_alloc();
  const auto a = static_cast<std::size_t>(align);
  if (void* p = std::aligned_alloc(a, (std::max<std::size_t>(size, 1) + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t align) {
  return operator new(size, align);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  if (fails_now()) return nullptr;
  return std::malloc(size ? size : 1);
}
void* operator new[](std::size_t size, const std::nothrow_t& t) noexcept {
  return operator new(size, t);
}
void* operator new(std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
  if (fails_now()) return nullptr;
  const auto a = static_cast<std::size_t>(align);
  return std::aligned_alloc(a, (std::max<std::size_t>(size, 1) + a - 1) / a * a);
}
void* operator new[](std::size_t size, std::align_val_t align, const std::nothrow_t& t) noexcept {
  return operator new(size, align, t);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}

namespace {

std::string source(const char* relative) {
  return std::string(ss::test::built::source_dir) + "/" + relative;
}

std::string code_of(ss_status* s) {
  std::string code = s ? ss_status_code(s) : "";
  if (s && code != "E1611") std::fprintf(stderr, "%s", ss_status_render(s));
  ss_status_free(s);
  return code;
}

// A value's parameters, by name, as floats.
std::vector<std::pair<std::string, std::vector<float>>> fields(const ss_value* v) {
  std::vector<std::pair<std::string, std::vector<float>>> out;
  for (std::size_t i = 0; i < ss_value_field_count(v); ++i) {
    const char* name = ss_value_field_name(v, i);
    ss_tensor* t = name ? ss_value_field(v, name) : nullptr;
    if (!t) {
      out.emplace_back(
          std::string("(a field that can't be read: ") + (name ? name : "no name") + ")",
          std::vector<float>());
      continue;
    }
    std::vector<float> xs(static_cast<std::size_t>(ss_tensor_size(t)));
    ss_tensor_to_floats(t, xs.data(), static_cast<std::int64_t>(xs.size()));
    ss_tensor_free(t);
    out.emplace_back(name, std::move(xs));
  }
  return out;
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Totals {
  long trials = 0, failures = 0;
};

// Runs `step` with allocation 1, 2, ... failing (skipping those inside
// the excluded libraries), until it completes without reaching the one
// to fail. `step` returns its status code ("" for success); `check` is
// told whether an allocation failed and the code, and checks the state.
Totals every_allocation(const char* what, const std::function<std::string()>& step,
                        const std::function<void(bool failed, const std::string& code)>& check,
                        const std::function<void()>& before = {}) {
  Totals totals;
  const auto start = std::chrono::steady_clock::now();
  for (long at = 1;; ++totals.trials) {
    if (before) before();
    g_seen = 0;
    g_failed_at = 0;
    g_fail_at = at;
    g_armed = true;
    const std::string code = step();
    g_armed = false;
    const long failed = g_failed_at.load();
    CAPTURE(failed);
    // A failure the library recovered from (a cache it couldn't fill) may
    // still complete; anything else it says must be E1611.
    const std::string said = std::string(what) + ": " + code;
    if (failed == 0 || !code.empty()) CHECK_MESSAGE((code.empty() || code == "E1611"), said);
    if (failed != 0 && !code.empty()) ++totals.failures;
    check(failed != 0 && !code.empty(), code);
    if (failed == 0) break;
    at = failed + 1;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: %ld allocations failed in turn, %ld gave E1611, %.1f s\n", what, totals.trials,
              totals.failures, s);
  return totals;
}

struct Scratch {
  std::filesystem::path dir;
  Scratch() {
    char tmpl[] = "/tmp/ss_failing_alloc.XXXXXX";
    dir = mkdtemp(tmpl);
  }
  ~Scratch() { std::filesystem::remove_all(dir); }
};

}  // namespace

TEST_CASE(
    "every allocation of a load, a call, a training call, a save and a reload fails in turn: "
    "E1611, nothing lost") {
  Scratch scratch;
  const std::string cache = (scratch.dir / "cache").string();
  const std::string program = source("examples/embed/policy.ss");
  ss_engine_options options = ss_engine_options_default();
  options.code_cache_directory = cache.c_str();

  // Warm: the code cache filled, the JIT module and oneDNN loaded.
  ss_engine* engine = ss_engine_new(&options, nullptr);
  REQUIRE(engine);
  ss_status* status = nullptr;
  ss_module* module = ss_engine_load_file(engine, program.c_str(), nullptr, &status);
  REQUIRE_MESSAGE(module, (status ? ss_status_render(status) : ""));
  g_excluded = loaded_ranges({"libLLVM", "libshapescript_jit", "libdnnl"});
  // backtrace's first call loads the unwinder (with malloc): made here.
  excluded_stack();

  SUBCASE("an engine and a load from the warm cache") {
    every_allocation(
        "load",
        [&] {
          ss_status* s = nullptr;
          ss_engine* e = ss_engine_new(&options, &s);
          if (!e) return code_of(s);
          ss_module* m = ss_engine_load_file(e, program.c_str(), nullptr, &s);
          g_armed = false;
          const std::string code = m ? "" : code_of(s);
          ss_module_free(m);
          ss_engine_free(e);
          return code;
        },
        [](bool, const std::string&) {});
  }

  ss_value *policy = nullptr, *opt = nullptr, *batch = nullptr;
  REQUIRE(code_of(ss_module_make(module, "Policy", 0, &policy)) == "");
  REQUIRE(code_of(ss_module_make_optimizer(module, "Adam", policy, 0, nullptr, nullptr, &opt)) ==
          "");
  float obs[4 * 8], action[2 * 8];
  for (int i = 0; i < 32; ++i) obs[i] = static_cast<float>(i % 7) * 0.25F - 0.7F;
  for (int i = 0; i < 16; ++i) action[i] = static_cast<float>(i % 5) * 0.3F - 0.6F;
  const std::int64_t obs_shape[2] = {8, 4}, action_shape[2] = {8, 2};
  ss_tensor* obs_t = ss_tensor_view(SS_F32, obs, obs_shape, 2);
  ss_tensor* action_t = ss_tensor_view(SS_F32, action, action_shape, 2);
  {
    const char* names[2] = {"obs", "action"};
    const ss_tensor* parts[2] = {obs_t, action_t};
    REQUIRE(code_of(ss_module_batch(module, "Transition", 2, names, parts, &batch)) == "");
  }
  const auto policy_before = fields(policy);

  SUBCASE("a call") {
    const auto act = [&](std::vector<float>* out) {
      const ss_arg args[2] = {ss_arg_value(policy), ss_arg_tensor(obs_t)};
      ss_call_result* r = nullptr;
      ss_status* s = ss_module_call_values(module, "act", args, 2, &r);
      g_armed = false;
      if (s) return code_of(s);
      ss_value* y = ss_call_result_value(r, 0);
      ss_tensor* t = ss_value_tensor(y);
      out->resize(16);
      ss_tensor_to_floats(t, out->data(), 16);
      ss_tensor_free(t);
      ss_value_free(y);
      ss_call_result_free(r);
      return std::string();
    };
    std::vector<float> want, got;
    REQUIRE(act(&want) == "");
    every_allocation(
        "call", [&] { return act(&got); },
        [&](bool failed, const std::string&) {
          if (!failed) CHECK(got == want);
          CHECK(fields(policy) == policy_before);
        });
  }

  SUBCASE("a training call, a save and a reload") {
    // What one step makes, unfailed, from copies of the policy and optimiser.
    ss_value* p = nullptr;
    ss_value* o = nullptr;
    const auto train = [&] {
      const ss_arg args[3] = {ss_arg_mut(p), ss_arg_mut(o), ss_arg_value(batch)};
      ss_call_result* r = nullptr;
      ss_status* s = ss_module_call_values(module, "train_step", args, 3, &r);
      g_armed = false;
      ss_call_result_free(r);
      return code_of(s);
    };
    const auto fresh = [&] {
      ss_value_free(p);
      ss_value_free(o);
      p = ss_module_copy_value(module, policy);
      o = ss_module_copy_value(module, opt);
    };
    fresh();
    REQUIRE(train() == "");
    const auto trained = fields(p), trained_opt = fields(o);
    const auto opt_before = fields(opt);
    every_allocation(
        "training call", train,
        [&](bool failed, const std::string&) {
          if (failed) {
            CHECK(fields(p) == policy_before);
            CHECK(fields(o) == opt_before);
            CHECK(ss_value_version(p) == ss_value_version(policy));
          } else {
            CHECK(fields(p) == trained);
            CHECK(fields(o) == trained_opt);
          }
        },
        fresh);

    // A save over an earlier checkpoint: that one whole, or the new one.
    const std::string path = (scratch.dir / "policy.safetensors").string();
    const std::string other = (scratch.dir / "trained.safetensors").string();
    REQUIRE(code_of(ss_module_save_value(module, policy, path.c_str())) == "");
    const std::string earlier = bytes_of(path);
    REQUIRE(train() == "");  // p is now the trained policy
    REQUIRE(code_of(ss_module_save_value(module, p, other.c_str())) == "");
    const std::string newer = bytes_of(other);
    REQUIRE(earlier != newer);
    every_allocation(
        "save",
        [&] {
          ss_status* s = ss_module_save_value(module, p, path.c_str());
          g_armed = false;
          return code_of(s);
        },
        [&](bool failed, const std::string&) {
          CHECK(bytes_of(path) == (failed ? earlier : newer));
          std::size_t temporaries = 0;  // none left behind
          for (const auto& f : std::filesystem::directory_iterator(scratch.dir))
            temporaries += f.path().filename().string().find(".tmp") != std::string::npos;
          CHECK(temporaries == 0);
        },
        [&] { std::ofstream(path, std::ios::binary) << earlier; });

    ss_value* back = nullptr;
    const auto trained_now = fields(p);
    every_allocation(
        "reload",
        [&] {
          ss_status* s =
              ss_module_load_value(module, "Policy", other.c_str(), 0, nullptr, nullptr, &back);
          g_armed = false;
          return code_of(s);
        },
        [&](bool failed, const std::string&) {
          if (!failed) {
            REQUIRE_MESSAGE(back, "a load that said nothing gave no value");
            CHECK(fields(back) == trained_now);
          }
          ss_value_free(back);
          back = nullptr;
        });
    ss_value_free(p);
    ss_value_free(o);
  }

  ss_value_free(batch);
  ss_tensor_free(obs_t);
  ss_tensor_free(action_t);
  ss_value_free(opt);
  ss_value_free(policy);
  ss_module_free(module);
  ss_engine_free(engine);
}

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  return context.run();
}
