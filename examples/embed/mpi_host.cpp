// A host that already runs under MPI, training through the C++ API: it
// starts MPI itself, hands the library its communicator, keeps the model
// and optimiser resident, and calls the digits program's train_step on
// every process with the whole global batch; each rank computes its part,
// the gradients are summed across the processes, and every replica stays
// the same bits. Rank 0 reports. Run it as
//
//   mpirun -np 2 build/default/bin/mpi_host_example examples/digits/digits.ss
//
// The data is made here (the same on every process, from one seed): a host
// has its own, a replay buffer or a stream.
#include <mpi.h>

#include <cstdio>
#include <random>
#include <vector>

#include "shapescript/shapescript.hpp"

namespace {

int report(const std::vector<ss::Diagnostic>& diagnostics) {
  for (const auto& d : diagnostics) std::fprintf(stderr, "%s", d.render().c_str());
  return ss::has_errors(diagnostics) ? 1 : 0;
}

// Examples of 64 pixels whose label lights every tenth pixel from its own.
struct Data {
  std::vector<float> pixels;
  std::vector<std::int32_t> labels;
};

Data make_data(std::int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> noise(0.0f, 0.3f);
  std::uniform_int_distribution<int> label(0, 9);
  Data d;
  for (std::int64_t i = 0; i < n; ++i) {
    const int y = label(gen);
    d.labels.push_back(y);
    for (int j = 0; j < 64; ++j) d.pixels.push_back((j % 10 == y ? 1.0f : 0.0f) + noise(gen));
  }
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: mpi_host_example DIGITS.ss\n");
    return 2;
  }
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm comm = MPI_COMM_WORLD;
  int process = 0;
  MPI_Comm_rank(comm, &process);
  int status = 1;
  {
    std::vector<ss::Diagnostic> errors;
    const auto world = ss::MpiWorld::open(&comm, &errors);
    if (!world) {
      report(errors);
      MPI_Abort(comm, 1);
    }
    ss::Engine engine;
    const ss::Module mod = engine.load_file(argv[1], {.mpi = world});
    if (!mod) {
      report(mod.diagnostics());
      world->abort_job(1);  // the others may be waiting at load: end them too
    }
    ss::Value m = mod.make("Mlp", {.seed = 0}, &errors);
    ss::Value opt = mod.make_optimizer("AdamW", m, {{"lr", 3e-3}, {"weight_decay", 0.01}}, &errors);
    if (report(errors)) world->abort_job(1);

    const std::int64_t n = 1024, batch = 64;
    Data train = make_data(n, 1), test = make_data(512, 2);
    double loss = 0;
    for (int epoch = 0; epoch < 5; ++epoch)
      for (std::int64_t at = 0; at < n; at += batch) {
        const ss::Value b =
            mod.batch("Digit",
                      {{"pixels", ss::Tensor::view(train.pixels.data() + at * 64, {batch, 64})},
                       {"label", ss::Tensor::view(train.labels.data() + at, {batch})}},
                      &errors);
        const ss::CallResult r = mod.call("train_step", {ss::mut(m), ss::mut(opt), b});
        if (!r) {
          report(r.diagnostics);
          world->abort_job(1);  // E1806: a process stopped answering; never wait on it
        }
        loss = r.tensor().to_floats().at(0);
      }
    const ss::Value all = mod.batch("Digit",
                                    {{"pixels", ss::Tensor::view(test.pixels.data(), {512, 64})},
                                     {"label", ss::Tensor::view(test.labels.data(), {512})}},
                                    &errors);
    const ss::CallResult acc = mod.call("accuracy", {m, all});
    if (!acc) {
      report(acc.diagnostics);
      world->abort_job(1);
    }
    if (process == 0) {
      int ranks = 0;
      for (const auto& w : acc.workers) ranks += w.rank == 0 ? 1 : 0;
      std::printf("%d MPI processes (%s)\n", world->processes(), world->library().c_str());
      std::printf("trained 5 epochs of %lld examples: loss %.4f, test accuracy %.4f\n",
                  static_cast<long long>(n), loss, acc.tensor().to_floats().at(0));
      std::printf("this process holds rank 0: %s\n", ranks == 1 ? "yes" : "no");
    }
    status = acc.tensor().to_floats().at(0) > 0.9f ? 0 : 1;
  }  // the module and the world go before MPI_Finalize
  MPI_Finalize();
  return status;
}
