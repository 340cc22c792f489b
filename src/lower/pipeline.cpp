#include "lower/pipeline.hpp"

#include <exception>
#include <new>

#include "ir/distribute.hpp"
#include "ir/fusion.hpp"
#include "ir/memory_plan.hpp"
#include "lower/lower.hpp"
#include "support/host_callback.hpp"

namespace ss::lower {
namespace {

struct Driver {
  const check::TypedProgram& typed;
  const PipelineOptions& options;
  Lowered& out;

  void lower() {
    out.program = program_outline(typed);
    for (const auto& [name, fn] : out.program.functions) {
      if (fn.is_extern || (!fn.controller && !options.device_functions)) continue;
      try {
        if (fn.controller)
          out.program.controller.emplace(name, lower_controller_function(typed, name));
        else
          out.program.graphs.emplace(name, lower_function(typed, name));
      } catch (const NotLowered& e) {
        out.failures.push_back({name, e.code, e.what(), e.help, e.span, false});
      } catch (const std::bad_alloc&) {
        throw;
      } catch (const support::HostCallbackFailed&) {
        throw;  // the host's (its CodeCache's), E1614  // out of memory is the load's failure
                // (E1611), not a bug
      } catch (const std::exception& bug) {
        out.failures.push_back({name, std::nullopt, bug.what(), {}, {}, true});
      }
    }
  }

  // The controller functions' compact form (slots, jumps, each graph): a
  // bad one is our bug, reported, and the function dropped. The device
  // graphs need no second look: lowering and distribute verify each graph
  // they make, and throw on a bad one (a Failure above, or a reason not to
  // distribute).
  void verify() {
    auto& code = out.program.controller;
    for (auto it = code.begin(); it != code.end();)
      if (const std::string bad = ir::verify(it->second); !bad.empty()) {
        out.failures.push_back(
            {it->first, std::nullopt, "lowering made a bad function: " + bad, {}, {}, true});
        it = code.erase(it);
      } else {
        ++it;
      }
  }

  // Several devices: each device function as the workers run it. One that
  // doesn't distribute keeps its reason; a call of it reports that then.
  void distribute() {
    auto& p = out.program;
    if (!options.distribute) return;
    for (const auto& [name, g] : p.graphs) try {
        p.distributed.emplace(name, ir::distribute(g));
      } catch (const std::bad_alloc&) {
        throw;
      } catch (const support::HostCallbackFailed&) {
        throw;  // the host's (its CodeCache's), E1614
      } catch (const std::exception& e) {
        p.not_distributed[name] = e.what();
      }
  }

  std::string failure_line(const Failure& f) const {
    if (f.internal)
      return "# " + f.function + ": internal error (" + f.what + "): please report it\n";
    const std::uint32_t line = options.map ? options.map->location(f.span.begin).line : 0;
    return "# " + f.function + ": not lowered yet (" + f.what + ", line " + std::to_string(line) +
           ")\n";
  }

  // Each function's code, in name order; `graphs` the device functions' as
  // this pass left them.
  std::string functions(const std::map<std::string, ir::Graph>& graphs) const {
    std::string s;
    for (const auto& [name, fn] : out.program.functions) {
      if (fn.is_extern) continue;
      if (const auto c = out.program.controller.find(name); c != out.program.controller.end())
        s += ir::print(c->second);
      else if (const auto g = graphs.find(name); g != graphs.end())
        s += ir::print(g->second);
      else if (const auto why = out.program.not_distributed.find(name);
               why != out.program.not_distributed.end())
        s += "# " + name + ": not distributed (" + why->second + ")\n";
      for (const auto& f : out.failures)
        if (f.function == name) s += failure_line(f);
    }
    return s;
  }

  // Every graph a call may run: the device functions' (as the workers run
  // them, with several devices) and the controller's expressions'.
  template <class Visit>
  void each_graph(const Visit& visit) const {
    const auto& p = out.program;
    for (const auto& [name, g] : p.graphs) visit(g);
    for (const auto& [name, g] : p.distributed) visit(g);
    for (const auto& [name, fn] : p.controller)
      for (const auto& g : fn.graphs) visit(g);
  }

  // The executor's plan of every graph, made now, at load: a call finds
  // its kernels compiled. Without an executor (`check`, the standalone
  // emitter) nothing is planned.
  void plan() {
    if (!options.planner) return;
    each_graph([&](const ir::Graph& g) {
      try {
        options.planner->plan(g);
      } catch (const std::bad_alloc&) {
        throw;
      } catch (const support::HostCallbackFailed&) {
        throw;  // the host's (its CodeCache's), E1614
      } catch (const std::exception& bug) {
        out.failures.push_back({g.name, std::nullopt, bug.what(), {}, {}, true});
      }
    });
  }

  // The device functions' plans as the executor made them (kernels,
  // releases); without one, what ir/fusion and ir/memory_plan would make.
  std::string plans(std::string_view pass) const {
    std::string s;
    const auto& graphs = options.distribute ? out.program.distributed : out.program.graphs;
    for (const auto& [name, g] : graphs) {
      if (options.planner)
        s += options.planner->listing(g, pass);
      else if (pass == "fuse")
        s += ir::print_fusion(g, ir::plan_fusion(g));
      else
        s += "graph " + name + "\n" + ir::print_releases(ir::plan_releases(g));
    }
    return s;
  }

  std::string listing(std::string_view pass) const {
    if (pass == "distribute")
      return !options.distribute
                 ? "# one device: the graphs run as lowered\n" + functions(out.program.graphs)
                 : functions(out.program.distributed);
    if (pass == "fuse" || pass == "plan") return plans(pass);
    return functions(out.program.graphs);
  }

  void after(std::string_view pass) {
    if (options.dump_after == pass) out.dump = listing(pass);
  }
};

}  // namespace

const std::vector<std::string_view>& pass_names() {
  static const std::vector<std::string_view> names = {"lower", "verify", "distribute", "fuse",
                                                      "plan"};
  return names;
}

Lowered run_pipeline(const check::TypedProgram& typed, const PipelineOptions& options) {
  Lowered out;
  Driver d{typed, options, out};
  d.lower();
  d.after("lower");
  d.verify();
  d.after("verify");
  d.distribute();
  d.after("distribute");
  // Fusing and planning memory are the executor's own, on the graphs
  // above, done in one pass; the listings after them show its plans.
  d.plan();
  d.after("fuse");
  d.after("plan");
  return out;
}

}  // namespace ss::lower
