#include "runtime/devices/mpi_comm.hpp"

namespace ss::runtime {
namespace {

constexpr const char* kModuleName = "libshapescript_mpi.so";

// A wait's `stopped` callback, through the C table.
int call_stopped(void* context) {
  const auto* f = static_cast<const std::function<bool()>*>(context);
  return (*f)() ? 1 : 0;
}

// How an exchange waits: `timeout`, `stopped` (may be null), `silent` (may be null).
SsMpiWait wait_of(std::chrono::milliseconds timeout, const std::function<bool()>* stopped,
                  std::vector<int>* silent) {
  return {timeout.count(), stopped ? call_stopped : nullptr,
          const_cast<std::function<bool()>*>(stopped), silent ? silent->data() : nullptr};
}

constexpr std::size_t kWhy = 1024;

}  // namespace

namespace {

// The adapter's table, or null with *why.
const SsMpiApi* load_adapter(const std::string& adapter,
                             std::shared_ptr<support::DynamicLibrary>* library, std::string* why) {
  std::string reasons;
  *library = std::make_shared<support::DynamicLibrary>(support::DynamicLibrary::open_first(
      support::module_candidates(adapter, "SHAPESCRIPT_MPI", kModuleName), &reasons));
  if (!**library) {
    *why = "can't open the MPI adapter (" + std::string(kModuleName) + "): " + reasons;
    return nullptr;
  }
  SsMpiEntry entry = nullptr;
  if (!(*library)->load(entry, SS_MPI_ENTRY_SYMBOL)) {
    *why = (*library)->path() + " has no " SS_MPI_ENTRY_SYMBOL;
    return nullptr;
  }
  const SsMpiApi* api = entry(SS_MPI_ABI_VERSION);
  if (!api)
    *why = (*library)->path() + " is from another shapescript (MPI ABI " +
           std::to_string(SS_MPI_ABI_VERSION) + " wanted)";
  return api;
}

}  // namespace

bool MpiComm::probe(const std::string& adapter, std::string* path, std::string* version,
                    std::string* why) {
  std::shared_ptr<support::DynamicLibrary> library;
  const SsMpiApi* api = load_adapter(adapter, &library, why);
  if (!api) return false;
  *path = library->path();
  *version = api->library_version();
  return true;
}

std::shared_ptr<MpiComm> MpiComm::open(const void* comm, const std::string& adapter,
                                       std::string* why) {
  std::shared_ptr<support::DynamicLibrary> library;
  const SsMpiApi* api = load_adapter(adapter, &library, why);
  if (!api) return nullptr;
  char text[kWhy] = {};
  // Every process duplicates the communicator: a default collective timeout
  // for one that never comes.
  const SsMpiWait wait = wait_of(std::chrono::milliseconds(120000), nullptr, nullptr);
  SsMpiComm* c = api->open(comm, &wait, text, sizeof text);
  if (!c) {
    *why = text;
    return nullptr;
  }
  return std::shared_ptr<MpiComm>(new MpiComm(std::move(library), api, c));
}

MpiComm::MpiComm(std::shared_ptr<const support::DynamicLibrary> library, const SsMpiApi* api,
                 SsMpiComm* comm)
    : library_(std::move(library)), api_(api), comm_(comm) {}

MpiComm::~MpiComm() {
  api_->close(comm_);
}

std::shared_ptr<MpiComm> MpiComm::fork(std::chrono::milliseconds timeout, std::string* why) {
  std::lock_guard lock(mutex_);
  char text[kWhy] = {};
  const SsMpiWait wait = wait_of(timeout, nullptr, nullptr);
  SsMpiComm* c = api_->fork(comm_, &wait, text, sizeof text);
  if (!c) {
    *why = text;
    return nullptr;
  }
  auto forked = std::shared_ptr<MpiComm>(new MpiComm(library_, api_, c));
  forked->timeout_ = timeout;
  return forked;
}

int MpiComm::process() const {
  return api_->process(comm_);
}

int MpiComm::processes() const {
  return api_->processes(comm_);
}

void MpiComm::set_layout(const std::vector<int>& counts) {
  std::lock_guard lock(mutex_);
  counts_ = counts;
}

bool MpiComm::broken() const {
  std::lock_guard lock(mutex_);
  return broken_;
}

std::string MpiComm::named(int process) const {
  std::string name = "MPI process " + std::to_string(process);
  if (process >= static_cast<int>(counts_.size())) return name;
  int first = 0;
  for (int p = 0; p < process; ++p) first += counts_[static_cast<std::size_t>(p)];
  const int n = counts_[static_cast<std::size_t>(process)];
  if (n == 1) return name + " (rank " + std::to_string(first) + ")";
  return name + " (ranks " + std::to_string(first) + "-" + std::to_string(first + n - 1) + ")";
}

void MpiComm::check(int status, const std::string& why, const std::vector<int>& silent) {
  if (status == SS_MPI_OK) return;
  broken_ = true;
  std::string message = why;
  if (status == SS_MPI_TIMED_OUT) {
    std::string names;
    for (std::size_t p = 0; p < silent.size(); ++p)
      if (silent[p]) names += (names.empty() ? "" : ", ") + named(static_cast<int>(p));
    if (!names.empty()) message += "; " + names + " didn't answer";
  }
  throw CollectiveError(message, status == SS_MPI_STOPPED);
}

void MpiComm::all_reduce(const std::vector<void*>& locals, std::size_t count, DType dtype,
                         const std::function<bool()>& stopped) {
  std::lock_guard lock(mutex_);
  std::vector<int> silent(static_cast<std::size_t>(processes()), 0);
  const SsMpiWait wait = wait_of(timeout_, &stopped, &silent);
  char text[kWhy] = {};
  if (counts_.size() != static_cast<std::size_t>(processes()))
    throw CollectiveError("the MPI processes' worker counts aren't known", false);
  const int status =
      api_->all_reduce(comm_, locals.data(), static_cast<int>(locals.size()), counts_.data(), count,
                       dtype == DType::f32 ? SS_MPI_F32 : SS_MPI_I32, &wait, text, sizeof text);
  check(status, text, silent);
}

void MpiComm::broadcast(void* data, std::size_t bytes, int root_process,
                        const std::function<bool()>& stopped) {
  std::lock_guard lock(mutex_);
  std::vector<int> silent(static_cast<std::size_t>(processes()), 0);
  const SsMpiWait wait = wait_of(timeout_, &stopped, &silent);
  char text[kWhy] = {};
  const int status = api_->broadcast(comm_, data, bytes, root_process, &wait, text, sizeof text);
  check(status, text, silent);
}

void MpiComm::barrier(const std::function<bool()>& stopped) {
  std::lock_guard lock(mutex_);
  const SsMpiWait wait = wait_of(timeout_, &stopped, nullptr);
  char text[kWhy] = {};
  const int status = api_->barrier(comm_, &wait, text, sizeof text);
  check(status, text, {});
}

std::vector<std::string> MpiComm::all_gather(const std::string& mine) {
  std::lock_guard lock(mutex_);
  const SsMpiWait wait = wait_of(timeout_, nullptr, nullptr);
  const int n = processes();
  std::string all(mine.size() * static_cast<std::size_t>(n), '\0');
  char text[kWhy] = {};
  const int status =
      api_->all_gather(comm_, mine.data(), mine.size(), all.data(), &wait, text, sizeof text);
  check(status, text, {});
  std::vector<std::string> out;
  for (int p = 0; p < n; ++p)
    out.push_back(all.substr(static_cast<std::size_t>(p) * mine.size(), mine.size()));
  return out;
}

void MpiComm::abort_job(int code) const {
  api_->abort_job(comm_, code);
  std::abort();  // abort_job doesn't return
}

std::string MpiComm::library_version() const {
  return api_->library_version();
}

}  // namespace ss::runtime
