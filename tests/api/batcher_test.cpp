// The batcher: batch-1 requests from many threads run as one call each
// batch, every request's rows the same as its own call alone gives, by
// docs/numerics.md's rule for the executor (Batches and rows).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "shapescript/shapescript.hpp"
#include "support/numerics.hpp"
#include "support/paths.hpp"

namespace {

constexpr const char* kPolicy = R"(dim D = 16
dim H = 64
dim A = 4

model Policy:
    param w1: [D H] = glorot
    param b1: [H] = zeros
    param w2: [H A] = glorot
    param b2: [A] = zeros

fn act(m: Policy, x: [b D]) -> ([b A], [b]):
    h = tanh(x @ m.w1 + m.b1)
    y = h @ m.w2 + m.b2
    return softmax(y, over=A), sum(h, over=H)
)";

constexpr int kThreads = 8, kEach = 40;

std::vector<float> observation(int agent) {
  std::vector<float> row(16);
  for (int j = 0; j < 16; ++j)
    row[static_cast<std::size_t>(j)] = std::sin(0.37f * agent + 0.11f * j);
  return row;
}

struct Rows {
  std::vector<float> obs, probs = std::vector<float>(4), total = std::vector<float>(1);
};

// Every agent's rows through a batcher from kThreads threads, then each
// alone (a batch of 1), compared by `same`.
template <class Same>
void agents_agree(ss::EngineOptions options, Same same) {
  const ss::Engine engine(std::move(options));
  const ss::Module mod = engine.load_source(kPolicy, "policy.ss");
  REQUIRE(mod);
  const ss::Value policy = mod.make("Policy", {.seed = 5});
  std::vector<Rows> agents(kThreads * kEach);
  for (std::size_t a = 0; a < agents.size(); ++a) agents[a].obs = observation(static_cast<int>(a));
  std::atomic<int> failed{0};
  {
    ss::Batcher batcher(mod, "act", {policy},
                        {.max_batch = 32, .max_wait = std::chrono::microseconds(2000)});
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        for (int k = 0; k < kEach; ++k) {
          Rows& r = agents[static_cast<std::size_t>(t * kEach + k)];
          const auto d = batcher.run(
              {ss::Tensor::view(r.obs.data(), {16})},
              {ss::Tensor::view(r.probs.data(), {4}), ss::Tensor::view(r.total.data(), {})});
          if (!d.empty()) failed.fetch_add(1);
        }
      });
    for (auto& t : threads) t.join();
    const auto stats = batcher.stats();
    CHECK(stats.requests == kThreads * kEach);
    CHECK(stats.batches < stats.requests);  // requests did share calls
    CHECK(stats.largest > 1);
    CHECK(stats.largest <= 32);
    MESSAGE(stats.batches << " batches, the largest " << stats.largest);
  }
  CHECK(failed.load() == 0);
  for (std::size_t a = 0; a < agents.size(); ++a) {
    const auto alone = mod.call("act", {policy, ss::Tensor::view(agents[a].obs.data(), {1, 16})});
    REQUIRE(alone);
    const auto probs = alone.tensor(0).to_floats(), total = alone.tensor(1).to_floats();
    CAPTURE(a);
    CHECK(same(probs, agents[a].probs));
    CHECK(same(total, agents[a].total));
  }
}

bool bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
}

// Within docs/numerics.md's `fast` row of `want` (a lone call's row): the
// fast executor's GEMM picks its kernel by the number of rows, so a row's
// bits may depend on the batch it is in (numerics.md, Batches and rows).
bool within_fast(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return false;
  const std::vector<double> w(want.begin(), want.end());
  const double scale = ss::test::tensor_scale(w);
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!ss::test::agrees(got[i], want[i], scale, ss::test::tolerance("fast"))) return false;
  return true;
}

}  // namespace

TEST_CASE("batch-1 requests from many threads get a lone call's results, by each executor's rule") {
  agents_agree({.executor = ss::Executor::reference}, bits);
  agents_agree({.jit_library = ss::test::kJitPath, .executor = ss::Executor::fast}, within_fast);
  // Numerics::portable: a row's bits don't depend on its batch, on two
  // threads too.
  agents_agree({.jit_library = ss::test::kJitPath,
                .executor = ss::Executor::fast,
                .threads = 2,
                .numerics = ss::Numerics::portable},
               bits);
}

