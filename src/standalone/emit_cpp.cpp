#include "standalone/emit_cpp.hpp"

#include <sstream>

#include "ir/attributes.hpp"
#include "runtime/core/executor.hpp"
#include "standalone/cpp_names.hpp"
#include "standalone/emit_formulas.hpp"

extern const unsigned char ss_standalone_runtime[];

namespace ss::standalone {
namespace {

using types::Factor;

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string number(double x) {
  if (x != x) return "std::numeric_limits<double>::quiet_NaN()";
  if (x == 1.0 / 0.0) return "std::numeric_limits<double>::infinity()";
  if (x == -1.0 / 0.0) return "-std::numeric_limits<double>::infinity()";
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}

// An axis part's [first, last) as C++ expressions, the axis' size being `size`.
std::pair<std::string, std::string> part_bounds(const ir::AxisPart& part, const std::string& size) {
  const std::string start = std::to_string(part.start);
  if (part.index) {
    const std::string at = part.start < 0 ? "(" + start + " + " + size + ")" : start;
    return {at, at + " + 1"};
  }
  return {start,
          part.from_end ? size + " - " + std::to_string(part.end) : std::to_string(part.end)};
}

std::string strings(const std::vector<std::string>& names) {
  std::string out = "{";
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + quoted(names[i]);
  return out + "}";
}

std::string groups(const std::vector<std::vector<std::string>>& gs) {
  std::string out = "{";
  for (std::size_t i = 0; i < gs.size(); ++i) out += (i ? ", " : "") + strings(gs[i]);
  return out + "}";
}

std::string ints(const std::vector<std::int64_t>& xs) {
  std::string out = "{";
  for (std::size_t i = 0; i < xs.size(); ++i) out += (i ? ", " : "") + std::to_string(xs[i]);
  return out + "}";
}

class Emitter {
 public:
  Emitter(const ir::Program& p, std::ostringstream& out) : p_(p), out_(out) {}

  // One function; false (with *bad) at a node the runtime lacks. Its
  // loops' bodies come first, each a function of its own (`cpp`: the C++
  // name, the program's made safe when empty).
  bool function(const std::string& name, const ir::Graph& g, Unsupported* bad,
                std::string cpp = {}) {
    if (cpp.empty()) cpp = cpp_name(name);
    std::map<std::size_t, std::string> bodies;
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
      if (g.nodes[i].body) {  // a loop's, or a fused node's composition
        bodies[i] = cpp + (g.nodes[i].op == ir::Op::loop ? "_loop" : "_body") + std::to_string(i);
        if (!function(name, *g.nodes[i].body, bad, bodies[i])) return false;
      }
    out_ << "// `" << name << "`: its inputs by name, its outputs in order.\n"
         << "inline std::vector<ssa::Tensor> " << cpp
         << "(const std::map<std::string, ssa::Tensor>& in) {\n"
         << "  std::map<std::string, std::int64_t> s;  // the generic axes' sizes\n";
    for (const int id : g.inputs) {  // each generic axis, from an input that has it alone
      const auto& n = g.nodes[static_cast<std::size_t>(id)];
      for (std::size_t k = 0; k < n.type.axes.size(); ++k) {
        const auto& f = n.type.axes[k].factors;
        if (f.size() == 1 && f[0].kind == Factor::Kind::generic)
          out_ << "  if (!s.count(" << quoted(f[0].name) << ")) s[" << quoted(f[0].name)
               << "] = in.at(" << quoted(n.name) << ").shape.at(" << k << ");\n";
      }
    }
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      const auto& n = g.nodes[i];
      std::string e;
      if (n.op == ir::Op::loop && !dtype(n).empty()) {
        loop(i, n, bodies.at(i));
        continue;
      }
      if (n.op == ir::Op::loop_part)
        e = "l" + std::to_string(n.in.at(0)) + "[" + std::to_string(static_cast<int>(n.number)) +
            "]";
      else if (n.body)  // attention: the composition, its function called once
        e = composed(n, bodies.at(i));
      else if (!node(n, e) || dtype(n).empty()) {
        *bad = {name, ir::op_name(n.op), n.span};
        return false;
      }
      out_ << "  const ssa::Tensor v" << i << " = ssa::cast(" << e << ", " << dtype(n) << ");\n";
    }
    out_ << "  return {";
    for (std::size_t k = 0; k < g.outputs.size(); ++k)
      out_ << (k ? ", " : "") << "v" << g.outputs[k];
    out_ << "};\n}\n";
    out_ << "// What `" << name << "`'s outputs after its results update (\"m.w1\").\n"
         << "inline const std::vector<std::string> " << cpp << "_updated = " << strings(g.updated)
         << ";\n\n";
    return true;
  }

