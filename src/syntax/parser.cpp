#include "syntax/parser.hpp"

#include "syntax/parser_impl.hpp"

namespace ss::syntax {

using diag::Code;

ExprPtr make_expr(ExprKind kind, Span span) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->span = span;
  return e;
}

// ---- tokens ---------------------------------------------------------------

const Token& Parser::peek(int ahead) const {
  const std::size_t at = pos_ + static_cast<std::size_t>(ahead);
  return at < t_.size() ? t_[at] : t_.back();
}

const Token& Parser::advance() {
  const Token& tok = peek();
  if (pos_ + 1 < t_.size()) ++pos_;
  return tok;
}

bool Parser::accept(Tok kind) {
  if (!at(kind)) return false;
  advance();
  return true;
}

const Token& Parser::expect(Tok kind, const std::string& what) {
  if (!at(kind)) fail(what.empty() ? describe(kind) : what);
  return advance();
}

void Parser::fail(const std::string& expected) {
  const Token& tok = peek();
  auto& d = r_.error(Code::E0201, tok.span, "expected " + expected + ", found " + describe(tok),
                     "expected " + expected);
  if (tok.kind == Tok::indent) d.help = "only a line ending in `:` opens an indented block";
  throw ParseError{};
}

void Parser::skip_line() {
  // Skips an indented block, from its indent to its dedent.
  const auto skip_block = [this] {
    int level = 0;
    do {
      const Tok kind = advance().kind;
      if (kind == Tok::indent) ++level;
      if (kind == Tok::dedent) --level;
    } while (level > 0 && !at(Tok::eof));
  };
  while (!at(Tok::eof)) {
    if (at(Tok::dedent)) return;  // the enclosing block ends: its owner takes the dedent
    if (at(Tok::indent)) return skip_block();
    if (advance().kind == Tok::newline) {
      if (at(Tok::indent)) skip_block();
      return;
    }
  }
}

Parser::Depth::Depth(Parser& parser, Span at) : p(parser) {
  if (++p.depth_ > kMaxNesting) {
    p.r_.error(Code::E0205, at, "nesting deeper than " + std::to_string(kMaxNesting) + " levels",
               "too deep")
        .help = "split the expression or block into named steps";
    --p.depth_;
    throw ParseError{};
  }
}

void Parser::Chain::link(Span at) {
  Depth check(p, at);  // E0205 past the bound
  ++p.depth_;          // held until the chain ends
  ++links;
}

// ---- items ----------------------------------------------------------------

void Parser::open_block(const std::string& missing, const std::string& label,
                        const std::string& help) {
  expect(Tok::colon, "`:`");
  expect(Tok::newline, "the end of the line");
  if (!at(Tok::indent)) {
    r_.error(Code::E0206, peek().span, missing, label).help = help;
    throw ParseError{};
  }
  advance();
}

bool Parser::at_keyword() const {
  return at(Tok::ident) && peek(1).kind == Tok::assign;
}

KwArg Parser::keyword_name() {
  KwArg kw;
  const Token& name = advance();
  advance();  // =
  kw.name = std::string(name.text);
  kw.name_span = name.span;
  return kw;
}

Program Parser::program() {
  Program out;
  while (!at(Tok::eof)) {
    if (accept(Tok::newline)) continue;
    const std::size_t start = pos_;
    try {
      item(out);
    } catch (const ParseError&) {
      depth_ = 0;
      if (pos_ == start) advance();
      // Resume at the next line that starts an item.
      while (!at(Tok::eof)) {
        if (item_start() &&
            (pos_ == 0 || t_[pos_ - 1].kind == Tok::newline || t_[pos_ - 1].kind == Tok::dedent))
          break;
        advance();
      }
    }
  }
  return out;
}

bool Parser::at_word(std::string_view word) const {
  return at(Tok::ident) && peek().text == word;
}

bool Parser::item_start() const {
  if (at(Tok::kw_fn)) return true;
  if (at_word("extern") && peek(1).kind == Tok::kw_fn) return true;
  if (!at(Tok::ident) || peek(1).kind != Tok::ident) return false;
  const auto w = peek().text;
  return w == "dim" || w == "data" || w == "model" || w == "devices" || w == "sink";
}

void Parser::item(Program& out) {
  if (at(Tok::kw_fn)) return out.fns.push_back(fn_item(false));
  if (item_start()) {
    const auto w = peek().text;
    if (w == "dim") return out.dims.push_back(dim_item());
    if (w == "devices") return out.devices.push_back(devices_item());
    if (w == "data") return out.data.push_back(data_item());
    if (w == "model") return out.models.push_back(model_item());
    if (w == "sink") return out.sinks.push_back(sink_item());
    if (w == "extern") return out.fns.push_back(fn_item(true));
  }
  const Token& tok = peek();
  auto& d = r_.error(Code::E0204, tok.span, "expected an item, found " + describe(tok),
                     "not `dim`, `devices`, `data`, `model`, `fn`, `extern fn` or `sink`");
  d.help = tok.kind == Tok::indent
               ? "top-level items start in the first column"
               : "statements belong inside a function: `fn main():` and an indented block";
  throw ParseError{};
}

