// Datasets (CSV and safetensors, checked against their record; the pipes),
// checkpoints (byte for byte what PyTorch's safetensors writes) and model
// initialisation.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <set>

#include "lower/pipeline.hpp"
#include "runtime/controller/models.hpp"
#include "runtime/data/data_error.hpp"
#include "runtime/data/dataset.hpp"
#include "runtime/data/safetensors.hpp"
#include "support/checked_program.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

namespace {

using ss::runtime::DataError;
using ss::runtime::DType;
using ss::runtime::FieldSpec;
using ss::runtime::Tensor;

const std::vector<FieldSpec> kPoint = {{"x", DType::f32, {2}, std::nullopt},
                                       {"label", DType::i32, {}, 3}};

// The code a load fails with, and its message; "" when it loads.
std::pair<std::string, std::string> failure(const std::string& path,
                                            const std::vector<FieldSpec>& fields = kPoint) {
  try {
    (void)ss::runtime::load_dataset(path, fields);
  } catch (const DataError& e) {
    return {std::string(ss::diag::code_name(e.code)), e.what()};
  }
  return {"", ""};
}

}  // namespace

TEST_CASE("a CSV dataset: optional header, fields by position, batches keep the last partial one") {
  ss::test::TempDir dir;
  const auto path = dir.write("p.csv", "x0,x1,label\n0.5,1.5,2\n\n-1,2,0\n3,4,1\n5,6,1\n7,8,0\n");
  const auto d = ss::runtime::load_dataset(path, kPoint);
  CHECK(d.size() == 5);
  const auto all = d.batch(0, 5);
  CHECK(all.at("x").shape() == ss::runtime::Shape{5, 2});
  CHECK(all.at("x").values() == std::vector<double>{0.5, 1.5, -1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(all.at("label").dtype() == DType::i32);
  CHECK(all.at("label").values() == std::vector<double>{2, 0, 1, 1, 0});
  const auto last = d.batch(4, 5);  // batches(2) of 5: 2, 2, then 1
  CHECK(last.at("x").shape() == ss::runtime::Shape{1, 2});
}

TEST_CASE("shuffle is a seeded permutation, take keeps the first k, split divides it") {
  ss::test::TempDir dir;
  std::string csv;
  for (int i = 0; i < 50; ++i) csv += std::to_string(i) + ",0,1\n";
  const auto d = ss::runtime::load_dataset(dir.write("p.csv", csv), kPoint);
  const auto a = ss::runtime::shuffled(d, 3), b = ss::runtime::shuffled(d, 3),
             c = ss::runtime::shuffled(d, 4);
  CHECK(a.rows == b.rows);
  CHECK(a.rows != c.rows);
  CHECK(a.rows != d.rows);
  CHECK(std::set<std::int64_t>(a.rows.begin(), a.rows.end()).size() == 50);
  CHECK(a.batch(0, 1).at("x").get(0) == static_cast<double>(a.rows[0]));
  CHECK(ss::runtime::taken(a, 7).size() == 7);
  CHECK(ss::runtime::taken(a, 70).size() == 50);
  const auto [train, test] = ss::runtime::split(d, 0.8, 1);
  CHECK(train.size() == 40);
  CHECK(test.size() == 10);
  std::set<std::int64_t> both(train.rows.begin(), train.rows.end());
  both.insert(test.rows.begin(), test.rows.end());
  CHECK(both.size() == 50);
}

TEST_CASE("CSV mistakes are coded: columns (E1406), labels out of range (E1407), text (E1408)") {
  ss::test::TempDir dir;
  auto [code, message] = failure(dir.write("a.csv", "1,2,0\n1,2\n"));
  CHECK(code == "E1406");
  CHECK(message.find("line 2: 2 columns, the record takes 3") != std::string::npos);
  std::tie(code, message) = failure(dir.write("b.csv", "1,2,0\n1,2,3\n"));
  CHECK(code == "E1407");
  CHECK(message.find("line 2, column 3 (field `label`): the label 3 is outside 0..2") !=
        std::string::npos);
  std::tie(code, message) = failure(dir.write("c.csv", "1,2,0\n1,x,1\n"));
  CHECK(code == "E1408");
  CHECK(message.find("line 2, column 2: `x` isn't a number") != std::string::npos);
  CHECK(failure(dir.file("missing.csv")).first == "E1408");
  std::tie(code, message) = failure(dir.write("d.csv", "1,2,2.5\n"));  // labels are whole
  CHECK(code == "E1407");
  CHECK(message.find("the label 2.5 isn't a whole number") != std::string::npos);
  CHECK(message.find("outside") == std::string::npos);
}

TEST_CASE("a safetensors file of float64 (numpy's default) names the type and the cast") {
  ss::test::TempDir dir;
  // One F64 tensor, as numpy's save_file writes it: 8-byte header length,
  // the JSON header, then the bytes.
  const std::string header = R"({"x":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})";
  std::string bytes(8, '\0');
  bytes[0] = static_cast<char>(header.size());
  bytes += header + std::string(8, '\0');
  std::string why;
  try {
    (void)ss::runtime::read_safetensors(dir.write("f64.safetensors", bytes));
  } catch (const DataError& e) {
    CHECK(std::string(ss::diag::code_name(e.code)) == "E1408");
    CHECK(std::string(e.what()).find("`x` holds F64 values") != std::string::npos);
    why = e.help;
  }
  CHECK(why.find("astype(numpy.float32)") != std::string::npos);
  CHECK(why.find("save_file") == std::string::npos);
}

TEST_CASE(
    "a safetensors dataset: one tensor per field, and missing, misshapen, mistyped, truncated") {
  ss::test::TempDir dir;
  const auto x = Tensor::from_values(DType::f32, {3, 2}, {1, 2, 3, 4, 5, 6});
  const auto label = Tensor::from_values(DType::i32, {3}, {0, 2, 1});
  ss::runtime::write_safetensors(dir.file("ok.safetensors"), {{"x", x}, {"label", label}});
  const auto d = ss::runtime::load_dataset(dir.file("ok.safetensors"), kPoint);
  CHECK(d.size() == 3);
  CHECK(d.batch(1, 3).at("label").values() == std::vector<double>{2, 1});

  ss::runtime::write_safetensors(dir.file("no_label.safetensors"), {{"x", x}});
  auto [code, message] = failure(dir.file("no_label.safetensors"));
  CHECK(code == "E1406");
  CHECK(message.find("has no tensor `label`") != std::string::npos);
  ss::runtime::write_safetensors(dir.file("wide.safetensors"),
                                 {{"x", Tensor::zeros(DType::f32, {3, 5})}, {"label", label}});
  std::tie(code, message) = failure(dir.file("wide.safetensors"));
  CHECK(code == "E1406");
  CHECK(message.find("`x` is [3 5], the record wants [3 2]") != std::string::npos);
  ss::runtime::write_safetensors(dir.file("float_labels.safetensors"),
                                 {{"x", x}, {"label", Tensor::zeros(DType::f32, {3})}});
  CHECK(failure(dir.file("float_labels.safetensors")).first == "E1406");
  ss::runtime::write_safetensors(
      dir.file("bad_label.safetensors"),
      {{"x", x}, {"label", Tensor::from_values(DType::i32, {3}, {0, 1, 7})}});
  std::tie(code, message) = failure(dir.file("bad_label.safetensors"));
  CHECK(code == "E1407");
  CHECK(message.find("row 3") != std::string::npos);

  const std::string whole = ss::test::read_file(dir.file("ok.safetensors"));
  for (const std::size_t cut : {std::size_t{3}, std::size_t{20}, whole.size() - 4}) {
    CAPTURE(cut);
    CHECK(failure(dir.write("cut.safetensors", whole.substr(0, cut))).first == "E1408");
  }
}

TEST_CASE("checkpoints: PyTorch's file reads, and writing it back gives the same bytes") {
  const std::string golden =
      std::string(ss::test::kSourceDir) + "/tests/goldens/tiny_checkpoint.safetensors";
  const auto tensors = ss::runtime::read_safetensors(golden);
  REQUIRE(tensors.size() == 2);
  CHECK(tensors.at("w").shape() == ss::runtime::Shape{2, 3});
  CHECK(tensors.at("w").values() == std::vector<double>{0, 0.5, 1, 1.5, 2, 2.5});
  CHECK(tensors.at("b").values() == std::vector<double>{1, -2, 3});
  ss::test::TempDir dir;
  ss::runtime::write_safetensors(dir.file("mine.safetensors"), tensors, {{"model", "Tiny"}});
  CHECK(ss::test::read_file(dir.file("mine.safetensors")) == ss::test::read_file(golden));
  // Written through a temporary, renamed: nothing else is left in the folder.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path()))
    ++files;
  CHECK(files == 1);
  try {
    ss::runtime::write_safetensors(dir.file("no/such/folder/m.safetensors"), tensors);
    FAIL("wrote into a folder that doesn't exist");
  } catch (const DataError& e) {
    CHECK(e.code == ss::diag::Code::E1706);
  }
}

TEST_CASE("a model's initialisers: seeded, repeatable, each parameter its own stream") {
  const auto p = ss::test::check_source_file("tests/programs/valid/operations.ss");
  const auto outline = ss::lower::program_outline(p->typed);
  const auto a = ss::runtime::initialise_model(outline, "Net", 0);
  const auto b = ss::runtime::initialise_model(outline, "Net", 0);
  const auto c = ss::runtime::initialise_model(outline, "Net", 1);
  CHECK(a.at("w").values() == b.at("w").values());
  CHECK(a.at("w").values() != c.at("w").values());
  CHECK(a.at("w").shape() == ss::runtime::Shape{6, 3});
  for (const double v : a.at("w").values()) CHECK((v >= -0.1 && v < 0.1));  // uniform(-0.1, 0.1)
  for (const double v : a.at("b").values()) CHECK(v == 0);                  // zeros
  for (const double v : a.at("scale").values()) CHECK(v == 1);              // ones
  const auto layout = ss::runtime::model_layout(outline, "Net");
  REQUIRE(layout.size() == 3);
  CHECK(layout[0].path == "w");
  CHECK(layout[2].path == "scale");
}
