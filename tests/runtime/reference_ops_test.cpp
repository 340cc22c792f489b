// Every reference operation against numpy's values (tests/goldens, made by
// make_reference_goldens.py): odd sizes, broadcasting, every reduction.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <sstream>

#include "runtime/reference/ops.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

namespace {

using namespace ss::runtime;
namespace ref = ss::runtime::reference;

struct GoldenCase {
  std::string name, op;
  std::map<std::string, std::string> attrs;
  std::vector<Tensor> inputs;
  Tensor output;
};

DType parse_dtype(const std::string& s) {
  if (s == "f32") return DType::f32;
  if (s == "bf16") return DType::bf16;
  if (s == "f16") return DType::f16;
  if (s == "i32") return DType::i32;
  if (s == "bool") return DType::boolean;
  throw std::runtime_error("unknown dtype " + s);
}

Tensor read_tensor(std::istringstream& header, std::istream& in) {
  std::string dtype;
  header >> dtype;
  Shape shape;
  for (std::int64_t d; header >> d;) shape.push_back(d);
  std::string line;
  std::getline(in, line);
  std::istringstream values(line);
  std::vector<double> v;
  for (std::string word; values >> word;) v.push_back(std::strtod(word.c_str(), nullptr));
  REQUIRE(static_cast<std::int64_t>(v.size()) == element_count(shape));
  return Tensor::from_values(parse_dtype(dtype), shape, v);
}

std::vector<GoldenCase> load_goldens() {
  std::istringstream in(
      ss::test::read_file(std::string(ss::test::kSourceDir) + "/tests/goldens/reference_ops.txt"));
  std::vector<GoldenCase> cases;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string key;
    words >> key;
    if (key == "case") {
      cases.emplace_back();
      cases.back().name = line.substr(5);
    } else if (key == "op") {
      words >> cases.back().op;
    } else if (key == "attr") {
      std::string k, v;
      words >> k >> v;
      cases.back().attrs[k] = v;
    } else if (key == "input") {
      cases.back().inputs.push_back(read_tensor(words, in));
    } else if (key == "output") {
      cases.back().output = read_tensor(words, in);
    }
  }
  return cases;
}

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, by);) out.push_back(part);
  return out;
}

ref::Unary unary_op(const std::string& n) {
  static const std::map<std::string, ref::Unary> ops = {
      {"neg", ref::Unary::neg},         {"exp", ref::Unary::exp},   {"log", ref::Unary::log},
      {"sqrt", ref::Unary::sqrt},       {"abs", ref::Unary::abs},   {"tanh", ref::Unary::tanh},
      {"sigmoid", ref::Unary::sigmoid}, {"relu", ref::Unary::relu}, {"gelu", ref::Unary::gelu}};
  return ops.at(n);
}

ref::Binary binary_op(const std::string& n) {
  static const std::map<std::string, ref::Binary> ops = {{"add", ref::Binary::add},
                                                         {"sub", ref::Binary::sub},
                                                         {"mul", ref::Binary::mul},
                                                         {"div", ref::Binary::div},
                                                         {"pow", ref::Binary::pow},
                                                         {"mod", ref::Binary::mod},
                                                         {"floordiv", ref::Binary::floordiv},
                                                         {"maximum", ref::Binary::maximum},
                                                         {"minimum", ref::Binary::minimum},
                                                         {"lt", ref::Binary::lt},
                                                         {"le", ref::Binary::le},
                                                         {"gt", ref::Binary::gt},
                                                         {"ge", ref::Binary::ge},
                                                         {"eq", ref::Binary::eq},
                                                         {"ne", ref::Binary::ne},
                                                         {"logical_and", ref::Binary::logical_and},
                                                         {"logical_or", ref::Binary::logical_or}};
  return ops.at(n);
}

ref::Reduce reduce_op(const std::string& n) {
  static const std::map<std::string, ref::Reduce> ops = {
      {"sum", ref::Reduce::sum}, {"mean", ref::Reduce::mean},           {"max", ref::Reduce::max},
      {"min", ref::Reduce::min}, {"logsumexp", ref::Reduce::logsumexp}, {"var", ref::Reduce::var},
      {"std", ref::Reduce::std}};
  return ops.at(n);
}

