// Every function of the C header, called with each of its pointer
// arguments NULL in turn (the others valid), must answer, never crash: a
// function that returns a status returns E1612 for a pointer it needs (the
// header says which may be NULL), one that makes an object returns NULL.
// The list of functions comes from shapescript.h itself (tests/CMakeLists
// writes it at configure), and the header is parsed here for the
// parameters' names, so a new function is covered without a line here.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "shapescript/shapescript.h"
#include "support/paths.hpp"
#include "support/process.hpp"

namespace {

// A function's parameters as the header names them, in order.
std::map<std::string, std::vector<std::string>> parse_header(const std::string& text) {
  std::map<std::string, std::vector<std::string>> out;
  static const std::regex start(R"(SS_C_API[^;(]*[ *](ss_[a-z0-9_]+)\()");
  for (std::sregex_iterator m(text.begin(), text.end(), start), end; m != end; ++m) {
    std::size_t at = static_cast<std::size_t>(m->position(0) + m->length(0));
    int depth = 1;
    std::vector<std::string> params;
    std::string current;
    for (; at < text.size() && depth > 0; ++at) {
      const char c = text[at];
      if (c == '(') ++depth;
      if (c == ')') --depth;
      if ((c == ',' && depth == 1) || depth == 0) {
        params.push_back(current);
        current.clear();
      } else {
        current += c;
      }
    }
    std::vector<std::string> names;
    static const std::regex pointer_to_function(R"(\(\s*\*\s*(\w+)\s*\))");
    static const std::regex last_word(R"((\w+)\s*$)");
    for (const auto& p : params) {
      std::smatch w;
      if (std::regex_search(p, w, pointer_to_function) || std::regex_search(p, w, last_word))
        if (w[1] != "void") names.push_back(w[1]);
    }
    out[(*m)[1]] = names;
  }
  return out;
}

constexpr const char* kProgram = R"(dim D = 2

data R:
    x: [D]

model M:
    param w: [D] = zeros

fn double(x: [n D]) -> [n D] = x * 2.0

fn main():
    print(1.0)
)";

// Valid arguments by type (and name, where the type says too little), so
// a call's one NULL is its only fault; out-parameters land in slots freed
// after each call.
struct Fixture {
  ss::test::TempDir dir;
  std::string path = dir.write("p.ss", kProgram);
  ss_engine* engine = ss_engine_new(nullptr, nullptr);
  ss_module* module = ss_engine_load_file(engine, path.c_str(), nullptr, nullptr);
  ss_load_options* load_options = ss_load_options_new();  // for loads: left as made
  ss_load_options* scratch = ss_load_options_new();       // for the setters
  float data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  std::int64_t shape[2] = {1, 2};
  ss_tensor* tensor = ss_tensor_new(SS_F32, data, shape, 2);
  ss_value* value = nullptr;
  ss_call_result* result = nullptr;
  ss_batcher* batcher = nullptr;
  ss_engine_options engine_options = ss_engine_options_default();
  ss_host_kind kinds[1] = {SS_HOST_TENSOR};
  int ranks[1] = {0};
  ss_collective_table table{};
  ss_file_access files = ss_file_access_default();
  const char* strings[1] = {"x"};
  const ss_tensor* tensors[1] = {nullptr};
  double numbers[1] = {0.1};
  ss_arg args[1] = {};
  int keep[1] = {0};
  float floats[16] = {};
  char bytes[8] = {};
  int user = 0;
  // Slots for out-parameters.
  ss_status* status_slot = nullptr;
  ss_value* value_slot = nullptr;
  ss_call_result* result_slot = nullptr;

  Fixture() {
    REQUIRE(module);
    REQUIRE(ss_module_make(module, "M", 0, &value) == nullptr);
    REQUIRE(ss_module_call(module, "double", 1, strings, tensors_of(), &result) == nullptr);
    tensors[0] = tensor;
    args[0] = ss_arg_tensor(tensor);
    table.world = 1;
    table.ranks = ranks;
    table.local_count = 1;
    table.all_reduce_f32 = [](void*, int, float*, size_t) { return 0; };
    batcher = ss_batcher_new(module, "double", nullptr, 0, 4, 100, nullptr);
    REQUIRE(batcher);
  }
  const ss_tensor* const* tensors_of() {
    tensors[0] = tensor;
    return tensors;
  }
  ~Fixture() {
    free_slots();
    ss_batcher_free(batcher);
    ss_call_result_free(result);
    ss_value_free(value);
    ss_tensor_free(tensor);
    ss_load_options_free(scratch);
    ss_load_options_free(load_options);
    ss_module_free(module);
    ss_engine_free(engine);
  }
  void free_slots() {
    ss_status_free(std::exchange(status_slot, nullptr));
    ss_value_free(std::exchange(value_slot, nullptr));
    ss_call_result_free(std::exchange(result_slot, nullptr));
  }

