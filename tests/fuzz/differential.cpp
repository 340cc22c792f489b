// Differential testing: generated programs (tests/fuzz/program_generator)
// or given ones run on the reference executor, the fast executor on 1 and
// 2 threads and `devices cpu[0 1]`, through the embedding API, and must
// agree under docs/numerics.md: the fast executor with the reference
// within the `fast` row, several devices with one device of the same
// executor within the `devices` row, and the fast executor with itself bit
// for bit. A program that doesn't load is a failure too: the generator
// writes only programs that check.
//
//   differential [--from S] [--count N] [--seconds T] [--every K]
//                [--keep DIR] [--verbose] [FILE...]
//
// runs seeds S, S+K, S+2K, ... (N of them, or until T seconds have passed),
// or the files given (their `#@` lines say what to call). It prints one
// line per failure and a summary, writes each failing program into DIR,
// and exits 1 on any failure.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/program_generator.hpp"
#include "shapescript/shapescript.hpp"
#include "support/numerics.hpp"

namespace {

using ss::fuzz::CallLine;
using ss::fuzz::ProgramCalls;

struct Options {
  std::uint64_t from = 0, count = 0, every = 1;
  double seconds = 0;
  std::string keep;
  bool verbose = false;
  std::vector<std::string> files;
};

// One executor's results, flattened: each tensor with a label.
using Results = std::vector<std::pair<std::string, ss::Tensor>>;

void flatten(const ss::Value& v, const std::string& label, Results& out) {
  switch (v.kind()) {
    case ss::Value::Kind::tensor:
      out.emplace_back(label, v.tensor());
      break;
    case ss::Value::Kind::model:
      for (const auto& [name, t] : v.tensors()) out.emplace_back(label + "." + name, t);
      break;
    case ss::Value::Kind::tuple: {
      const auto items = v.items();
      for (std::size_t i = 0; i < items.size(); ++i)
        flatten(items[i], label + "." + std::to_string(i), out);
      break;
    }
    default:
      out.emplace_back(label + " (a " + v.type() + ")",
                       ss::Tensor::scalar(static_cast<float>(v.number())));
  }
}

// A call's results: with host tensors only they are `outputs` (a model's
// parameters one by one), else `values`. None is a failure of its own: a
// comparison of nothing would pass whatever ran.
Results flattened(const ss::CallResult& r) {
  Results out;
  for (std::size_t i = 0; i < r.outputs.size(); ++i)
    out.emplace_back("output " + std::to_string(i), r.outputs[i]);
  for (std::size_t i = 0; i < r.values.size(); ++i)
    flatten(r.values[i], "value " + std::to_string(i), out);
  return out;
}

struct Executor {
  std::string name;
  std::unique_ptr<ss::Engine> engine;
  bool devices = false;
};

std::vector<Executor> executors() {
  std::vector<Executor> out;
  const auto engine = [](ss::Executor e, int threads) {
    ss::EngineOptions o;
    o.log_level = ss::LogLevel::off;
    o.executor = e;
    o.threads = threads;
    return std::make_unique<ss::Engine>(o);
  };
  out.push_back({"reference", engine(ss::Executor::reference, 1), false});
  out.push_back({"fast", engine(ss::Executor::fast, 1), false});
  out.push_back({"fast on 2 threads", engine(ss::Executor::fast, 2), false});
  out.push_back({"cpu[0 1]", engine(ss::Executor::fast, 1), true});
  return out;
}

class Runner {
 public:
  explicit Runner(const Options& o) : options_(o), executors_(executors()) {}

