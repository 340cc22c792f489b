// Sizes whose byte counts no machine holds: a broadcast row (stride 0, so
// the host's buffer is one row) claimed to have 2^56 to 2^62 rows. Every
// product of sizes is checked before use, so each path answers E1611 (as
// at 2^40) instead of wrapping around into a small allocation; and sizes
// a reserve can't use are E1605 naming the axis.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "shapescript/shapescript.h"
#include "shapescript/shapescript.hpp"

namespace {

const char* const kProgram = R"(dim D = 64

data Row:
    x: [D]

model Lin:
    param w: [D 4] = normal(std=0.1)

fn act(m: Lin, x: [b D]) -> [b 4]:
    return relu(x @ m.w)

fn ident(x: [b D]) -> [b D] = x

fn twice(x: [b D]) -> [b D] = x * 2.0

fn fixed(x: [D]) -> [D] = x * 2.0
)";

std::string first_code(const std::vector<ss::Diagnostic>& ds) {
  return ds.empty() ? std::string("(none)") : ds[0].code;
}

std::string first_message(const std::vector<ss::Diagnostic>& ds) {
  return ds.empty() ? std::string() : ds[0].message;
}

const std::vector<std::int64_t> kRows = {std::int64_t{1} << 56, std::int64_t{1} << 58,
                                         std::int64_t{1} << 60, std::int64_t{1} << 62};

}  // namespace

TEST_CASE("rows past what memory holds are E1611 from every path, on both executors") {
  std::vector<float> row(64, 0.5f);
  for (const auto executor : {ss::Executor::fast, ss::Executor::reference}) {
    const ss::Engine engine(ss::EngineOptions{.executor = executor});
    const ss::Module mod = engine.load_source(kProgram, "huge.ss");
    REQUIRE(mod);
    const ss::Value m = mod.make("Lin");
    REQUIRE(m);
    for (const std::int64_t rows : kRows) {
      CAPTURE(rows);
      CAPTURE(static_cast<int>(executor));
      const ss::Tensor x = ss::Tensor::view(row.data(), {rows, 64}, {0, 1});
      CHECK(first_code(mod.reserve("act", {{"b", rows}})) == "E1611");
      CHECK(first_code(mod.reserve("twice", {{"b", rows}})) == "E1611");
      const auto act = mod.call("act", {m, x});
      CHECK(first_code(act.diagnostics) == "E1611");
      CHECK_MESSAGE(first_message(act.diagnostics).find("bytes") != std::string::npos,
                    first_message(act.diagnostics));
      CHECK(first_code(mod.call("ident", {x}).diagnostics) == "E1611");
      CHECK(first_code(mod.call("twice", {x}).diagnostics) == "E1611");
      std::vector<ss::Diagnostic> why;
      CHECK(mod.tensor(x, &why).empty());
      CHECK(first_code(why) == "E1611");
      why.clear();
      CHECK(mod.batch("Row", {{"x", x}}, &why).empty());
      CHECK(first_code(why) == "E1611");
    }
    // The module goes on: a real row runs.
    const auto one = mod.call("act", {m, ss::Tensor::view(row.data(), {1, 64})});
    CHECK(one);
  }
}

TEST_CASE("reserve: a negative size, an axis the function lacks, or none given is E1605") {
  const ss::Engine engine;
  const ss::Module mod = engine.load_source(kProgram, "huge.ss");
  REQUIRE(mod);
  for (const char* fn : {"act", "twice", "ident"}) {
    CAPTURE(fn);
    const auto negative = mod.reserve(fn, {{"b", -1}});
    CHECK(first_code(negative) == "E1605");
    CHECK(first_message(negative).find("`b`") != std::string::npos);
    const auto stray = mod.reserve(fn, {{"b", 4}, {"q", 3}});
    CHECK(first_code(stray) == "E1605");
    CHECK(first_message(stray).find("`q`") != std::string::npos);
    const auto none = mod.reserve(fn, {});
    CHECK(first_code(none) == "E1605");
    CHECK(first_message(none).find("`b`") != std::string::npos);
    CHECK(mod.reserve(fn, {{"b", 4}}).empty());
  }
  // A function without generic axes needs no size, and takes none.
  CHECK(mod.reserve("fixed", {}).empty());
  CHECK(first_code(mod.reserve("fixed", {{"b", 2}})) == "E1605");
}

TEST_CASE("ss_module_reserve past what memory holds is E1611, a negative size E1605") {
  ss_engine* engine = ss_engine_new(nullptr, nullptr);
  REQUIRE(engine);
  ss_module* mod = ss_engine_load_source(engine, kProgram, "huge.ss", nullptr, nullptr);
  REQUIRE(mod);
  const char* names[] = {"b"};
  for (const std::int64_t rows : kRows) {
    CAPTURE(rows);
    const std::int64_t sizes[] = {rows};
    ss_status* s = ss_module_reserve(mod, "act", 1, names, sizes);
    REQUIRE(s);
    CHECK(std::string(ss_status_code(s)) == "E1611");
    ss_status_free(s);
  }
  const std::int64_t negative[] = {-1};
  ss_status* s = ss_module_reserve(mod, "act", 1, names, negative);
  REQUIRE(s);
  CHECK(std::string(ss_status_code(s)) == "E1605");
  ss_status_free(s);
  ss_module_free(mod);
  ss_engine_free(engine);
}