  template <typename T>
  T pointer(const std::string& name) {
    if constexpr (std::is_same_v<T, const char*>) {
      if (name == "text") return kProgram;
      if (name == "path") return path.c_str();
      if (name == "function") return "double";
      if (name == "type") return "M";
      if (name == "kind") return "SGD";
      if (name == "record") return "R";
      return "x";
    } else if constexpr (std::is_same_v<T, const char* const*>) {
      return strings;
    } else if constexpr (std::is_same_v<T, const ss_tensor* const*>) {
      return tensors;
    } else if constexpr (std::is_same_v<T, ss_tensor*> || std::is_same_v<T, const ss_tensor*>) {
      return tensor;
    } else if constexpr (std::is_same_v<T, const ss_engine*> || std::is_same_v<T, ss_engine*>) {
      return engine;
    } else if constexpr (std::is_same_v<T, const ss_module*> || std::is_same_v<T, ss_module*>) {
      return module;
    } else if constexpr (std::is_same_v<T, const ss_load_options*>) {
      return load_options;
    } else if constexpr (std::is_same_v<T, ss_load_options*>) {
      return scratch;
    } else if constexpr (std::is_same_v<T, const ss_value*> || std::is_same_v<T, ss_value*>) {
      return value;
    } else if constexpr (std::is_same_v<T, const ss_call_result*> ||
                         std::is_same_v<T, ss_call_result*>) {
      return result;
    } else if constexpr (std::is_same_v<T, const ss_status*> || std::is_same_v<T, ss_status*>) {
      static ss_status* made = nullptr;  // a real status, kept for the run
      if (!made) made = ss_module_call(module, "nothing", 0, nullptr, nullptr, nullptr);
      return made;
    } else if constexpr (std::is_same_v<T, ss_status**>) {
      return &status_slot;
    } else if constexpr (std::is_same_v<T, ss_value**>) {
      return &value_slot;
    } else if constexpr (std::is_same_v<T, ss_call_result**>) {
      return &result_slot;
    } else if constexpr (std::is_same_v<T, ss_batcher*>) {
      return batcher;
    } else if constexpr (std::is_same_v<T, void (*)(void*, ss_status*)>) {
      return [](void*, ss_status* s) { ss_status_free(s); };  // a callback owns what it gets
    } else if constexpr (std::is_same_v<T, void (*)(void*, ss_status*, ss_call_result*)>) {
      return [](void*, ss_status* s, ss_call_result* r) {
        ss_status_free(s);
        ss_call_result_free(r);
      };
    } else if constexpr (std::is_same_v<T, const ss_engine_options*>) {
      return &engine_options;
    } else if constexpr (std::is_same_v<T, const ss_host_kind*>) {
      return kinds;
    } else if constexpr (std::is_same_v<T, const ss_collective_table*>) {
      return &table;
    } else if constexpr (std::is_same_v<T, const ss_file_access*>) {
      return &files;
    } else if constexpr (std::is_same_v<T, const ss_onnx_options*>) {
      static const ss_onnx_options onnx = ss_onnx_options_default();
      return &onnx;
    } else if constexpr (std::is_same_v<T, const ss_arg*>) {
      return args;
    } else if constexpr (std::is_same_v<T, const std::int64_t*>) {
      return shape;
    } else if constexpr (std::is_same_v<T, const double*>) {
      return numbers;
    } else if constexpr (std::is_same_v<T, int*>) {
      return keep;
    } else if constexpr (std::is_same_v<T, float*>) {
      return floats;
    } else if constexpr (std::is_same_v<T, const void*>) {
      return name == "mpi_comm" ? static_cast<const void*>(&user) : static_cast<const void*>(data);
    } else if constexpr (std::is_same_v<T, void*>) {
      return &user;
    } else if constexpr (std::is_pointer_v<T> && std::is_function_v<std::remove_pointer_t<T>>) {
      return stub(static_cast<T>(nullptr));
    } else {
      static_assert(!sizeof(T*), "a pointer type the fixture doesn't know: add it");
    }
  }
  template <typename R, typename... A>
  static auto stub(R (*)(A...)) -> R (*)(A...) {
    return [](A...) -> R {
      if constexpr (!std::is_void_v<R>) return R{};
    };
  }

  template <typename T>
  T scalar(const std::string& name) {
    if constexpr (std::is_enum_v<T>) {
      return static_cast<T>(0);  // SS_F32, SS_HOST_TENSOR...
    } else if constexpr (std::is_floating_point_v<T>) {
      return T(1);
    } else {
      if (name == "rank") return T(2);
      if (name == "size") return T(sizeof bytes);
      if (name == "milliseconds") return T(10);
      if (name == "axis" || name == "i" || name == "seed") return T(0);
      return T(1);  // counts: one item in each array
    }
  }

  template <typename T>
  T argument(const std::string& name, bool null) {
    if constexpr (std::is_pointer_v<T>) {
      return null ? nullptr : pointer<T>(name);
    } else {
      return scalar<T>(name);
    }
  }
};

