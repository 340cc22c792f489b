// A sink's CSV file as a test reads it: a header line, then `epoch,loss`
// rows (the digits programs' metrics sink).
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace ss::test {

// Each row's value after its first comma, in order.
inline std::vector<double> numbers_after_commas(const std::string& csv) {
  std::vector<double> out;
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);  // the header
  while (std::getline(lines, line)) out.push_back(std::stod(line.substr(line.find(',') + 1)));
  return out;
}

}  // namespace ss::test