TEST_CASE("a request whose rows don't fit its batch is E1603 alone, with submit and flush") {
  const ss::Engine engine;
  const ss::Module mod = engine.load_source(kPolicy, "policy.ss");
  REQUIRE(mod);
  const ss::Value policy = mod.make("Policy", {.seed = 5});
  ss::Batcher batcher(mod, "act", {policy}, {.max_batch = 8});
  std::vector<Rows> agents(5);
  std::vector<std::vector<ss::Diagnostic>> got(agents.size());
  std::vector<int> done(agents.size(), 0);
  std::vector<float> wide(17, 0.5f);
  for (std::size_t a = 0; a < agents.size(); ++a) {
    agents[a].obs = observation(static_cast<int>(a));
    const ss::Tensor obs =
        a == 2 ? ss::Tensor::view(wide.data(), {17}) : ss::Tensor::view(agents[a].obs.data(), {16});
    batcher.submit({obs},
                   {ss::Tensor::view(agents[a].probs.data(), {4}),
                    ss::Tensor::view(agents[a].total.data(), {})},
                   [&, a](std::vector<ss::Diagnostic> d) {
                     got[a] = std::move(d);
                     ++done[a];
                   });
  }
  CHECK(batcher.stats().batches == 0);  // queued, not full
  batcher.flush();
  for (std::size_t a = 0; a < agents.size(); ++a) {
    CAPTURE(a);
    CHECK(done[a] == 1);
    if (a == 2) {
      REQUIRE(got[a].size() == 1);
      CHECK(got[a][0].code == "E1603");
    } else {
      CHECK(got[a].empty());
      const auto alone = mod.call("act", {policy, ss::Tensor::view(agents[a].obs.data(), {1, 16})});
      CHECK(within_fast(agents[a].probs, alone.tensor(0).to_floats()));
    }
  }
  CHECK(batcher.stats().batches == 1);
  // An agent's rows made once: asked again and again, the rows rewritten
  // between; rows of another shape are refused when made.
  std::vector<ss::Diagnostic> errors;
  const ss::Batcher::Rows mine = batcher.rows(
      {ss::Tensor::view(agents[0].obs.data(), {16})},
      {ss::Tensor::view(agents[0].probs.data(), {4}), ss::Tensor::view(agents[0].total.data(), {})},
      &errors);
  REQUIRE(mine);
  for (int step = 0; step < 3; ++step) {
    const auto next = observation(100 + step);  // written into the row's own memory
    std::copy(next.begin(), next.end(), agents[0].obs.begin());
    REQUIRE(batcher.run(mine).empty());
    const auto alone = mod.call("act", {policy, ss::Tensor::view(agents[0].obs.data(), {1, 16})});
    CHECK(bits(alone.tensor(0).to_floats(), agents[0].probs));  // a batch of one: the same call
  }
  CHECK_FALSE(batcher.rows(
      {ss::Tensor::view(wide.data(), {17})},
      {ss::Tensor::view(agents[0].probs.data(), {4}), ss::Tensor::view(agents[0].total.data(), {})},
      &errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].code == "E1603");
  CHECK(batcher.run(ss::Batcher::Rows{}).at(0).code == "E1612");
  // A function the module lacks fails every request with its code.
  ss::Batcher wrong(mod, "nothing", {policy});
  std::vector<float> out(4), total(1);
  const auto d = wrong.run({ss::Tensor::view(agents[0].obs.data(), {16})},
                           {ss::Tensor::view(out.data(), {4}), ss::Tensor::view(total.data(), {})});
  REQUIRE(d.size() == 1);
  CHECK(d[0].code == "E1604");
}

