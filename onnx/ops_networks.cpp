// The layers' ops: MatMul and Gemm (more to come: convolutions, pooling,
// normalisations).
#include <algorithm>
#include <cctype>
#include <map>

#include "onnx/folding.hpp"
#include "onnx/ops.hpp"
#include "onnx/ops_common.hpp"

namespace ss::onnx_import {
namespace {

using TP = onnx::TensorProto;

void matmul(Translator& t) {
  const Value& a = t.need(0);
  const Value& b = t.need(1);
  if (a.onnx_type != TP::FLOAT || b.onnx_type != TP::FLOAT)
    t.unsupported("E2006",
                  "MatMul of " + onnx_type_name(a.onnx_type) + " isn't supported (float32 only)");
  const std::string x = t.operand(a), y = t.operand(b);
  if (a.rank() == 0 || b.rank() == 0) t.unsupported("E2008", "MatMul of a scalar");
  if (b.rank() <= 2) return t.emit(x + " @ " + y);  // tensordot over a's last axis
  const std::size_t batch = std::max(a.rank(), b.rank()) - 2;
  // Operands that are another value scaled, or with its last two axes
  // swapped (PyTorch's attention: q * s and k^T * s): the product of the
  // others, scaled once (scores the library's attention finder knows).
  const Value* base_a = a.derived ? t.value_named(a.derived->from) : nullptr;
  const Value* base_b = b.derived ? t.value_named(b.derived->from) : nullptr;
  if ((base_a || base_b) && a.rank() == b.rank() &&
      std::equal(a.shape.begin(), a.shape.begin() + static_cast<std::ptrdiff_t>(batch),
                 b.shape.begin())) {
    const Value& va = base_a ? *base_a : a;
    const Value& vb = base_b ? *base_b : b;
    const bool swap_a = base_a && a.derived->swapped, swap_b = base_b && b.derived->swapped;
    const double scale = (base_a ? a.derived->scale : 1.0) * (base_b ? b.derived->scale : 1.0);
    const std::string names = join(axis_names(batch, "n"));
    std::string e = "einsum(" + t.operand(va) + ", " + t.operand(vb) + ", " + names +
                    (swap_a ? " k i" : " i k") + ", " + names + (swap_b ? " j k" : " k j") +
                    " -> " + names + " i j)";
    if (scale != 1.0) e += " * " + Translator::literal(static_cast<float>(scale), "f32");
    return t.emit(e);
  }
  // Batched: einsum over the batch axes, broadcast to one shape first.
  std::vector<std::int64_t> out = t.out_shape();
  std::vector<std::int64_t> batch_shape(out.begin(),
                                        out.begin() + static_cast<std::ptrdiff_t>(batch));
  auto widen = [&](const Value& v, const std::string& e, bool vector_is_row) {
    std::vector<std::int64_t> to = batch_shape;
    if (v.rank() == 1) return std::pair{e, v.shape};
    to.push_back(v.shape[v.rank() - 2]);
    to.push_back(v.shape[v.rank() - 1]);
    (void)vector_is_row;
    return std::pair{expand_expr(e, v.shape, to), to};
  };
  auto [ea, sa] = widen(a, x, true);
  auto [eb, sb] = widen(b, y, false);
  const auto batch_names = axis_names(batch, "n");
  std::string pa = join(batch_names), pb = pa, po = pa;
  if (sa.size() == 1)
    pa = "k";
  else
    pa += " i k";
  if (sb.size() == 1)
    pb = "k";
  else
    pb += " k j";
  if (sa.size() != 1) po += " i";
  if (sb.size() != 1) po += " j";
  t.emit("einsum(" + ea + ", " + eb + ", " + pa + ", " + pb + " -> " + po + ")");
}

void gemm(Translator& t) {
  const Value& a = t.need(0);
  const Value& b = t.need(1);
  if (a.onnx_type != TP::FLOAT)
    t.unsupported("E2006",
                  "Gemm of " + onnx_type_name(a.onnx_type) + " isn't supported (float32 only)");
  // ONNX's Gemm inference reads M and N but doesn't hold K or C to them
  // (fuzz_onnx's thirteenth find): the program wouldn't check.
  if (a.rank() != 2 || b.rank() != 2) t.unsupported("E2008", "Gemm's A and B need two axes");
  const bool ta = t.int_attr("transA", 0) != 0, tb = t.int_attr("transB", 0) != 0;
  const std::int64_t m = a.shape[ta ? 1 : 0], ka = a.shape[ta ? 0 : 1];
  const std::int64_t kb = b.shape[tb ? 1 : 0], n = b.shape[tb ? 0 : 1];
  if (!sizes_fit(ka, kb))
    t.unsupported("E2008",
                  "Gemm contracts A's " + std::to_string(ka) + " with B's " + std::to_string(kb));
  if (const Value* c = t.input(2)) {
    const std::int64_t mn[] = {m, n};
    bool broadcasts = c->rank() <= 2;
    for (std::size_t i = 1; broadcasts && i <= c->rank(); ++i) {
      const std::int64_t d = c->shape[c->rank() - i];
      broadcasts = d == 1 || sizes_fit(d, mn[2 - i]);
    }
    if (!broadcasts) t.unsupported("E2008", "Gemm's C doesn't broadcast to [M N]");
  }
  std::string x = t.operand(a), y;
  if (ta) x = transpose_expr(x, {1, 0});
  if (tb && b.constant && b.expr.empty() && !b.frozen && b.rank() == 2) {
    // A weight transposed once, at import, not at every call.
    const auto s = strides_of(b.shape);
    y = t.param_operand(
        gather_flat(*b.constant, {b.shape[1], b.shape[0]},
                    [&](const std::vector<std::int64_t>& i) { return i[0] + i[1] * s[0]; }),
        t.name_of(b), "transposed");
  } else {
    y = t.operand(b);
    if (tb) y = transpose_expr(y, {1, 0});
  }
  std::string e = x + " @ " + y;
  const float alpha = t.float_attr("alpha", 1.0f), beta = t.float_attr("beta", 1.0f);
  if (alpha != 1.0f) e = Translator::literal(alpha, "f32") + " * (" + e + ")";
  if (const Value* c = t.input(2)) {
    std::string z = t.operand(*c);
    if (beta != 1.0f) z = Translator::literal(beta, "f32") + " * " + z;
    e += " + " + z;
  }
  t.emit(e);
}

// Einsum: the equation's letters as the language's einsum patterns; an
// ellipsis as the axes it stands for; without `->`, the letters seen once,
// in alphabetical order (ONNX's rule).
bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

void einsum(Translator& t) {
  std::string eq;
  for (char c : t.string_attr("equation", ""))
    if (c != ' ') eq += c;
  const auto arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (std::size_t at = 0;;) {
    const auto comma = lhs.find(',', at);
    terms.push_back(lhs.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (static_cast<int>(terms.size()) != t.inputs_count())
    t.unsupported("E2008", "the equation names another count of inputs");
  std::size_t ellipsis = 0;  // axes an ellipsis stands for
  std::vector<std::vector<std::string>> patterns;
  std::map<char, int> seen;
  std::map<std::string, std::int64_t> sizes;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const Value& v = t.need(static_cast<int>(i));
    if (v.onnx_type != TP::FLOAT)
      t.unsupported("E2006",
                    "Einsum of " + onnx_type_name(v.onnx_type) + " isn't supported (float32 only)");
    std::vector<std::string> names;
    const std::string& term = terms[i];
    std::size_t letters = 0;
    for (char c : term) letters += std::isalpha(static_cast<unsigned char>(c)) ? 1 : 0;
    for (std::size_t k = 0; k < term.size(); ++k) {
      if (term.compare(k, 3, "...") == 0) {
        const std::size_t n = v.rank() - letters;
        if (ellipsis && n != ellipsis)
          t.unsupported("E2005", "ellipses standing for different counts of axes");
        ellipsis = n;
        for (std::size_t e = 0; e < n; ++e) names.push_back("e" + std::to_string(e));
        k += 2;
      } else {
        const char c = term[k];
        if (!is_letter(c))
          t.unsupported("E2008", "the equation's term `" + term + "` has `" + std::string(1, c) +
                                     "`, not a letter");
        if (std::find(names.begin(), names.end(), std::string(1, c)) != names.end())
          t.unsupported("E2005",
                        "an Einsum repeating an index in one input (a diagonal) isn't supported");
        names.push_back(std::string(1, c));
        ++seen[c];
      }
    }
    if (names.size() != v.rank())
      t.unsupported("E2008", "the equation's term `" + term + "` doesn't fit its input's rank");
    // ONNX's inference doesn't hold an index to one size (fuzz_onnx's
    // sixteenth find): each index, and each axis the ellipsis stands for,
    // has one size across the inputs.
    for (std::size_t a = 0; a < names.size(); ++a) {
      const auto [at, fresh] = sizes.emplace(names[a], v.shape[a]);
      if (!fresh && at->second != v.shape[a])
        t.unsupported("E2008", "the equation's index `" + names[a] + "` is " +
                                   std::to_string(at->second) + " in one input and " +
                                   std::to_string(v.shape[a]) + " in another");
    }
    patterns.push_back(names);
  }
  std::vector<std::string> out;
  if (arrow != std::string::npos) {
    const std::string rhs = eq.substr(arrow + 2);
    for (std::size_t k = 0; k < rhs.size(); ++k) {
      if (rhs.compare(k, 3, "...") == 0) {
        for (std::size_t e = 0; e < ellipsis; ++e) out.push_back("e" + std::to_string(e));
        k += 2;
      } else {
        const std::string c(1, rhs[k]);
        if (!sizes.count(c) || std::find(out.begin(), out.end(), c) != out.end())
          t.unsupported("E2008", "the equation's result `" + rhs +
                                     "` names an index no input has, or one twice");
        out.push_back(c);
      }
    }
  } else {
    for (std::size_t e = 0; e < ellipsis; ++e) out.push_back("e" + std::to_string(e));
    for (const auto& [c, n] : seen)
      if (n == 1) out.push_back(std::string(1, c));
  }
  // ONNX's inference gives the result's rank, not its sizes: the declared
  // output must be what the equation makes.
  std::vector<std::int64_t> made;
  for (const auto& name : out) made.push_back(sizes.at(name));
  if (made != t.out_shape())
    t.unsupported("E2008", "the equation makes a result of another shape than the graph declares");
  std::string e = "einsum(";
  for (int i = 0; i < t.inputs_count(); ++i) e += t.operand(t.need(i)) + ", ";
  for (std::size_t i = 0; i < patterns.size(); ++i) e += (i ? ", " : "") + join(patterns[i]);
  e += " -> " + join(out) + ")";
  if (out.empty()) {  // a full contraction: the language's einsum keeps an axis, sum it away
    e = "sum(" + e.substr(0, e.size() - 1) + "))";
  }
  t.emit(e);
}

}  // namespace

void register_networks(std::map<std::string, Handler>& table) {
  table["MatMul"] = matmul;
  table["Gemm"] = gemm;
  table["Einsum"] = einsum;
}

}  // namespace ss::onnx_import