// Parameters that may be NULL, as the header documents (user data always).
bool may_be_null(const std::string& function, const std::string& param) {
  static const std::set<std::string> anywhere = {"user",   "print_user", "status", "out",
                                                 "result", "options",    "keep",   "name",
                                                 "print",  "onnx",       "weights"};
  if (anywhere.count(param)) {
    // The setters need their options; ss_load_options_sink's `name` is its key.
    if (param == "options" && function.rfind("ss_load_options_", 0) == 0) return false;
    if (param == "name" && function.rfind("ss_load_options_", 0) == 0) return false;
    if (param == "result" && function.rfind("ss_call_result_", 0) == 0) return true;
    return true;
  }
  if (function == "ss_engine_run_file" && param == "function") return true;
  if (function == "ss_load_options_mpi" && param == "mpi_comm") return true;
  if (function == "ss_load_options_sink" && param == "fn") return true;
  return false;
}

struct Outcome {
  bool status_returned = false;
  std::string code;          // the status's, "" for none
  bool null_object = false;  // an object-making function returned NULL
  bool object_function = false;
};

// An object-making function's result: whether it was NULL; freed.
template <typename T>
void made(T* returned, void (*free)(T*), Outcome& o) {
  o.object_function = true;
  o.null_object = returned == nullptr;
  free(returned);
}

template <typename R>
void settle(R returned, Outcome& o) {
  if constexpr (std::is_same_v<R, ss_status*>) {
    o.status_returned = true;
    o.code = returned ? ss_status_code(returned) : "";
    ss_status_free(returned);
  } else if constexpr (std::is_same_v<R, ss_tensor*>) {
    made(returned, &ss_tensor_free, o);
  } else if constexpr (std::is_same_v<R, ss_value*>) {
    made(returned, &ss_value_free, o);
  } else if constexpr (std::is_same_v<R, ss_engine*>) {
    made(returned, &ss_engine_free, o);
  } else if constexpr (std::is_same_v<R, ss_module*>) {
    made(returned, &ss_module_free, o);
  } else if constexpr (std::is_same_v<R, ss_load_options*>) {
    made(returned, &ss_load_options_free, o);
  } else if constexpr (std::is_same_v<R, ss_batcher*>) {
    made(returned, &ss_batcher_free, o);
  } else {
    (void)returned;
  }
}

template <typename... A, std::size_t... I>
std::tuple<A...> arguments(Fixture& fx, const std::vector<std::string>& names, std::size_t null_at,
                           std::index_sequence<I...>) {
  return std::tuple<A...>{fx.argument<A>(names[I], I == null_at)...};
}

// `f` with its parameter `null_at` NULL and the others valid.
template <typename R, typename... A>
Outcome call_with_null(Fixture& fx, R (*f)(A...), const std::vector<std::string>& names,
                       std::size_t null_at) {
  Outcome o;
  REQUIRE(names.size() == sizeof...(A));
  auto args = arguments<A...>(fx, names, null_at, std::index_sequence_for<A...>{});
  if constexpr (std::is_void_v<R>) {
    std::apply(f, args);
  } else {
    settle(std::apply(f, args), o);
  }
  // A status set through `status` counts as the function's answer.
  if (fx.status_slot) o.code = ss_status_code(fx.status_slot);
  fx.free_slots();
  return o;
}

// Which of f's parameters are pointers.
template <typename R, typename... A>
std::vector<bool> pointer_params(R (*)(A...)) {
  return {std::is_pointer_v<A>...};
}

}  // namespace

TEST_CASE("every C function, given each pointer NULL in turn, answers with E1612 or NULL") {
  // ss_load_options_mpi with a valid-looking communicator must not open MPI here.
  setenv("SHAPESCRIPT_MPI", "/nowhere/libshapescript_mpi.so", 1);
  const auto header = parse_header(ss::test::read_file(std::string(ss::test::kSourceDir) +
                                                       "/include/shapescript/shapescript.h"));
  Fixture fx;
  std::set<std::string> covered;
  int calls = 0;
  const auto check = [&](const char* name, auto f) {
    covered.insert(name);
    CAPTURE(name);
    const auto it = header.find(name);
    REQUIRE_MESSAGE(it != header.end(), "the header parse missed " << name);
    const auto pointers = pointer_params(f);
    REQUIRE(pointers.size() == it->second.size());
    const bool frees = std::string(name).find("_free") != std::string::npos;
    for (std::size_t k = 0; k < pointers.size(); ++k) {
      if (!pointers[k]) continue;
      const std::string& param = it->second[k];
      CAPTURE(param);
      const Outcome o = call_with_null(fx, f, it->second, k);
      ++calls;
      if (frees || may_be_null(name, param)) continue;  // answered without crashing
      if (o.status_returned || !o.code.empty())
        CHECK(o.code == "E1612");
      else if (o.object_function)
        CHECK(o.null_object);
    }
  };
#define SS_C_FUNCTION(f) check(#f, &f);
#include "c_api_functions.inc"
#undef SS_C_FUNCTION
  // (Not a structured binding: clang 14 won't capture one in CHECK's lambda.)
  for (const auto& entry : header) CHECK_MESSAGE(covered.count(entry.first), entry.first);
  CHECK(covered.size() >= 60);
  MESSAGE(calls << " calls with a NULL argument over " << covered.size() << " functions");
  unsetenv("SHAPESCRIPT_MPI");
}
