// EngineOptions::trace: each call's timing and each of its nodes', every
// node of the graph there, nothing when none is set; and `shapescript run
// --trace`, whose file is Chrome's trace format.
#include <doctest/doctest.h>

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "shapescript/shapescript.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

namespace {

constexpr const char* kProgram = R"(dim D = 4
dim H = 8

model Mlp:
    param w1: [D H] = glorot
    param b1: [H] = zeros

fn act(m: Mlp, x: [b D]) -> [b H]:
    h = x @ m.w1 + m.b1
    return softmax(relu(h) * 2.0 - 1.0, over=H)

fn main():
    m = Mlp(seed=1)
    x = ones([3 D])
    y = act(m, x)
    z = act(m, x * 2.0) + y
    print(sum(z))
)";

struct Kept {
  bool node;
  std::string function, node_name, op, executor;
  std::int64_t call, bytes;
  double start_us, microseconds;
};

// The node counts of the graphs the lowered listing shows, by graph name:
// a device function's, and the controller's graphs of its calls (which
// take the function's name; an argument's expression may be inlined).
std::map<std::string, std::set<int>> node_counts(const std::string& listing) {
  std::map<std::string, std::set<int>> counts;
  int nodes = 0;
  static const std::regex graph(R"(^(?:#\d+ )?graph ([^(]+)\()"), node(R"(^\s+%\d+ = )");
  std::string current;
  std::size_t at = 0;
  while (at < listing.size()) {
    const std::size_t end = std::min(listing.find('\n', at), listing.size());
    const std::string line = listing.substr(at, end - at);
    at = end + 1;
    std::smatch m;
    const bool is_node = std::regex_search(line, node);
    if (!current.empty() && !is_node) {
      counts[current].insert(nodes);  // its return line: the graph ended
      current.clear();
    }
    if (std::regex_search(line, m, graph)) {
      current = m[1];
      nodes = 0;
    } else if (!current.empty()) {
      ++nodes;
    }
  }
  if (!current.empty()) counts[current].insert(nodes);
  return counts;
}

// Every call's nodes are there: %0 .. %(n-1) of its graph, each once,
// inside the call's span, with non-negative times.
void check_calls(const std::vector<Kept>& events,
                 const std::map<std::string, std::set<int>>& counts) {
  std::map<std::int64_t, std::set<int>> nodes;
  std::map<std::int64_t, const Kept*> calls;
  for (const Kept& e : events) {
    CHECK(e.start_us >= 0);
    CHECK(e.microseconds >= 0);
    if (e.node)
      CHECK(nodes[e.call].insert(std::stoi(e.node_name.substr(1))).second);
    else
      calls[e.call] = &e;
  }
  for (const auto& entry : nodes) CHECK_MESSAGE(calls.count(entry.first), entry.first);
  for (const auto& entry : calls) {
    const Kept& call = *entry.second;
    if (call.executor == "controller") continue;  // its graphs are calls of their own
    CAPTURE(call.function);
    const auto want = counts.find(call.function);
    REQUIRE(want != counts.end());
    const auto& got = nodes[entry.first];
    CHECK(want->second.count(static_cast<int>(got.size())));
    if (!got.empty()) CHECK(*got.rbegin() == static_cast<int>(got.size()) - 1);
    for (const Kept& e : events)
      if (e.node && e.call == entry.first) {
        CHECK(e.start_us >= call.start_us - 1e-3);
        CHECK(e.start_us + e.microseconds <= call.start_us + call.microseconds + 1e-3);
      }
  }
}

// main's run: a call of act, then one of an expression of main's (the
// second call of act inlined into it).
void check_main_calls(const std::vector<Kept>& events) {
  int act_calls = 0, expressions = 0;
  for (const Kept& e : events) {
    act_calls += !e.node && e.function == "act";
    expressions += !e.node && e.function == "expression in main";
  }
  CHECK(act_calls == 1);
  CHECK(expressions == 1);
}

}  // namespace

TEST_CASE("a trace gets every node of a call, then the call, and a controller's graphs as calls") {
  const ss::test::TempDir dir;
  const std::string path = dir.write("mlp.ss", kProgram);
  std::mutex mutex;
  std::vector<Kept> events;
  const ss::Engine engine(
      {.jit_library = ss::test::kJitPath, .trace = [&](const ss::TraceEvent& e) {
         const std::lock_guard lock(mutex);
         events.push_back({e.kind == ss::TraceEvent::Kind::node, std::string(e.function),
                           std::string(e.node), std::string(e.op), std::string(e.executor), e.call,
                           e.bytes, e.start_us, e.microseconds});
       }});
  const auto counts = node_counts(engine.ir_listing(path, nullptr, "lower"));
  REQUIRE(counts.count("act"));
  const ss::Module mod = engine.load_file(path);
  REQUIRE(mod);
  const ss::Value m = mod.make("Mlp", {.seed = 2});
  std::vector<float> x(5 * 4, 0.25f);
  REQUIRE(mod.call("act", {m, ss::Tensor::view(x.data(), {5, 4})}));
  REQUIRE(!events.empty());
  const Kept& call = events.back();  // the call comes after its nodes
  CHECK_FALSE(call.node);
  CHECK(call.function == "act");
  CHECK(call.op == "call");
  CHECK(call.executor == "fast");
  CHECK(call.bytes == 5 * 8 * 4);
  CHECK(counts.at("act").count(static_cast<int>(events.size()) - 1));
  bool matmul = false;
  for (const Kept& e : events) {
    CHECK(e.call == call.call);
    if (e.op == "matmul") matmul = true;
    if (e.node) CHECK((e.executor == "fast" || e.executor == "reference"));
  }
  CHECK(matmul);
  check_calls(events, counts);

  // A controller function: each graph it runs is a call, then its own.
  events.clear();
  REQUIRE(mod.call("main", {}));
  REQUIRE(!events.empty());
  CHECK(events.back().function == "main");
  CHECK(events.back().executor == "controller");
  check_main_calls(events);
  check_calls(events, counts);
}

TEST_CASE("`run --trace` writes Chrome's trace format with every node of every call") {
  const ss::test::TempDir dir;
  const std::string path = dir.write("mlp.ss", kProgram);
  const std::string out = dir.file("trace.json");
  const auto run = ss::test::run_process({ss::test::kCliPath, "run", path, "--trace", out});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const auto listing =
      ss::test::run_process({ss::test::kCliPath, "check", "--dump-ir=lower", path});
  REQUIRE(listing.exit_code == 0);
  const auto trace = nlohmann::json::parse(ss::test::read_file(out));
  REQUIRE(trace.contains("traceEvents"));
  std::vector<Kept> events;
  for (const auto& e : trace["traceEvents"]) {
    CHECK(e["ph"] == "X");
    const auto& a = e["args"];
    events.push_back({e["cat"] == "node", a["function"], a.value("node", ""), a.value("op", "call"),
                      a["executor"], a["call"], a["bytes"], e["ts"], e["dur"]});
  }
  check_main_calls(events);
  check_calls(events, node_counts(listing.out));
  // A file that can't be written is said.
  const auto bad = ss::test::run_process(
      {ss::test::kCliPath, "run", path, "--trace", dir.file("no/such/folder/t.json")});
  CHECK(bad.err.find("can't write the trace") != std::string::npos);
}
