// Several devices on CPU workers (chapter 18): every operation with a
// distributed lowering, and its gradient, gives one device's result on
// cpu[0 1 2] and cpu[0 1], at even and uneven splits (65 on 3, and 1 on 3
// where two workers hold nothing); each worker really computes its part;
// a training step issues one all-reduce per gradient and one for the
// loss; failures are coded errors, never hangs.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "runtime/devices/collectives.hpp"
#include "shapescript/shapescript.hpp"
#include "support/batch_ops.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

namespace {

using ss::test::check_close;
using ss::test::rendered;

ss::Module load(const std::string& devices, const ss::LoadOptions& options = {}) {
  return ss::test::load_batch_ops(devices, options);
}

std::map<std::string, ss::Tensor> inputs(std::int64_t b, unsigned seed = 7) {
  return ss::test::batch_ops_inputs(b, seed);
}

// The host's table: one in-process communicator of four ranks shared by
// two modules of cpu[0 1], as two processes of a multi-node job would share
// NCCL: ranks 0-1 and 2-3.
struct TwoHosts {
  struct Host {
    TwoHosts* world;
    int first;
  };
  std::unique_ptr<ss::runtime::Collectives> four =
      ss::runtime::in_process_collectives(4, std::chrono::milliseconds(20000));
  Host hosts[2] = {{this, 0}, {this, 2}};
  std::shared_ptr<ss::CollectiveTable> tables[2];

  TwoHosts() {
    for (int h = 0; h < 2; ++h) {
      auto t = std::make_shared<ss::CollectiveTable>();
      t->context = &hosts[h];
      t->world = 4;
      t->ranks = {hosts[h].first, hosts[h].first + 1};
      t->all_reduce_f32 = [](void* ctx, int local, float* data, std::size_t n) {
        auto* host = static_cast<Host*>(ctx);
        host->world->four->all_reduce(host->first + local, data, n, ss::runtime::DType::f32);
        return 0;
      };
      t->abort = [](void* ctx) { static_cast<Host*>(ctx)->world->four->abort("host abort"); };
      tables[h] = t;
    }
  }
  TwoHosts(const TwoHosts&) = delete;
  TwoHosts& operator=(const TwoHosts&) = delete;
};

}  // namespace

TEST_CASE("each distributed operation and its gradient match one device, at uneven splits") {
  const ss::Module one = load("");
  REQUIRE(one);
  for (const char* devices : {"cpu[0 1 2]", "cpu[0 1]"}) {
    const ss::Module several = load(devices);
    REQUIRE(several);
    const std::string line = devices;
    const std::int64_t workers = line == "cpu[0 1]" ? 2 : 3;
    for (const std::int64_t b : {65, 1, 2, 3, 8}) {
      const auto in = inputs(b);
      for (const auto& entry :
           ss::test::kBatchOpsFunctions) {  // no structured binding: clang 14's CAPTURE
        const std::string& fn = entry.first;
        const std::int64_t reductions = entry.second;
        CAPTURE(line);
        CAPTURE(b);
        CAPTURE(fn);
        const auto r1 = one.call(fn, {}, in);
        REQUIRE_MESSAGE(r1, rendered(r1));
        CHECK(r1.workers.empty());
        const auto rn = several.call(fn, {}, in);
        REQUIRE_MESSAGE(rn, rendered(rn));
        check_close(r1, rn);
        // Every worker ran, on its part: contiguous, the first b mod n one larger.
        REQUIRE(rn.workers.size() == static_cast<std::size_t>(workers));
        std::int64_t total = 0;
        for (std::int64_t k = 0; k < workers; ++k) {
          const auto& w = rn.workers[static_cast<std::size_t>(k)];
          CHECK(w.rank == k);
          CHECK(w.examples == b / workers + (k < b % workers ? 1 : 0));
          total += w.examples;
          CHECK(w.all_reduces == reductions);
        }
        CHECK(total == b);
      }
    }
  }
}

TEST_CASE("training steps on cpu[0 1 2] follow one device's, and the replicas never drift") {
  const ss::Module one = load("");
  const ss::Module several = load("cpu[0 1 2]");
  REQUIRE(several);
  auto state1 = inputs(1);
  state1.erase("batch.x");
  state1.erase("batch.y");
  for (const auto& [name, value] : std::map<std::string, float>{{"opt.lr", 0.05f},
                                                                {"opt.beta1", 0.9f},
                                                                {"opt.beta2", 0.999f},
                                                                {"opt.eps", 1e-8f},
                                                                {"opt.weight_decay", 0.01f},
                                                                {"opt.step", 0.0f}})
    state1[name] = ss::Tensor::scalar(value);
  for (const char* p : {"w", "v", "c"})
    for (const char* s : {"opt.exp_avg.", "opt.exp_avg_sq."})
      state1[std::string(s) + p] = ss::Tensor::of(
          std::vector<float>(static_cast<std::size_t>(state1.at(std::string("m.") + p).size())),
          state1.at(std::string("m.") + p).shape());
  auto stateN = state1;
  for (int step = 0; step < 6; ++step) {
    CAPTURE(step);
    const std::int64_t b = step % 2 ? 65 : 10;
    const auto batch = inputs(b, 100 + static_cast<unsigned>(step));
    for (auto* state : {&state1, &stateN}) {
      (*state)["batch.x"] = batch.at("batch.x");
      (*state)["batch.y"] = batch.at("batch.y");
    }
    const auto r1 = one.call("step", {}, state1);
    const auto rn = several.call("step", {}, stateN);
    REQUIRE_MESSAGE(r1, rendered(r1));
    REQUIRE_MESSAGE(rn, rendered(rn));
    check_close(r1, rn);
    // The loss and w's gradient (loss_twice uses only w, on three paths):
    // two all-reduces, none for the optimiser's whole state.
    for (const auto& w : rn.workers) CHECK(w.all_reduces == 2);
    for (std::size_t i = 0; i < r1.updated.size(); ++i) {
      state1[r1.updated[i]] = r1.outputs[1 + i];
      stateN[rn.updated[i]] = rn.outputs[1 + i];
    }
  }
}

