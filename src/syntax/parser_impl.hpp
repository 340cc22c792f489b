// The parser's state, shared by its files: parser.cpp (items, statements),
// parse_expr.cpp (expressions, patterns) and parse_types.cpp (types).
#pragma once

#include "syntax/parser.hpp"

namespace ss::syntax {

// Thrown after an error has been reported; caught where the parser resumes.
struct ParseError {};

class Parser {
 public:
  Parser(const std::vector<Token>& tokens, diag::Reporter& reporter) : t_(tokens), r_(reporter) {}

  Program program();

  // Items and statements (parser.cpp)
  void item(Program& out);
  DimItem dim_item();
  DevicesItem devices_item();
  DataItem data_item();
  ModelItem model_item();
  FnItem fn_item(bool is_extern);
  SinkItem sink_item();
  std::vector<Stmt> block();
  // `KEYWORD NAME` opening an item: fills its name, name_span and span.
  template <typename Item>
  void item_head(Item& item, const char* what) {
    const Token& kw = advance();
    const Token& name = expect(Tok::ident, what);
    item.name = std::string(name.text);
    item.name_span = name.span;
    item.span = Span::cover(kw.span, name.span);
  }
  // `:`, the end of the line and an indent; E0206 (`missing`) without one.
  void open_block(const std::string& missing, const std::string& label, const std::string& help);
  Stmt statement();
  Stmt for_statement();
  Stmt if_statement();

  // Expressions and patterns (parse_expr.cpp), types (parse_types.cpp)
  ExprPtr expression();       // a single expression, pipes included
  ExprPtr expression_list();  // `a, b` as a tuple when there is a comma
  TypeExpr type();
  void type_args(TypeExpr& t);  // a named type's bracketed arguments, up to the `]`
  AxisExpr axis();
  AxisExpr axis_term();
  AxisExpr axis_atom();
  static AxisExpr axis_op(AxisExpr::Kind kind, AxisExpr a, AxisExpr b);

 private:
  ExprPtr pipe();
  ExprPtr or_expr();
  ExprPtr and_expr();
  ExprPtr not_expr();
  ExprPtr comparison();
  ExprPtr additive();
  ExprPtr multiplicative();
  ExprPtr unary();
  ExprPtr power();
  ExprPtr postfix();
  ExprPtr atom();
  ExprPtr call(ExprPtr callee);
  ExprPtr index(ExprPtr base);
  ExprPtr bracket_literal();
  ExprPtr paren();
  ExprPtr fstring();
  void call_argument(Expr& call, bool& seen_keyword);
  ExprPtr pattern_argument(bool allow_output);
  PatternGroup pattern_group();

 public:
  // Tokens
  const Token& peek(int ahead = 0) const;
  bool at(Tok kind) const { return peek().kind == kind; }
  const Token& advance();
  bool accept(Tok kind);
  bool at_word(std::string_view word) const;  // an identifier spelt so
  bool item_start() const;                    // `dim D`, `data X`, `fn`, ... at the cursor
  bool at_keyword() const;                    // `name=` starts here
  KwArg keyword_name();                       // reads `name=`; the caller reads the value
  const Token& expect(Tok kind, const std::string& what);
  [[noreturn]] void fail(const std::string& expected);
  void skip_line();  // to after the next newline, skipping nested blocks

  // Nesting depth, bounded by kMaxNesting
  struct Depth {
    Parser& p;
    explicit Depth(Parser& parser, Span at);
    ~Depth() { --p.depth_; }
  };
  // A left-associative chain (a - b + c ...): each operator deepens the
  // tree one level on its left, counted like a bracket until the chain
  // ends, so no input builds a tree deeper than the later stages' recursion
  // can walk (fuzz_source's find: a chain of some 800 operators overflowed
  // lowering's stack).
  struct Chain {
    Parser& p;
    int links = 0;
    explicit Chain(Parser& parser) : p(parser) {}
    Chain(const Chain&) = delete;
    Chain& operator=(const Chain&) = delete;
    void link(Span at);  // one operator more: E0205 past kMaxNesting
    ~Chain() { p.depth_ -= links; }
  };

  diag::Reporter& reporter() { return r_; }

 private:
  const std::vector<Token>& t_;
  diag::Reporter& r_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

ExprPtr make_expr(ExprKind kind, Span span);

}  // namespace ss::syntax
