#include "api/prepare.hpp"

#include "diag/codes.hpp"
#include "lower/pipeline.hpp"
#include "runtime/controller/controller.hpp"

namespace ss::api {

namespace {

// What lowering found in `function`: the program's coded mistake as it is,
// else E0001 naming the executor; labelled at `span`.
Diagnostic lowering_error(const Compiled& c, std::optional<diag::Code> code,
                          const std::string& what, const std::string& help,
                          const std::string& function, diag::Span span,
                          const std::string& executor) {
  Diagnostic d =
      code ? diag::error(*code, what, help)
           : runtime::internal_error(what + ": `" + function + "` can't run on " + executor);
  d.labels.push_back(c.map->label(span, "here", true));
  d.location = d.labels.back().start;
  return d;
}

}  // namespace

ir::Program prepare_program(Compiled& c, const PrepareOptions& options) {
  if (!c.ok()) return {};
  lower::PipelineOptions pipeline;
  pipeline.device_functions = unsized_dims(c).empty();
  pipeline.distribute = options.distribute;
  pipeline.map = c.map.get();
  pipeline.planner = options.planner;
  lower::Lowered lowered = lower::run_pipeline(c.typed, pipeline);
  // A controller's tensor expression lowering couldn't make is an
  // `unsupported` instruction; each is an error now, not when it runs.
  // One mistake is one error, though a function's graph and a controller's
  // expression that calls it both meet it.
  const auto report = [&](Diagnostic d) {
    const std::string text = d.render();
    for (const auto& before : c.diagnostics)
      if (before.render() == text) return;
    c.diagnostics.push_back(std::move(d));
  };
  for (const auto& [name, fn] : lowered.program.controller)
    for (const auto& in : fn.code)
      if (in.op == ir::HostOp::unsupported)
        report(lowering_error(c, in.code, in.text, in.help, name, in.span, options.executor));
  for (const auto& f : lowered.failures)
    report(f.internal
               ? runtime::internal_error(f.what)
               : lowering_error(c, f.code, f.what, f.help, f.function, f.span, options.executor));
  return std::move(lowered.program);
}

void check_lowering(Compiled& c, const std::string& executor) {
  (void)prepare_program(c, {.executor = executor, .distribute = c.typed.device_count > 1});
}

}  // namespace ss::api