DimItem Parser::dim_item() {
  DimItem d;
  item_head(d, "the dim's name");
  if (accept(Tok::assign)) {
    AxisExpr e = axis();
    d.value_span = e.span;
    d.span = Span::cover(d.span, e.span);
    if (e.kind == AxisExpr::Kind::literal)
      d.value = e.value;
    else
      d.expr = std::move(e);
  }
  expect(Tok::newline, "the end of the line");
  return d;
}

DevicesItem Parser::devices_item() {
  DevicesItem d;
  const Token& kw = advance();
  const Token& kind = expect(Tok::ident, "`cpu` or `cuda`");
  d.kind = std::string(kind.text);
  d.kind_span = kind.span;
  d.span = Span::cover(kw.span, kind.span);
  if (accept(Tok::lbracket)) {
    d.indexed = true;
    while (at(Tok::integer)) {
      d.indices.push_back(peek().int_value);
      d.index_spans.push_back(peek().span);
      advance();
      accept(Tok::comma);
    }
    d.span = Span::cover(d.span, expect(Tok::rbracket, "a device index or `]`").span);
  }
  expect(Tok::newline, "the end of the line");
  return d;
}

DataItem Parser::data_item() {
  DataItem d;
  item_head(d, "the record's name");
  open_block("`data " + d.name + ":` needs an indented block of fields",
             "expected an indented field", "list the fields below it, indented: `    x: [D]`");
  while (!at(Tok::dedent) && !at(Tok::eof)) {
    try {
      FieldDecl f;
      const Token& field = expect(Tok::ident, "a field's name");
      f.name = std::string(field.text);
      f.name_span = field.span;
      expect(Tok::colon, "`:` and the field's type");
      f.type = type();
      expect(Tok::newline, "the end of the line");
      d.fields.push_back(std::move(f));
    } catch (const ParseError&) {
      skip_line();
    }
  }
  accept(Tok::dedent);
  return d;
}

ModelItem Parser::model_item() {
  ModelItem m;
  item_head(m, "the model's name");
  if (accept(Tok::lbracket)) {  // model Linear[I, O]
    do {
      const Token& dim = expect(Tok::ident, "a dim the model is generic in");
      m.dims.push_back(std::string(dim.text));
      m.dim_spans.push_back(dim.span);
    } while (accept(Tok::comma));
    expect(Tok::rbracket, "`,` or `]`");
  }
  open_block("`model " + m.name + ":` needs an indented block of parameters",
             "expected an indented parameter",
             "list its parameters below it, indented: `    param w: [D C] = normal(std=0.02)`");
  while (!at(Tok::dedent) && !at(Tok::eof)) {
    try {
      MemberDecl member;
      const Token& first = peek();
      member.is_param = at_word("param") && peek(1).kind == Tok::ident;
      if (member.is_param) advance();
      const Token& field = expect(
          Tok::ident, member.is_param ? "the parameter's name" : "`param` or a sub-model's name");
      member.name = std::string(field.text);
      member.name_span = field.span;
      expect(Tok::colon, "`:` and a type");
      member.type = type();
      if (accept(Tok::assign)) member.init = expression();
      member.span = Span::cover(first.span, t_[pos_ - 1].span);
      expect(Tok::newline, "the end of the line");
      m.members.push_back(std::move(member));
    } catch (const ParseError&) {
      skip_line();
    }
  }
  accept(Tok::dedent);
  return m;
}

FnItem Parser::fn_item(bool is_extern) {
  FnItem f;
  f.is_extern = is_extern;
  const Token& first = advance();
  if (is_extern) {
    if (!at_word("fn") && !at(Tok::kw_fn)) fail("`fn` after `extern`");
    advance();
  }
  const Token& name = expect(Tok::ident, "the function's name");
  f.name = std::string(name.text);
  f.name_span = name.span;
  expect(Tok::lparen, "`(` and the parameters");
  while (!at(Tok::rparen)) {
    FnParam p;
    const Token& start = peek();
    if (at(Tok::kw_mut)) {
      p.is_mut = true;
      p.mut_span = advance().span;
    }
    const Token& pname = expect(Tok::ident, "a parameter's name");
    p.name = std::string(pname.text);
    p.name_span = pname.span;
    expect(Tok::colon, "`:` and the parameter's type");
    p.type = type();
    p.span = Span::cover(start.span, p.type.span);
    f.params.push_back(std::move(p));
    if (!accept(Tok::comma)) break;
  }
  const Token& close = expect(Tok::rparen, "`,` or `)`");
  f.span = Span::cover(first.span, close.span);
  if (accept(Tok::arrow)) {
    f.ret = type();
    f.span = Span::cover(f.span, f.ret->span);
  }
  if (is_extern) {
    expect(Tok::newline, "the end of the line (an `extern fn` has no body)");
    return f;
  }
  if (accept(Tok::assign)) {
    f.expr_body = expression_list();
    expect(Tok::newline, "the end of the line");
    return f;
  }
  expect(Tok::colon, "`:` and a block, or `= expression`");
  f.body = block();
  return f;
}