Tensor run(const GoldenCase& c) {
  const auto& in = c.inputs;
  const auto attr = [&](const char* k) { return c.attrs.at(k); };
  const auto integer = [&](const char* k) { return std::stoll(attr(k)); };
  if (c.op == "unary") return ref::unary(unary_op(attr("fn")), in[0]);
  if (c.op == "binary") return ref::binary(binary_op(attr("fn")), in[0], in[1]);
  if (c.op == "where") return ref::where(in[0], in[1], in[2]);
  if (c.op == "cast") return ref::cast(in[0], parse_dtype(attr("to")));
  if (c.op == "matmul") return ref::matmul(in[0], in[1]);
  if (c.op == "reduce") {
    std::vector<std::int64_t> axes;
    std::istringstream list(attr("axes"));
    for (std::string a; std::getline(list, a, ',');) axes.push_back(std::stoll(a));
    return ref::reduce(reduce_op(attr("fn")), in[0], axes, integer("keep") != 0);
  }
  if (c.op == "argmax") return ref::argmax(in[0], integer("axis"), integer("keep") != 0);
  if (c.op == "softmax") return ref::softmax(in[0], integer("axis"));
  if (c.op == "log_softmax") return ref::log_softmax(in[0], integer("axis"));
  if (c.op == "cross_entropy") return ref::cross_entropy(in[0], in[1], integer("axis"));
  if (c.op == "causal") return ref::causal(in[0]);
  if (c.op == "gather") return ref::gather(in[0], in[1]);
  if (c.op == "einops") {
    std::map<std::string, std::int64_t> sizes;
    for (const auto& pair : split(attr("sizes"), '.')) {
      const auto colon = pair.find(':');
      sizes[pair.substr(0, colon)] = std::stoll(pair.substr(colon + 1));
    }
    std::vector<std::string> names;
    for (const auto& n : split(attr("in"), '.')) names.push_back(n == "_" ? "" : n);
    std::vector<std::vector<std::string>> groups;
    for (const auto& g : split(attr("out"), '/'))
      groups.push_back(g == "-" ? std::vector<std::string>{} : split(g, '.'));
    const std::string r = attr("reduce");
    std::optional<ref::Reduce> op;
    if (r != "none") op = reduce_op(r);
    return ref::einops(in[0], names, groups, sizes, op);
  }
  if (c.op == "einsum") {
    std::vector<std::vector<std::string>> names;
    for (const auto& g : split(attr("in"), '/')) names.push_back(split(g, '.'));
    const std::string out = attr("out");
    return ref::einsum(in, names, out == "-" ? std::vector<std::string>{} : split(out, '.'));
  }
  if (c.op == "sort") return ref::sort(in[0], integer("axis"));
  if (c.op == "argsort") return ref::argsort(in[0], integer("axis"));
  const auto eps = [&] { return c.attrs.count("eps") ? std::stod(attr("eps")) : 1e-5; };
  if (c.op == "layer_norm") return ref::layer_norm(in[0], integer("axis"), eps());
  if (c.op == "rms_norm") return ref::rms_norm(in[0], integer("axis"), eps());
  if (c.op == "concat") return ref::concat(in, integer("axis"));
  if (c.op == "stack") return ref::stack(in);
  if (c.op == "pad")
    return ref::pad(in[0], integer("axis"), integer("before"), integer("after"),
                    std::stod(attr("value")));
  if (c.op == "slice") return ref::slice(in[0], integer("axis"), integer("start"), integer("end"));
  if (c.op == "take") return ref::take(in[0], integer("axis"), integer("index"));
  throw std::runtime_error("no such op in the goldens: " + c.op);
}

bool close(double got, double want, DType dtype) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  if (dtype != DType::f32)
    return got == want;  // integers, bools and the 16-bit roundings are exact
  return std::fabs(got - want) <= 1e-6 + 1e-5 * std::fabs(want);
}

}  // namespace

