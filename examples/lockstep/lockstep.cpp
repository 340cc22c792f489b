// Two peers of a lockstep game, each in its own process and each forcing a
// different kernel path (SHAPESCRIPT_ISA: AVX-512, AVX2 or the scalar
// path), run the same 16 agents for N frames from the same inputs: each
// frame every agent asks the policy for its acceleration, the host moves
// it, and every 50 frames the policy is fine-tuned in place on the frame's
// demonstrations. Each frame the peers exchange a hash of their state
// (positions, velocities and the policy's weights) over a socket, as a
// lockstep game checks for desyncs, and stop at the first frame they
// differ. Under --numerics portable there is none.
//
//   lockstep_example LOCKSTEP_DIR [--frames N] [--paths A,B] [--numerics fast|portable]
//
// (A and B: avx512, avx2 or scalar; by default the widest this CPU has
// and scalar.) Exit status 0 when every frame agreed.
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "shapescript/shapescript.hpp"

namespace {

constexpr int kAgents = 16, kD = 8, kA = 2, kTuneEvery = 50;

struct Agent {
  float x, y, vx, vy, gx, gy;
};

// FNV-1a over bytes.
void mix(std::uint64_t& h, const void* data, std::size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
}

void observe(const Agent& a, float* obs) {
  const float o[kD] = {a.gx - a.x, a.gy - a.y, a.vx, a.vy, a.x, a.y, 1.0f, -1.0f};
  std::copy(o, o + kD, obs);
}

// The expert's acceleration: toward the goal, braking as it nears.
void expert(const Agent& a, float* action) {
  const float ax = (a.gx - a.x) * 0.5f - a.vx, ay = (a.gy - a.y) * 0.5f - a.vy;
  action[0] = std::max(-1.0f, std::min(1.0f, ax));
  action[1] = std::max(-1.0f, std::min(1.0f, ay));
}

// One peer: the game for `frames` frames, its hash sent and the other's
// read each frame. Returns the process's exit status.
int play(const std::string& dir, const std::string& path, ss::Numerics numerics, int frames,
         int socket) {
  const ss::Engine engine({.numerics = numerics});
  const ss::Module mod = engine.load_file(dir + "/lockstep.ss");
  if (!mod) {
    std::fprintf(stderr, "%s", mod.diagnostics().at(0).render().c_str());
    return 2;
  }
  ss::Value policy = mod.make("Policy", {.seed = 7});
  ss::Value opt = mod.make_optimizer("AdamW", policy, {{"lr", 3e-3}});
  std::vector<Agent> agents(kAgents);
  std::uint32_t seed = 12345;  // the game's own generator: the same on every peer
  const auto next = [&seed] {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>(seed >> 8) / 16777216.0f * 2.0f - 1.0f;
  };
  for (auto& a : agents) a = {next(), next(), 0, 0, next() * 3, next() * 3};
  std::vector<float> obs(kAgents * kD), actions(kAgents * kA), demo(kAgents * kA);
  for (int f = 0; f < frames; ++f) {
    for (int i = 0; i < kAgents; ++i) observe(agents[i], obs.data() + i * kD);
    const auto r = mod.call_into("act", {policy, ss::Tensor::view(obs.data(), {kAgents, kD})},
                                 {ss::Tensor::view(actions.data(), {kAgents, kA})});
    if (!r) {
      std::fprintf(stderr, "%s", r.diagnostics.at(0).render().c_str());
      return 2;
    }
    for (int i = 0; i < kAgents; ++i) {
      Agent& a = agents[i];
      a.vx = 0.9f * a.vx + 0.05f * actions[i * kA];
      a.vy = 0.9f * a.vy + 0.05f * actions[i * kA + 1];
      a.x += a.vx;
      a.y += a.vy;
      if (std::fabs(a.gx - a.x) + std::fabs(a.gy - a.y) < 0.05f) {  // reached: a new goal
        a.gx = next() * 3;
        a.gy = next() * 3;
      }
    }
    if (f % kTuneEvery == kTuneEvery - 1) {  // fine-tune on this frame's demonstrations
      for (int i = 0; i < kAgents; ++i) expert(agents[i], demo.data() + i * kA);
      const ss::Value batch =
          mod.batch("Demo", {{"obs", ss::Tensor::view(obs.data(), {kAgents, kD})},
                             {"action", ss::Tensor::view(demo.data(), {kAgents, kA})}});
      const auto t = mod.call("finetune", {ss::mut(policy), ss::mut(opt), batch});
      if (!t) {
        std::fprintf(stderr, "%s", t.diagnostics.at(0).render().c_str());
        return 2;
      }
    }
    std::uint64_t h = 1469598103934665603ull;
    mix(h, agents.data(), agents.size() * sizeof(Agent));
    for (const auto& [name, t] : policy.tensors()) {
      const auto values = t.to_floats();
      mix(h, values.data(), values.size() * sizeof(float));
    }
    const std::uint64_t mine[2] = {static_cast<std::uint64_t>(f), h};
    std::uint64_t theirs[2] = {};
    if (write(socket, mine, sizeof mine) != sizeof mine ||
        recv(socket, theirs, sizeof theirs, MSG_WAITALL) != sizeof theirs) {
      std::fprintf(stderr, "%s: the other peer is gone at frame %d\n", path.c_str(), f);
      return 2;
    }
    if (theirs[1] != h) {
      std::printf("%s: frame %d: state hashes differ (mine %016llx, the other's %016llx)\n",
                  path.c_str(), f, static_cast<unsigned long long>(h),
                  static_cast<unsigned long long>(theirs[1]));
      return 1;
    }
    if (f == frames - 1)
      std::printf("%s: %d frames, every state hash equal to the other peer's; the last %016llx\n",
                  path.c_str(), frames, static_cast<unsigned long long>(h));
  }
  return 0;
}

bool cpu_has(const std::string& path) {
  __builtin_cpu_init();
  if (path == "avx512") return __builtin_cpu_supports("avx512f");
  if (path == "avx2") return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return path == "scalar";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: lockstep_example LOCKSTEP_DIR [--frames N] [--paths A,B] "
                 "[--numerics fast|portable]\n");
    return 2;
  }
  const std::string dir = argv[1];
  int frames = 10000;
  std::string paths = cpu_has("avx512") ? "avx512,scalar" : "avx2,scalar";
  ss::Numerics numerics = ss::Numerics::portable;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string arg = argv[i], value = argv[i + 1];
    if (arg == "--frames") frames = std::max(1, std::atoi(value.c_str()));
    if (arg == "--paths") paths = value;
    if (arg == "--numerics") numerics = ss::parse_numerics(value).value_or(ss::Numerics::portable);
  }
  const auto comma = paths.find(',');
  const std::string path[2] = {paths.substr(0, comma),
                               comma == std::string::npos ? "scalar" : paths.substr(comma + 1)};
  for (const auto& p : path)
    if (!cpu_has(p)) {
      std::printf("this CPU can't run the %s path: nothing to compare\n", p.c_str());
      return 77;  // skipped
    }
  int sockets[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sockets) != 0) return 2;
  std::fflush(stdout);
  pid_t peers[2];
  for (int k = 0; k < 2; ++k) {
    peers[k] = fork();
    if (peers[k] == 0) {  // a peer: its kernels forced before the library looks
      setenv("SHAPESCRIPT_ISA", path[k].c_str(), 1);
      close(sockets[1 - k]);
      const int status = play(dir, path[k], numerics, frames, sockets[k]);
      std::fflush(stdout);
      _exit(status);
    }
  }
  close(sockets[0]);
  close(sockets[1]);
  int worst = 0;
  for (const pid_t p : peers) {
    int status = 0;
    waitpid(p, &status, 0);
    worst = std::max(worst, WIFEXITED(status) ? WEXITSTATUS(status) : 2);
  }
  std::printf("%s numerics, peers on %s and %s: %s\n",
              numerics == ss::Numerics::portable ? "portable" : "fast", path[0].c_str(),
              path[1].c_str(), worst == 0 ? "in lockstep" : "desynced");
  return worst;
}
