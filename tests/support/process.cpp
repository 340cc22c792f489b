#include "support/process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace ss::test {
namespace {

std::vector<std::string> clean_environment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> out;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    if (entry.rfind("SHAPESCRIPT_", 0) == 0) continue;
    const auto name = entry.substr(0, entry.find('='));
    if (extra.count(name) || name == "XDG_CACHE_HOME") continue;
    out.push_back(entry);
  }
  for (const auto& [name, value] : extra) out.push_back(name + "=" + value);
  // The CLI keeps compiled code in the XDG cache: the tests' runs share one
  // of their own, never the user's.
  if (!extra.count("XDG_CACHE_HOME")) {
    static const TempDir cache;
    out.push_back("XDG_CACHE_HOME=" + cache.path());
  }
  return out;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  TempDir capture;
  const std::string out_path = capture.file("out");
  const std::string err_path = options.merge_stderr ? out_path : capture.file("err");

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (options.merge_stderr)
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  else
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (!options.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, options.cwd.c_str());

  auto args = argv;
  auto env = clean_environment(options.env);
  auto arg_ptrs = c_strings(args);
  auto env_ptrs = c_strings(env);
  pid_t pid = 0;
  const int spawned =
      posix_spawnp(&pid, arg_ptrs[0], &actions, nullptr, arg_ptrs.data(), env_ptrs.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0)
    throw std::runtime_error("can't start " + argv[0] + ": " + std::strerror(spawned));

  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error("waitpid failed");

  ProcessResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_file(out_path);
  if (!options.merge_stderr) result.err = read_file(err_path);
  return result;
}

ProcessResult run_shell(const std::string& command, const ProcessOptions& options) {
  return run_process({"/bin/sh", "-c", command}, options);
}

TempDir::TempDir() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "shapescript-test-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string TempDir::write(const std::string& name, const std::string& contents) const {
  const std::string path = file(name);
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace ss::test
