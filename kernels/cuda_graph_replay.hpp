// CUDA graphs for the CUDA executor: a device function's launches captured
// once per function and input sizes, then replayed as one cuGraphLaunch.
// The kernels stay size-generic; only the graph is per size.
//
// - The first call of a function at some sizes runs uncaptured (its kernels
//   compile then); the second is captured and launched; later ones replay.
// - A captured graph owns its memory (a GraphArena). An input is either
//   copied into a buffer of the graph's own before each launch, or read
//   where it lies, and then the graph matches a call only while it lies
//   there:
//   - host tensors (a batch from the host) are copied;
//   - another graph's results (a training step's state) are read in place.
//     The state alternates between two graphs, each reading the other's
//     results; a graph re-captured over a retired one's arena gets the
//     same addresses, which closes that cycle, so after a few calls no
//     state is copied;
//   - an uncaptured call's results are read in place too;
//   - a resident value's copy is read in place when it was the last call's
//     too (a model's weights), else copied on the device (a new batch value
//     each call, though its copy may land where the last one was).
// - Graphs whose inputs keep moving (more captures than replays after six)
//   stop being captured: those calls run uncaptured.
// - A replay overwrites its last results. One the host still holds (a
//   value's old version) is first moved out of the way, into memory of its
//   own, so nothing the host holds ever changes. When the host holds none
//   (a call_into copied them out), the replay hands out the same host
//   tensors again, refetched (Buffer::rearm): a replayed call makes no
//   host allocation.
// - What a graph can't hold runs uncaptured, for good: an op on the host
//   (a random draw, a sort), a wait for the device mid-run, several workers
//   (their all-reduces go through the host), a driver call that fails while
//   capturing (the uncaptured run then reports its own failures).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cuda_graph_run.hpp"

namespace ss::cuda::detail {

struct GraphCounts {
  std::int64_t captures = 0, replays = 0, uncaptured = 0, moved_out = 0;
};

class GraphReplays {
 public:
  GraphReplays(std::shared_ptr<Gpu> gpu, RunOptions options)
      : gpu_(std::move(gpu)), options_(options) {}
  ~GraphReplays();
  GraphReplays(const GraphReplays&) = delete;
  GraphReplays& operator=(const GraphReplays&) = delete;

  // The outputs of g's captured graph for these inputs (captured now when
  // one is due) into `outputs` (its capacity kept), or false: run it
  // uncaptured. Under the GPU's run lock.
  bool run(const ir::Graph& g, const std::shared_ptr<const GraphPlan>& plan,
           const std::map<std::string, Tensor>& inputs, const runtime::Dims& dims, Counts& counts,
           std::vector<Tensor>& outputs);

  const GraphCounts& counts() const { return counts_; }

 private:
  struct Input {
    std::string name;
    bool copied = false;      // into the graph's buffer at `address` before each launch
    CUdeviceptr address = 0;  // else where the graph reads it
    std::size_t bytes = 0;
  };
  struct Instance {
    std::shared_ptr<const GraphPlan> plan;
    std::shared_ptr<GraphArena> arena;
    CUgraphExec exec = nullptr;
    std::vector<Input> inputs;
    std::vector<DTensor> outputs;  // where the graph leaves them
    std::vector<RangeChecks> checks;
    // The last launch's results as handed out: a memory handle per output
    // address, its use count then (anything above it is a holder of the
    // host's), and each output's host tensor (refetchable).
    std::vector<std::shared_ptr<DeviceMemory>> handles;
    std::vector<long> handle_uses;
    std::vector<int> handle_of;  // per output
    std::vector<Tensor> handed;  // per output
    // Whether nothing but this instance holds its last results.
    bool idle() const;
    // Its handed tensors no longer rearmed: those the host keeps let go
    // of the graph's memory once fetched (Buffer::settle).
    void let_go();
    ~Instance() { let_go(); }
  };
  struct Entry {
    int calls = 0, captures = 0, replays = 0;
    bool uncapturable = false;
    std::vector<std::unique_ptr<Instance>> instances;
    std::vector<std::weak_ptr<DeviceMemory>> last;  // each input's device memory on the last call
    std::vector<Tensor> views;  // each input's device view on the last call (device_view)
  };
  // A call's inputs as the graph would take them: on the device already, or not.
  struct Source {
    const Tensor* host = nullptr;
    std::optional<DTensor> device;
    bool in_arena = false;  // a graph's result: read in place only
    bool resident = false;  // a resident value's copy
    bool moved = false;     // elsewhere than on the entry's last call
  };

  // The call's inputs into from_.
  void sources(const ir::Graph& g, const std::map<std::string, Tensor>& inputs, Entry& entry);
  static bool matches(const Instance& instance, const std::vector<Source>& sources);
  // Null when the run can't be captured (the entry is then marked).
  std::unique_ptr<Instance> capture(const ir::Graph& g,
                                    const std::shared_ptr<const GraphPlan>& plan,
                                    const std::vector<Source>& sources,
                                    const std::map<std::string, Tensor>& inputs,
                                    const runtime::Dims& dims, std::shared_ptr<GraphArena> arena,
                                    Counts& counts);
  // Launches the graph (its held results moved out and its host inputs
  // copied in first, given `from`) and hands out its results.
  void launch(Instance& instance, const std::vector<Source>* from, std::vector<Tensor>& out);
  // Each result in a memory handle of its own and a host tensor, so that
  // the next launch finds which the host still holds.
  void hand_out_anew(Instance& instance);
  // A copied input into its buffer: uploaded from the host, or copied on the device.
  void copy_in(const Input& in, const Source& from);
  void destroy(Instance& instance);
  void destroy(Entry& entry);

  std::shared_ptr<Gpu> gpu_;
  RunOptions options_;
  // By graph, then by the sizes' key (size_key); found without a string
  // made (key_ is reused).
  std::map<const ir::Graph*, std::map<std::string, Entry, std::less<>>> entries_;
  std::string key_;
  std::vector<Source> from_;  // the call's inputs, cleared after it
  GraphCounts counts_;
};

// Whether the executor captures CUDA graphs: yes, unless
// SHAPESCRIPT_CUDA_GRAPHS is "off" or "0" (for comparisons and tests).
bool graphs_wanted();

}  // namespace ss::cuda::detail
