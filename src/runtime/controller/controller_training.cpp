#include "runtime/controller/controller_impl.hpp"

#include <cstring>
#include <new>
#include <system_error>

#include "runtime/data/data_error.hpp"
#include "support/fingerprint.hpp"

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
      check_same_load(at(in.dst), path, in.span);
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
          sink != options_.sinks.end() && sink->second) {
        // A host's sink that can't keep a record (its disk full) throws a
        // std::system_error: the run stops there with E1706. Anything else
        // it throws is E1614, naming the sink.
        try {
          sink->second(record);
        } catch (const std::bad_alloc&) {
          throw;
        } catch (const DataError&) {
          throw;
        } catch (const std::system_error& e) {
          throw DataError(diag::Code::E1706,
                          "the sink `" + in.text + "` couldn't keep a record: " + e.what(),
                          "give the sink's destination room, or bind it elsewhere");
        } catch (...) {
          throw HostCallbackFailed("the sink `" + in.text + "`", current_exception_text());
        }
      }
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

namespace {

std::uint64_t fingerprint_of(const Tensor& t, std::uint64_t hash) {
  const Tensor c = t.compact();
  for (const auto d : c.shape()) hash = support::fnv1a(std::to_string(d) + ",", hash);
  return support::fnv1a(
      std::string_view(static_cast<const char*>(c.raw()),
                       static_cast<std::size_t>(c.size()) * dtype_size(c.dtype())),
      hash);
}

}  // namespace

void Controller::check_same_load(const Value& v, const std::string& path, diag::Span at) {
  if (!options_.devices || options_.devices->collectives().processes() < 2) return;
  struct Entry {
    std::uint64_t fingerprint = 14695981039346656037ull;
    std::int64_t examples = -1;
  } mine;
  if (v.data) {
    mine.examples = v.data->size();
    for (std::size_t f = 0; f < v.data->names.size(); ++f)
      mine.fingerprint =
          fingerprint_of(v.data->columns[f], support::fnv1a(v.data->names[f], mine.fingerprint));
    mine.fingerprint =
        support::fnv1a(std::string_view(reinterpret_cast<const char*>(v.data->rows.data()),
                                        v.data->rows.size() * sizeof(std::int64_t)),
                       mine.fingerprint);
  }
  for (const auto& [name, t] : v.fields)
    mine.fingerprint = fingerprint_of(t, support::fnv1a(name, mine.fingerprint));
  std::vector<std::string> all;
  try {
    all = options_.devices->collectives().each_process(
        std::string(reinterpret_cast<const char*>(&mine), sizeof mine));
  } catch (const CollectiveError& e) {
    fail(diag::Code::E1806, at, std::string("a collective failed: ") + e.what(),
         "the processes compared what they loaded here",
         "find the process that stopped, or give slow ones a longer --collective-timeout");
  }
  Entry first;
  std::memcpy(&first, all.at(0).data(), sizeof first);
  for (std::size_t p = 1; p < all.size(); ++p) {
    Entry theirs;
    std::memcpy(&theirs, all[p].data(), sizeof theirs);
    if (theirs.fingerprint == first.fingerprint && theirs.examples == first.examples) continue;
    std::string what = "other contents";
    if (theirs.examples != first.examples)
      what = std::to_string(theirs.examples) + " examples, process 0 " +
             std::to_string(first.examples);
    fail(diag::Code::E1810, at,
         "MPI process " + std::to_string(p) + " loaded `" + path + "` with " + what,
         "every process loads this file itself",
         "give every process the same file (a shared folder, or one copy on each machine)");
  }
}

}  // namespace ss::runtime::control