 private:
  // A loop node: all its outputs in l<i>, its own (output 0) in v<i>.
  void loop(std::size_t i, const ir::Node& n, const std::string& body) {
    const ir::LoopShape shape = ir::loop_of(n);
    std::vector<std::string> names;
    for (const int id : n.body->inputs)
      names.push_back(n.body->nodes[static_cast<std::size_t>(id)].name);
    std::string in = "{";
    for (std::size_t k = 0; k < n.in.size(); ++k) in += (k ? ", &" : "&") + v(n.in[k]);
    in += "}";
    out_ << "  const std::vector<ssa::Tensor> l" << i << " = ssa::loop(" << body << ", "
         << strings(names) << ", " << in << ", " << shape.carries << ", " << shape.stacked << ", "
         << (shape.reverse ? "true" : "false") << ", " << ints(shape.axes) << ", "
         << ints(shape.result_axes) << ");\n"
         << "  const ssa::Tensor v" << i << " = ssa::cast(l" << i << "[0], " << dtype(n) << ");\n";
  }

  // A fused node's value: its body's function of its inputs by name.
  std::string composed(const ir::Node& n, const std::string& body) const {
    std::string in = "{";
    for (std::size_t k = 0; k < n.in.size(); ++k) {
      const auto& name = n.body->nodes[static_cast<std::size_t>(n.body->inputs[k])].name;
      in += std::string(k ? ", " : "") + "{" + quoted(name) + ", " + v(n.in[k]) + "}";
    }
    return body + "(" + in + "})[0]";
  }

  static std::string v(int id) { return "v" + std::to_string(id); }

  std::string dtype(const ir::Node& n) const {
    switch (runtime::dtype_of(n.type.elem)) {
      case runtime::DType::f32:
        return "ssa::F32";
      case runtime::DType::i32:
        return "ssa::I32";
      case runtime::DType::boolean:
        return "ssa::BOOL";
      default:
        return "";  // bf16, f16: not in the tiny runtime
    }
  }

  // An axis's size as an expression over `s` and the dims.
  std::string size(const types::Axis& axis) const {
    std::string e = "std::int64_t{1}";
    for (const auto& f : axis.factors) {
      if (f.kind == Factor::Kind::literal)
        e += " * " + std::to_string(f.value);
      else if (f.kind == Factor::Kind::dim)
        e += " * " + std::to_string(p_.dims.at(f.name).value_or(0));
      else
        e += " * s.at(" + quoted(f.name) + ")";
    }
    return e;
  }
  std::string shape(const types::Type& t) const {
    std::string out = "ssa::Shape{";
    for (std::size_t k = 0; k < t.axes.size(); ++k) out += (k ? ", " : "") + size(t.axes[k]);
    return out + "}";
  }

