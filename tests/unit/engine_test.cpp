#include <doctest/doctest.h>

#include "shapescript/shapescript.hpp"
#include "support/process.hpp"

TEST_CASE("devices parse from their names and print back the same") {
  CHECK(ss::Device::parse("cpu") == ss::Device::cpu());
  CHECK(ss::Device::parse("cuda") == ss::Device::cuda(0));
  CHECK(ss::Device::parse("cuda:3") == ss::Device::cuda(3));
  CHECK(ss::Device::cuda(3).name() == "cuda:3");
  CHECK(ss::Device::cpu().name() == "cpu");
  for (const char* bad :
       {"", "gpu", "cuda:", "cuda:-1", "cuda:1x", "cuda:99999999999", "CPU", "cpu:0"})
    CHECK_FALSE(ss::Device::parse(bad).has_value());
}

TEST_CASE("the library's version matches the headers'") {
  CHECK(std::string(ss::version()) == SS_VERSION_STRING);
  CHECK(SS_VERSION_NUMBER == SS_VERSION_MAJOR * 10000 + SS_VERSION_MINOR * 100 + SS_VERSION_PATCH);
}

TEST_CASE("a CPU engine is ok and checks readable files clean") {
  ss::Engine engine;
  CHECK(engine.ok());
  CHECK(engine.diagnostics().empty());
  CHECK(engine.device() == ss::Device::cpu());

  ss::test::TempDir dir;
  CHECK(engine.check_file(dir.write("m.ss", "dim D = 4\n")).empty());
  const auto missing = engine.check_file(dir.file("none.ss"));
  REQUIRE(missing.size() == 1);
  CHECK(missing[0].code == "E0101");
  CHECK(ss::has_errors(missing));
  const auto bad = engine.check_source("\xFF", "host.ss");
  REQUIRE(bad.size() == 1);
  CHECK(bad[0].code == "E0102");
  CHECK(bad[0].location.file == "host.ss");
}

TEST_CASE("an engine moves, and the moved-to engine keeps its state") {
  ss::Engine a({.device = ss::Device::cuda(0), .cuda_driver_library = "/nonexistent/libcuda.so.1"});
  ss::Engine b = std::move(a);
  CHECK_FALSE(b.ok());
  REQUIRE(b.diagnostics().size() == 1);
  CHECK(b.diagnostics()[0].code == "E1901");
  CHECK(b.device() == ss::Device::cuda(0));
}
