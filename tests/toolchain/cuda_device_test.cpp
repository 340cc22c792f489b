// Asking for a CUDA device where there is none is a coded error (E1901), never
// a crash: whatever the machine, and with the toolkit's stub libcuda too.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include "shapescript/engine.hpp"
#include "support/skip.hpp"

TEST_CASE("a CUDA engine without a driver is not ok, with E1901 naming the library") {
  ss::Engine engine(
      {.device = ss::Device::cuda(0), .cuda_driver_library = "/nonexistent/libcuda.so.1"});
  CHECK_FALSE(engine.ok());
  REQUIRE(engine.diagnostics().size() == 1);
  const auto& d = engine.diagnostics()[0];
  CHECK(d.code == "E1901");
  CHECK(d.message == "CUDA isn't available: can't load the driver `/nonexistent/libcuda.so.1`");
  REQUIRE(d.notes.size() == 1);
  CHECK(d.notes[0].find("No such file") != std::string::npos);
  CHECK(d.render().rfind("error[E1901]: CUDA isn't available", 0) == 0);
}

TEST_CASE("the toolkit's stub libcuda is recognised as no driver") {
  const char* stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  struct stat info {};
  if (::stat(stub, &info) != 0) {
    ss::test::skip("no CUDA toolkit stub here");
    return;
  }
  ss::Engine engine({.device = ss::Device::cuda(0), .cuda_driver_library = stub});
  CHECK_FALSE(engine.ok());
  REQUIRE(engine.diagnostics().size() == 1);
  CHECK(engine.diagnostics()[0].code == "E1901");
  CHECK(engine.diagnostics()[0].message.find("stub library, not a driver") != std::string::npos);
}

TEST_CASE("a library that isn't a driver is E1901 too") {
  ss::Engine engine({.device = ss::Device::cuda(0), .cuda_driver_library = "libm.so.6"});
  REQUIRE(engine.diagnostics().size() == 1);
  CHECK(engine.diagnostics()[0].code == "E1901");
  CHECK(engine.diagnostics()[0].message.find("lacks the CUDA Driver API") != std::string::npos);
}

TEST_CASE("the default search gives a device or a coded error on any machine") {
  ss::Engine engine({.device = ss::Device::cuda(0)});
  if (engine.ok()) {
    MESSAGE("a CUDA device is present");
    ss::Engine past_end({.device = ss::Device::cuda(4096)});
    REQUIRE(past_end.diagnostics().size() == 1);
    CHECK(past_end.diagnostics()[0].code == "E1902");
    return;
  }
  REQUIRE(engine.diagnostics().size() == 1);
  const auto& code = engine.diagnostics()[0].code;
  CHECK((code == "E1901" || code == "E1902" || code == "E1903"));
}

TEST_CASE("the back-end report always answers, and never claims a driver it couldn't start") {
  const auto report = ss::Engine({.cuda_driver_library = "/nonexistent/libcuda.so.1"}).backends();
  CHECK_FALSE(report.cuda_driver.found);
  CHECK(report.cuda_devices.empty());
  CHECK(report.cuda_driver.detail.find("can't load the driver") != std::string::npos);
}
