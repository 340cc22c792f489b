#include "runtime/data/dataset.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "runtime/core/format.hpp"
#include "runtime/core/random.hpp"
#include "runtime/data/data_error.hpp"
#include "runtime/data/files.hpp"
#include "runtime/data/safetensors.hpp"

namespace ss::runtime {
namespace {

using diag::Code;

constexpr std::uint32_t kShuffleStream = 0x73687566;  // "shuf"

std::string shape_text(const Shape& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    out += (i ? " " : "") + (shape[i] < 0 ? std::string("_") : std::to_string(shape[i]));
  return out + "]";
}

// What is wrong with a value for an Index[bound] field ("" when nothing):
// "isn't a whole number" or "is outside 0..9", and the way out.
struct LabelProblem {
  std::string what;
  std::string help;
};
LabelProblem label_problem(double v, std::int64_t bound) {
  if (v != std::floor(v))
    return {"isn't a whole number (an Index[C] holds 0 to C-1)",
            "store whole numbers for an Index field, or declare it a float"};
  if (v < 0 || v >= static_cast<double>(bound))
    return {"is outside 0.." + std::to_string(bound - 1),
            "fix the data, or declare the field with a larger Index"};
  return {};
}

// Checks one field's column, [examples ...], against its spec.
void check_column(const std::string& path, const FieldSpec& f, const Tensor& column,
                  std::int64_t examples, bool from_csv) {
  Shape want = f.shape;
  want.insert(want.begin(), examples);
  bool fits = column.rank() == static_cast<std::int64_t>(want.size());
  for (std::size_t k = 0; fits && k < want.size(); ++k)
    fits = want[k] < 0 || want[k] == column.dim(static_cast<std::int64_t>(k));
  if (!fits)
    throw DataError(Code::E1406,
                    "`" + path + "`'s field `" + f.name + "` is " + shape_str(column.shape()) +
                        ", the record wants " + shape_text(want),
                    "one example per entry of the first axis, each " + shape_text(f.shape));
  const bool float_field = is_float(f.dtype);
  if (!from_csv && is_float(column.dtype()) != float_field)
    throw DataError(Code::E1406,
                    "`" + path + "`'s field `" + f.name + "` holds " + dtype_name(column.dtype()) +
                        ", the record wants " + dtype_name(f.dtype),
                    float_field ? "store floats for it" : "store integers for it");
  if (!f.index_bound) return;
  const std::int64_t per_example = examples ? column.size() / examples : 0;
  for (std::int64_t k = 0; k < column.size(); ++k) {
    const double v = column.get(k);
    if (const auto problem = label_problem(v, *f.index_bound); !problem.what.empty()) {
      const std::int64_t row = per_example ? k / per_example : 0;
      throw DataError(Code::E1407,
                      "`" + path + "`, row " + std::to_string(row + 1) + ", field `" + f.name +
                          "`: the label " + format_float(v, DType::f32) + " " + problem.what,
                      problem.help);
    }
  }
}

Dataset from_csv(const std::string& path, const std::vector<FieldSpec>& fields,
                 const FileAccess& files) {
  std::istringstream in(read_bytes(files, path));
  std::int64_t width = 0;
  for (const auto& f : fields) {
    for (const auto d : f.shape)
      if (d < 0)
        throw DataError(Code::E1406,
                        "`" + path + "`: the field `" + f.name +
                            "` has an axis of any size, which a CSV row can't give",
                        "store it in a safetensors file, or give the axis a dim");
    width += element_count(f.shape);
  }
  std::vector<std::vector<double>> values(fields.size());
  std::string line;
  std::int64_t row = 0, line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    std::vector<std::string> cells;
    std::stringstream split(line);
    for (std::string cell; std::getline(split, cell, ',');) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    std::vector<double> numbers;
    bool header = false;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const char* text = cells[c].c_str();
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(text, &end);
      while (end && (*end == ' ' || *end == '\t')) ++end;
      if (end == text || *end != '\0' || errno == ERANGE) {
        if (line_number == 1 && row == 0) {  // a header line names the columns
          header = true;
          break;
        }
        throw DataError(Code::E1408,
                        "`" + path + "`, line " + std::to_string(line_number) + ", column " +
                            std::to_string(c + 1) + ": `" + cells[c] + "` isn't a number",
                        "every cell after an optional header line is a number");
      }
      numbers.push_back(v);
    }
    if (header) continue;
    if (static_cast<std::int64_t>(numbers.size()) != width)
      throw DataError(Code::E1406,
                      "`" + path + "`, line " + std::to_string(line_number) + ": " +
                          std::to_string(numbers.size()) + " columns, the record takes " +
                          std::to_string(width),
                      "its fields take columns in order, one per element");
    std::size_t at = 0;
    for (std::size_t f = 0; f < fields.size(); ++f) {
      const auto n = static_cast<std::size_t>(element_count(fields[f].shape));
      for (std::size_t k = 0; k < n; ++k) {
        const double v = numbers[at + k];
        if (const auto problem =
                fields[f].index_bound ? label_problem(v, *fields[f].index_bound) : LabelProblem{};
            !problem.what.empty())
          throw DataError(Code::E1407,
                          "`" + path + "`, line " + std::to_string(line_number) + ", column " +
                              std::to_string(at + k + 1) + " (field `" + fields[f].name +
                              "`): the label " + cells[at + k] + " " + problem.what,
                          problem.help);
        values[f].push_back(v);
      }
      at += n;
    }
    ++row;
  }
  Dataset d;
  for (std::size_t f = 0; f < fields.size(); ++f) {
    Shape shape = fields[f].shape;
    shape.insert(shape.begin(), row);
    d.names.push_back(fields[f].name);
    d.columns.push_back(Tensor::from_values(fields[f].dtype, shape, values[f]));
  }
  for (std::int64_t r = 0; r < row; ++r) d.rows.push_back(r);
  return d;
}

