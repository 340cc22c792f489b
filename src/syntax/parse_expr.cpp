// Expressions and einops patterns (types: parse_types.cpp).
#include "support/format_spec.hpp"
#include "syntax/lexer.hpp"
#include "syntax/parser_impl.hpp"

namespace ss::syntax {

using diag::Code;

namespace {

ExprPtr binary(std::string op, ExprPtr l, ExprPtr r) {
  auto e = make_expr(ExprKind::binary, Span::cover(l->span, r->span));
  e->text = std::move(op);
  e->items.push_back(std::move(l));
  e->items.push_back(std::move(r));
  return e;
}

bool is_pattern_call(const Expr& callee) {
  return callee.kind == ExprKind::name &&
         (callee.text == "rearrange" || callee.text == "reduce" || callee.text == "repeat");
}

}  // namespace

ExprPtr Parser::expression_list() {
  ExprPtr first = expression();
  if (!at(Tok::comma)) return first;
  auto tuple = make_expr(ExprKind::tuple, first->span);
  tuple->items.push_back(std::move(first));
  while (accept(Tok::comma)) {
    if (at(Tok::newline) || at(Tok::assign)) break;
    tuple->items.push_back(expression());
  }
  tuple->span = Span::cover(tuple->span, tuple->items.back()->span);
  return tuple;
}

ExprPtr Parser::expression() {
  Depth depth(*this, peek().span);
  return pipe();
}

ExprPtr Parser::pipe() {
  ExprPtr l = or_expr();
  Chain chain(*this);
  while (at(Tok::pipe)) {
    chain.link(advance().span);
    l = binary("|>", std::move(l), or_expr());
  }
  return l;
}

ExprPtr Parser::or_expr() {
  ExprPtr l = and_expr();
  Chain chain(*this);
  while (at(Tok::kw_or)) {
    chain.link(advance().span);
    l = binary("or", std::move(l), and_expr());
  }
  return l;
}

ExprPtr Parser::and_expr() {
  ExprPtr l = not_expr();
  Chain chain(*this);
  while (at(Tok::kw_and)) {
    chain.link(advance().span);
    l = binary("and", std::move(l), not_expr());
  }
  return l;
}

ExprPtr Parser::not_expr() {
  if (!at(Tok::kw_not)) return comparison();
  const Token& kw = advance();
  Depth depth(*this, kw.span);
  ExprPtr operand = not_expr();
  auto e = make_expr(ExprKind::unary, Span::cover(kw.span, operand->span));
  e->text = "not";
  e->items.push_back(std::move(operand));
  return e;
}

ExprPtr Parser::comparison() {
  ExprPtr l = additive();
  Chain chain(*this);
  while (true) {
    const Tok kind = peek().kind;
    if (kind != Tok::eq && kind != Tok::ne && kind != Tok::lt && kind != Tok::le &&
        kind != Tok::gt && kind != Tok::ge)
      return l;
    chain.link(peek().span);
    const std::string op(advance().text);
    l = binary(op, std::move(l), additive());
  }
}

ExprPtr Parser::additive() {
  ExprPtr l = multiplicative();
  Chain chain(*this);
  while (at(Tok::plus) || at(Tok::minus)) {
    chain.link(peek().span);
    const std::string op(advance().text);
    l = binary(op, std::move(l), multiplicative());
  }
  return l;
}

ExprPtr Parser::multiplicative() {
  ExprPtr l = unary();
  Chain chain(*this);
  while (at(Tok::star) || at(Tok::slash) || at(Tok::slash_slash) || at(Tok::percent) ||
         at(Tok::at)) {
    chain.link(peek().span);
    const std::string op(advance().text);
    l = binary(op, std::move(l), unary());
  }
  return l;
}

ExprPtr Parser::unary() {
  if (!at(Tok::minus) && !at(Tok::plus)) return power();
  const Token& op = advance();
  Depth depth(*this, op.span);
  ExprPtr operand = unary();
  // A negative literal is a literal, so `over=-1` and `-3` read simply.
  if (op.kind == Tok::minus &&
      (operand->kind == ExprKind::integer || operand->kind == ExprKind::floating) &&
      operand->span.begin == op.span.end) {
    operand->int_value = -operand->int_value;
    operand->float_value = -operand->float_value;
    operand->span = Span::cover(op.span, operand->span);
    return operand;
  }
  auto e = make_expr(ExprKind::unary, Span::cover(op.span, operand->span));
  e->text = std::string(op.text);
  e->items.push_back(std::move(operand));
  return e;
}

ExprPtr Parser::power() {
  ExprPtr base = postfix();
  if (!at(Tok::star_star)) return base;
  advance();
  Depth depth(*this, base->span);
  return binary("**", std::move(base), unary());
}

ExprPtr Parser::postfix() {
  ExprPtr e = atom();
  while (true) {
    if (at(Tok::lparen)) {
      Depth depth(*this, peek().span);
      e = call(std::move(e));
    } else if (at(Tok::lbracket)) {
      Depth depth(*this, peek().span);
      e = index(std::move(e));
    } else if (at(Tok::dot)) {
      advance();
      const Token& field = expect(Tok::ident, "a field's name after `.`");
      auto m = make_expr(ExprKind::member, Span::cover(e->span, field.span));
      m->text = std::string(field.text);
      m->items.push_back(std::move(e));
      e = std::move(m);
    } else {
      return e;
    }
  }
}

ExprPtr Parser::atom() {
  const Token& tok = peek();
  switch (tok.kind) {
    case Tok::ident: {
      advance();
      auto e = make_expr(ExprKind::name, tok.span);
      e->text = std::string(tok.text);
      return e;
    }
    case Tok::integer: {
      advance();
      auto e = make_expr(ExprKind::integer, tok.span);
      e->int_value = tok.int_value;
      e->float_value = static_cast<double>(tok.int_value);
      return e;
    }
    case Tok::floating: {
      advance();
      auto e = make_expr(ExprKind::floating, tok.span);
      e->float_value = tok.float_value;
      return e;
    }
    case Tok::string: {
      advance();
      auto e = make_expr(ExprKind::string, tok.span);
      e->text = tok.string_value;
      return e;
    }
    case Tok::fstring:
      return fstring();
    case Tok::kw_true:
    case Tok::kw_false: {
      advance();
      auto e = make_expr(ExprKind::boolean, tok.span);
      e->bool_value = tok.kind == Tok::kw_true;
      return e;
    }
    case Tok::lparen:
      return paren();
    case Tok::lbracket:
      return bracket_literal();
    case Tok::kw_mut: {
      auto& d =
          r_.error(Code::E0201, tok.span, "expected an expression, found `mut`", "`mut` here");
      d.help = "`mut` marks an argument a function may change: `f(mut m)`";
      throw ParseError{};
    }
    default:
      fail("an expression");
  }
}

ExprPtr Parser::paren() {
  const Token& open = advance();
  auto tuple = make_expr(ExprKind::tuple, open.span);
  bool comma = false;
  while (!at(Tok::rparen)) {
    tuple->items.push_back(expression());
    if (!accept(Tok::comma)) break;
    comma = true;
  }
  const Token& close = expect(Tok::rparen, "`,` or `)`");
  if (tuple->items.size() == 1 && !comma) {
    ExprPtr inner = std::move(tuple->items.front());
    return inner;
  }
  tuple->span = Span::cover(open.span, close.span);
  return tuple;
}

ExprPtr Parser::bracket_literal() {
  const Token& open = advance();
  auto list = make_expr(ExprKind::list, open.span);
  if (!at(Tok::rbracket)) {
    list->items.push_back(expression());
    if (at(Tok::comma)) {
      while (accept(Tok::comma)) {
        if (at(Tok::rbracket)) break;
        list->items.push_back(expression());
      }
    } else if (!at(Tok::rbracket)) {
      // `[D C]`: a shape, its axes side by side.
      list->text = "shape";
      while (!at(Tok::rbracket) && !at(Tok::eof) && !at(Tok::newline))
        list->items.push_back(additive());
    } else if (list->items.front()->kind == ExprKind::name ||
               (list->items.front()->kind == ExprKind::binary &&
                list->items.front()->text == "*")) {
      list->text = "shape";  // `[D]`, `[b*D]`
    }
  } else {
    list->text = "shape";  // `[]`, the scalar's shape
  }
  const Token& close = expect(Tok::rbracket, "`,` or `]`");
  list->span = Span::cover(open.span, close.span);
  return list;
}

ExprPtr Parser::call(ExprPtr callee) {
  advance();  // (
  auto e = make_expr(ExprKind::call, callee->span);
  const bool patterns = is_pattern_call(*callee);
  const bool einsum = callee->kind == ExprKind::name && callee->text == "einsum";
  e->items.push_back(std::move(callee));

  // einsum(a, b, pa, pb -> out): the items up to the `->` are half tensors,
  // half their patterns.
  std::size_t tensors = 0;
  if (einsum) {
    int depth = 0;
    std::size_t commas = 0;
    bool arrow = false;
    for (std::size_t k = pos_;
         k < t_.size() && t_[k].kind != Tok::eof && t_[k].kind != Tok::newline; ++k) {
      const Tok kind = t_[k].kind;
      if (kind == Tok::lparen || kind == Tok::lbracket) ++depth;
      if (kind == Tok::rparen || kind == Tok::rbracket) {
        if (depth == 0) break;
        --depth;
      }
      if (depth == 0 && kind == Tok::comma) ++commas;
      if (depth == 0 && kind == Tok::arrow) {
        arrow = true;
        break;
      }
    }
    if (!arrow) {
      r_.error(Code::E0701, e->span, "`einsum` needs patterns ending in `->` and the output's axes",
               "no `->` in this call")
          .help =
          "write the tensors, then a pattern for each, then `-> output`: `einsum(x, w, b d, d c -> "
          "b c)`";
      throw ParseError{};
    }
    if ((commas + 1) % 2 != 0) {
      r_.error(Code::E0702, e->span,
               "`einsum` has " + std::to_string(commas + 1) +
                   " items before `->`: it needs a pattern per tensor",
               "an odd count")
          .help = "give as many patterns as tensors: `einsum(q, k, b h i d, b h j d -> b h i j)`";
      throw ParseError{};
    }
    tensors = (commas + 1) / 2;
  }

  bool seen_keyword = false;
  std::size_t positional = 0;
  while (!at(Tok::rparen)) {
    if (einsum && positional >= tensors && positional < 2 * tensors) {
      e->items.push_back(pattern_argument(positional == 2 * tensors - 1));
      // One pattern expression holds every group: merge into the first.
      if (positional > tensors) {
        auto group = std::move(e->items.back());
        e->items.pop_back();
        auto& first = *e->items.back();
        first.groups.push_back(std::move(group->groups.front()));
        if (group->output) first.output = std::move(group->output);
        first.span = Span::cover(first.span, group->span);
      }
      ++positional;
    } else if (patterns && positional == 1 && !seen_keyword) {
      e->items.push_back(pattern_argument(true));
      ++positional;
    } else {
      const std::size_t before = e->items.size();
      call_argument(*e, seen_keyword);
      if (e->items.size() > before) ++positional;
    }
    if (!accept(Tok::comma)) break;
  }
  const Token& close = expect(Tok::rparen, "`,` or `)`");
  e->span = Span::cover(e->span, close.span);
  return e;
}

void Parser::call_argument(Expr& call, bool& seen_keyword) {
  if (at_keyword()) {
    KwArg kw = keyword_name();
    kw.value = expression();
    call.kwargs.push_back(std::move(kw));
    seen_keyword = true;
    return;
  }
  ExprPtr arg;
  if (at(Tok::kw_mut)) {
    const Token& kw = advance();
    ExprPtr inner = expression();
    arg = make_expr(ExprKind::mut, Span::cover(kw.span, inner->span));
    arg->items.push_back(std::move(inner));
  } else {
    arg = expression();
  }
  if (seen_keyword) {
    r_.error(Code::E0208, arg->span, "a positional argument after keyword arguments", "positional")
        .help = "put the positional arguments first";
    throw ParseError{};
  }
  call.items.push_back(std::move(arg));
}

PatternGroup Parser::pattern_group() {
  PatternGroup g;
  g.span = peek().span;
  while (true) {
    const Token& tok = peek();
    if (tok.kind == Tok::ident) {
      advance();
      PatternAtom a;
      a.span = tok.span;
      a.names.push_back(std::string(tok.text));
      a.name_spans.push_back(tok.span);
      g.atoms.push_back(std::move(a));
    } else if (tok.kind == Tok::integer && tok.int_value == 1) {
      advance();
      PatternAtom a;
      a.span = tok.span;
      a.unit = true;
      g.atoms.push_back(std::move(a));
    } else if (tok.kind == Tok::integer) {
      r_.error(Code::E0701, tok.span, "`" + std::string(tok.text) + "` in a pattern",
               "a size in the pattern")
          .help = "patterns name axes; give sizes as keyword arguments after the pattern (`h=2`)";
      throw ParseError{};
    } else if (tok.kind == Tok::lparen) {
      const Token& open = advance();
      PatternAtom a;
      a.group = true;
      while (at(Tok::ident)) {
        a.names.push_back(std::string(peek().text));
        a.name_spans.push_back(peek().span);
        advance();
      }
      if (!at(Tok::rparen)) fail("a name or `)` in the pattern's group");
      a.span = Span::cover(open.span, advance().span);
      a.unit = a.names.empty();
      g.atoms.push_back(std::move(a));
    } else {
      break;
    }
    g.span = Span::cover(g.span, g.atoms.back().span);
  }
  return g;
}

ExprPtr Parser::pattern_argument(bool allow_output) {
  auto e = make_expr(ExprKind::pattern, peek().span);
  e->groups.push_back(pattern_group());
  if (allow_output) {
    expect(Tok::arrow, "`->` and the output's axes");
    e->output = pattern_group();
    e->span = Span::cover(e->groups.front().span, e->output->span);
  } else {
    e->span = e->groups.front().span;
  }
  if (!at(Tok::comma) && !at(Tok::rparen)) fail("a name, `(`, `,` or `)` in the pattern");
  return e;
}

ExprPtr Parser::index(ExprPtr base) {
  advance();  // [
  auto e = make_expr(ExprKind::index, base->span);
  e->items.push_back(std::move(base));
  const auto slice_or_expr = [this]() -> ExprPtr {
    const Span start_span = peek().span;
    ExprPtr start;
    if (!at(Tok::colon)) start = expression();
    if (!at(Tok::colon)) return start;
    const Token& colon = advance();
    auto s = make_expr(ExprKind::slice, start ? start->span : colon.span);
    ExprPtr end;
    if (!at(Tok::comma) && !at(Tok::rbracket)) end = expression();
    s->span = Span::cover(Span::cover(start_span, colon.span), end ? end->span : colon.span);
    s->items.push_back(std::move(start));
    s->items.push_back(std::move(end));
    return s;
  };
  while (!at(Tok::rbracket)) {
    if (at_keyword()) {
      KwArg kw = keyword_name();
      kw.value = slice_or_expr();
      e->kwargs.push_back(std::move(kw));
    } else {
      e->items.push_back(slice_or_expr());
    }
    if (!accept(Tok::comma)) break;
  }
  const Token& close = expect(Tok::rbracket, "`,` or `]`");
  e->span = Span::cover(e->span, close.span);
  return e;
}

ExprPtr Parser::fstring() {
  const Token& tok = advance();
  auto e = make_expr(ExprKind::fstring, tok.span);
  const std::string& raw = tok.string_value;
  const std::size_t base = tok.span.begin + 2;  // after f"
  std::string text;
  std::size_t i = 0;
  const auto literal_escape = [&](char c) -> char {
    switch (c) {
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case 'r':
        return '\r';
      case '0':
        return '\0';
      default:
        return c;
    }
  };
  while (i < raw.size()) {
    const char c = raw[i];
    if (c == '\\' && i + 1 < raw.size()) {
      text += literal_escape(raw[i + 1]);
      i += 2;
    } else if (c == '{' && i + 1 < raw.size() && raw[i + 1] == '{') {
      text += '{';
      i += 2;
    } else if (c == '}' && i + 1 < raw.size() && raw[i + 1] == '}') {
      text += '}';
      i += 2;
    } else if (c == '{') {
      // The expression runs to a `:` or `}` outside brackets.
      std::size_t j = i + 1;
      int depth = 0;
      while (j < raw.size() && !(depth == 0 && (raw[j] == '}' || raw[j] == ':'))) {
        if (raw[j] == '(' || raw[j] == '[') ++depth;
        if (raw[j] == ')' || raw[j] == ']') --depth;
        ++j;
      }
      if (j >= raw.size()) {
        r_.error(Code::E0209,
                 {static_cast<std::uint32_t>(base + i), static_cast<std::uint32_t>(base + i + 1)},
                 "this `{` in an f-string is never closed", "opened here")
            .help = "close the expression with `}`; write `{{` for a literal brace";
        throw ParseError{};
      }
      FStringPart part;
      part.text = std::move(text);
      text.clear();
      auto tokens = lex_range(r_.map().text(), base + i + 1, base + j, r_);
      Parser sub(tokens, r_);
      if (sub.at(Tok::newline) || sub.at(Tok::eof)) {
        r_.error(Code::E0209,
                 {static_cast<std::uint32_t>(base + i), static_cast<std::uint32_t>(base + j + 1)},
                 "an empty `{}` in an f-string", "no expression")
            .help = "put an expression in the braces, or write `{{}}` for literal braces";
        throw ParseError{};
      }
      part.expr = sub.expression();
      if (!sub.at(Tok::newline) && !sub.at(Tok::eof))
        sub.fail("`}` or `:` after the f-string's expression");
      std::size_t k = j;
      if (raw[j] == ':') {
        k = raw.find('}', j);
        if (k == std::string::npos) k = raw.size();
        part.spec = raw.substr(j + 1, k - j - 1);
        if (!support::parse_format_spec(part.spec)) {
          r_.error(Code::E0209,
                   {static_cast<std::uint32_t>(base + j + 1), static_cast<std::uint32_t>(base + k)},
                   "unknown format `" + part.spec + "` in an f-string", "not a format")
              .help =
              "a format is [width][.precision][type], the type one of f, e, g, d and %, "
              "each number at most " +
              std::to_string(support::kMaxFormatWidth) + ": `{loss:.4f}`, `{acc:.1%}`";
          throw ParseError{};
        }
      }
      e->parts.push_back(std::move(part));
      i = k + 1;
    } else if (c == '}') {
      r_.error(Code::E0209,
               {static_cast<std::uint32_t>(base + i), static_cast<std::uint32_t>(base + i + 1)},
               "a lone `}` in an f-string", "not closing anything")
          .help = "write `}}` for a literal brace";
      throw ParseError{};
    } else {
      text += c;
      ++i;
    }
  }
  FStringPart tail;
  tail.text = std::move(text);
  e->parts.push_back(std::move(tail));
  return e;
}

}  // namespace ss::syntax