  bool node(const ir::Node& n, std::string& e) const {
    using ir::Op;
    const auto a = [&](std::size_t k) { return v(n.in.at(k)); };
    // An op ir/ops.def's `standalone` column gives a reason for is E1808 (a
    // new op is, until this switch has its case and the column says kRuns).
    if (ir::op_info(n.op).standalone) return false;
    switch (n.op) {
      case Op::input:
        e = "in.at(" + quoted(n.name) + ")";
        return true;
      case Op::constant:
        e = "ssa::fill(" + dtype(n) + ", {}, " + number(n.number) + ")";
        return true;
      case Op::size: {
        std::string known;
        if (const auto d = p_.dims.find(n.name); d != p_.dims.end() && d->second)
          known = std::to_string(*d->second);
        e = "ssa::fill(ssa::I32, {}, static_cast<double>(" +
            (known.empty() ? "s.at(" + quoted(n.name) + ")" : known) + "))";
        return true;
      }
      case Op::fill:
        e = "ssa::fill(" + dtype(n) + ", " + shape(n.type) + ", " + number(n.number) + ")";
        return true;
      case Op::literal: {
        std::string values = "{";
        for (std::size_t k = 0; k < n.values.size(); ++k)
          values += (k ? ", " : "") + number(n.values[k]);
        e = "ssa::of(" + dtype(n) + ", " + shape(n.type) + ", " + values + "})";
        return true;
      }
      case Op::arange:
        e = "ssa::arange(" + size(n.type.axes.at(0)) + ")";
        return true;
      case Op::unary:
        e = "ssa::unary(" + std::to_string(n.sub) + ", " + a(0) + ")";
        return true;
      case Op::binary:
        e = "ssa::binary(" + std::to_string(n.sub) + ", " + a(0) + ", " + a(1) + ")";
        return true;
      case Op::where:
        e = "ssa::where(" + a(0) + ", " + a(1) + ", " + a(2) + ")";
        return true;
      case Op::cast:
        e = a(0);  // the cast to the node's type follows every node
        if (n.type.elem.kind == types::ElemKind::index)  // Index[C](x) checks its range
          e = "[&] { auto t = ssa::cast(" + a(0) + ", ssa::I32); ssa::check_range(t, " +
              size(*n.type.elem.index_of) + "); return t; }()";
        return true;
      case Op::causal:
        e = "ssa::causal(" + a(0) + ")";
        return true;
      case Op::layer_norm:
      case Op::rms_norm:
        e = std::string(n.op == Op::layer_norm ? "ssa::layer_norm(" : "ssa::rms_norm(") + a(0) +
            ", " + std::to_string(n.axes[0]) + ", " + number(n.number) + ")";
        return true;
      case Op::gather:
        e = "ssa::gather(" + a(0) + ", " + a(1) + ")";
        return true;
      case Op::scatter_add:
        e = "ssa::scatter_add(" + a(0) + ", " + a(1) + ", " + shape(n.type) + ")";
        return true;
      case Op::take_along:
        e = "ssa::take_along(" + a(0) + ", " + a(1) + ", " + std::to_string(n.axes[0]) + ")";
        return true;
      case Op::index:
        e = "ssa::index(" + a(0) + ", " + std::to_string(n.axes[0]) + ", " +
            std::to_string(ir::axis_part(n).start) + ")";
        return true;
      case Op::slice: {
        const auto part = ir::axis_part(n);
        const std::string axis = std::to_string(part.axis);
        const auto [start, end] = part_bounds(part, a(0) + ".shape[" + axis + "]");
        e = "ssa::slice(" + a(0) + ", " + axis + ", " + start + ", " + end + ")";
        return true;
      }
      case Op::place: {  // an index's values gain the axis back
        const auto part = ir::axis_part(n);
        const std::string axis = std::to_string(part.axis);
        const std::string like = a(1) + ".shape";
        const auto [start, end] = part_bounds(part, like + "[" + axis + "]");
        e = "ssa::place(" + a(0) + ", " + like + ", " + axis + ", " + start + ", " + end + ")";
        return true;
      }
      case Op::concat:
      case Op::stack: {
        std::string xs = "{";
        for (std::size_t k = 0; k < n.in.size(); ++k) xs += (k ? ", &" : "&") + a(k);
        e = n.op == Op::concat ? "ssa::concat(" + xs + "}, " + std::to_string(n.axes[0]) + ")"
                               : "ssa::stack(" + xs + "})";
        return true;
      }
      case Op::pad: {
        const auto pad = ir::pad_of(n);
        e = "ssa::pad(" + a(0) + ", " + std::to_string(pad.axis) + ", " +
            std::to_string(pad.before) + ", " + std::to_string(pad.after) + ", " +
            number(pad.value) + ")";
        return true;
      }
      case Op::sort:
      case Op::argsort:
        e = "ssa::sort(" + a(0) + ", " + std::to_string(n.axes[0]) + ", " +
            (n.op == Op::argsort ? "true" : "false") + ")";
        return true;
      case Op::matmul:
        e = "ssa::matmul(" + a(0) + ", " + a(1) + ")";
        return true;
      case Op::reduce:
        e = "ssa::reduce(" + std::to_string(n.sub) + ", " + a(0) + ", " + ints(n.axes) + ", " +
            (n.keep ? "true" : "false") + ")";
        return true;
      case Op::argmax:
        e = "ssa::argmax(" + a(0) + ", " + std::to_string(n.axes[0]) + ", " +
            (n.keep ? "true" : "false") + ")";
        return true;
      case Op::softmax:
      case Op::log_softmax:
        e = std::string(n.op == Op::softmax ? "ssa::softmax(" : "ssa::log_softmax(") + a(0) + ", " +
            std::to_string(n.axes[0]) + ")";
        return true;
      case Op::cross_entropy:
        e = "ssa::cross_entropy(" + a(0) + ", " + a(1) + ", " + std::to_string(n.axes[0]) + ", " +
            (n.sub == 1 ? "true" : "false") + ")";
        return true;
      case Op::einsum: {
        std::string xs = "{", names = "{";
        for (std::size_t k = 0; k < n.in.size(); ++k) {
          std::vector<std::string> flat;
          for (const auto& g : n.groups_in[k]) flat.insert(flat.end(), g.begin(), g.end());
          xs += (k ? ", &" : "&") + a(k);
          names += (k ? ", " : "") + strings(flat);
        }
        std::vector<std::string> out;
        for (const auto& g : n.groups_out) out.insert(out.end(), g.begin(), g.end());
        e = "ssa::einsum(" + xs + "}, " + names + "}, " + strings(out) + ")";
        return true;
      }
      case Op::einops: {
        std::string known = "{";
        bool first = true;
        for (const auto& [name, axis] : n.sizes) {
          bool fixed = true;
          for (const auto& f : axis.factors) fixed = fixed && f.kind != Factor::Kind::generic;
          if (!fixed) continue;  // the runtime infers it from the input's shape
          known += (first ? "{" : ", {") + quoted(name) + ", " + size(axis) + "}";
          first = false;
        }
        e = "ssa::einops(" + a(0) + ", " + groups(n.groups_in.at(0)) + ", " + groups(n.groups_out) +
            ", " + known + "}, " + quoted(n.name) + ")";
        return true;
      }
      case Op::all_reduce:  // one device holds every part
        e = a(0);
        return true;
      case Op::window:
      case Op::window_fold: {
        std::string axes = "{";
        const ir::Window w = ir::window_of(n);
        for (std::size_t k = 0; k < w.axes.size(); ++k) {
          const auto& wa = w.axes[k];
          axes += (k ? ", {" : "{") + std::to_string(wa.axis) + ", " + std::to_string(wa.size) +
                  ", " + std::to_string(wa.stride) + ", " + std::to_string(wa.dilation) + ", " +
                  std::to_string(wa.before) + ", " + std::to_string(wa.after) + "}";
        }
        axes += "}";
        e = n.op == Op::window ? "ssa::window(" + a(0) + ", " + axes + ", " + number(w.value) + ")"
                               : "ssa::window_fold(" + a(0) + ", " + a(1) + ".shape, " + axes + ")";
        return true;
      }
      default:  // loop, loop_part and the composed ops (function() writes
        break;  // them), and the column's (above)
    }
    return false;
  }

