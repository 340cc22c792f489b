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
//                [--standalone-every M] [--keep DIR] [--verbose] [FILE...]
//
// runs seeds S, S+K, S+2K, ... (N of them, or until T seconds have passed),
// or the files given (their `#@` lines say what to call); the seeds that are
// multiples of M (50; 0: none) also run on the standalone build, 50
// programs to a compile, against the reference. It prints one
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
  std::uint64_t standalone_every = 50;  // every Nth program also on the standalone build; 0: none
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

// Programs for the standalone build, compiled 50 to one executable: the
// tiny runtime once, each program's `namespace model` renamed, and a main
// that runs every recorded call on its inputs and prints its outputs,
// compared with the reference under the `standalone` row.
class StandaloneBatch {
 public:
  struct Call {
    std::string function;
    std::vector<std::pair<std::string, ss::Tensor>> inputs;
    Results expected;
  };

  // Adds a program's standalone source and its calls; false with *why when
  // the build refuses it.
  bool add(const ss::Engine& engine, const std::string& name, const std::string& source,
           std::vector<Call> calls, std::string* why) {
    const std::filesystem::path dir = scratch();
    const std::string program = (dir / "program.ss").string(), cpp = (dir / "program.cpp").string();
    std::ofstream(program) << source;
    const auto built = engine.build_standalone(program, cpp);
    if (!built.empty()) {
      *why = built[0].render();
      return false;
    }
    std::ifstream in(cpp);
    std::stringstream text;
    text << in.rdbuf();
    const std::string all = text.str();
    const auto at = all.find("\nnamespace model {");
    if (at == std::string::npos) {
      *why = "the standalone source has no `namespace model`";
      return false;
    }
    if (runtime_.empty()) runtime_ = all.substr(0, at + 1);
    const std::string k = std::to_string(programs_.size());
    programs_.push_back(
        {name, "namespace model_" + k + " {" + all.substr(at + 18), std::move(calls)});
    return true;
  }

  std::size_t size() const { return programs_.size(); }

  // Compiles and runs the batch; each disagreement as a failure line.
  std::vector<std::string> run() {
    std::vector<std::string> failures;
    if (programs_.empty()) return failures;
    const std::filesystem::path dir = scratch();
    std::string cpp = runtime_;
    for (const auto& p : programs_) cpp += p.model + "\n";
    cpp +=
        "#include <cstdio>\n#include <iostream>\nint main() {\n"
        "  const std::map<std::string, ssa::Tensor> none;\n  std::vector<const "
        "decltype(model_0::functions)*> "
        "programs = {";
    for (std::size_t k = 0; k < programs_.size(); ++k)
      cpp += (k ? ", &model_" : "&model_") + std::to_string(k) + "::functions";
    cpp +=
        "};\n"
        "  for (std::string word; std::cin >> word;) {\n"
        "    std::size_t program = 0, count = 0;\n    std::string function;\n"
        "    std::cin >> program >> function >> count;\n"
        "    std::map<std::string, ssa::Tensor> in;\n"
        "    for (std::size_t i = 0; i < count; ++i) {\n"
        "      std::string name;\n      int dtype = 0;\n      std::size_t rank = 0;\n"
        "      std::cin >> name >> dtype >> rank;\n      ssa::Shape shape(rank);\n"
        "      for (auto& d : shape) std::cin >> d;\n"
        "      ssa::Tensor t = ssa::make(static_cast<ssa::DType>(dtype), shape);\n"
        "      for (auto& v : t.v) std::cin >> v;\n      in[name] = t;\n    }\n"
        "    const auto out = programs.at(program)->at(function)(in);\n"
        "    std::printf(\"%zu\\n\", out.size());\n"
        "    for (const auto& t : out) {\n"
        "      std::printf(\"%lld\", static_cast<long long>(t.size()));\n"
        "      for (const double v : t.v) std::printf(\" %.9g\", v);\n      "
        "std::printf(\"\\n\");\n    }\n"
        "  }\n}\n";
    std::ofstream((dir / "batch.cpp").string()) << cpp;
    std::string inputs;
    for (std::size_t k = 0; k < programs_.size(); ++k)
      for (const auto& c : programs_[k].calls) {
        inputs += "call " + std::to_string(k) + " " + c.function + " " +
                  std::to_string(c.inputs.size()) + "\n";
        for (const auto& [name, t] : c.inputs) {
          inputs += name + " " + std::to_string(t.dtype() == ss::DType::f32 ? 0 : 3) + " " +
                    std::to_string(t.shape().size());
          for (const auto d : t.shape()) inputs += " " + std::to_string(d);
          char v[32];
          for (const float x : t.to_floats()) {
            std::snprintf(v, sizeof v, " %.9g", x);
            inputs += v;
          }
          inputs += "\n";
        }
      }
    std::ofstream((dir / "inputs.txt").string()) << inputs;
    const std::string compile = "g++ -std=c++17 -O1 -w -o '" + (dir / "batch").string() + "' '" +
                                (dir / "batch.cpp").string() + "' > '" +
                                (dir / "compile.log").string() + "' 2>&1";
    if (std::system(compile.c_str()) != 0) {
      std::ifstream log((dir / "compile.log").string());
      std::stringstream why;
      why << log.rdbuf();
      failures.push_back("the standalone batch of " + programs_.front().name + " .. " +
                         programs_.back().name + " doesn't compile:\n" + why.str().substr(0, 4000));
      programs_.clear();
      return failures;
    }
    const std::string run = "'" + (dir / "batch").string() + "' < '" +
                            (dir / "inputs.txt").string() + "' > '" +
                            (dir / "outputs.txt").string() + "'";
    const int status = std::system(run.c_str());
    std::ifstream out((dir / "outputs.txt").string());
    const auto& tol = ss::test::tolerance("standalone");
    for (const auto& p : programs_)
      for (const auto& c : p.calls) {
        std::size_t count = 0;
        if (!(out >> count)) {
          failures.push_back(p.name + ": `" + c.function +
                             "` on the standalone build gave nothing (exit " +
                             std::to_string(status) + ")");
          programs_.clear();
          return failures;
        }
        if (count != c.expected.size())
          failures.push_back(p.name + ": `" + c.function + "` on the standalone build gives " +
                             std::to_string(count) + " results, the reference " +
                             std::to_string(c.expected.size()));
        for (std::size_t r = 0; r < count; ++r) {
          std::size_t size = 0;
          out >> size;
          std::vector<double> got(size);
          for (auto& g : got) out >> g;
          if (r >= c.expected.size()) continue;
          const auto want = c.expected[r].second.to_floats();
          if (want.size() != size) {
            failures.push_back(p.name + ": `" + c.function + "`'s standalone result " +
                               std::to_string(r) + " has " + std::to_string(size) +
                               " elements, the reference's " + std::to_string(want.size()));
            continue;
          }
          const double scale =
              ss::test::tensor_scale(std::vector<double>(want.begin(), want.end()));
          const bool exact = c.expected[r].second.dtype() != ss::DType::f32;
          for (std::size_t j = 0; j < size; ++j)
            if (exact ? got[j] != want[j] : !ss::test::agrees(got[j], want[j], scale, tol)) {
              char line[160];
              std::snprintf(line, sizeof line, "[%zu] = %.9g, expected %.9g (standalone)", j,
                            got[j], static_cast<double>(want[j]));
              failures.push_back(p.name + ": `" + c.function +
                                 "` standalone against the reference: " + c.expected[r].first +
                                 line);
              break;
            }
        }
      }
    programs_.clear();
    return failures;
  }