TEST_CASE("every reference operation matches numpy's values") {
  const auto cases = load_goldens();
  CHECK(cases.size() >= 200);
  std::map<std::string, int> per_op;
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const Tensor got = run(c);
    REQUIRE(shape_str(got.shape()) == shape_str(c.output.shape()));
    REQUIRE(std::string(dtype_name(got.dtype())) == dtype_name(c.output.dtype()));
    int wrong = 0;
    for (std::int64_t i = 0; i < got.size(); ++i) {
      if (close(got.get(i), c.output.get(i), got.dtype())) continue;
      if (++wrong <= 3)
        FAIL_CHECK("element " << i << ": " << got.get(i) << ", numpy " << c.output.get(i));
    }
    ++per_op[c.op];
  }
  for (const char* op :
       {"unary",       "binary",        "where",  "cast",   "matmul", "reduce", "argmax", "softmax",
        "log_softmax", "cross_entropy", "causal", "gather", "einops", "einsum", "sort",   "argsort",
        "layer_norm",  "rms_norm",      "concat", "stack",  "pad",    "slice",  "take"})
    CHECK_MESSAGE(per_op[op] > 0, op);
}

TEST_CASE("an index outside its range is a RangeError naming the value and position") {
  const Tensor table = Tensor::zeros(DType::f32, {4, 2});
  const Tensor ids = Tensor::from_values(DType::i32, {3}, {0, 5, 1});
  try {
    (void)ref::gather(table, ids);
    FAIL("no RangeError");
  } catch (const ref::RangeError& e) {
    CHECK(e.value == 5);
    CHECK(e.bound == 4);
    CHECK(e.position == 1);
  }
  const Tensor logits = Tensor::zeros(DType::f32, {2, 3});
  CHECK_THROWS_AS(ref::cross_entropy(logits, Tensor::from_values(DType::i32, {2}, {0, -1}), 1),
                  ref::RangeError);
}

TEST_CASE("shapes that can't broadcast are an internal error, not a crash") {
  CHECK_THROWS_AS(
      ref::binary(ref::Binary::add, Tensor::zeros(DType::f32, {3}), Tensor::zeros(DType::f32, {4})),
      ss::runtime::InternalError);
  CHECK_THROWS_AS(ref::matmul(Tensor::zeros(DType::f32, {3}), Tensor::zeros(DType::f32, {4, 2})),
                  ss::runtime::InternalError);
  CHECK(shape_str(ref::broadcast_shapes({7, 1}, {1, 5})) == "[7 5]");
  CHECK(shape_str(ref::broadcast_shapes({}, {3})) == "[3]");
}

TEST_CASE("tensors borrow host memory without copying, and own aligned zeroed memory") {
  float host[6] = {1, 2, 3, 4, 5, 6};
  Tensor view = Tensor::borrow(host, DType::f32, {2, 3});
  CHECK(view.raw() == host);
  CHECK_FALSE(view.buffer()->owned());
  view.set(4, 50.0);
  CHECK(host[4] == 50.0f);
  const Tensor owned = Tensor::zeros(DType::bf16, {3, 5});
  CHECK(reinterpret_cast<std::uintptr_t>(owned.raw()) % Buffer::kAlignment == 0);
  for (const double v : owned.values()) CHECK(v == 0.0);
}

TEST_CASE("16-bit floats round to nearest even and keep infinities and NaN") {
  CHECK(half_to_float(float_to_half(1.0f)) == 1.0f);
  CHECK(half_to_float(float_to_half(65504.0f)) == 65504.0f);
  CHECK(std::isinf(half_to_float(float_to_half(65520.0f))));
  CHECK(std::isnan(half_to_float(float_to_half(std::nanf("")))));
  CHECK(half_to_float(float_to_half(5.960464477539063e-8f)) ==
        5.960464477539063e-8f);                                     // the smallest subnormal
  CHECK(half_to_float(float_to_half(1.0f + 1.0f / 2048)) == 1.0f);  // a tie rounds to even
  CHECK(bfloat_to_float(float_to_bfloat(1.0f + 1.0f / 256)) == 1.0f);
  CHECK(bfloat_to_float(float_to_bfloat(1.0f + 3.0f / 256)) == 1.0f + 4.0f / 256);
  CHECK(std::isnan(bfloat_to_float(float_to_bfloat(std::nanf("")))));
  Tensor i = Tensor::zeros(DType::i32, {3});
  i.set(0, 1e12);
  i.set(1, -1e12);
  i.set(2, std::nan(""));
  CHECK(i.values() == std::vector<double>{2147483647.0, -2147483648.0, 0.0});
}
