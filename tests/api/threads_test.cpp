// The engine's threads: its own workers, named and joined with it, or the
// host's task runner, on which the library starts no thread for its loops;
// call_async on either. (docs/embedding.md, Threads.)
#include <doctest/doctest.h>

#include <dirent.h>
#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "shapescript/shapescript.hpp"

namespace {

constexpr const char* kPolicy = R"(dim D = 64
dim H = 256
dim A = 8

model Policy:
    param w1: [D H] = glorot
    param b1: [H] = zeros
    param w2: [H A] = glorot
    param b2: [A] = zeros

fn act(m: Policy, x: [b D]) -> [b A]:
    h = relu(x @ m.w1 + m.b1)
    return h @ m.w2 + m.b2
)";

// The process's threads' names (/proc/self/task/*/comm).
std::vector<std::string> thread_names() {
  std::vector<std::string> names;
  DIR* dir = opendir("/proc/self/task");
  if (!dir) return names;
  while (const dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + e->d_name + "/comm");
    std::string name;
    std::getline(comm, name);
    names.push_back(name);
  }
  closedir(dir);
  return names;
}

int count_named(const std::string& prefix) {
  int n = 0;
  for (const auto& name : thread_names())
    if (name.rfind(prefix, 0) == 0) ++n;
  return n;
}

std::string this_thread_name() {
  char name[32] = {};
  pthread_getname_np(pthread_self(), name, sizeof name);
  return name;
}

ss::Tensor observations(std::vector<float>& storage, std::int64_t rows) {
  storage.resize(static_cast<std::size_t>(rows * 64));
  for (std::size_t i = 0; i < storage.size(); ++i)
    storage[i] = static_cast<float>((i * 37 + 11) % 97) / 97.0f - 0.5f;
  return ss::Tensor::view(storage.data(), {rows, 64});
}

// The act call's output bits on an engine with these options.
std::vector<float> act_on(ss::EngineOptions options) {
  const ss::Engine engine(std::move(options));
  const ss::Module mod = engine.load_source(kPolicy, "policy.ss");
  REQUIRE(mod);
  const ss::Value policy = mod.make("Policy", {.seed = 3});
  std::vector<float> x;
  const auto r = mod.call("act", {policy, observations(x, 512)});
  REQUIRE(r);
  return r.tensor().to_floats();
}

// A host's job system as a test has one: counts what it ran, runs each
// run's tasks one after another here, and posted tasks on a thread of its
// own (named host-jobs).
class HostRunner final : public ss::TaskRunner {
 public:
  ~HostRunner() override {
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
    runs.fetch_add(1);
    for (int i = 0; i < count; ++i) task(context, i);
  }
  bool post(Task task, void* context) override {
    if (!take_posts) return false;
    {
      std::lock_guard lock(mutex_);
      queue_.emplace_back(task, context);
      if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
    }
    wake_.notify_one();
    posts.fetch_add(1);
    return true;
  }
  std::atomic<int> runs{0}, posts{0};
  bool take_posts = false;

 private:
  void loop() {
    pthread_setname_np(pthread_self(), "host-jobs");
    std::unique_lock lock(mutex_);
    while (true) {
      wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      const auto [task, context] = queue_.front();
      queue_.pop_front();
      lock.unlock();
      task(context, 0);
      lock.lock();
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::pair<Task, void*>> queue_;
  std::thread thread_;
  bool stop_ = false;
};

}  // namespace

TEST_CASE(
    "an engine's worker threads are named ss-worker-N, start on first need, end with the engine") {
  const std::size_t before = thread_names().size();
  {
    const ss::Engine engine({.threads = 4});
    const ss::Module mod = engine.load_source(kPolicy, "policy.ss");
    REQUIRE(mod);
    const ss::Value policy = mod.make("Policy", {.seed = 3});
    CHECK(count_named("ss-worker-") == 0);  // none before a loop needs them
    std::vector<float> x;
    REQUIRE(mod.call("act", {policy, observations(x, 512)}));
    const int workers = count_named("ss-worker-");
    CHECK(workers >= 1);
    CHECK(workers <= 3);  // the caller's thread is the fourth
    for (const auto& name : thread_names())
      if (name.rfind("ss-worker-", 0) == 0) CHECK(std::stoi(name.substr(10)) <= 3);
    REQUIRE(mod.call("act", {policy, observations(x, 512)}));
    CHECK(count_named("ss-worker-") == workers);  // kept between calls
  }
  CHECK(count_named("ss-worker-") == 0);
  CHECK(thread_names().size() == before);
}

TEST_CASE("on the host's task runner the library starts no thread, and computes the same bits") {
  const std::vector<float> own = act_on({.threads = 4});
  const std::size_t before = thread_names().size();
  auto runner = std::make_shared<HostRunner>();
  const std::vector<float> hosted = act_on({.threads = 4, .task_runner = runner});
  CHECK(runner->runs.load() > 0);          // the loops ran as its tasks
  CHECK(thread_names().size() == before);  // and nothing else started a thread
  REQUIRE(hosted.size() == own.size());
  CHECK(std::memcmp(hosted.data(), own.data(), own.size() * sizeof(float)) == 0);
  // No spinning at all gives the same bits too.
  const std::vector<float> still = act_on({.threads = 4, .spin = std::chrono::microseconds(0)});
  CHECK(std::memcmp(still.data(), own.data(), own.size() * sizeof(float)) == 0);
}

TEST_CASE("call_async completes a future or a callback, on the runner's thread or ss-async") {
  std::vector<float> x;
  const ss::Tensor obs = observations(x, 16);
  SUBCASE("the engine's own thread") {
    const ss::Engine engine;
    const ss::Module mod = engine.load_source(kPolicy, "policy.ss");
    REQUIRE(mod);
    const ss::Value policy = mod.make("Policy", {.seed = 3});
    const auto direct = mod.call("act", {policy, obs});
    REQUIRE(direct);
    auto future = mod.call_async("act", {policy, obs});
    const ss::CallResult r = future.get();
    REQUIRE(r);
    CHECK(r.tensor().to_floats() == direct.tensor().to_floats());
    std::promise<std::string> where;
    mod.call_async("act", {policy, obs}, [&](ss::CallResult done) {
      CHECK(done);
      where.set_value(this_thread_name());
    });
    CHECK(where.get_future().get() == "ss-async");
    // A failure comes back coded, not thrown.
    CHECK(mod.call_async("nothing", {}).get().diagnostics.at(0).code == "E1604");
  }
  SUBCASE("the host's runner, which takes posts") {
    auto runner = std::make_shared<HostRunner>();
    runner->take_posts = true;
    const ss::Engine engine({.task_runner = runner});
    const ss::Module mod = engine.load_source(kPolicy, "policy.ss");
    REQUIRE(mod);
    const ss::Value policy = mod.make("Policy", {.seed = 3});
    std::promise<std::string> where;
    mod.call_async("act", {policy, obs}, [&](ss::CallResult done) {
      CHECK(done);
      where.set_value(this_thread_name());
    });
    CHECK(where.get_future().get() == "host-jobs");
    CHECK(runner->posts.load() == 1);
    CHECK(count_named("ss-async") == 0);
  }
  SUBCASE("a module dropped while its async call waits") {
    std::future<ss::CallResult> pending;
    {
      const ss::Engine engine;
      const ss::Module mod = engine.load_source(kPolicy, "policy.ss");
      REQUIRE(mod);
      const ss::Value policy = mod.make("Policy", {.seed = 3});
      pending = mod.call_async("act", {policy, obs});
    }
    CHECK(pending.get());  // the call held its program to its end
  }
}