TEST_CASE("256 rows split over threads agree with each row alone, sums deeper than a block") {
  // Products whose depth (300, 384) passes the GEMM's block of k, at 256
  // rows on two threads against one row alone, within the `fast` row.
  constexpr const char* kWide = R"(dim D = 300
dim H = 384
dim A = 5

model Wide:
    param w1: [D H] = glorot
    param b1: [H] = zeros
    param w2: [H A] = glorot

fn act(m: Wide, x: [b D]) -> [b A]:
    return softmax(gelu(x @ m.w1 + m.b1) @ m.w2, over=A)
)";
  const ss::Engine engine({.jit_library = ss::test::kJitPath, .threads = 2});
  const ss::Module mod = engine.load_source(kWide, "wide.ss");
  REQUIRE(mod);
  const ss::Value wide = mod.make("Wide", {.seed = 11});
  constexpr int kRows = 256;
  std::vector<float> obs(kRows * 300), out(kRows * 5);
  for (std::size_t i = 0; i < obs.size(); ++i) obs[i] = std::sin(0.013f * static_cast<float>(i));
  ss::Batcher batcher(mod, "act", {wide}, {.max_batch = kRows});
  for (int r = 0; r < kRows; ++r)
    batcher.submit(batcher.rows({ss::Tensor::view(&obs[static_cast<std::size_t>(r) * 300], {300})},
                                {ss::Tensor::view(&out[static_cast<std::size_t>(r) * 5], {5})}));
  CHECK(batcher.stats().batches == 1);  // the 256th request ran the batch
  for (int r = 0; r < kRows; ++r) {
    CAPTURE(r);
    const auto alone = mod.call(
        "act", {wide, ss::Tensor::view(&obs[static_cast<std::size_t>(r) * 300], {1, 300})});
    REQUIRE(alone);
    CHECK(within_fast(std::vector<float>(out.begin() + r * 5, out.begin() + (r + 1) * 5),
                      alone.tensor().to_floats()));
  }
}

TEST_CASE("a batcher's first request that doesn't fit is refused alone, never setting the shapes") {
  const ss::Engine engine;
  const std::string source = std::string(kPolicy) + "\nfn main():\n    print(1)\n";
  const ss::Module mod = engine.load_source(source, "policy.ss");
  REQUIRE(mod);
  const ss::Value policy = mod.make("Policy", {.seed = 5});
  ss::Batcher batcher(mod, "act", {policy}, {.max_batch = 4});
  std::vector<float> narrow(15, 0.5f), obs = observation(1), probs(4), total(1);
  const std::vector<ss::Tensor> outs = {ss::Tensor::view(probs.data(), {4}),
                                        ss::Tensor::view(total.data(), {})};
  // First, a row of 15 where `act` takes 16: refused; correct ones run after.
  const auto first = batcher.run({ss::Tensor::view(narrow.data(), {15})}, outs);
  REQUIRE(first.size() == 1);
  CHECK(first[0].code == "E1603");
  CHECK(first[0].message.find("[b D]") != std::string::npos);
  for (int k = 0; k < 3; ++k)
    CHECK(batcher.run({ss::Tensor::view(obs.data(), {16})}, outs).empty());
  // Results of the wrong count or shape, an i32 row for an f32 parameter.
  std::vector<std::int32_t> ints(16, 1);
  std::vector<ss::Diagnostic> errors;
  CHECK_FALSE(batcher.rows({ss::Tensor::view(obs.data(), {16})}, {outs[0]}, &errors));
  CHECK_FALSE(batcher.rows({ss::Tensor::view(obs.data(), {16})},
                           {ss::Tensor::view(probs.data(), {2, 2}), outs[1]}, &errors));
  CHECK_FALSE(batcher.rows({ss::Tensor::view(ints.data(), {16})}, outs, &errors));
  CHECK_FALSE(batcher.rows({ss::Tensor::view(obs.data(), {16}), outs[0]}, outs, &errors));
  REQUIRE(errors.size() == 4);
  for (const auto& e : errors) CHECK(e.code == "E1603");
  // rows() refuses a controller function, an unknown one, an empty Module,
  // a resident model missing or empty.
  const auto code_of = [&](ss::Batcher& b) {
    std::vector<ss::Diagnostic> why;
    CHECK_FALSE(b.rows({ss::Tensor::view(obs.data(), {16})}, outs, &why));
    return why.empty() ? std::string("(none)") : why[0].code;
  };
  ss::Batcher controller(mod, "main", {policy});
  CHECK(code_of(controller) == "E1604");
  ss::Batcher unknown(mod, "nothing", {policy});
  CHECK(code_of(unknown) == "E1604");
  const ss::Module empty;
  ss::Batcher nothing(empty, "act", {policy});
  CHECK(code_of(nothing) == "E1612");
  ss::Batcher no_model(mod, "act", {});
  CHECK(code_of(no_model) == "E1603");
  ss::Batcher empty_model(mod, "act", {ss::Value{}});
  CHECK(code_of(empty_model) == "E1603");
  CHECK(batcher.stats().failed == 0);
}
