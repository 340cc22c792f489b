// Datasets of the controller: one tensor per record field, its leading
// axis the examples, and the rows a pipe selected, in order. Pipes
// (shuffle, take, split) choose rows without copying; a batch gathers them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/tensor.hpp"
#include "shapescript/options.hpp"

namespace ss::runtime {

// What a record's field holds for one example: its element type, its shape
// (-1 for an axis any size fixes per dataset), and for an Index[C] field C.
struct FieldSpec {
  std::string name;
  DType dtype = DType::f32;
  Shape shape;
  std::optional<std::int64_t> index_bound;
};

struct Dataset {
  std::vector<std::string> names;  // the record's fields, in order
  std::vector<Tensor> columns;     // each [examples ...]
  std::vector<std::int64_t> rows;  // the examples chosen, in order

  std::int64_t size() const { return static_cast<std::int64_t>(rows.size()); }
  // Rows [begin, end) of the chosen order as one batch: field -> [n ...].
  std::map<std::string, Tensor> batch(std::int64_t begin, std::int64_t end) const;
};

// Reads a .csv file (fields take columns by position, in order; an optional
// header line) or a safetensors file (one tensor per field, by name), and
// checks it against the record. Throws DataError: E1408 for a file that
// can't be read or parsed, E1406 for one that doesn't fit the record (names
// the field, or the row), E1407 for a label outside its Index range (names
// the row and column).
Dataset load_dataset(const std::string& path, const std::vector<FieldSpec>& fields,
                     const FileAccess& files = {});

// Pipes. shuffle: a permutation drawn from the counter-based generator, so
// a seed gives the same order everywhere. split: the first `frac` of a
// shuffle, and the rest.
Dataset shuffled(const Dataset& d, std::uint64_t seed);
Dataset taken(const Dataset& d, std::int64_t k);
std::pair<Dataset, Dataset> split(const Dataset& d, double frac, std::uint64_t seed);

}  // namespace ss::runtime