  ~StandaloneBatch() {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

 private:
  struct Program {
    std::string name, model;
    std::vector<Call> calls;
  };
  std::string runtime_;
  std::vector<Program> programs_;
  std::filesystem::path dir_;

  std::filesystem::path scratch() {
    if (dir_.empty()) {
      char tmpl[] = "/tmp/ss_differential.XXXXXX";
      dir_ = mkdtemp(tmpl);
    }
    return dir_;
  }
};

class Runner {
 public:
  explicit Runner(const Options& o) : options_(o), executors_(executors()) {}

  // Runs one program; returns its failures (empty: all agree).
  std::vector<std::string> run(const std::string& source, const std::string& name,
                               std::uint64_t seed, bool standalone = false) {
    std::vector<std::string> failures;
    std::vector<StandaloneBatch::Call> standalone_calls;
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
      if (standalone) {
        StandaloneBatch::Call sc{call.function, {}, results[0]};
        std::size_t next = 0;
        for (const auto& a : call.arguments)
          sc.inputs.emplace_back(a.name, a.name.find('.') != std::string::npos
                                             ? named.at(a.name)
                                             : positional.at(next++).tensor());
        standalone_calls.push_back(std::move(sc));
      }
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
    // Code the JIT failed to compile or link ran without it: the results
    // agree, but the program went untested on the JIT (and a process whose
    // JIT fails has a bug of its own: it once ran out of mappings).
    jit_programs_ += modules[1].executor_stats().jit ? 1 : 0;
    for (std::size_t e = 1; e < executors_.size(); ++e)
      if (const auto st = modules[e].executor_stats(); st.jit_failures > 0)
        failures.push_back(name + ": the JIT failed on " + executors_[e].name + " (" +
                           std::to_string(st.jit_failures) + " times): " + st.jit_error);
    if (standalone && failures.empty()) {
      std::string why;
      if (!batch_.add(*executors_[0].engine, name, source, std::move(standalone_calls), &why))
        failures.push_back(name + ": the standalone build refuses it: " + why);
      if (batch_.size() >= 50) flush_standalone(failures);
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

  // Programs whose fast executor had the JIT module.
  std::uint64_t jit_programs() const { return jit_programs_; }

  // Runs the standalone programs gathered so far.
  void flush_standalone(std::vector<std::string>& failures) {
    for (auto& f : batch_.run()) failures.push_back(std::move(f));
  }

 private:
  const Options& options_;
  std::vector<Executor> executors_;
  StandaloneBatch batch_;
  std::uint64_t jit_programs_ = 0;

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
    else if (a == "--standalone-every")
      o.standalone_every = std::stoull(next());
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
      const bool standalone = options.standalone_every > 0 && seed % options.standalone_every == 0;
      report(runner.run(source, name, seed, standalone), name, source);
    }
  }
  {
    std::vector<std::string> last;
    runner.flush_standalone(last);
    for (const auto& f : last) std::printf("FAIL %s\n", f.c_str());
    if (!last.empty()) ++failed;
  }
  std::printf("differential: %llu programs, %llu failed, %llu with the JIT, %.1f s\n",
              static_cast<unsigned long long>(programs), static_cast<unsigned long long>(failed),
              static_cast<unsigned long long>(runner.jit_programs()), elapsed());
  return failed == 0 ? 0 : 1;
}
