// An ONNX model's external data, read only where the model lives: inside
// the folder it was named in or the folder of its own resolved path (a
// Hugging Face cache's links into `blobs/`), a regular file checked on the
// opened descriptor (no FIFO hangs, no device is read), its length the
// tensor's bytes before any read; and the host's FileAccess applies to the
// model and its data. Models: tests/onnx/make_external_data.py.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "onnx/importer.hpp"
#include "shapescript/shapescript.hpp"
#include "support/process.hpp"

namespace {

namespace fs = std::filesystem;

using ss::test::have_importer;

std::string model_bytes(const std::string& name) {
  return ss::test::read_file(ss::test::test_model(name));
}

// 1, 2, 3, 4 as float32 bytes: the 12 bytes of `w` at offset 0, or 2, 3, 4 at 4.
std::string floats_1234() {
  const float v[] = {1, 2, 3, 4};
  return std::string(reinterpret_cast<const char*>(v), sizeof v);
}

ss::OnnxOptions options() {
  return ss::test::importer_options();
}

std::string first_code(const ss::OnnxModel& m) {
  return m.diagnostics.empty() ? std::string("(none)") : m.diagnostics[0].code;
}

std::string first_message(const ss::OnnxModel& m) {
  return m.diagnostics.empty() ? std::string() : m.diagnostics[0].message;
}

std::vector<float> weights_of(const ss::OnnxModel& m) {
  REQUIRE(m.weights);
  const auto tensors = m.weights.tensors();
  REQUIRE(tensors.size() == 1);
  return tensors.begin()->second.to_floats();
}

// A folder holding `model` as model.onnx and `weights` (when not empty) as weights.bin.
std::string lay_out(const ss::test::TempDir& dir, const std::string& sub, const std::string& model,
                    const std::string& weights = floats_1234()) {
  fs::create_directories(dir.file(sub));
  dir.write(sub + "/model.onnx", model_bytes(model));
  if (!weights.empty()) dir.write(sub + "/weights.bin", weights);
  return dir.file(sub + "/model.onnx");
}

}  // namespace

TEST_CASE(
    "external data beside the model loads, its keys byte counts and its length the tensor's") {
  if (!have_importer()) return;
  const ss::Engine engine;
  const ss::test::TempDir dir;
  const auto plain = engine.load_onnx(lay_out(dir, "plain", "external_data.onnx"), options());
  REQUIRE_MESSAGE(plain, first_message(plain));
  CHECK(weights_of(plain) == std::vector<float>{1, 2, 3});
  const auto unsized =
      engine.load_onnx(lay_out(dir, "unsized", "external_unsized.onnx"), options());
  REQUIRE_MESSAGE(unsized, first_message(unsized));
  CHECK(weights_of(unsized) == std::vector<float>{2, 3, 4});  // 12 bytes at offset 4
  for (const char* model : {"external_negative_offset.onnx", "external_wrong_length.onnx",
                            "external_bad_number.onnx"}) {
    CAPTURE(model);
    const auto m = engine.load_onnx(lay_out(dir, model, model), options());
    CHECK(first_code(m) == "E2009");
    CHECK(first_message(m).find("stoll") == std::string::npos);
  }
  // A file shorter than the tensor is refused before anything is read.
  const auto short_file = engine.load_onnx(
      lay_out(dir, "short", "external_data.onnx", floats_1234().substr(0, 8)), options());
  CHECK(first_code(short_file) == "E2009");
}

