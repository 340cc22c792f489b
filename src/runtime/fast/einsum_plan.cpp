#include "runtime/fast/einsum_plan.hpp"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <set>
#include <string>

#include "runtime/fast/node_memo.hpp"

namespace ss::runtime {

std::vector<std::string> einsum_names(const std::vector<std::vector<std::string>>& groups) {
  std::vector<std::string> names;
  for (const auto& g : groups) names.insert(names.end(), g.begin(), g.end());
  return names;
}

std::optional<EinsumTimes> einsum_times(const ir::Node& n) {
  if (n.in.size() != 3 || n.groups_in.size() != 3) return std::nullopt;
  const auto on = einsum_names(n.groups_out);
  for (std::size_t f = 0; f < 3; ++f) {
    if (einsum_names(n.groups_in[f]) != on) continue;
    EinsumTimes t{n, f};
    t.pair.in.clear();
    t.pair.groups_in.clear();
    for (std::size_t k = 0; k < 3; ++k)
      if (k != f) {
        t.pair.in.push_back(n.in[k]);
        t.pair.groups_in.push_back(n.groups_in[k]);
      }
    return t;
  }
  return std::nullopt;
}

namespace {

std::optional<EinsumPlan> make_plan(const ir::Node& n, const Shape& a, const Shape& b) {
  if (n.groups_in.size() != 2) return std::nullopt;
  const auto an = einsum_names(n.groups_in[0]), bn = einsum_names(n.groups_in[1]),
             on = einsum_names(n.groups_out);
  if (an.size() != a.size() || bn.size() != b.size()) return std::nullopt;
  const auto find = [](const std::vector<std::string>& names, const std::string& x) {
    const auto it = std::find(names.begin(), names.end(), x);
    return it == names.end() ? -1 : static_cast<std::int64_t>(it - names.begin());
  };
  std::map<std::string, std::int64_t> size;
  for (std::size_t k = 0; k < an.size(); ++k)
    if (!size.emplace(an[k], a[k]).second) return std::nullopt;
  for (std::size_t k = 0; k < bn.size(); ++k) {
    const auto [it, fresh] = size.emplace(bn[k], b[k]);
    if (!fresh && (find(an, bn[k]) < 0 || it->second != b[k]))
      return std::nullopt;  // twice in b, or sizes that disagree
  }
  std::vector<std::string> batch, rows, cols, inner;
  for (const auto& x : on) {
    const bool in_a = find(an, x) >= 0, in_b = find(bn, x) >= 0;
    if (in_a && in_b)
      batch.push_back(x);
    else if (in_a)
      rows.push_back(x);
    else if (in_b)
      cols.push_back(x);
    else
      return std::nullopt;
  }
  for (const auto& x : an)
    if (find(on, x) < 0) {
      if (find(bn, x) < 0) return std::nullopt;  // summed in a alone
      inner.push_back(x);
    }
  for (const auto& x : bn)
    if (find(on, x) < 0 && find(an, x) < 0) return std::nullopt;  // summed in b alone
  if (std::set<std::string>(on.begin(), on.end()).size() != on.size()) return std::nullopt;

  const auto order = [&](const std::vector<std::string>& names,
                         std::initializer_list<const std::vector<std::string>*> groups) {
    std::vector<std::int64_t> o;
    for (const auto* g : groups)
      for (const auto& x : *g) o.push_back(find(names, x));
    return o;
  };
  const auto product = [&](const std::vector<std::string>& names) {
    std::int64_t p = 1;
    for (const auto& x : names) p *= size.at(x);
    return p;
  };
  // Rows and columns in the output's order need each operand permuted to
  // match; in their operands' order, only the product is. Whichever copies
  // fewer elements: a conv's weight gradient contracts a window far larger
  // than its [Kh Kw C F] product.
  const auto copied = [&](const std::vector<std::string>& r, const std::vector<std::string>& c) {
    std::int64_t elements = 0;
    const auto moved = [&](const std::vector<std::string>& names,
                           std::initializer_list<const std::vector<std::string>*> groups) {
      std::vector<std::string> want;
      for (const auto* g : groups) want.insert(want.end(), g->begin(), g->end());
      return want != names;
    };
    if (moved(an, {&batch, &r, &inner})) elements += product(an);
    if (moved(bn, {&batch, &inner, &c})) elements += product(bn);
    std::vector<std::string> made = batch;
    made.insert(made.end(), r.begin(), r.end());
    made.insert(made.end(), c.begin(), c.end());
    if (made != on) elements += product(on);
    return elements;
  };
  const auto in_order_of = [&](const std::vector<std::string>& names,
                               const std::vector<std::string>& of) {
    std::vector<std::string> out;
    for (const auto& x : of)
      if (std::find(names.begin(), names.end(), x) != names.end()) out.push_back(x);
    return out;
  };
  if (const auto r = in_order_of(rows, an), c = in_order_of(cols, bn);
      copied(r, c) < copied(rows, cols)) {
    rows = r;
    cols = c;
  }
  EinsumPlan plan;
  plan.a_order = order(an, {&batch, &rows, &inner});
  plan.b_order = order(bn, {&batch, &inner, &cols});
  plan.batch_axes = batch.size();
  plan.row_axes = rows.size();
  plan.inner_axes = inner.size();
  plan.batches = product(batch);
  plan.m = product(rows);
  plan.k = product(inner);
  plan.n = product(cols);
  for (const auto* g : {&batch, &rows, &cols})
    for (const auto& x : *g) plan.computed.push_back(size.at(x));
  std::vector<std::string> made = batch;
  made.insert(made.end(), rows.begin(), rows.end());
  made.insert(made.end(), cols.begin(), cols.end());
  if (made != on) plan.out_order = order(made, {&on});
  return plan;
}

struct EinsumPlans;

}  // namespace

const EinsumPlan* plan_einsum(const ir::Node& n, const Shape& a, const Shape& b) {
  using Memo = fast::NodeMemo<std::optional<EinsumPlan>, EinsumPlans>;
  const std::initializer_list<Shape> shapes{a, b};
  const std::optional<EinsumPlan>* plan = Memo::find(n, shapes);
  if (!plan) plan = &Memo::keep(n, shapes, make_plan(n, a, b));
  return *plan ? &**plan : nullptr;
}

}  // namespace ss::runtime
