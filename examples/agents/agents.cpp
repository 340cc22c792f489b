// A game studio's frame loop: 256 agents in a small world step at 60 Hz.
// Each frame every agent asks the policy (a value the library holds) for
// its acceleration through a Batcher, so the 256 requests run as one call;
// every 60 frames a fine-tuning step (behaviour cloning toward an expert
// controller, on the frame's observations) runs on the host's own job
// thread beside the frame loop (the engine's task runner is the host's
// job system), and the next frames read the new version. It prints each
// frame's time (p50, p99, max) and the share of the 16.7 ms budget spent
// in the library.
//
//   agents_example AGENTS_DIR [--frames N] [--no-sleep] [--bench]
//
// --bench measures what bench/agents.sh tabulates: batcher, separate and
// direct calls; frame times; a fine-tuning thread's rate alone and beside
// the frame loop.
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "shapescript/shapescript.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kAgents = 256, kD = 8, kA = 2;
constexpr double kBudgetMs = 1000.0 / 60.0;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// The host's job system: run() does a loop's tasks here, one after another
// (the frame thread is the host's to budget), post() queues a job for the
// host's job thread, "host-jobs".
class HostJobs final : public ss::TaskRunner {
 public:
  ~HostJobs() override {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    if (!thread_.joinable()) return;
    if (thread_.get_id() == std::this_thread::get_id())
      thread_.detach();  // the last owner let go on this thread: it ends by itself
    else
      thread_.join();
  }
  void run(int count, Task task, void* context) override {
    for (int i = 0; i < count; ++i) task(context, i);
  }
  // A job of the host's own, on the same thread.
  void post(std::function<void()> job) {
    auto* held = new std::function<void()>(std::move(job));
    post(
        [](void* c, int) {
          std::unique_ptr<std::function<void()>> mine(static_cast<std::function<void()>*>(c));
          (*mine)();
        },
        held);
  }
  bool post(Task task, void* context) override {
    {
      std::lock_guard lock(mutex_);
      jobs_.emplace_back(task, context);
      if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
    }
    wake_.notify_one();
    return true;
  }