  // Runs one program; returns its failures (empty: all agree).
  std::vector<std::string> run(const std::string& source, const std::string& name,
                               std::uint64_t seed) {
    std::vector<std::string> failures;
    ProgramCalls calls;
    try {
      calls = ss::fuzz::read_calls(source);
    } catch (const std::exception& e) {
      return {name + ": " + e.what()};
    }
    std::vector<ss::Module> modules;
    for (const auto& ex : executors_) {
      const std::string text = ex.devices ? "devices cpu[0 1]\n" + source : source;
      modules.push_back(ex.engine->load_source(text, name));
      if (!modules.back()) {
        std::string why;
        for (const auto& d : modules.back().diagnostics()) why += "\n" + d.render();
        return {name + ": doesn't load on " + ex.name + ":" + why};
      }
    }
    std::uint64_t k = 0;
    for (const auto& call : calls.calls) {
      std::mt19937_64 rng(seed * 1000003 + k++);
      const std::int64_t n = std::vector<std::int64_t>{1, 2, 3, 5}[rng() % 4];
      std::vector<std::vector<float>> floats;
      std::vector<std::vector<std::int32_t>> ints;
      floats.reserve(call.arguments.size());
      ints.reserve(call.arguments.size());
      std::vector<ss::Arg> positional;
      std::map<std::string, ss::Tensor> named;
      for (const auto& a : call.arguments) {
        std::vector<std::int64_t> shape;
        std::int64_t count = 1;
        for (const auto& axis : a.axes) {
          std::int64_t s = 0;
          if (axis == "n")
            s = n;
          else if (std::isdigit(static_cast<unsigned char>(axis[0])))
            s = std::stoll(axis);
          else
            for (const auto& [d, size] : calls.dims)
              if (d == axis) s = size;
          if (s <= 0)
            return {name + ": `" + call.function + "`'s " + a.name + " has an unknown axis " +
                    axis};
          shape.push_back(s);
          count *= s;
        }
        ss::Tensor t;
        if (!a.index_of.empty()) {
          std::int64_t bound = 0;
          for (const auto& [d, size] : calls.dims)
            if (d == a.index_of) bound = size;
          auto& v = ints.emplace_back(static_cast<std::size_t>(count));
          for (auto& x : v)
            x = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(bound));
          t = ss::Tensor::of(v, shape);
        } else {
          std::uniform_real_distribution<float> u(-1.0F, 1.0F);
          auto& v = floats.emplace_back(static_cast<std::size_t>(count));
          for (auto& x : v) x = u(rng);
          t = ss::Tensor::of(v, shape);
        }
        if (a.name.find('.') != std::string::npos)
          named[a.name] = t;
        else
          positional.emplace_back(t);
      }
      std::vector<Results> results;
      for (std::size_t e = 0; e < executors_.size(); ++e) {
        const auto r = modules[e].call(call.function, positional, named);
        if (!r) {
          std::string why;
          for (const auto& d : r.diagnostics) why += "\n" + d.render();
          failures.push_back(name + ": `" + call.function + "` (n=" + std::to_string(n) +
                             ") failed on " + executors_[e].name + ":" + why);
          break;
        }
        results.push_back(flattened(r));
        if (executors_[e].name == "fast") {  // bit for bit on a second call
          const auto again = modules[e].call(call.function, positional, named);
          if (auto d = differ(flattened(again), results.back(), nullptr); !d.empty())
            failures.push_back(name + ": `" + call.function +
                               "` on fast doesn't repeat itself: " + d);
        }
      }
      if (results.size() != executors_.size()) continue;
      if (results[0].empty())
        failures.push_back(name + ": `" + call.function + "` returned nothing to compare");
      const std::string where = name + ": `" + call.function + "` (n=" + std::to_string(n) + ") ";
      if (auto d = differ(results[1], results[0], &ss::test::tolerance("fast")); !d.empty())
        failures.push_back(where + "fast against the reference: " + d);
      if (auto d = differ(results[2], results[0], &ss::test::tolerance("fast")); !d.empty())
        failures.push_back(where + "fast on 2 threads against the reference: " + d);
      if (auto d = differ(results[3], results[1], &ss::test::tolerance("devices")); !d.empty())
        failures.push_back(where + "cpu[0 1] against fast: " + d);
    }
    if (options_.verbose)
      for (std::size_t e = 0; e < executors_.size(); ++e) {
        const auto st = modules[e].executor_stats();
        std::printf("  %s: %s, jit %d, kernels compiled %lld, kernel runs %lld\n",
                    executors_[e].name.c_str(), st.executor.c_str(), st.jit ? 1 : 0,
                    static_cast<long long>(st.kernels_compiled),
                    static_cast<long long>(st.kernel_runs));
      }
    return failures;
  }

 private:
  const Options& options_;
  std::vector<Executor> executors_;

