#include "syntax/lexer.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

namespace ss::syntax {
namespace {

using diag::Code;

const std::unordered_map<std::string_view, Tok>& keywords() {
  // `dim`, `data`, `model`, `param`, `devices`, `sink` and `extern` are
  // keywords only where an item (or a model's member) starts, so programs may
  // still name values `data` or `model`: the parser reads them in place.
  static const std::unordered_map<std::string_view, Tok> table = {
      {"fn", Tok::kw_fn},       {"return", Tok::kw_return}, {"mut", Tok::kw_mut},
      {"for", Tok::kw_for},     {"in", Tok::kw_in},         {"if", Tok::kw_if},
      {"else", Tok::kw_else},   {"and", Tok::kw_and},       {"or", Tok::kw_or},
      {"not", Tok::kw_not},     {"true", Tok::kw_true},     {"false", Tok::kw_false},
      {"break", Tok::kw_break},
  };
  return table;
}

bool ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool ident_char(char c) {
  return ident_start(c) || (c >= '0' && c <= '9');
}
bool digit(char c) {
  return c >= '0' && c <= '9';
}

class Lexer {
 public:
  Lexer(std::string_view text, std::size_t begin, std::size_t end, diag::Reporter& reporter)
      : text_(text.substr(0, end)), r_(reporter), pos_(begin), at_line_start_(begin == 0) {}

  std::vector<Token> run() {
    indents_.push_back(0);
    while (pos_ < text_.size()) {
      if (at_line_start_ && brackets_.empty()) {
        if (!indentation()) continue;  // a blank or comment-only line
      }
      at_line_start_ = false;
      const char c = text_[pos_];
      if (c == ' ' || c == '\r') {
        ++pos_;
      } else if (c == '\t') {
        tab();
      } else if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (c == '\n') {
        if (brackets_.empty()) newline();
        ++pos_;
        at_line_start_ = true;
      } else {
        token();
      }
    }
    for (const auto& open : brackets_)
      r_.error(Code::E0203, open.span,
               "`" + std::string(1, text_[open.span.begin]) + "` is never closed", "opened here");
    newline();
    const Span end{static_cast<std::uint32_t>(text_.size()),
                   static_cast<std::uint32_t>(text_.size())};
    while (indents_.size() > 1) {
      indents_.pop_back();
      push(Tok::dedent, end);
    }
    push(Tok::eof, end);
    return std::move(tokens_);
  }

 private:
  struct Open {
    Tok kind;
    Span span;
  };

  Span here(std::size_t length = 1) const {
    return {static_cast<std::uint32_t>(pos_), static_cast<std::uint32_t>(pos_ + length)};
  }

  Token& push(Tok kind, Span span) {
    Token t;
    t.kind = kind;
    t.span = span;
    t.text = text_.substr(span.begin, span.end - span.begin);
    tokens_.push_back(std::move(t));
    return tokens_.back();
  }

  void newline() {
    if (tokens_.empty() || tokens_.back().kind == Tok::newline ||
        tokens_.back().kind == Tok::indent || tokens_.back().kind == Tok::dedent)
      return;
    push(Tok::newline, here(0));
  }

  void tab() {
    r_.error(Code::E0104, here(), "a tab character in the source", "tab").help =
        "indent with spaces; shapescript reads no tabs outside strings and comments";
    ++pos_;
  }

  // Measures a line's indentation and emits indents or dedents. Returns false
  // (having consumed the line) for a blank or comment-only line.
  bool indentation() {
    std::size_t width = 0;
    std::size_t p = pos_;
    bool tabbed = false;
    while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t' || text_[p] == '\r')) {
      if (text_[p] == '\t' && !tabbed) {
        const std::size_t keep = pos_;
        pos_ = p;
        tab();
        pos_ = keep;
        tabbed = true;
      }
      if (text_[p] == ' ') ++width;
      ++p;
    }
    if (p >= text_.size() || text_[p] == '\n' || text_[p] == '#') {
      while (p < text_.size() && text_[p] != '\n') ++p;
      pos_ = p < text_.size() ? p + 1 : p;
      return false;
    }
    pos_ = p;
    const Span at = here(0);
    if (width > indents_.back()) {
      indents_.push_back(width);
      push(Tok::indent, at);
    } else {
      while (width < indents_.back()) {
        indents_.pop_back();
        push(Tok::dedent, at);
      }
      if (width != indents_.back()) {
        r_.error(Code::E0202, here(1), "this line's indentation matches no enclosing block",
                 std::to_string(width) + " spaces")
            .help = "indent it as the block it belongs to (" + std::to_string(indents_.back()) +
                    " spaces for the enclosing one)";
        indents_.push_back(width);
        push(Tok::indent, at);
      }
    }
    return true;
  }

