// docs/errors.md read as data: its entries and their examples.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ss::test {

struct CatalogExample {
  enum class Machine {
    any,
    needs_cuda_gpu,
    needs_two_cuda_gpus,
    without_cuda_driver,
    without_fma,
    needs_mpi,
    needs_onnx
  };
  std::string command;  // the command named after "Example": check, run, build, devices
  Machine machine = Machine::any;
  std::string language;  // the fence's: shapescript (a program) or console (a transcript)
  std::string body;
};

struct CatalogEntry {
  std::string code;  // "E0101"
  std::string title;
  int chapter = 0;  // of the "## NN: ..." heading it sits under
  int line = 0;     // of its heading, 1-based
  std::optional<CatalogExample> example;
  bool has_fix = false;  // a paragraph starting "Fix:"
  bool has_see = false;  // a line starting "See "
  // A line starting "No example:": only chapter 00 (shapescript's own bugs,
  // which no program is meant to trigger) may have one instead of an example.
  bool no_example = false;
};

// Parses the catalog; problems with its form (an example without a fence, an
// unknown machine) are added to *problems.
std::vector<CatalogEntry> parse_catalog(const std::string& markdown,
                                        std::vector<std::string>* problems);

}  // namespace ss::test
