// `shapescript run FILE [FUNCTION]`: checks the program and runs FUNCTION
// (main by default) on the reference runtime, printing what it prints;
// `--sink NAME=FILE` sends a sink's records to a file.
#include <unistd.h>

#include <iostream>
#include <memory>

#include "cli.hpp"
#include "file_sink.hpp"
#include "shapescript/shapescript.hpp"
#include "value_parser.hpp"

namespace ss::cli {

int run_run(const std::vector<std::string>& words, const Options& options) {
  if (words.empty() || words.size() > 2)
    return usage_error("`run` takes a FILE and, optionally, a FUNCTION");
  const std::string function = words.size() == 2 ? words[1] : "main";
  std::map<std::string, Tensor> args;
  for (const auto& [name, text] : options.args) {
    std::string why;
    auto value = parse_value(text, &why);
    if (!value) return usage_error("`--arg " + name + "=" + text + "`: " + why);
    args[name] = std::move(*value);
  }
  std::vector<std::unique_ptr<FileSink>> files;
  LoadOptions load{.dims = options.dims};
  for (const auto& [name, path] : options.sinks) {
    files.push_back(std::make_unique<FileSink>(path));
    if (!files.back()->ok()) {
      std::cerr << "error: can't write the sink file `" << path << "`\n";
      return kFailed;
    }
    load.sinks[name] = [sink = files.back().get()](const SinkRecord& r) { sink->write(r); };
  }
  // On a terminal, a progress bar for loops over batches, on standard
  // error, wiped before each printed line.
  bool bar = false;
  if (::isatty(STDERR_FILENO))
    load.progress = [&bar](std::int64_t done, std::int64_t total) {
      constexpr int kWidth = 30;
      const int filled = total ? static_cast<int>(kWidth * done / total) : kWidth;
      std::cerr << "\r[" << std::string(static_cast<std::size_t>(filled), '#')
                << std::string(static_cast<std::size_t>(kWidth - filled), '.') << "] " << done
                << "/" << total << std::flush;
      bar = true;
    };
  Engine engine;
  const auto diagnostics = engine.run_file(
      words[0], function,
      [&bar](std::string_view line) {
        if (bar) std::cerr << "\r\033[K" << std::flush;
        bar = false;
        std::cout << line;
        std::cout.flush();
      },
      args, load);
  if (bar) std::cerr << "\r\033[K" << std::flush;
  for (const auto& d : diagnostics) {
    if (options.json)
      std::cout << to_json(d) << "\n";
    else
      std::cerr << d.render({.color = options.color});
  }
  return has_errors(diagnostics) ? kFailed : kOk;
}

}  // namespace ss::cli