  // What differs between `got` and `want` (empty: they agree): under `t`,
  // or bit for bit where it is null; integers always exactly.
  static std::string differ(const Results& got, const Results& want, const ss::test::Tolerance* t) {
    if (got.size() != want.size())
      return std::to_string(got.size()) + " results, expected " + std::to_string(want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      const auto& [label, g] = got[i];
      const auto& w = want[i].second;
      if (label != want[i].first) return label + " where " + want[i].first + " was expected";
      if (g.shape() != w.shape() || g.dtype() != w.dtype())
        return label + " has another shape or type";
      const auto gv = g.to_floats(), wv = w.to_floats();
      std::vector<double> wd(wv.begin(), wv.end());
      const double scale = ss::test::tensor_scale(wd);
      for (std::size_t j = 0; j < gv.size(); ++j) {
        bool same = gv[j] == wv[j] || (std::isnan(gv[j]) && std::isnan(wv[j]));
        if (!t && !same) same = std::memcmp(&gv[j], &wv[j], sizeof(float)) == 0;
        if (t && w.dtype() == ss::DType::f32) same = ss::test::agrees(gv[j], wv[j], scale, *t);
        if (!same) {
          std::ostringstream out;
          out.precision(9);
          out << label << "[" << j << "] = " << gv[j] << ", expected " << wv[j] << " ("
              << (t ? t->row : "bits") << ")";
          return out.str();
        }
      }
    }
    return {};
  }
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(a + " wants a value");
      return argv[++i];
    };
    if (a == "--from")
      o.from = std::stoull(next());
    else if (a == "--count")
      o.count = std::stoull(next());
    else if (a == "--every")
      o.every = std::max<std::uint64_t>(1, std::stoull(next()));
    else if (a == "--seconds")
      o.seconds = std::stod(next());
    else if (a == "--keep")
      o.keep = next();
    else if (a == "--verbose")
      o.verbose = true;
    else if (!a.empty() && a[0] == '-')
      throw std::runtime_error("unknown option " + a);
    else
      o.files.push_back(a);
  }
  if (o.files.empty() && o.count == 0 && o.seconds == 0) o.count = 100;
  return o;
}

}  // namespace

// The program running, for a crash's last words.
char g_running[256] = "";

extern "C" void crashed(int signal) {
  const char head[] = "CRASH while running ";
  [[maybe_unused]] auto a = ::write(2, head, sizeof head - 1);
  [[maybe_unused]] auto b = ::write(2, g_running, std::strlen(g_running));
  [[maybe_unused]] auto c = ::write(2, "\n", 1);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

void running(const std::string& name) {
  std::snprintf(g_running, sizeof g_running, "%s", name.c_str());
}

int main(int argc, char** argv) {
  for (const int s : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) std::signal(s, crashed);
  Options options;
  try {
    options = parse(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "differential: %s\n", e.what());
    return 2;
  }
  Runner runner(options);
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::uint64_t programs = 0, failed = 0;
  const auto report = [&](const std::vector<std::string>& failures, const std::string& name,
                          const std::string& source) {
    ++programs;
    if (failures.empty()) return;
    ++failed;
    for (const auto& f : failures) std::printf("FAIL %s\n", f.c_str());
    if (!options.keep.empty()) {
      std::filesystem::create_directories(options.keep);
      std::ofstream(std::filesystem::path(options.keep) / std::filesystem::path(name).filename())
          << source;
    }
  };
  if (!options.files.empty()) {
    for (const auto& file : options.files) {
      std::ifstream in(file);
      if (!in) {
        std::printf("FAIL %s: can't be read\n", file.c_str());
        ++failed;
        continue;
      }
      std::stringstream text;
      text << in.rdbuf();
      // A regression program's inputs come from its name's seed, if any.
      std::uint64_t seed = 0;
      const auto stem = std::filesystem::path(file).stem().string();
      if (const auto at = stem.rfind('_'); at != std::string::npos)
        seed = std::strtoull(stem.c_str() + at + 1, nullptr, 10);
      running(file);
      report(runner.run(text.str(), file, seed), file, text.str());
    }
  } else {
    for (std::uint64_t i = 0; options.count == 0 || i < options.count; ++i) {
      if (options.seconds > 0 && elapsed() >= options.seconds) break;
      const std::uint64_t seed = options.from + i * options.every;
      const std::string source = ss::fuzz::generate_program(seed);
      const std::string name = "seed_" + std::to_string(seed) + ".ss";
      if (options.verbose) std::printf("%s\n", name.c_str());
      running(name);
      report(runner.run(source, name, seed), name, source);
    }
  }
  std::printf("differential: %llu programs, %llu failed, %.1f s\n",
              static_cast<unsigned long long>(programs), static_cast<unsigned long long>(failed),
              elapsed());
  return failed == 0 ? 0 : 1;
}