 private:
  void loop() {
    pthread_setname_np(pthread_self(), "host-jobs");
    std::unique_lock lock(mutex_);
    while (true) {
      wake_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      const auto [task, context] = jobs_.front();
      jobs_.pop_front();
      lock.unlock();
      task(context, 0);
      lock.lock();
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::pair<Task, void*>> jobs_;
  std::thread thread_;
  bool stop_ = false;
};

// The world: positions, velocities and goals in the unit square.
struct World {
  std::vector<float> pos, vel, goal;
  std::mt19937 rng{7};
  std::uniform_real_distribution<float> unit{0.05f, 0.95f};
  int reached = 0;

  World() : pos(kAgents * 2), vel(kAgents * 2), goal(kAgents * 2) {
    for (auto& p : pos) p = unit(rng);
    for (auto& g : goal) g = unit(rng);
  }
  void observe(int a, float* obs) const {
    const float* p = &pos[static_cast<std::size_t>(a) * 2];
    const float* v = &vel[static_cast<std::size_t>(a) * 2];
    const float* g = &goal[static_cast<std::size_t>(a) * 2];
    const float row[kD] = {g[0] - p[0], g[1] - p[1], v[0], v[1], p[0], p[1], 1.0f, 0.0f};
    std::memcpy(obs, row, sizeof row);
  }
  // What an expert controller would do: a damped spring toward the goal.
  static void expert(const float* obs, float* action) {
    for (int k = 0; k < 2; ++k)
      action[k] = std::clamp(4.0f * obs[k] - 1.5f * obs[2 + k], -1.0f, 1.0f);
  }
  void step(int a, const float* accel) {
    float* p = &pos[static_cast<std::size_t>(a) * 2];
    float* v = &vel[static_cast<std::size_t>(a) * 2];
    float* g = &goal[static_cast<std::size_t>(a) * 2];
    constexpr float dt = 1.0f / 60.0f;
    for (int k = 0; k < 2; ++k) {
      v[k] = 0.98f * v[k] + 2.0f * accel[k] * dt;
      p[k] = std::clamp(p[k] + v[k] * dt, 0.0f, 1.0f);
    }
    if (std::hypot(g[0] - p[0], g[1] - p[1]) < 0.05f) {
      ++reached;
      g[0] = unit(rng);
      g[1] = unit(rng);
    }
  }
  double mean_distance() const {
    double d = 0;
    for (int a = 0; a < kAgents; ++a)
      d += std::hypot(goal[2 * a] - pos[2 * a], goal[2 * a + 1] - pos[2 * a + 1]);
    return d / kAgents;
  }
};

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
}

void fail(const std::vector<ss::Diagnostic>& d) {
  for (const auto& x : d) std::fprintf(stderr, "%s", x.render().c_str());
  std::exit(1);
}

struct Setup {
  std::shared_ptr<HostJobs> jobs = std::make_shared<HostJobs>();
  ss::Engine engine;
  ss::Module mod;
  ss::Value policy, opt;
  explicit Setup(const std::string& dir) : engine({.task_runner = jobs}) {
    if (!engine.ok()) fail(engine.diagnostics());
    mod = engine.load_file(dir + "/agents.ss");
    if (!mod) fail(mod.diagnostics());
    std::vector<ss::Diagnostic> errors;
    policy = mod.make("Policy", {.seed = 1}, &errors);
    opt = mod.make_optimizer("AdamW", policy, {{"lr", 3e-3}}, &errors);
    if (!errors.empty()) fail(errors);
  }
};

// The frame loop: what each frame took, and how much of it was the library's.
struct FrameTimes {
  std::vector<double> frame_ms;
  double library_ms = 0;
  int finetunes = 0;
  double last_loss = -1;
};

FrameTimes frame_loop(Setup& s, int frames, bool sleep, bool finetune, bool verbose) {
  World world;
  ss::Batcher batcher(s.mod, "act", {s.policy}, {.max_batch = kAgents});
  std::vector<float> obs(kAgents * kD), actions(kAgents * kA);
  // Each agent's rows in the batcher, made once: its observation, its action.
  std::vector<ss::Batcher::Rows> rows;
  for (int a = 0; a < kAgents; ++a) {
    std::vector<ss::Diagnostic> errors;
    rows.push_back(batcher.rows(
        {ss::Tensor::view(&obs[static_cast<std::size_t>(a) * kD], {kD})},
        {ss::Tensor::view(&actions[static_cast<std::size_t>(a) * kA], {kA})}, &errors));
    if (!errors.empty()) fail(errors);
  }
  // The fine-tuning job's copy of a frame's observations and the expert's actions.
  std::vector<float> demo_obs(kAgents * kD), demo_actions(kAgents * kA);
  FrameTimes out;
  std::atomic<int> tuning{0};
  std::mutex loss_mutex;
  double loss = -1;
  auto next = Clock::now();
  for (int f = 0; f < frames; ++f) {
    const auto start = Clock::now();
    for (int a = 0; a < kAgents; ++a) world.observe(a, &obs[static_cast<std::size_t>(a) * kD]);
    const auto in_library = Clock::now();
    for (const auto& r : rows) batcher.submit(r);
    batcher.flush();
    out.library_ms += ms_since(in_library);
    for (int a = 0; a < kAgents; ++a) world.step(a, &actions[static_cast<std::size_t>(a) * kA]);
    if (finetune && f % 60 == 59 && tuning.load() == 0) {
      // The frame's observations and the expert's actions, copied for the
      // host's job thread, which makes them a batch value and runs the
      // step there, beside the frames to come.
      demo_obs = obs;
      for (int a = 0; a < kAgents; ++a)
        World::expert(&demo_obs[static_cast<std::size_t>(a) * kD],
                      &demo_actions[static_cast<std::size_t>(a) * kA]);
      tuning.fetch_add(1);
      s.jobs->post([&] {
        std::vector<ss::Diagnostic> errors;
        const ss::Value batch =
            s.mod.batch("Demo",
                        {{"obs", ss::Tensor::view(demo_obs.data(), {kAgents, kD})},
                         {"action", ss::Tensor::view(demo_actions.data(), {kAgents, kA})}},
                        &errors);
        if (!errors.empty()) fail(errors);
        const ss::CallResult r = s.mod.call("finetune", {ss::mut(s.policy), ss::mut(s.opt), batch});
        if (!r) fail(r.diagnostics);
        {
          std::lock_guard lock(loss_mutex);
          loss = r.value().number();
        }
        tuning.fetch_sub(1);
      });
      ++out.finetunes;
    }
    out.frame_ms.push_back(ms_since(start));
    if (verbose && f % 120 == 119) {
      std::lock_guard lock(loss_mutex);
      std::printf(
          "frame %d: mean distance to goal %.3f, goals reached %d, last loss %.4f, policy version "
          "%llu\n",
          f + 1, world.mean_distance(), world.reached, loss,
          static_cast<unsigned long long>(s.policy.version()));
    }
    next += std::chrono::microseconds(16667);
    if (sleep) std::this_thread::sleep_until(next);
  }
  while (tuning.load() != 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  out.last_loss = loss;
  return out;
}

// Rows a second through each of `bodies` (each handles `rows` rows a
// time), taking turns for 200 ms each over 9 rounds: the median round of
// each, so a drift in the machine's speed hits them alike.
std::vector<double> rows_per_second(int rows, const std::vector<std::function<void()>>& bodies) {
  for (const auto& body : bodies)
    for (int i = 0; i < 20; ++i) body();  // warm: frames planned, code compiled
  std::vector<std::vector<double>> rounds(bodies.size());
  for (int round = 0; round < 9; ++round)
    for (std::size_t b = 0; b < bodies.size(); ++b) {
      const auto start = Clock::now();
      int reps = 0;
      while (ms_since(start) < 200.0 || reps < 5) {
        bodies[b]();
        ++reps;
      }
      rounds[b].push_back(rows * reps / (ms_since(start) / 1000.0));
    }
  std::vector<double> out;
  for (auto& r : rounds) out.push_back(percentile(r, 0.5));
  return out;
}

// Fine-tuning steps a second on a thread of its own for `seconds`, while
// `beside` (if any) runs on this one.
double finetune_rate(Setup& s, double seconds, const std::function<void()>& beside) {
  std::vector<float> obs(kAgents * kD), act(kAgents * kA);
  World world;
  for (int a = 0; a < kAgents; ++a) {
    world.observe(a, &obs[static_cast<std::size_t>(a) * kD]);
    World::expert(&obs[static_cast<std::size_t>(a) * kD], &act[static_cast<std::size_t>(a) * kA]);
  }
  const ss::Value batch =
      s.mod.batch("Demo", {{"obs", ss::Tensor::view(obs.data(), {kAgents, kD})},
                           {"action", ss::Tensor::view(act.data(), {kAgents, kA})}});
  for (int i = 0; i < 5; ++i) s.mod.call("finetune", {ss::mut(s.policy), ss::mut(s.opt), batch});
  std::atomic<bool> stop{false};
  std::atomic<int> steps{0};
  std::thread trainer([&] {
    while (!stop.load()) {
      if (!s.mod.call("finetune", {ss::mut(s.policy), ss::mut(s.opt), batch})) std::exit(1);
      steps.fetch_add(1);
    }
  });
  const auto start = Clock::now();
  if (beside) beside();
  while (ms_since(start) < seconds * 1000.0)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  stop = true;
  trainer.join();
  return steps.load() / (ms_since(start) / 1000.0);
}

// This machine's own jitter, the floor under the frames' p99: plain C++
// work (tanh over a buffer) of about `ms` a frame, paced at 60 Hz the same
// way, 600 frames; what each took.
std::vector<double> plain_frames(double ms) {
  std::vector<float> buffer(16384, 0.5f);
  const auto work = [&](int passes) {
    float acc = 0;
    for (int p = 0; p < passes; ++p)
      for (auto& x : buffer) acc += x = std::tanh(x * 0.999f + 0.001f);
    return acc;
  };
  // Passes for `ms`, measured warm.
  const auto start = Clock::now();
  volatile float sink = work(20);
  const double per_pass = ms_since(start) / 20.0;
  const int passes = std::max(1, static_cast<int>(ms / per_pass + 0.5));
  std::vector<double> times;
  auto next = Clock::now();
  for (int f = 0; f < 600; ++f) {
    const auto t = Clock::now();
    sink = sink + work(passes);
    times.push_back(ms_since(t));
    next += std::chrono::microseconds(16667);
    std::this_thread::sleep_until(next);
  }
  return times;
}

int bench(const std::string& dir) {
  Setup s(dir);
  std::vector<float> obs(kAgents * kD), actions(kAgents * kA);
  World world;
  for (int a = 0; a < kAgents; ++a) world.observe(a, &obs[static_cast<std::size_t>(a) * kD]);
  ss::Batcher batcher(s.mod, "act", {s.policy}, {.max_batch = kAgents});
  std::vector<ss::Batcher::Rows> rows;
  for (int a = 0; a < kAgents; ++a)
    rows.push_back(
        batcher.rows({ss::Tensor::view(&obs[static_cast<std::size_t>(a) * kD], {kD})},
                     {ss::Tensor::view(&actions[static_cast<std::size_t>(a) * kA], {kA})}));
  const auto rates = rows_per_second(
      kAgents,
      {[&] {
         for (const auto& r : rows) batcher.submit(r);
         batcher.flush();
       },
       [&] {
         for (int a = 0; a < kAgents; ++a)
           s.mod.call_into(
               "act", {s.policy, ss::Tensor::view(&obs[static_cast<std::size_t>(a) * kD], {1, kD})},
               {ss::Tensor::view(&actions[static_cast<std::size_t>(a) * kA], {1, kA})});
       },
       [&] {
         s.mod.call_into("act", {s.policy, ss::Tensor::view(obs.data(), {kAgents, kD})},
                         {ss::Tensor::view(actions.data(), {kAgents, kA})});
       }});
  const double batched = rates[0], separate = rates[1], direct = rates[2];
  const FrameTimes frames = frame_loop(s, 600, true, true, false);
  // Alone and beside a 5 s frame loop, taking turns twice: the medians.
  std::vector<double> alone_runs, beside_runs;
  for (int round = 0; round < 2; ++round) {
    alone_runs.push_back(finetune_rate(s, 5.0, nullptr));
    beside_runs.push_back(finetune_rate(s, 5.0, [&] { frame_loop(s, 300, true, false, false); }));
  }
  const double alone = (alone_runs[0] + alone_runs[1]) / 2,
               beside = (beside_runs[0] + beside_runs[1]) / 2;
  const double p50 = percentile(frames.frame_ms, 0.5), p99 = percentile(frames.frame_ms, 0.99);
  const std::vector<double> plain = plain_frames(p50);
  const double plain_p50 = percentile(plain, 0.5), plain_p99 = percentile(plain, 0.99);
  std::printf("| measure | ours | against | ratio | target |\n|---|---:|---:|---:|---|\n");
  std::printf("| batcher vs 256 separate batch-1 calls (rows/s) | %.0f | %.0f | %.2fx | >= 3x |\n",
              batched, separate, batched / separate);
  std::printf(
      "| one direct 256-row call vs the batcher (rows/s) | %.0f | %.0f | %.2fx | <= 1.2x |\n",
      direct, batched, direct / batched);
  std::printf("| frame p99 vs p50 (ms) | %.3f | %.3f | %.2fx | <= 1.5x |\n", p99, p50, p99 / p50);
  std::printf(
      "| the machine's floor: plain C++ frames of the same p50, p99 vs p50 (ms) | %.3f | %.3f | "
      "%.2fx | - |\n",
      plain_p99, plain_p50, plain_p99 / plain_p50);
  std::printf(
      "| fine-tuning beside the frame loop vs alone (steps/s) | %.1f | %.1f | %.2f | >= 0.80 |\n",
      beside, alone, beside / alone);
  std::printf(
      "frames: p50 %.3f ms, p99 %.3f ms, max %.3f ms; library %.1f%% of the budget\n", p50, p99,
      *std::max_element(frames.frame_ms.begin(), frames.frame_ms.end()),
      100.0 * frames.library_ms / (kBudgetMs * static_cast<double>(frames.frame_ms.size())));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: agents_example AGENTS_DIR [--frames N] [--no-sleep] [--bench]\n");
    return 2;
  }
  const std::string dir = argv[1];
  int frames = 600;
  bool sleep = true;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--bench") return bench(dir);
    if (arg == "--no-sleep") sleep = false;
    if (arg == "--frames" && i + 1 < argc) frames = std::max(60, std::atoi(argv[++i]));
  }
  Setup s(dir);
  World before;
  const double start_distance = before.mean_distance();
  const FrameTimes t = frame_loop(s, frames, sleep, true, true);
  const double p50 = percentile(t.frame_ms, 0.5), p99 = percentile(t.frame_ms, 0.99);
  const double worst = *std::max_element(t.frame_ms.begin(), t.frame_ms.end());
  std::printf("%d agents, %d frames at 60 Hz: frame p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
              kAgents, frames, p50, p99, worst);
  std::printf(
      "the library took %.1f%% of the 16.7 ms budget; %d fine-tuning steps beside the loop, "
      "the last loss %.4f (policy version %llu)\n",
      100.0 * t.library_ms / (kBudgetMs * frames), t.finetunes, t.last_loss,
      static_cast<unsigned long long>(s.policy.version()));
  std::printf("mean distance to goal: %.3f at the start\n", start_distance);
  return t.finetunes > 0 && s.policy.version() > 1 ? 0 : 1;
}
