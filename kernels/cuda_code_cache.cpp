#include "kernels/cuda_code_cache.hpp"

#include "runtime/fast/compiled_code.hpp"

namespace ss::cuda {

std::variant<nvrtc::Output, nvrtc::Failure> CodeCacheNvrtc::compile(
    std::string_view source, std::string_view name, const nvrtc::Target& target,
    const std::vector<std::string>& options, Origin* origin) {
  std::string identity = "cuda\nnvrtc " + compiler_.version() + "\nsm_" +
                         std::to_string(target.sm) + (target.cubin ? " cubin" : " ptx") + "\n";
  for (const auto& option : options) identity += option + "\n";
  identity += std::string(name) + "\n" + std::string(source);
  const auto set = [&](Origin o) {
    if (origin) *origin = o;
  };
  std::lock_guard lock(mutex_);
  if (const auto it = memory_.find(identity); it != memory_.end()) {
    set(Origin::memory);
    return it->second;
  }
  const std::string key = runtime::code_key(identity);
  if (store_.load) {
    std::string bytes;
    if (store_.load(key, &bytes))
      if (auto code = runtime::cached_object(bytes, identity)) {
        set(Origin::store);
        return memory_[identity] = nvrtc::Output{std::move(*code), {}};
      }
  }
  auto result = compiler_.compile(source, name, target, options);
  if (const auto* out = std::get_if<nvrtc::Output>(&result)) {
    if (store_.store) store_.store(key, runtime::cache_entry(identity, out->code));
    memory_[identity] = *out;
  }
  set(Origin::compiled);
  return result;
}

}  // namespace ss::cuda
