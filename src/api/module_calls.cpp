// Module::call, call_into and call_async: the API's edge of a call. The
// values path itself is Module::Impl::call_values (api/value_call.cpp).
#include <future>

#include "api/module_impl.hpp"
#include "api/traced_call.hpp"
#include "runtime/controller/controller.hpp"
#include "support/log.hpp"

namespace ss {
using api::failed_call;
using api::traced;

// The program current when the call starts runs it to its end (`current()`
// holds it), whatever a reload on another thread publishes meanwhile.
// Nothing escapes to the host: what no coded path caught (memory the
// machine refused, a bug) comes back as E1611 or E0001.
CallResult Module::call(const std::string& function, const std::vector<Arg>& args,
                        const std::map<std::string, Tensor>& named) const {
  try {
    const auto m = current();
    return traced(*m, function, nullptr,
                  [&] { return m->call_values(function, args, named, nullptr); });
  } catch (const std::exception& e) {
    return failed_call(runtime::unexpected_failure(e));
  }
}

CallResult Module::call_into(const std::string& function, const std::vector<Arg>& args,
                             const std::vector<Tensor>& outputs) const {
  try {
    const auto m = current();
    return traced(*m, function, &outputs,
                  [&] { return m->call_values(function, args, {}, &outputs); });
  } catch (const std::exception& e) {
    return failed_call(runtime::unexpected_failure(e));
  }
}

namespace {

// The host's done callback, told `r`: what it throws, no call waits on,
// so it is counted and reported to the engine's log (support/log.hpp).
void tell_done(const std::function<void(CallResult)>& done, CallResult r,
               const support::LoggerPtr& log) {
  if (done) support::unwaited_call(log, "call_async's done callback", [&] { done(std::move(r)); });
}

}  // namespace

void Module::call_async(const std::string& function, std::vector<Arg> args,
                        std::function<void(CallResult)> done) const {
  std::shared_ptr<const Impl> m;
  support::LoggerPtr log;
  try {
    m = current();
    log = m->log;
    if (!m->workers)
      return tell_done(done, m->call_values(function, args, {}, nullptr), log);  // E1612
    auto task = [m, function, args = std::move(args), done, log]() mutable {
      CallResult r;
      try {
        r = traced(*m, function, nullptr,
                   [&] { return m->call_values(function, args, {}, nullptr); });
      } catch (const std::exception& e) {
        r = failed_call(runtime::unexpected_failure(e));
      }
      // Let go of the program before telling the host: the host's thread,
      // not this one (the runner's, or ss-async), then drops the module's
      // last reference, and with it the workers and the host's runner.
      m.reset();
      args.clear();
      tell_done(done, std::move(r), log);
    };
    m->workers->post(std::move(task));
  } catch (const std::exception& e) {  // the task couldn't be queued (memory, TaskRunner::post)
    tell_done(done, failed_call(runtime::unexpected_failure(e)), log);
  }
}

std::future<CallResult> Module::call_async(const std::string& function,
                                           std::vector<Arg> args) const {
  auto promise = std::make_shared<std::promise<CallResult>>();
  auto future = promise->get_future();
  call_async(function, std::move(args),
             [promise](CallResult r) { promise->set_value(std::move(r)); });
  return future;
}

}  // namespace ss
