#include "catalog/catalog.hpp"

#include <regex>
#include <sstream>

namespace ss::test {

std::vector<CatalogEntry> parse_catalog(const std::string& markdown,
                                        std::vector<std::string>* problems) {
  static const std::regex chapter_heading(R"(^## (\d\d): .+$)");
  static const std::regex entry_heading(R"(^### (E(\d\d)\d\d): (.+)$)");
  static const std::regex example_line(R"(^Example \(`(\w+)`(?:, (.+))?\):$)");

  std::vector<std::string> lines;
  std::istringstream in(markdown);
  for (std::string line; std::getline(in, line);) lines.push_back(line);

  std::vector<CatalogEntry> entries;
  int chapter = 0;
  std::smatch m;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (std::regex_match(line, m, chapter_heading)) {
      chapter = std::stoi(m[1]);
      continue;
    }
    if (std::regex_match(line, m, entry_heading)) {
      CatalogEntry entry;
      entry.code = m[1];
      entry.title = m[3];
      entry.chapter = chapter;
      entry.line = static_cast<int>(i + 1);
      if (std::stoi(m[2]) != chapter)
        problems->push_back(entry.code + " sits under chapter " + std::to_string(chapter));
      entries.push_back(std::move(entry));
      continue;
    }
    if (entries.empty() || line.rfind("#", 0) == 0) continue;
    CatalogEntry& entry = entries.back();
    if (line.rfind("Fix:", 0) == 0) entry.has_fix = true;
    if (line.rfind("See ", 0) == 0) entry.has_see = true;
    if (line.rfind("No example:", 0) == 0) entry.no_example = true;
    if (!std::regex_match(line, m, example_line)) continue;

    if (entry.example) problems->push_back(entry.code + " has two examples");
    CatalogExample example;
    example.command = m[1];
    const std::string machine = m[2];
    // The stand-in driver fails every launch: it serves both.
    if (machine == "needs a CUDA GPU" || machine == "on a driver whose launches fail")
      example.machine = CatalogExample::Machine::needs_cuda_gpu;
    else if (machine == "needs two CUDA GPUs")
      example.machine = CatalogExample::Machine::needs_two_cuda_gpus;
    else if (machine == "on a machine without a CUDA driver")
      example.machine = CatalogExample::Machine::without_cuda_driver;
    else if (machine == "under MPI")  // mpirun (openmpi-bin) and the MPI adapter
      example.machine = CatalogExample::Machine::needs_mpi;
    else if (machine == "on a CPU without FMA")  // SHAPESCRIPT_ISA=baseline plays one
      example.machine = CatalogExample::Machine::without_fma;
    else if (machine == "with the ONNX importer")  // libshapescript_onnx and tests/onnx/models
      example.machine = CatalogExample::Machine::needs_onnx;
    else if (machine == "with the example host")  // host_functions_example, beside the CLI
      example.machine = CatalogExample::Machine::any;
    else if (!machine.empty())
      problems->push_back(entry.code + ": unknown machine `" + machine + "`");

    // The fenced block after a blank line.
    std::size_t k = i + 1;
    while (k < lines.size() && lines[k].empty()) ++k;
    if (k >= lines.size() || lines[k].rfind("```", 0) != 0) {
      problems->push_back(entry.code + ": \"Example\" isn't followed by a fenced block");
      continue;
    }
    example.language = lines[k].substr(3);
    for (++k; k < lines.size() && lines[k] != "```"; ++k) example.body += lines[k] + "\n";
    if (k >= lines.size()) problems->push_back(entry.code + ": the example's block never closes");
    entry.example = std::move(example);
    i = k;
  }
  return entries;
}

}  // namespace ss::test
