#include "runtime/fast/compiled_code.hpp"

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string_view>

#include "support/fingerprint.hpp"
#include "support/host_callback.hpp"

namespace ss::runtime {
namespace {

template <typename T>
void append(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// A link of an object into the JIT, shared by every plan and module that
// runs its code: unloaded when the last of them goes.
struct Link {
  const SsJitApi* api = nullptr;
  std::uint64_t handle = 0;
  std::vector<void*> fns;
  std::string identity;
  ~Link();
};

struct Linked {
  std::mutex mutex;  // held while code is compiled, so nothing is linked twice
  std::map<std::string, std::weak_ptr<Link>> by_identity;
};

std::string header(const SsJitApi& api, const char* what) {
  return std::string(what) + "\nabi " + std::to_string(api.abi_version) + "\n" + api.target_id() +
         "\n";
}

Linked& linked() {
  static Linked* l = new Linked;  // never destroyed: a Link may go at exit
  return *l;
}

Link::~Link() {
  if (!api) return;  // it never linked
  char why[256] = {};
  // A handle the JIT gave: unloading it can't fail but for our own bug,
  // and a destructor has no one to tell.
  (void)api->unload_object(handle, why, sizeof why);
  Linked& l = linked();
  std::lock_guard lock(l.mutex);
  // The entry is this link's unless a new link of the identity took it.
  if (const auto it = l.by_identity.find(identity);
      it != l.by_identity.end() && it->second.expired())
    l.by_identity.erase(it);
}

// An entry: a magic line, the identity's length and bytes, the object's
// hash, then the object.
constexpr char kMagic[] = "shapescript kernels 2\n";

using support::fnv1a;

}  // namespace

std::string cache_entry(const std::string& identity, const std::string& object) {
  std::string out(kMagic);
  append(out, static_cast<std::uint64_t>(identity.size()));
  out += identity;
  append(out, fnv1a(object));
  return out + object;
}

// The object in an entry, when the entry is for `identity`.
std::optional<std::string> cached_object(const std::string& bytes, const std::string& identity) {
  const std::size_t magic = sizeof kMagic - 1, head = magic + sizeof(std::uint64_t);
  if (bytes.size() < head || bytes.compare(0, magic, kMagic) != 0) return std::nullopt;
  std::uint64_t length = 0;
  std::memcpy(&length, bytes.data() + magic, sizeof length);
  const std::size_t body = head + length + sizeof(std::uint64_t);
  if (length != identity.size() || bytes.size() < body ||
      bytes.compare(head, length, identity) != 0)
    return std::nullopt;
  std::uint64_t hash = 0;
  std::memcpy(&hash, bytes.data() + head + length, sizeof hash);
  std::string object = bytes.substr(body);
  if (hash != fnv1a(object)) return std::nullopt;  // damaged
  return object;
}

std::string kernel_identity(const SsJitApi& api, const std::vector<SsJitKernelDesc>& kernels) {
  std::string out = header(api, "kernels");
  append(out, static_cast<std::uint64_t>(kernels.size()));
  for (const auto& k : kernels) {
    append(out, k.step_count);
    append(out, k.input_count);
    for (std::int32_t s = 0; s < k.step_count; ++s) {
      const SsJitStep& step = k.steps[s];
      for (const std::int32_t field : {step.op, step.kind, step.a, step.b, step.c})
        append(out, field);
      append(out, step.value);
      append(out, step.wide_value);
    }
    for (std::int32_t i = 0; i < k.input_count; ++i) append(out, k.inner_broadcast[i]);
  }
  return out;
}

std::string controller_identity(const SsJitApi& api, const std::vector<SsJitHostStep>& steps) {
  std::string out = header(api, "controller");
  append(out, static_cast<std::uint64_t>(steps.size()));
  for (const auto& step : steps) {
    append(out, step.kind);
    append(out, step.target);
  }
  return out;
}

std::string code_key(const std::string& identity) {
  const std::uint64_t hash = fnv1a(identity);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return std::string("k1-") + hex;
}

bool compile_with(const JitEntryCall& call, std::string* object, std::string* error) {
  char why[512] = {};
  const auto write = [](void* context, const void* data, std::size_t size) {
    static_cast<std::string*>(context)->assign(static_cast<const char*>(data), size);
  };
  if (call(write, object, why, sizeof why) == 0) return true;
  *error = why;
  return false;
}

std::size_t linked_code_count() {
  Linked& l = linked();
  std::lock_guard lock(l.mutex);
  std::size_t n = 0;
  for (const auto& [identity, link] : l.by_identity) n += link.expired() ? 0 : 1;
  return n;
}

std::optional<CachedCode> cached_code(const SsJitApi& api, const std::string& identity, int count,
                                      const CompileObject& compile, const CodeCache& store,
                                      std::string* error) {
  Linked& l = linked();
  std::unique_lock lock(l.mutex);
  if (auto it = l.by_identity.find(identity); it != l.by_identity.end())
    if (auto held = it->second.lock()) {
      std::vector<void*> fns = held->fns;
      return CachedCode{std::move(fns), CodeOrigin::memory, std::move(held)};
    }

  const std::string key = code_key(identity);
  const std::string prefix = "ss_" + key.substr(3) + "_";
  auto made = std::make_shared<Link>();
  made->identity = identity;
  made->fns.assign(static_cast<std::size_t>(count), nullptr);
  char why[512] = {};
  const auto link = [&](const std::string& object) {
    return api.load_object(object.data(), object.size(), prefix.c_str(), count, made->fns.data(),
                           &made->handle, why, sizeof why) == 0;
  };
  const auto found = [&](CodeOrigin origin) {
    made->api = &api;  // linked: unloaded when the last holder goes
    l.by_identity[identity] = made;
    std::vector<void*> fns = made->fns;
    return CachedCode{std::move(fns), origin, std::move(made)};
  };
  // A stored entry for this code: linked if its object is sound (an object
  // that doesn't parse links nothing, and is compiled afresh).
  if (store.load) {
    std::string bytes;
    if (host_call("CodeCache::load", [&] { return store.load(key, &bytes); }))
      if (const auto object = cached_object(bytes, identity); object && link(*object))
        return found(CodeOrigin::store);
  }
  std::string object;
  if (!compile(prefix, &object, error) || !link(object)) {
    if (error->empty()) *error = why;
    return std::nullopt;
  }
  if (store.store) {
    try {
      host_call("CodeCache::store", [&] { store.store(key, cache_entry(identity, object)); });
    } catch (...) {
      made->api = &api;  // linked: unloaded now, the mutex let go first (~Link takes it)
      lock.unlock();
      made.reset();
      throw;
    }
  }
  return found(CodeOrigin::compiled);
}

}  // namespace ss::runtime