Dataset from_safetensors(const std::string& path, const std::vector<FieldSpec>& fields,
                         const FileAccess& files) {
  auto tensors = read_safetensors(path, files);
  Dataset d;
  std::optional<std::int64_t> examples;
  for (const auto& f : fields) {
    const auto it = tensors.find(f.name);
    if (it == tensors.end()) {
      std::string present;
      for (const auto& [name, t] : tensors) present += (present.empty() ? "" : ", ") + name;
      throw DataError(Code::E1406, "`" + path + "` has no tensor `" + f.name + "` for the field",
                      "it holds: " + (present.empty() ? std::string("nothing") : present));
    }
    if (it->second.rank() < 1)
      throw DataError(Code::E1406, "`" + path + "`'s `" + f.name + "` has no examples axis",
                      "store examples along the first axis");
    if (!examples) examples = it->second.dim(0);
    check_column(path, f, it->second, *examples, false);
    d.names.push_back(f.name);
    d.columns.push_back(
        it->second.dtype() == f.dtype
            ? it->second
            : Tensor::from_values(f.dtype, it->second.shape(), it->second.values()));
  }
  for (std::int64_t r = 0; r < examples.value_or(0); ++r) d.rows.push_back(r);
  return d;
}

}  // namespace

std::map<std::string, Tensor> Dataset::batch(std::int64_t begin, std::int64_t end) const {
  std::map<std::string, Tensor> out;
  for (std::size_t f = 0; f < names.size(); ++f) {
    const Tensor& column = columns[f];
    Shape shape = column.shape();
    shape[0] = end - begin;
    Tensor t = Tensor::zeros(column.dtype(), shape);
    const std::int64_t row = shape[0] ? t.size() / shape[0] : 0;
    const std::size_t bytes = static_cast<std::size_t>(row) * dtype_size(column.dtype());
    const Tensor packed = column.compact();
    for (std::int64_t i = begin; i < end; ++i)
      std::memcpy(static_cast<char*>(t.raw()) + static_cast<std::size_t>(i - begin) * bytes,
                  static_cast<const char*>(packed.raw()) +
                      static_cast<std::size_t>(rows[static_cast<std::size_t>(i)]) * bytes,
                  bytes);
    out[names[f]] = std::move(t);
  }
  return out;
}

Dataset load_dataset(const std::string& path, const std::vector<FieldSpec>& fields,
                     const FileAccess& files) {
  const bool csv = path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
  Dataset d = csv ? from_csv(path, fields, files) : from_safetensors(path, fields, files);
  return d;
}

Dataset shuffled(const Dataset& d, std::uint64_t seed) {
  Dataset out = d;
  // Fisher-Yates, each swap's draw the generator's value at its position.
  for (std::int64_t i = out.size() - 1; i > 0; --i) {
    const double u = random_uniform(seed, kShuffleStream, static_cast<std::uint64_t>(i));
    const auto j = static_cast<std::int64_t>(u * static_cast<double>(i + 1));
    std::swap(out.rows[static_cast<std::size_t>(i)], out.rows[static_cast<std::size_t>(j)]);
  }
  return out;
}

Dataset taken(const Dataset& d, std::int64_t k) {
  Dataset out = d;
  if (k < out.size()) out.rows.resize(static_cast<std::size_t>(std::max<std::int64_t>(k, 0)));
  return out;
}

std::pair<Dataset, Dataset> split(const Dataset& d, double frac, std::uint64_t seed) {
  const Dataset mixed = shuffled(d, seed);
  const auto first = static_cast<std::int64_t>(std::llround(frac * static_cast<double>(d.size())));
  Dataset a = mixed, b = mixed;
  a.rows.assign(mixed.rows.begin(), mixed.rows.begin() + first);
  b.rows.assign(mixed.rows.begin() + first, mixed.rows.end());
  return {a, b};
}

}  // namespace ss::runtime
