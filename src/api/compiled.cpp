#include "api/compiled.hpp"

#include <algorithm>
#include <set>

#include <variant>

#include "diag/codes.hpp"
#include "diag/reporter.hpp"
#include "support/nearest.hpp"
#include "syntax/lexer.hpp"
#include "syntax/parser.hpp"

namespace ss::api {

std::unique_ptr<Compiled> compile(syntax::SourceFile file, spdlog::logger& log) {
  auto c = std::make_unique<Compiled>();
  c->name = std::move(file.name);
  c->text = std::move(file.text);
  c->map = std::make_unique<diag::SourceMap>(c->name, c->text);
  diag::Reporter reporter(*c->map);
  const auto tokens = syntax::lex(c->text, reporter);
  if (reporter.error_count() == 0) {
    c->program = syntax::parse(tokens, reporter);
    if (reporter.error_count() == 0) c->typed = check::check_program(c->program, reporter);
  }
  log.debug("checked {} ({} bytes): {} error(s)", c->name, c->text.size(), reporter.error_count());
  c->diagnostics = reporter.take();
  return c;
}

namespace {

std::unique_ptr<Compiled> compile_decoded(syntax::SourceOrError source, spdlog::logger& log) {
  if (auto* d = std::get_if<Diagnostic>(&source)) {
    auto c = std::make_unique<Compiled>();
    c->diagnostics.push_back(std::move(*d));
    return c;
  }
  return compile(std::move(std::get<syntax::SourceFile>(source)), log);
}

}  // namespace

std::unique_ptr<Compiled> compile_file(const std::string& path, spdlog::logger& log) {
  return compile_decoded(syntax::read_source_file(path), log);
}

std::unique_ptr<Compiled> compile_text(std::string_view text, std::string_view name,
                                       spdlog::logger& log) {
  return compile_decoded(syntax::decode_source(text, std::string(name)), log);
}

namespace {

// A load-time diagnostic pointed at the source it is about.
void point_at(const Compiled& c, Diagnostic& d, diag::Span span, const std::string& text) {
  d.labels.push_back(c.map->label(span, text, true));
  d.location = d.labels.back().start;
}

bool is_derived(const Compiled& c, const std::string& name) {
  return std::any_of(c.typed.derived_dims.begin(), c.typed.derived_dims.end(),
                     [&](const types::DerivedDim& d) { return d.name == name; });
}

// Sizes the dims from dims once the host has sized those they are made of.
void size_derived_dims(Compiled& c) {
  std::set<std::string> reported;  // an alias and its derived factor are one mistake
  for (const auto& d : c.typed.derived_dims) {
    auto& slot = c.typed.dims[d.name];
    if (slot) continue;
    const auto v =
        types::evaluate(d.expr, [&](const std::string& n) -> std::optional<std::int64_t> {
          const auto it = c.typed.dims.find(n);
          return it == c.typed.dims.end() ? std::nullopt : it->second;
        });
    if (v.status != types::DimValue::Status::ok && v.status != types::DimValue::Status::unknown &&
        !reported.insert(types::text(d.expr)).second)
      continue;
    if (v.status == types::DimValue::Status::not_dividing ||
        v.status == types::DimValue::Status::by_zero) {
      Diagnostic diag = diag::error(
          diag::Code::E0407,
          "`" + types::text(d.expr) + "` is " + v.detail + " with the host's sizes",
          "`/` must divide exactly; write `//` to round down, or give sizes it divides");
      point_at(c, diag, {d.span_start, d.span_end}, "not a whole size");
      c.diagnostics.push_back(std::move(diag));
    } else if (v.status == types::DimValue::Status::overflow) {
      Diagnostic diag = diag::error(diag::Code::E0409,
                                    "`" + d.name + "` = " + types::text(d.expr) +
                                        " passes 2^63 - 1 with the host's sizes: " + v.detail,
                                    "sizes are 64-bit integers: give smaller sizes");
      point_at(c, diag, {d.span_start, d.span_end}, "too large a size");
      c.diagnostics.push_back(std::move(diag));
    } else if (v.status == types::DimValue::Status::ok && v.value <= 0) {
      Diagnostic diag = diag::error(diag::Code::E0402,
                                    "`" + d.name + "` = " + types::text(d.expr) + " is " +
                                        std::to_string(v.value) + " with the host's sizes",
                                    "a dim's size is 1 or more");
      point_at(c, diag, {d.span_start, d.span_end}, "not a positive size");
      c.diagnostics.push_back(std::move(diag));
    } else if (v.status == types::DimValue::Status::ok) {
      slot = v.value;
    }
  }
}

// The window sizes the checker left for load (`out=` naming a dim the host
// sizes): each as floor((n + 2p - d(k-1) - 1) / s) + 1.
void check_window_sizes(Compiled& c) {
  const auto size = [&](const types::Axis& a) { return types::static_size(a, c.typed.dims); };
  for (const auto& w : c.typed.window_checks) {
    const auto n = size(w.n), k = size(w.k), out = size(w.out);
    if (!n || !k || !out) continue;  // E0404 names the dim still unsized
    const types::WindowSize ws{*n, *k, w.stride, w.dilation, w.before, w.after};
    if (ws.result() == *out) continue;
    Diagnostic d =
        diag::error(diag::Code::E0722,
                    "`" + w.op + "` leaves " + w.n.str() + " at " + ws.formula() +
                        " with the host's sizes, but `out=` names " + w.out.str() + " = " +
                        std::to_string(*out),
                    "give sizes that fit, or name a dim of size " + std::to_string(ws.result()));
    point_at(c, d, {w.span_begin, w.span_end}, "should be " + std::to_string(ws.result()));
    c.diagnostics.push_back(std::move(d));
  }
}

}  // namespace

void apply_dims(Compiled& c, const std::map<std::string, std::int64_t>& dims) {
  if (!c.ok()) return;
  for (const auto& [name, size] : dims) {
    const auto it = c.typed.dims.find(name);
    if (it != c.typed.dims.end() && is_derived(c, name)) {
      c.diagnostics.push_back(diag::error(
          diag::Code::E0406, "dim `" + name + "` is made from other dims",
          "size the dims it is made of; a dim declared `dim " + name + " = ...` follows them"));
    } else if (it == c.typed.dims.end()) {
      c.diagnostics.push_back(
          diag::error(diag::Code::E0405, "`" + c.name + "` declares no dim `" + name + "`",
                      "size the program's own dims, those declared `dim NAME`"));
    } else if (size <= 0) {
      c.diagnostics.push_back(diag::error(diag::Code::E0402,
                                          "dim `" + name + "` given size " + std::to_string(size),
                                          "a dim's size is 1 or more"));
    } else if (it->second && *it->second != size) {
      c.diagnostics.push_back(diag::error(
          diag::Code::E0406,
          "dim `" + name + "` is " + std::to_string(*it->second) + " in the program, given " +
              std::to_string(size),
          "only a dim declared without a size (`dim " + name + "`) takes one from the host"));
    } else {
      it->second = size;
    }
  }
  if (c.ok()) size_derived_dims(c);
  if (c.ok()) check_window_sizes(c);
}

std::string unknown_function_help(const check::TypedProgram& program, const std::string& name,
                                  bool device_only) {
  std::vector<std::string> names;
  for (const auto& [fn, info] : program.functions)
    if (!info.item->is_extern && !(device_only && info.controller)) names.push_back(fn);
  if (names.empty()) return "the program has no function to call";
  return support::nearest_names(name, names,
                                device_only ? "its device functions are" : "its functions are");
}

void check_sinks(Compiled& c, const std::vector<std::string>& bound) {
  if (!c.ok()) return;
  for (const auto& [name, span] : c.typed.sinks) {
    if (std::find(bound.begin(), bound.end(), name) != bound.end()) continue;
    Diagnostic d =
        diag::error(diag::Code::E1705, "the sink `" + name + "` has no destination",
                    "this host keeps every record: bind it (`--sink " + name + "=" + name +
                        ".csv`, or .jsonl, on the command line; LoadOptions::sinks from a host)");
    point_at(c, d, span, "declared here");
    c.diagnostics.push_back(std::move(d));
  }
}

std::vector<Diagnostic> unsized_dims(const Compiled& c) {
  std::vector<Diagnostic> out;
  for (const auto& item : c.program.dims) {
    const auto it = c.typed.dims.find(item.name);
    if (it == c.typed.dims.end() || it->second || item.expr) continue;
    Diagnostic d = diag::error(diag::Code::E0404, "dim `" + item.name + "` has no size",
                               "give it one: `--dim " + item.name +
                                   "=32000` on the command line, or "
                                   "LoadOptions::dims from a host");
    point_at(c, d, item.span, "declared without a size");
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace ss::api