  void token() {
    const char c = text_[pos_];
    if (c == 'f' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') return string(true);
    if (ident_start(c)) return identifier();
    if (digit(c) || (c == '.' && pos_ + 1 < text_.size() && digit(text_[pos_ + 1])))
      return number();
    if (c == '"') return string(false);
    punctuation();
  }

  void identifier() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && ident_char(text_[pos_])) ++pos_;
    const Span span{static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(pos_)};
    const auto word = text_.substr(start, pos_ - start);
    const auto kw = keywords().find(word);
    push(kw == keywords().end() ? Tok::ident : kw->second, span);
  }

  void number() {
    const std::size_t start = pos_;
    bool is_float = false;
    while (pos_ < text_.size() && digit(text_[pos_])) ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '.' && pos_ + 1 < text_.size() &&
        digit(text_[pos_ + 1])) {
      is_float = true;
      ++pos_;
      while (pos_ < text_.size() && digit(text_[pos_])) ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      std::size_t p = pos_ + 1;
      if (p < text_.size() && (text_[p] == '+' || text_[p] == '-')) ++p;
      if (p < text_.size() && digit(text_[p])) {
        is_float = true;
        pos_ = p;
        while (pos_ < text_.size() && digit(text_[pos_])) ++pos_;
      }
    }
    const Span span{static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(pos_)};
    const std::string literal(text_.substr(start, pos_ - start));
    Token& t = push(is_float ? Tok::floating : Tok::integer, span);
    if (is_float) {
      t.float_value = std::strtod(literal.c_str(), nullptr);
      if (!std::isfinite(t.float_value))
        r_.error(Code::E0108, span, "the number `" + literal + "` is too large",
                 "past the largest float")
            .help =
            "numbers are at most about 1.8e308 (and tensors hold f32, at most about 3.4e38)";
    } else {
      const auto [end, err] =
          std::from_chars(literal.data(), literal.data() + literal.size(), t.int_value);
      if (err != std::errc() || end != literal.data() + literal.size())
        r_.error(Code::E0108, span, "the integer `" + literal + "` is too large", "past 2^63 - 1")
            .help =
            "integers are at most 9223372036854775807; write a float (`1e20`) for larger values";
    }
    if (pos_ < text_.size() && ident_start(text_[pos_])) {
      const std::size_t bad = pos_;
      while (pos_ < text_.size() && ident_char(text_[pos_])) ++pos_;
      r_.error(Code::E0108, {span.begin, static_cast<std::uint32_t>(pos_)},
               "`" + std::string(text_.substr(start, pos_ - start)) + "` is not a number",
               "letters right after a number")
          .help = "put a space or an operator between a number and a name (`" + literal + " * " +
                  std::string(text_.substr(bad, pos_ - bad)) + "`)";
    }
  }

  void string(bool formatted) {
    const std::size_t start = pos_;
    pos_ += formatted ? 2 : 1;
    std::string value;
    while (true) {
      if (pos_ >= text_.size() || text_[pos_] == '\n') {
        r_.error(Code::E0106, {static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(pos_)},
                 "this string is never closed", "no closing `\"` on this line")
            .help = "close it with `\"`; a string stays on one line (write `\\n` for a line break)";
        break;
      }
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        break;
      }
      if (c == '\\' && !formatted) {
        escape(value);
        continue;
      }
      if (c == '\\' && formatted && pos_ + 1 < text_.size() && text_[pos_ + 1] != '\n') {
        // Escapes in f-strings are resolved when the f-string is split.
        value += c;
        value += text_[pos_ + 1];
        pos_ += 2;
        continue;
      }
      value += c;
      ++pos_;
    }
    Token& t = push(formatted ? Tok::fstring : Tok::string,
                    {static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(pos_)});
    t.string_value = std::move(value);
  }

  void escape(std::string& value) {
    if (pos_ + 1 >= text_.size() || text_[pos_ + 1] == '\n') {
      ++pos_;
      return;
    }
    const char e = text_[pos_ + 1];
    switch (e) {
      case 'n':
        value += '\n';
        break;
      case 't':
        value += '\t';
        break;
      case 'r':
        value += '\r';
        break;
      case '0':
        value += '\0';
        break;
      case '\\':
        value += '\\';
        break;
      case '"':
        value += '"';
        break;
      case '\'':
        value += '\'';
        break;
      case '{':
        value += '{';
        break;
      case '}':
        value += '}';
        break;
      default: {
        std::size_t len = 1;  // the escaped character may be several bytes
        while (pos_ + 1 + len < text_.size() &&
               (static_cast<unsigned char>(text_[pos_ + 1 + len]) & 0xC0) == 0x80)
          ++len;
        r_.error(Code::E0107, here(1 + len),
                 "unknown escape `" + std::string(text_.substr(pos_, 1 + len)) + "` in a string",
                 "unknown escape")
            .help =
            "the escapes are \\n \\t \\r \\0 \\\\ \\\" \\' \\{ \\}; write `\\\\` for a backslash";
        pos_ += 1 + len;
        return;
      }
    }
    pos_ += 2;
  }

  void punctuation() {
    const char c = text_[pos_];
    const char next = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
    auto two = [&](Tok kind) {
      push(kind, here(2));
      pos_ += 2;
    };
    auto one = [&](Tok kind) {
      push(kind, here(1));
      pos_ += 1;
    };
    switch (c) {
      case '(':
        open(Tok::lparen);
        return;
      case '[':
        open(Tok::lbracket);
        return;
      case ')':
        close(Tok::rparen, Tok::lparen);
        return;
      case ']':
        close(Tok::rbracket, Tok::lbracket);
        return;
      case ',':
        one(Tok::comma);
        return;
      case ':':
        one(Tok::colon);
        return;
      case '.':
        one(Tok::dot);
        return;
      case '+':
        one(Tok::plus);
        return;
      case '@':
        one(Tok::at);
        return;
      case '%':
        one(Tok::percent);
        return;
      case '-':
        next == '>' ? two(Tok::arrow) : one(Tok::minus);
        return;
      case '*':
        next == '*' ? two(Tok::star_star) : one(Tok::star);
        return;
      case '/':
        next == '/' ? two(Tok::slash_slash) : one(Tok::slash);
        return;
      case '=':
        next == '=' ? two(Tok::eq) : one(Tok::assign);
        return;
      case '<':
        next == '=' ? two(Tok::le) : one(Tok::lt);
        return;
      case '>':
        next == '=' ? two(Tok::ge) : one(Tok::gt);
        return;
      case '!':
        if (next == '=') return two(Tok::ne);
        break;
      case '|':
        if (next == '>') return two(Tok::pipe);
        break;
      default:
        break;
    }
    unknown_character();
  }

  void open(Tok kind) {
    brackets_.push_back({kind, here(1)});
    push(kind, here(1));
    ++pos_;
  }

  void close(Tok kind, Tok opener) {
    const Span span = here(1);
    if (brackets_.empty()) {
      r_.error(Code::E0203, span, "`" + std::string(1, text_[pos_]) + "` closes nothing",
               "no bracket open here");
    } else if (brackets_.back().kind != opener) {
      auto& d = r_.error(Code::E0203, span,
                         "`" + std::string(1, text_[pos_]) + "` doesn't close `" +
                             std::string(1, text_[brackets_.back().span.begin]) + "`",
                         "mismatched");
      r_.secondary(d, brackets_.back().span, "opened here");
      brackets_.pop_back();
    } else {
      brackets_.pop_back();
    }
    push(kind, span);
    ++pos_;
  }

  void unknown_character() {
    std::size_t len = 1;
    while (pos_ + len < text_.size() &&
           (static_cast<unsigned char>(text_[pos_ + len]) & 0xC0) == 0x80)
      ++len;
    const std::string ch(text_.substr(pos_, len));
    auto& d = r_.error(Code::E0105, here(len), "`" + ch + "` starts no token",
                       "not part of the language");
    if (ch == "|")
      d.help = "pipes are written `|>`";
    else if (ch == "!")
      d.help = "write `not x` for negation, `!=` for inequality";
    else if (ch == "'")
      d.help = "strings are written with double quotes: \"...\"";
    else if (len > 1)
      d.help =
          "names are ASCII letters, digits and `_`; other characters belong in strings or comments";
    pos_ += len;
  }

  std::string_view text_;  // up to the end of what is lexed
  diag::Reporter& r_;
  std::size_t pos_ = 0;
  bool at_line_start_ = true;
  std::vector<std::size_t> indents_;
  std::vector<Open> brackets_;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> lex(std::string_view text, diag::Reporter& reporter) {
  return Lexer(text, 0, text.size(), reporter).run();
}

std::vector<Token> lex_range(std::string_view text, std::size_t begin, std::size_t end,
                             diag::Reporter& reporter) {
  return Lexer(text, begin, end, reporter).run();
}

}  // namespace ss::syntax
