// A game's or robot's host: loads a policy trained in PyTorch (its state
// dict, written by train_policy.py), checks it computes what PyTorch did,
// runs it at batch 1 in a frame loop, fine-tunes it in place on a replay
// buffer built from the frames (the world changed: a wind now pushes the
// robot, and the expert it imitates leans against it), saves it and loads
// it back. Only the public API: <shapescript/shapescript.hpp>.
//
//   policy_example examples/embed OUTPUT_DIR
#include <shapescript/shapescript.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr float kWind = 0.3f;  // pushes the robot along x, every frame

// The expert after the change: half the way to the goal, against the wind,
// each component clipped to [-1, 1].
void expert(const float obs[4], float action[2]) {
  action[0] = std::clamp(0.5f * (obs[2] - obs[0]) - kWind, -1.0f, 1.0f);
  action[1] = std::clamp(0.5f * (obs[3] - obs[1]), -1.0f, 1.0f);
}

// A goal anywhere in [-2, 2]^2, from a seeded generator.
struct Goals {
  unsigned state = 12345;
  float next() {
    state = state * 1103515245u + 12345u;
    return static_cast<float>((state >> 8) % 4001) / 1000.0f - 2.0f;
  }
};

bool report(const std::vector<ss::Diagnostic>& diagnostics) {
  for (const auto& d : diagnostics) std::cerr << d.render();
  return ss::has_errors(diagnostics);
}

struct Frames {
  double imitation_error = 0;       // mean |policy's action - expert's|
  double p50_us = 0;                // one frame's call
  std::vector<float> obs, actions;  // the replay buffer: observation, expert action
};

// `count` frames: observe, act (batch 1, into the host's buffer), move.
Frames run_frames(const ss::Module& mod, const ss::Value& policy, int count, Goals& goals) {
  Frames f;
  float pos[2] = {0, 0}, goal[2] = {goals.next(), goals.next()};
  float obs[4], action[2], wanted[2];
  const std::vector<ss::Tensor> into{ss::Tensor::view(action, {1, 2})};
  std::vector<double> us;
  for (int frame = 0; frame < count; ++frame) {
    obs[0] = pos[0], obs[1] = pos[1], obs[2] = goal[0], obs[3] = goal[1];
    const auto start = std::chrono::steady_clock::now();
    const ss::CallResult r = mod.call_into("act", {policy, ss::Tensor::view(obs, {1, 4})}, into);
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
                     .count());
    if (!r) {
      report(r.diagnostics);
      std::exit(1);
    }
    expert(obs, wanted);
    f.imitation_error += std::hypot(action[0] - wanted[0], action[1] - wanted[1]);
    f.obs.insert(f.obs.end(), obs, obs + 4);
    f.actions.insert(f.actions.end(), wanted, wanted + 2);
    pos[0] += 0.2f * (action[0] + kWind);
    pos[1] += 0.2f * action[1];
    if (std::hypot(goal[0] - pos[0], goal[1] - pos[1]) < 0.1f || frame % 40 == 39)
      goal[0] = goals.next(), goal[1] = goals.next();
  }
  f.imitation_error /= count;
  std::sort(us.begin(), us.end());
  f.p50_us = us[us.size() / 2];
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: policy_example EXAMPLE_DIR OUTPUT_DIR\n");
    return 2;
  }
  const std::string dir = argv[1], out = argv[2];
  ss::Engine engine;
  ss::LoadOptions options;
  options.print = [](std::string_view line) { std::cout << "policy.ss: " << line; };
  const ss::Module mod = engine.load_file(dir + "/policy.ss", options);
  if (!mod) return report(mod.diagnostics()), 1;

  // PyTorch's state dict: nn.Sequential's "0.weight" is fc1.weight here.
  std::vector<ss::Diagnostic> errors;
  ss::Value policy = mod.load("Policy", dir + "/policy.safetensors",
                              {.names = {{"0.", "fc1."}, {"2.", "fc2."}}}, &errors);
  if (report(errors)) return 1;

  // What PyTorch computed for a few observations, computed here.
  std::ifstream check(dir + "/policy_check.txt");
  double worst = 0;
  for (std::string line; std::getline(check, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    float obs[4], torch_action[2];
    for (float& v : obs) in >> v;
    for (float& v : torch_action) in >> v;
    const ss::Tensor a = mod.call("act", {policy, ss::Tensor::view(obs, {1, 4})}).tensor();
    const auto got = a.to_floats();
    for (int k = 0; k < 2; ++k)
      worst = std::max(worst, static_cast<double>(std::fabs(got[k] - torch_action[k])));
  }
  std::printf("loaded the PyTorch state dict: matches PyTorch within %.1e\n", worst);
  if (!(worst < 1e-5)) return 1;

  Goals goals;
  const Frames before = run_frames(mod, policy, 400, goals);
  std::printf("frame loop: 400 frames at batch 1, %.1f us a frame (p50); off the expert by %.3f\n",
              before.p50_us, before.imitation_error);

  // The replay buffer: the frames' observations and the expert's actions.
  const auto n = static_cast<std::int64_t>(before.obs.size() / 4);
  const ss::Value replay =
      mod.dataset("Transition",
                  {{"obs", ss::Tensor::view(before.obs.data(), {n, 4})},
                   {"action", ss::Tensor::view(before.actions.data(), {n, 2})}},
                  &errors);
  ss::Value opt = mod.make_optimizer("Adam", policy, {{"lr", 3e-3}}, &errors);
  if (report(errors)) return 1;
  const ss::CallResult tuned = mod.call("fine_tune", {ss::mut(policy), ss::mut(opt), replay, 30});
  if (!tuned) return report(tuned.diagnostics), 1;

  const Frames after = run_frames(mod, policy, 400, goals);
  std::printf("after fine-tuning in place (version %llu): off the expert by %.3f\n",
              static_cast<unsigned long long>(policy.version()), after.imitation_error);
  if (!(after.imitation_error < 0.5 * before.imitation_error)) return 1;

  // Saved, and loaded back as the same weights.
  const std::string saved = out + "/policy_finetuned.safetensors";
  if (report(mod.save(policy, saved))) return 1;
  const ss::Value reloaded = mod.load("Policy", saved, {}, &errors);
  if (report(errors)) return 1;
  bool same = true;
  const auto a = policy.tensors(), b = reloaded.tensors();
  for (const auto& [path, t] : a)
    same = same && b.count(path) &&
           std::memcmp(t.data(), b.at(path).data(), static_cast<std::size_t>(t.size()) * 4) == 0;
  std::printf("saved to %s and reloaded: %s\n", saved.c_str(), same ? "identical" : "DIFFERENT");
  return same ? 0 : 1;
}