TEST_CASE("external data that escapes through links, or isn't a regular file, is E2009 at once") {
  if (!have_importer()) return;
  const ss::Engine engine;
  const ss::test::TempDir dir;
  fs::create_directories(dir.file("outside/data"));
  const std::string outside = dir.write("outside/weights.bin", floats_1234());
  dir.write("outside/data/weights.bin", floats_1234());
  const auto linked = [&](const std::string& sub, const std::string& target,
                          const std::string& model = "external_data.onnx",
                          const std::string& link = "weights.bin") {
    const std::string path = lay_out(dir, sub, model, "");
    fs::create_symlink(target, dir.file(sub + "/" + link));
    return path;
  };
  CHECK(first_code(engine.load_onnx(linked("file_link", outside), options())) == "E2009");
  CHECK(first_code(engine.load_onnx(linked("passwd", "/etc/passwd"), options())) == "E2009");
  CHECK(first_code(engine.load_onnx(
            linked("folder_link", dir.file("outside/data"), "external_subfolder.onnx", "data"),
            options())) == "E2009");
  const auto start = std::chrono::steady_clock::now();
  CHECK(first_code(engine.load_onnx(linked("zero", "/dev/zero"), options())) == "E2009");
  const std::string fifo_model = lay_out(dir, "fifo", "external_data.onnx", "");
  REQUIRE(::mkfifo(dir.file("fifo/weights.bin").c_str(), 0600) == 0);
  const auto fifo = engine.load_onnx(fifo_model, options());  // never blocks
  CHECK(first_code(fifo) == "E2009");
  CHECK(first_message(fifo).find("regular file") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  // A link that stays inside the model's folder is followed.
  const std::string inside = lay_out(dir, "inside", "external_data.onnx", "");
  dir.write("inside/real.bin", floats_1234());
  fs::create_symlink("real.bin", dir.file("inside/weights.bin"));
  const auto followed = engine.load_onnx(inside, options());
  REQUIRE_MESSAGE(followed, first_message(followed));
  CHECK(weights_of(followed) == std::vector<float>{1, 2, 3});
}

TEST_CASE(
    "a Hugging Face cache's links into blobs/ load: the folder of the model's resolved path") {
  if (!have_importer()) return;
  const ss::Engine engine;
  const ss::test::TempDir dir;
  fs::create_directories(dir.file("hub/blobs"));
  dir.write("hub/blobs/1f0e", model_bytes("external_data.onnx"));
  dir.write("hub/blobs/9a3c", floats_1234());
  fs::create_directories(dir.file("hub/snapshots/rev"));
  fs::create_symlink("../../blobs/1f0e", dir.file("hub/snapshots/rev/model.onnx"));
  fs::create_symlink("../../blobs/9a3c", dir.file("hub/snapshots/rev/weights.bin"));
  const auto m = engine.load_onnx(dir.file("hub/snapshots/rev/model.onnx"), options());
  REQUIRE_MESSAGE(m, first_message(m));
  CHECK(weights_of(m) == std::vector<float>{1, 2, 3});
}

TEST_CASE("the host's FileAccess applies to an ONNX model and its external data") {
  if (!have_importer()) return;
  const ss::Engine engine;
  const ss::test::TempDir dir;
  const std::string path = lay_out(dir, "model", "external_data.onnx");
  ss::OnnxOptions o = options();
  o.load.files.allow_read = false;
  CHECK(first_code(engine.load_onnx(path, o)) == "E1707");
  o = options();
  o.load.files.root = dir.file("elsewhere");
  fs::create_directories(o.load.files.root);
  CHECK(first_code(engine.load_onnx(path, o)) == "E1707");
  o.load.files.root = dir.path();
  CHECK(engine.load_onnx(path, o));
  // The host serves both files itself, from memory.
  o = options();
  std::map<std::string, std::string> served = {
      {"/virtual/model.onnx", model_bytes("external_data.onnx")},
      {"/virtual/weights.bin", floats_1234()}};
  std::vector<std::string> asked;
  o.load.files.read = [&](const std::string& p, std::string* bytes, std::string* why) {
    asked.push_back(p);
    const auto it = served.find(p);
    if (it == served.end()) return *why = "not served", false;
    *bytes = it->second;
    return true;
  };
  const auto m = engine.load_onnx("/virtual/model.onnx", o);
  REQUIRE_MESSAGE(m, first_message(m));
  CHECK(weights_of(m) == std::vector<float>{1, 2, 3});
  CHECK(std::find(asked.begin(), asked.end(), "/virtual/weights.bin") != asked.end());
  served.erase("/virtual/weights.bin");
  CHECK(first_code(engine.load_onnx("/virtual/model.onnx", o)) == "E2009");
}
