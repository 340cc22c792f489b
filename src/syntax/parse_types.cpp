// Types: tensor types with their axes' size expressions, element types,
// model and optimiser types with their arguments.
#include "syntax/lexer.hpp"
#include "syntax/parser_impl.hpp"

namespace ss::syntax {

using diag::Code;

// sum := term (("+" | "-") term)*; term := atom (("*" | "/" | "//") atom)*;
// atom := a name, an integer, or a bracketed sum.
AxisExpr Parser::axis() {
  AxisExpr a = axis_term();
  while (at(Tok::plus) || at(Tok::minus)) {
    const auto kind = advance().kind == Tok::plus ? AxisExpr::Kind::add : AxisExpr::Kind::sub;
    a = axis_op(kind, std::move(a), axis_term());
  }
  return a;
}

AxisExpr Parser::axis_term() {
  AxisExpr a = axis_atom();
  while (at(Tok::star) || at(Tok::slash) || at(Tok::slash_slash)) {
    const Tok t = advance().kind;
    const auto kind = t == Tok::star    ? AxisExpr::Kind::mul
                      : t == Tok::slash ? AxisExpr::Kind::div
                                        : AxisExpr::Kind::floordiv;
    a = axis_op(kind, std::move(a), axis_atom());
  }
  return a;
}

AxisExpr Parser::axis_atom() {
  Depth depth(*this, peek().span);
  const Token& tok = peek();
  AxisExpr a;
  a.span = tok.span;
  if (tok.kind == Tok::ident) {
    a.kind = AxisExpr::Kind::name;
    a.name = std::string(tok.text);
  } else if (tok.kind == Tok::integer) {
    a.kind = AxisExpr::Kind::literal;
    a.value = tok.int_value;
  } else if (tok.kind == Tok::lparen) {
    advance();
    AxisExpr inner = axis();
    inner.span = Span::cover(a.span, expect(Tok::rparen, "`)`").span);
    return inner;
  } else {
    fail("an axis (a dim, a generic axis or a size)");
  }
  advance();
  return a;
}

AxisExpr Parser::axis_op(AxisExpr::Kind kind, AxisExpr a, AxisExpr b) {
  AxisExpr e;
  e.kind = kind;
  e.span = Span::cover(a.span, b.span);
  e.items.push_back(std::move(a));
  e.items.push_back(std::move(b));
  return e;
}

TypeExpr Parser::type() {
  Depth depth(*this, peek().span);
  TypeExpr t;
  const Token& first = peek();
  t.span = first.span;
  if (accept(Tok::lbracket)) {
    t.kind = TypeExpr::Kind::tensor;
    while (!at(Tok::rbracket)) {
      t.axes.push_back(axis());
      accept(Tok::comma);
    }
    t.span = Span::cover(t.span, expect(Tok::rbracket, "an axis or `]`").span);
    if (at(Tok::ident)) {
      const Token& elem = advance();
      t.elem = std::string(elem.text);
      t.elem_span = elem.span;
      t.span = Span::cover(t.span, elem.span);
      if (t.elem == "Index") {
        expect(Tok::lbracket, "`[` and the dim the index ranges over: `Index[C]`");
        t.index_of = axis();
        t.span = Span::cover(t.span, expect(Tok::rbracket, "`]`").span);
      } else if (accept(Tok::lbracket)) {  // a stack of a generic model: `[L] Linear[D, D]`
        type_args(t);
        t.span = Span::cover(t.span, expect(Tok::rbracket, "`,` or `]`").span);
      }
    }
    return t;
  }
  if (accept(Tok::lparen)) {
    t.kind = TypeExpr::Kind::tuple;
    while (!at(Tok::rparen)) {
      t.args.push_back(type());
      if (!accept(Tok::comma)) break;
    }
    t.span = Span::cover(t.span, expect(Tok::rparen, "`,` or `)`").span);
    return t;
  }
  if (at(Tok::ident)) {
    t.kind = TypeExpr::Kind::named;
    t.name = std::string(advance().text);
    if (accept(Tok::lbracket)) {
      type_args(t);
      t.span = Span::cover(t.span, expect(Tok::rbracket, "`,` or `]`").span);
    }
    return t;
  }
  fail("a type: `[axes]`, a record, model or optimiser name, or a tuple");
}

void Parser::type_args(TypeExpr& t) {
  while (!at(Tok::rbracket)) {
    // A type (`[D]`, a tuple, `Linear[D, 4]`), or an axis: a dim, a size
    // or an expression of them; a plain name may be either.
    const bool a_type =
        at(Tok::lbracket) || at(Tok::lparen) || (at(Tok::ident) && peek(1).kind == Tok::lbracket);
    if (a_type) {
      t.args.push_back(type());
      t.axis_args.emplace_back();
    } else {
      AxisExpr a = axis();
      if (a.kind == AxisExpr::Kind::name) {
        TypeExpr named;
        named.kind = TypeExpr::Kind::named;
        named.name = a.name;
        named.span = a.span;
        t.args.push_back(std::move(named));
      } else {
        t.args.emplace_back();  // not a type: the checker reads axis_args
        t.args.back().span = a.span;
      }
      t.axis_args.push_back(std::move(a));
    }
    if (!accept(Tok::comma)) break;
  }
}

}  // namespace ss::syntax
