#include "syntax/token.hpp"

namespace ss::syntax {

std::string describe(Tok kind) {
  switch (kind) {
    case Tok::newline:
      return "the end of the line";
    case Tok::indent:
      return "an indented block";
    case Tok::dedent:
      return "the end of the block";
    case Tok::eof:
      return "the end of the file";
    case Tok::ident:
      return "a name";
    case Tok::integer:
      return "an integer";
    case Tok::floating:
      return "a number";
    case Tok::string:
      return "a string";
    case Tok::fstring:
      return "an f-string";
    case Tok::kw_fn:
      return "`fn`";
    case Tok::kw_return:
      return "`return`";
    case Tok::kw_mut:
      return "`mut`";
    case Tok::kw_for:
      return "`for`";
    case Tok::kw_in:
      return "`in`";
    case Tok::kw_if:
      return "`if`";
    case Tok::kw_else:
      return "`else`";
    case Tok::kw_and:
      return "`and`";
    case Tok::kw_or:
      return "`or`";
    case Tok::kw_not:
      return "`not`";
    case Tok::kw_true:
      return "`true`";
    case Tok::kw_false:
      return "`false`";
    case Tok::kw_break:
      return "`break`";
    case Tok::lparen:
      return "`(`";
    case Tok::rparen:
      return "`)`";
    case Tok::lbracket:
      return "`[`";
    case Tok::rbracket:
      return "`]`";
    case Tok::comma:
      return "`,`";
    case Tok::colon:
      return "`:`";
    case Tok::dot:
      return "`.`";
    case Tok::arrow:
      return "`->`";
    case Tok::assign:
      return "`=`";
    case Tok::plus:
      return "`+`";
    case Tok::minus:
      return "`-`";
    case Tok::star:
      return "`*`";
    case Tok::slash:
      return "`/`";
    case Tok::slash_slash:
      return "`//`";
    case Tok::percent:
      return "`%`";
    case Tok::star_star:
      return "`**`";
    case Tok::at:
      return "`@`";
    case Tok::pipe:
      return "`|>`";
    case Tok::eq:
      return "`==`";
    case Tok::ne:
      return "`!=`";
    case Tok::lt:
      return "`<`";
    case Tok::le:
      return "`<=`";
    case Tok::gt:
      return "`>`";
    case Tok::ge:
      return "`>=`";
  }
  return "a token";
}

std::string describe(const Token& token) {
  switch (token.kind) {
    case Tok::ident:
    case Tok::integer:
    case Tok::floating:
      return "`" + std::string(token.text) + "`";
    default:
      return describe(token.kind);
  }
}

}  // namespace ss::syntax
