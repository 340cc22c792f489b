#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <variant>

#include "support/process.hpp"
#include "syntax/source_file.hpp"
#include "syntax/utf8.hpp"

using ss::Diagnostic;
using ss::syntax::decode_source;
using ss::syntax::read_source_file;
using ss::syntax::SourceFile;

namespace {

Diagnostic error_of(const ss::syntax::SourceOrError& result) {
  REQUIRE(std::holds_alternative<Diagnostic>(result));
  return std::get<Diagnostic>(result);
}

}  // namespace

TEST_CASE("UTF-8 validation accepts every well-formed length and rejects the rest") {
  using Kind = ss::syntax::Utf8Error::Kind;
  CHECK_FALSE(ss::syntax::find_invalid_utf8("plain ascii").has_value());
  CHECK_FALSE(ss::syntax::find_invalid_utf8("\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80").has_value());
  CHECK_FALSE(ss::syntax::find_invalid_utf8("\xF4\x8F\xBF\xBF").has_value());  // U+10FFFF

  struct Case {
    std::string_view text;
    Kind kind;
    std::size_t offset;
  };
  const Case cases[] = {
      {"ab\x80", Kind::bad_lead_byte, 2},               // lone continuation byte
      {"\xC0\xAF", Kind::bad_lead_byte, 0},             // always-overlong lead
      {"\xF5\x80\x80\x80", Kind::bad_lead_byte, 0},     // past Unicode
      {"x\xE2\x82", Kind::cut_short, 1},                // file ends mid-character
      {"\xE2(\xA1", Kind::cut_short, 0},                // continuation missing
      {"\xE0\x80\xAF", Kind::invalid_sequence, 0},      // overlong 3-byte
      {"\xF0\x80\x80\xAF", Kind::invalid_sequence, 0},  // overlong 4-byte
      {"\xED\xA0\x80", Kind::invalid_sequence, 0},      // surrogate U+D800
      {"\xF4\x90\x80\x80", Kind::invalid_sequence, 0},  // U+110000
  };
  for (const auto& c : cases) {
    CAPTURE(c.offset);
    const auto bad = ss::syntax::find_invalid_utf8(c.text);
    REQUIRE(bad.has_value());
    CHECK(bad->kind == c.kind);
    CHECK(bad->offset == c.offset);
  }
}

TEST_CASE("E0102 points at the line and column, in characters, of the first bad byte") {
  const auto d = error_of(decode_source("dim D = 4\n# caf\xC3\xA9 \xFF\n", "m.ss"));
  CHECK(d.code == "E0102");
  CHECK(d.location.file == "m.ss");
  CHECK(d.location.line == 2);
  CHECK(d.location.column == 8);  // '#', ' ', 'c', 'a', 'f', 'é', ' ', then the bad byte
  CHECK(d.message == "source text isn't UTF-8: byte 0xff can't start a character");
}

TEST_CASE("a byte-order mark is dropped and the text kept as it is") {
  const auto result = decode_source(
      "\xEF\xBB\xBF"
      "dim D = 4\n",
      "m.ss");
  REQUIRE(std::holds_alternative<SourceFile>(result));
  CHECK(std::get<SourceFile>(result).text == "dim D = 4\n");
  CHECK(std::get<SourceFile>(result).name == "m.ss");
}

TEST_CASE("E0103: text over the size limit is refused, text at the limit is read") {
  const std::string at_limit(ss::syntax::kMaxSourceBytes, 'a');
  CHECK(std::holds_alternative<SourceFile>(decode_source(at_limit, "big.ss")));
  const auto d = error_of(decode_source(at_limit + "a", "big.ss"));
  CHECK(d.code == "E0103");
  CHECK(d.message == "`big.ss` is larger than 16 MiB");

  ss::test::TempDir dir;
  const std::string path = dir.write("big.ss", at_limit + "a");
  CHECK(error_of(read_source_file(path)).code == "E0103");
}

TEST_CASE("E0101: missing files, folders and unreadable files name the path and the reason") {
  ss::test::TempDir dir;
  const auto missing = error_of(read_source_file(dir.file("nope.ss")));
  CHECK(missing.code == "E0101");
  CHECK(missing.message == "can't read `" + dir.file("nope.ss") + "`: no such file or directory");
  CHECK(missing.location.file == dir.file("nope.ss"));

  const auto folder = error_of(read_source_file(dir.path()));
  CHECK(folder.code == "E0101");
  CHECK(folder.message.find("it is a folder") != std::string::npos);

  if (::geteuid() != 0) {  // root reads everything
    const std::string locked = dir.write("locked.ss", "dim D = 4\n");
    ::chmod(locked.c_str(), 0);
    CHECK(error_of(read_source_file(locked)).message.find("permission denied") !=
          std::string::npos);
  }
}

TEST_CASE("a readable UTF-8 file reads back byte for byte, from a pipe too") {
  ss::test::TempDir dir;
  const std::string text = "dim D = 4\n# \xE2\x88\x80 x\n";
  const auto result = read_source_file(dir.write("ok.ss", text));
  REQUIRE(std::holds_alternative<SourceFile>(result));
  CHECK(std::get<SourceFile>(result).text == text);

  const std::string fifo = dir.file("pipe.ss");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto writer = ss::test::run_shell("printf 'dim D = 4\\n' > '" + fifo + "' &");
  CHECK(writer.exit_code == 0);
  const auto piped = read_source_file(fifo);
  REQUIRE(std::holds_alternative<SourceFile>(piped));
  CHECK(std::get<SourceFile>(piped).text == "dim D = 4\n");
}