  const ir::Program& p_;
  std::ostringstream& out_;
};

}  // namespace

Emitted emit_cpp(const ir::Program& program, const std::string& from) {
  std::ostringstream out;
  out << "// Generated by `shapescript build --standalone` from " << from << ".\n"
      << "// Self-contained C++17: the tiny runtime, then namespace model with one\n"
      << "// function per device function of the program.\n"
      << elementwise_formulas() << reinterpret_cast<const char*>(ss_standalone_runtime)
      << "\nnamespace model {\n\n";
  Emitter emitter(program, out);
  std::vector<std::string> emitted;
  // A function that didn't lower has no device code to emit.
  for (const auto& [name, g] : program.graphs) {
    Unsupported bad;
    if (!emitter.function(name, g, &bad)) return {{}, bad};
    emitted.push_back(name);
  }
  bool renamed = false;
  for (const auto& name : emitted)
    if (cpp_name(name) != name) {
      if (!renamed) out << "// Program names that aren't safe C++ names, and what they became:\n";
      out << "//   " << name << " -> " << cpp_name(name) << "\n";
      renamed = true;
    }
  out << "// Every function above, by its program name.\n"
      << "inline const std::map<std::string, std::vector<ssa::Tensor> (*)(\n"
      << "    const std::map<std::string, ssa::Tensor>&)>\n    functions = {";
  for (std::size_t k = 0; k < emitted.size(); ++k)
    out << (k ? ", " : "") << "{" << quoted(emitted[k]) << ", " << cpp_name(emitted[k]) << "}";
  out << "};\n\n}  // namespace model\n";
  return {out.str(), std::nullopt};
}

}  // namespace ss::standalone
