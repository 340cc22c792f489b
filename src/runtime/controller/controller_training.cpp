#include "runtime/controller/controller_impl.hpp"

namespace ss::runtime::control {

using ir::HostInstr;
using ir::HostKind;
using ir::HostOp;

// Models, optimisers, files, sinks and datasets.
void Controller::training(const HostInstr& in, std::vector<Value>& slots) {
  const auto at = [&](int s) -> Value& { return slots[static_cast<std::size_t>(s)]; };
  switch (in.op) {
    case HostOp::model:
      at(in.dst) =
          new_model(p_, in.text,
                    in.args.empty() ? 0 : static_cast<std::uint64_t>(number_in(slots, in.args[0])));
      return;
    case HostOp::optimizer: {
      auto opt = new_optimizer(in.text, at(in.args.at(0)), keywords(in, slots));
      if (!opt) unsupported("the optimiser `" + in.text + "`", in.span);
      at(in.dst) = std::move(*opt);
      return;
    }
    case HostOp::load: {
      const std::string path = resolve(at(in.args.at(0)).text);
      if (in.kind == HostKind::dataset)
        at(in.dst) = load_dataset_value(p_, in.text, path, options_.files);
      else if (in.kind == HostKind::model)
        at(in.dst) = load_model_value(p_, in.text, path, options_.files);
      else if (in.kind == HostKind::optimizer && !in.models.empty())
        at(in.dst) = load_optimizer_value(p_, in.text, in.models[0], path, options_.files);
      else
        unsupported("loading this kind of value", in.span);
      return;
    }
    case HostOp::save:
      if (holds_rank_zero())
        save_value(at(in.args.at(0)), resolve(at(in.args.at(1)).text), options_.files);
      return;
    case HostOp::write: {
      if (!holds_rank_zero()) return;
      SinkRecord record;
      for (const auto& part : in.parts) record.emplace_back(part.text, number_in(slots, part.slot));
      if (const auto sink = options_.sinks.find(in.text);
          sink != options_.sinks.end() && sink->second)
        sink->second(record);
      return;
    }
    case HostOp::pipe: {
      if (in.text == "map") {
        at(in.dst) = map_examples(at(in.args.at(0)), at(in.args.at(1)).text, in.span);
        return;
      }
      std::optional<double> positional;
      if (in.args.size() > 1) positional = number_in(slots, in.args[1]);
      if (in.text == "batches" && positional && *positional < 1)
        fail(diag::Code::E1402, in.span,
             "a batch size of " + std::to_string(static_cast<std::int64_t>(*positional)),
             "computed here", "give a batch size of 1 or more");
      const Value& data = at(in.args.at(0));
      at(in.dst) = pipe_stage(data, in.text, positional, keywords(in, slots), data.text);
      return;
    }
    case HostOp::len:
      at(in.dst) = integer(length(at(in.args.at(0))));
      return;
    case HostOp::set_field:
      at(in.dst).fields[in.text] = Tensor::scalar(DType::f32, number_in(slots, in.args.at(0)));
      return;
    default:
      throw std::logic_error(std::string("the controller can't run ") + ir::host_op_name(in.op));
  }
}

}  // namespace ss::runtime::control