SinkItem Parser::sink_item() {
  SinkItem s;
  item_head(s, "the sink's name");
  expect(Tok::newline, "the end of the line");
  return s;
}

// ---- statements -----------------------------------------------------------

std::vector<Stmt> Parser::block() {
  const Token& colon_end = peek();
  expect(Tok::newline, "the end of the line after `:`");
  if (!at(Tok::indent)) {
    r_.error(Code::E0206, peek().span, "expected an indented block", "the block is missing").help =
        "indent the statements that belong after the line ending in `:`";
    (void)colon_end;
    throw ParseError{};
  }
  Depth depth(*this, peek().span);
  advance();
  std::vector<Stmt> out;
  while (!at(Tok::dedent) && !at(Tok::eof)) {
    if (accept(Tok::newline)) continue;
    try {
      out.push_back(statement());
    } catch (const ParseError&) {
      skip_line();
    }
  }
  accept(Tok::dedent);
  return out;
}

Stmt Parser::statement() {
  Depth depth(*this, peek().span);
  const Token& first = peek();
  Stmt s;
  switch (first.kind) {
    case Tok::kw_for:
      return for_statement();
    case Tok::kw_if:
      return if_statement();
    case Tok::kw_break:
      advance();
      s.kind = StmtKind::break_;
      s.span = first.span;
      expect(Tok::newline, "the end of the line");
      return s;
    case Tok::kw_return:
      advance();
      s.kind = StmtKind::return_;
      if (!at(Tok::newline)) s.value = expression_list();
      s.span = Span::cover(first.span, s.value ? s.value->span : first.span);
      expect(Tok::newline, "the end of the line");
      return s;
    case Tok::indent:
      r_.error(Code::E0202, first.span, "unexpected indented block",
               "indented more than the line above")
          .help = "only a line ending in `:` opens an indented block";
      throw ParseError{};
    default:
      break;
  }

  // `name: Type = value`
  if (first.kind == Tok::ident && peek(1).kind == Tok::colon) {
    s.kind = StmtKind::assign;
    auto target = make_expr(ExprKind::name, first.span);
    target->text = std::string(first.text);
    advance();
    advance();
    s.annotation = type();
    expect(Tok::assign, "`=` and a value");
    s.value = expression_list();
    s.targets.push_back(std::move(target));
    s.span = Span::cover(first.span, s.value->span);
    expect(Tok::newline, "the end of the line");
    return s;
  }

  ExprPtr e = expression_list();
  if (accept(Tok::assign)) {
    s.kind = StmtKind::assign;
    if (e->kind == ExprKind::tuple) {
      if (e->items.empty()) {  // `() = ...`: nothing to bind
        r_.error(Code::E0207, e->span, "can't assign to `()`", "no names").help =
            "assign to a name (`x = ...`) or several names (`a, b = ...`)";
        throw ParseError{};
      }
      for (auto& item : e->items) s.targets.push_back(std::move(item));
    } else {
      s.targets.push_back(std::move(e));
    }
    for (const auto& target : s.targets) {
      if (target->kind != ExprKind::name && target->kind != ExprKind::member) {
        r_.error(Code::E0207, target->span, "can't assign to this", "not a name or a field").help =
            "assign to a name (`x = ...`), several names (`a, b = ...`) or a model's field (`m.w = "
            "...`)";
        throw ParseError{};
      }
    }
    s.value = expression_list();
    s.span = Span::cover(s.targets.front()->span, s.value->span);
  } else {
    s.kind = StmtKind::expr;
    s.span = e->span;
    s.value = std::move(e);
  }
  expect(Tok::newline, "the end of the line");
  return s;
}

Stmt Parser::for_statement() {
  Stmt s;
  s.kind = StmtKind::for_;
  const Token& kw = advance();
  const Token& var = expect(Tok::ident, "the loop's variable");
  s.loop_var = std::string(var.text);
  s.loop_var_span = var.span;
  expect(Tok::kw_in, "`in`");
  s.value = expression();
  s.span = Span::cover(kw.span, s.value->span);
  expect(Tok::colon, "`:` and the loop's block");
  s.body = block();
  return s;
}

Stmt Parser::if_statement() {
  Stmt s;
  s.kind = StmtKind::if_;
  const Token& kw = advance();
  s.value = expression();
  s.span = Span::cover(kw.span, s.value->span);
  expect(Tok::colon, "`:` and the block");
  s.body = block();
  if (at(Tok::kw_else)) {
    advance();
    s.has_else = true;
    if (at(Tok::kw_if)) {
      s.else_body.push_back(if_statement());
    } else {
      expect(Tok::colon, "`:` or `if`");
      s.else_body = block();
    }
  }
  return s;
}

Program parse(const std::vector<Token>& tokens, diag::Reporter& reporter) {
  return Parser(tokens, reporter).program();
}

}  // namespace ss::syntax
