#include "lower/host_kinds.hpp"

namespace ss::lower {

using ir::HostKind;
using types::Type;

ir::HostKind kind_of(const Type& t) {
  switch (t.kind) {
    case Type::Kind::tensor:
      return HostKind::tensor;
    case Type::Kind::integer:
      return HostKind::integer;
    case Type::Kind::floating:
      return HostKind::floating;
    case Type::Kind::string:
    case Type::Kind::shape:
      return HostKind::string;
    case Type::Kind::tuple:
      return HostKind::tuple;
    case Type::Kind::range:
      return HostKind::range;
    case Type::Kind::function:
      return HostKind::function;
    case Type::Kind::model:
      return HostKind::model;
    case Type::Kind::optimizer:
      return HostKind::optimizer;
    case Type::Kind::dataset:
      return HostKind::dataset;
    case Type::Kind::batches:
      return HostKind::batches;
    case Type::Kind::record:
    case Type::Kind::batch:
      return HostKind::record;
    default:
      return HostKind::none;
  }
}

bool passes_to_graph(const Type& t) {
  return t.is(Type::Kind::tensor) || t.is(Type::Kind::integer) || t.is(Type::Kind::floating) ||
         t.is(Type::Kind::model) || t.is(Type::Kind::optimizer) || t.is(Type::Kind::record) ||
         t.is(Type::Kind::batch);
}

std::string variable_of(const std::string& path) {
  return path.substr(0, path.find('.'));
}

}  // namespace ss::lower