TEST_CASE("a worker's failure is its own coded error, naming the worker, and the next call runs") {
  const ss::Module several = load("cpu[0 1 2]");
  auto in = inputs(9);
  std::vector<std::int32_t> labels(9, 1);
  labels[8] = 5;  // outside Index[3], in the last worker's part
  in["batch.y"] = ss::Tensor::of(labels, {9});
  const auto bad = several.call("grad_ce", {}, in);
  REQUIRE_FALSE(bad);
  CHECK(bad.diagnostics[0].code == "E0509");
  REQUIRE(bad.diagnostics[0].notes.size() == 1);
  CHECK(bad.diagnostics[0].notes[0] == "on worker cpu[2] (rank 2), in its part of the batch");
  labels[8] = 2;
  in["batch.y"] = ss::Tensor::of(labels, {9});
  const auto good = several.call("grad_ce", {}, in);
  CHECK_MESSAGE(good, rendered(good));
}

TEST_CASE("a collective that times out is E1806, never a hang") {
  ss::LoadOptions options;
  options.collective_timeout = std::chrono::milliseconds(0);  // no worker can meet it
  const ss::Module several = load("cpu[0 1]", options);
  const auto r = several.call("grad_ce", {}, inputs(4));
  REQUIRE_FALSE(r);
  CHECK(r.diagnostics[0].code == "E1806");
  CHECK(r.diagnostics[0].message.rfind("a collective failed: worker ", 0) == 0);
  // Per-example work needs no collective, so it still runs.
  CHECK(several.call("logits", {}, inputs(4)));
}

TEST_CASE("the in-process collectives sum in rank order, give every worker the same bits, abort") {
  auto c = ss::runtime::in_process_collectives(3, std::chrono::milliseconds(5000));
  std::vector<std::vector<float>> data = {{1e8f, 1.0f}, {1.0f, 2.0f}, {-1e8f, 3.0f}};
  std::vector<std::thread> threads;
  for (int r = 0; r < 3; ++r)
    threads.emplace_back([&, r] {
      c->all_reduce(r, data[static_cast<std::size_t>(r)].data(), 2, ss::runtime::DType::f32);
    });
  for (auto& t : threads) t.join();
  // ((1e8 + 1) + -1e8) in f32, in rank order: the 1 is lost, the same on every rank.
  for (const auto& d : data) CHECK(d == std::vector<float>{0.0f, 6.0f});

  // abort wakes a worker waiting for the others, with a CollectiveError.
  std::atomic<bool> threw{false};
  std::thread waiter([&] {
    float x = 1;
    try {
      c->all_reduce(0, &x, 1, ss::runtime::DType::f32);
    } catch (const ss::runtime::CollectiveError& e) {
      threw = e.aborted;
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  c->abort("a test");
  waiter.join();
  CHECK(threw);
  CHECK(c->reset());
}

TEST_CASE("a host's collectives: two hosts of cpu[0 1] each make a world of four") {
  TwoHosts two;
  const auto& tables = two.tables;
  ss::test::check_two_hosts(load("cpu[0 1]", {.collectives = tables[0]}),
                            load("cpu[0 1]", {.collectives = tables[1]}));

  // A table that doesn't fit the `devices` line is refused at load.
  auto wrong = std::make_shared<ss::CollectiveTable>(*tables[0]);
  wrong->ranks = {0, 0};
  const auto refused = load("cpu[0 1]", {.collectives = wrong});
  REQUIRE_FALSE(refused);
  CHECK(refused.diagnostics().back().code == "E1806");
  CHECK(refused.diagnostics().back().message == "rank 0 is given twice");
}

TEST_CASE("on several processes, only the one holding rank 0 prints") {
  // The seed's E1803 program, fixed: a training loop printing each batch's
  // loss, run by two hosts of cpu[0 1] in a world of four.
  const std::string folder =
      std::string(ss::test::kSourceDir) + "/tests/programs/devices/seed_fixed/";
  std::string text = ss::test::read_file(folder + "e1803.ss");
  const auto line = text.find("devices cpu[0 1 2]");
  REQUIRE(line != std::string::npos);
  ss::test::TempDir dir;
  dir.write("xy.csv", ss::test::read_file(folder + "xy.csv"));
  const std::string several = dir.write("several.ss", text.replace(line, 18, "devices cpu[0 1]"));
  const std::string one = dir.write("one.ss", text.replace(line, 16, ""));

  std::string printed_one, printed[2];
  const ss::Engine engine;
  CHECK(engine.run_file(one, "main", [&](std::string_view s) { printed_one += s; }).empty());
  TwoHosts two;
  std::vector<ss::Diagnostic> errors[2];
  const auto run = [&](int h) {
    errors[h] =
        engine.run_file(several, "main", [&printed, h](std::string_view s) { printed[h] += s; }, {},
                        {.collectives = two.tables[h]});
  };
  std::thread second(run, 1);
  run(0);
  second.join();
  CHECK(errors[0].empty());
  CHECK(errors[1].empty());
  CHECK(!printed_one.empty());
  CHECK(printed[0] == printed_one);  // rank 0's process, as one device
  CHECK(printed[1].empty());         // ranks 2 and 3's, quiet
}
