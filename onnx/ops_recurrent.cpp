// The recurrent ops, RNN, GRU and LSTM, as scans (`for xt in slices(...)`:
// one body, compiled once, run per step): each step's gates as ONNX's
// equations give them, each direction its own scan (a reversed sequence
// for `reverse`), the outputs joined along their axes. The input's
// projection for every gate and step (X W^T + Wb) is one product before
// the scan; a step's hidden projection is one product for all its gates
// (H R^T + Rb, but for GRU's candidate gate without linear_before_reset,
// whose product reads r * H), each gate a slice of the two: a step runs
// few nodes. Y is a carry of the last T states, shifted along a step at a
// time.
#include "onnx/ops.hpp"
#include "onnx/ops_common.hpp"

namespace ss::onnx_import {
namespace {

using TP = onnx::TensorProto;

enum class Cell { rnn, gru, lstm };

// `x` (of `shape`) at position k of `axis`, the axis dropped.
std::string pick(Translator& t, const std::string& x, const std::vector<std::int64_t>& shape,
                 std::size_t axis, std::int64_t k) {
  std::vector<std::int64_t> one = shape;
  one[axis] = 1;
  std::vector<std::int64_t> dropped = shape;
  dropped.erase(dropped.begin() + static_cast<std::ptrdiff_t>(axis));
  return t.let(reshape_expr(t, gather_axis(t, x, shape, "f32", axis, {k}), one, dropped, "f32"));
}

// Rows [k*h, (k+1)*h) of a matrix of `rows` rows.
std::string rows_of(Translator& t, const std::string& m, std::vector<std::int64_t> shape,
                    std::int64_t k, std::int64_t h) {
  if (shape[0] == h) return m;
  return t.let(slice_expr(t, m, shape, 0, k * h, (k + 1) * h, 1, "f32"));
}

std::string activation(Translator& t, const std::string& name, const std::string& x) {
  if (name == "Sigmoid") return "sigmoid(" + x + ")";
  if (name == "Tanh") return "tanh(" + x + ")";
  if (name == "Relu") return "relu(" + x + ")";
  t.unsupported("E2005", "activation `" + name + "` isn't supported (Sigmoid, Tanh and Relu are)");
}

template <Cell C>
void recurrent(Translator& t) {
  const Value& x = t.need(0);
  const Value& w = t.need(1);
  const Value& r = t.need(2);
  if (x.onnx_type != TP::FLOAT)
    t.unsupported("E2006", t.node().op_type() + " of " + onnx_type_name(x.onnx_type));
  const std::int64_t gates = C == Cell::rnn ? 1 : C == Cell::gru ? 3 : 4;
  const std::string direction = t.string_attr("direction", "forward");
  const std::int64_t dirs = direction == "bidirectional" ? 2 : 1;
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    t.unsupported("E2005", "direction `" + direction + "`");
  const std::int64_t layout = t.int_attr("layout", 0);
  // ONNX's inference reads any layout but 0 as batch-first: one that isn't
  // 0 or 1 made the translation and the declared outputs disagree (fuzz_onnx's
  // sixth find).
  if (layout != 0 && layout != 1)
    t.unsupported("E2008", "layout " + std::to_string(layout) + " isn't 0 or 1");
  const bool batch_first = layout == 1;
  if (t.has("clip")) t.unsupported("E2005", "a cell clip isn't supported");
  if (t.int_attr("input_forget", 0)) t.unsupported("E2005", "input_forget=1 isn't supported");
  if (t.has("activation_alpha") || t.has("activation_beta"))
    t.unsupported("E2005", "activations with alpha or beta aren't supported");
  const bool linear_before_reset = t.int_attr("linear_before_reset", 0) != 0;
  if (x.rank() != 3 || w.rank() != 3 || r.rank() != 3)
    t.unsupported("E2008", "X, W and R need three axes");
  const std::int64_t steps = batch_first ? x.shape[1] : x.shape[0];
  const std::int64_t batch = batch_first ? x.shape[0] : x.shape[1];
  const std::int64_t in = x.shape[2];
  const std::int64_t h = r.shape[2];
  // Every input at the shape the operator defines: ONNX's shape inference
  // doesn't check B's, initial_h's or P's, and a bias of the wrong rank was
  // translated into a program that doesn't check (fuzz_onnx's fifth find).
  const auto expect = [&](const Value* v, const char* name, std::vector<std::int64_t> want) {
    bool fits = v == nullptr || v->shape.size() == want.size();
    for (std::size_t k = 0; v && fits && k < want.size(); ++k)
      fits = sizes_fit(v->shape[k], want[k]);
    if (!fits) {
      std::string text;
      for (const auto d : want) text += (text.empty() ? "" : " ") + std::to_string(d);
      t.unsupported("E2008", std::string(name) + " needs the shape [" + text + "]");
    }
  };
  expect(&w, "W", {dirs, gates * h, in});
  expect(&r, "R", {dirs, gates * h, h});
  expect(t.input(3), "B", {dirs, 2 * gates * h});
  expect(t.input(5), "initial_h", {dirs, batch, h});
  if (C == Cell::lstm) {
    expect(t.input(6), "initial_c", {dirs, batch, h});
    expect(t.input(7), "P", {dirs, 3 * h});
  }
  if (const Value* lens = t.input(4)) {
    if (!lens->constant) constant_ints(t, 4, "sequence_lens");  // E2007: known only at run time
    bool full = true;
    for (std::int64_t i = 0; full && i < lens->constant->count(); ++i)
      full = lens->constant->int_at(static_cast<std::size_t>(i)) == steps;
    if (!full) t.unsupported("E2005", "sequence_lens shorter than the sequence aren't supported");
  }
  std::vector<std::string> acts;
  for (const auto* a = t.attr("activations");
       a && acts.size() < static_cast<std::size_t>(a->strings_size());)
    acts.push_back(a->strings(static_cast<int>(acts.size())));
  const std::vector<std::string> defaults =
      C == Cell::rnn   ? std::vector<std::string>{"Tanh"}
      : C == Cell::gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                       : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  const std::size_t per_dir = defaults.size();
  if (acts.empty())
    for (std::int64_t d = 0; d < dirs; ++d)
      acts.insert(acts.end(), defaults.begin(), defaults.end());
  if (acts.size() != per_dir * static_cast<std::size_t>(dirs))
    t.unsupported("E2008", "its activations don't give one per function and direction");

  // X as [T B I].
  std::string xs = t.operand(x);
  if (batch_first) xs = t.let(transpose_expr(xs, {1, 0, 2}));
  const std::vector<std::int64_t> x_shape = {steps, batch, in};
  const std::string ws = t.operand(w), rs = t.operand(r);
  const Value* b = t.input(3);
  const Value* h0 = t.input(5);
  const Value* c0 = C == Cell::lstm ? t.input(6) : nullptr;
  const Value* peep = C == Cell::lstm ? t.input(7) : nullptr;

  const auto& out = t.node();
  const bool want_y = out.output_size() > 0 && !out.output(0).empty();
  std::vector<std::string> ys, last_h, last_c;  // per direction: Y [T B H], Y_h, Y_c [B H]
  std::vector<std::int64_t> reversed;
  for (std::int64_t k = steps - 1; k >= 0; --k) reversed.push_back(k);
  const std::string bh = "[" + std::to_string(batch) + " " + std::to_string(h) + "]";
  for (std::int64_t d = 0; d < dirs; ++d) {
    const bool reverse = direction == "reverse" || d == 1;
    const auto& act = [&](std::size_t k) {
      return acts[static_cast<std::size_t>(d) * per_dir + k];
    };
    // What every step reads, made once before the scan.
    const std::string wd = pick(t, ws, w.shape, 0, d), rd = pick(t, rs, r.shape, 0, d);
    // GRU's candidate gate without linear_before_reset multiplies r * H
    // before its product: its R and Rb apart from the other gates'.
    const bool split_candidate = C == Cell::gru && !linear_before_reset;
    const std::int64_t joined = split_candidate ? gates - 1 : gates;  // gates of the joint product
    const std::string w_all = t.let(transpose_expr(wd, {1, 0}));      // [I G*H]
    const std::string r_all =
        t.let(transpose_expr(rows_of(t, rd, {gates * h, h}, 0, joined * h), {1, 0}));  // [H J*H]
    const std::string r_candidate =
        split_candidate ? t.let(transpose_expr(rows_of(t, rd, {gates * h, h}, 2, h), {1, 0})) : "";
    std::string bw_all, br_all, br_candidate;
    if (b) {
      const std::string bd = pick(t, t.operand(*b), b->shape, 0, d);  // [2 G H] flat
      bw_all = " + " + rows_of(t, bd, {2 * gates * h}, 0, gates * h);
      br_all = " + " + t.let(slice_expr(t, bd, {2 * gates * h}, 0, gates * h, (gates + joined) * h,
                                        1, "f32"));
      if (split_candidate) br_candidate = " + " + rows_of(t, bd, {2 * gates * h}, 5, h);
    }
    std::vector<std::string> pv;
    if (peep) {
      const std::string pd = pick(t, t.operand(*peep), peep->shape, 0, d);
      for (std::int64_t k = 0; k < 3; ++k) pv.push_back(rows_of(t, pd, {3 * h}, k, h));
    }
    // The scan's carries: the state, and Y as a register of the last T
    // states, shifted one step along at each step.
    const std::string hp =
        t.let(h0 ? pick(t, t.operand(*h0), h0->shape, 0, d) : "zeros(" + bh + ")");
    const std::string cp =
        C == Cell::lstm ? t.let(c0 ? pick(t, t.operand(*c0), c0->shape, 0, d) : "zeros(" + bh + ")")
                        : "";
    const std::string y = want_y ? t.let("zeros([" + std::to_string(steps) + " " +
                                         std::to_string(batch) + " " + std::to_string(h) + "])")
                                 : "";
    const std::string steps_dim = want_y ? t.slicing_dim(steps) : "";
    const std::string order = reverse ? t.let(gather_axis(t, xs, x_shape, "f32", 0, reversed)) : xs;
    // Every step's input projection, [T B G*H].
    const std::string projected = t.let(order + " @ " + w_all + bw_all);
    const std::string xt = t.temp();
    t.begin_block("for " + xt + " in slices(" + projected + ", over=0):");
    const std::string hr = t.let(hp + " @ " + r_all + br_all);  // [B J*H]
    // Gate g's columns of a step's projection (`width` gates wide).
    const auto gate = [&](const std::string& m, std::int64_t width, std::int64_t g) {
      return width == 1
                 ? m
                 : t.let(slice_expr(t, m, {batch, width * h}, 1, g * h, (g + 1) * h, 1, "f32"));
    };
    const auto pre = [&](std::int64_t g) {
      return gate(xt, gates, g) + " + " + gate(hr, joined, g);
    };
    if (C == Cell::rnn) {
      t.assign(hp, activation(t, act(0), pre(0)));
    } else if (C == Cell::gru) {  // gates z, r, h
      const std::string z = t.let(activation(t, act(0), pre(0)));
      const std::string rr = t.let(activation(t, act(0), pre(1)));
      const std::string cand =
          linear_before_reset
              ? gate(xt, gates, 2) + " + " + rr + " * " + gate(hr, joined, 2)
              : gate(xt, gates, 2) + " + (" + rr + " * " + hp + ") @ " + r_candidate + br_candidate;
      const std::string hc = t.let(activation(t, act(1), cand));
      t.assign(hp, "(1.0 - " + z + ") * " + hc + " + " + z + " * " + hp);
    } else {  // gates i, o, f, c; peepholes i, o, f
      const std::string i =
          t.let(activation(t, act(0), pre(0) + (peep ? " + " + pv[0] + " * " + cp : "")));
      const std::string f =
          t.let(activation(t, act(0), pre(2) + (peep ? " + " + pv[2] + " * " + cp : "")));
      const std::string c = t.let(activation(t, act(1), pre(3)));
      t.assign(cp, f + " * " + cp + " + " + i + " * " + c);
      const std::string o =
          t.let(activation(t, act(0), pre(1) + (peep ? " + " + pv[1] + " * " + cp : "")));
      t.assign(hp, o + " * " + activation(t, act(2), cp));
    }
    if (want_y) {
      const std::string typed = t.temp();
      t.let_typed(typed,
                  "[" + steps_dim + " " + std::to_string(batch) + " " + std::to_string(h) + "]", y);
      t.assign(y, "concat(" + typed + "[" + steps_dim + "=1:" + std::to_string(steps) +
                      "], rearrange(" + hp + ", p q -> 1 p q), over=0)");
    }
    t.end_block();
    // The register holds the steps in the order they ran.
    if (want_y)
      ys.push_back(reverse ? t.let(gather_axis(t, y, {steps, batch, h}, "f32", 0, reversed)) : y);
    last_h.push_back(hp);
    if (C == Cell::lstm) last_c.push_back(cp);
  }
  // Y [T D B H], Y_h and Y_c [D B H] (batch first: [B T D H], [B D H]).
  auto stacked = [&](const std::vector<std::string>& parts, const std::string& in_pattern,
                     const std::string& out_pattern, int over) {
    std::string e;
    for (const auto& p : parts) {
      const std::string one = "rearrange(" + p + ", " + in_pattern + " -> " + out_pattern + ")";
      e = e.empty() ? t.let(one)
                    : t.let("concat(" + e + ", " + one + ", over=" + std::to_string(over) + ")");
    }
    return e;
  };
  if (want_y) {
    const std::string y = stacked(ys, "t b h", "t 1 b h", 1);
    t.emit(batch_first ? transpose_expr(y, {2, 0, 1, 3}) : y, 0);
  }
  if (out.output_size() > 1 && !out.output(1).empty()) {
    const std::string yh = stacked(last_h, "b h", "1 b h", 0);
    t.emit(batch_first ? transpose_expr(yh, {1, 0, 2}) : yh, 1);
  }
  if (C == Cell::lstm && out.output_size() > 2 && !out.output(2).empty()) {
    const std::string yc = stacked(last_c, "b h", "1 b h", 0);
    t.emit(batch_first ? transpose_expr(yc, {1, 0, 2}) : yc, 2);
  }
}

}  // namespace

void register_recurrent(std::map<std::string, Handler>& table) {
  table["RNN"] = recurrent<Cell::rnn>;
  table["GRU"] = recurrent<Cell::gru>;
  table["LSTM"] = recurrent<Cell::lstm>;
}

}  // namespace ss::onnx_import
