// PE_CPU: the PE's firmware processor. A kernel (any C++ callable, e.g. a
// firmware/ kernel written against `tl`) runs on its own SC_THREAD with an
// explicit stack size. Every command it issues pays the dispatch cost of
// models/commands/cost_model.h on this thread, in SystemC time, and then
// leaves over a TLM socket: composites to PE_SCHEDULER, single-op commands
// straight to the engine that serves them (the light path). issue() returns
// at once with a handle; wait() blocks the kernel until the command is done.
#pragma once

#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>

#include "models/commands/commands.h"
#include "models/commands/cost_model.h"
#include "models/common/address_map.h"
#include "models/common/instrumented.h"
#include "models/common/ring_queue.h"
#include "models/cpu/cpu_config.h"
#include "models/gemm/gemm_config.h"
#include "models/pe/stage.h"

namespace kb {

struct CommandStatus {
  uint64_t id = 0;
  const char* kind = "";
  bool done = false;
  double dispatch_start_ns = 0;  // PE_CPU starts paying the dispatch cost
  double issued_ns = 0;          // the command leaves PE_CPU
  double done_ns = 0;
  sc_core::sc_event event;
};
using CommandHandle = std::shared_ptr<CommandStatus>;

class PeCpu : public sc_core::sc_module, public Instrumented {
 public:
  tlm_utils::simple_initiator_socket<PeCpu> cmd_out;               // to PE_SCHEDULER
  tlm_utils::multi_passthrough_initiator_socket<PeCpu> stage_out;  // engines, EngineKind order

  // `gemm`: the native tile a single-op GEMM is charged in (PE_GEMM's).
  PeCpu(const sc_core::sc_module_name& name, const CpuConfig& cfg,
        const CostModelConfig& cost_model, const GemmConfig& gemm, double clock_ghz,
        const Location& self = {});

  // Runs `kernel` on a new firmware thread of this PE (from now on).
  void launch(std::function<void()> kernel, const std::string& label = "kernel");
  bool running() const { return running_ > 0; }

  // Kernel-thread API.
  CommandHandle issue(Command cmd);
  void wait(const CommandHandle& h);
  void wait_all();
  const CostModel& cost_model() const { return cost_; }
  const CpuConfig& config() const { return cfg_; }
  const std::string& pe_path() const { return pe_path_; }

  struct Stats {
    uint64_t commands = 0;
    double dispatch_ns = 0;
    std::map<std::string, uint64_t> by_kind;
    std::map<std::string, double> dispatch_ns_by_kind;
  };
  const Stats& stats() const { return stats_; }
  const bool& dispatching_flag() const { return dispatching_; }
  const uint64_t& last_cmd_value() const { return last_cmd_; }
  // The id the next command will get (ids count from 1 per PE).
  uint64_t next_command_id() const { return next_id_; }

  // Instrumented: the Stats above; dispatching and cmd_id.
  void report_stats(StatsSink& out, double now_ns) const override;
  unsigned trace_signals(sc_core::sc_trace_file* tf, const std::string& name) const override;
  // Static power only (CpuConfig::static_mw).
  void report_energy(EnergySink& out) const override;

 private:
  struct InFlight {
    Command cmd;
    CommandHandle status;
    TileToken token;
  };
  void complete(InFlight& f);
  [[noreturn]] void fault(uint64_t id, const char* kind, const std::string& why);
  // Check a single-op command (a fault names what is wrong) and build its
  // token from the stages of models/pe/lowering.h.
  void build_token(InFlight& f);
  void build_ipcq_stage(InFlight& f);
  // A dispatch cost past the simulated time a run can hold: a fault naming
  // the cycles, the clock and the command.
  [[noreturn]] void dispatch_overflow(const InFlight& f, double ns);

  CostModel cost_;
  CpuConfig cfg_;
  GemmConfig gemm_;
  Location self_;
  std::string pe_path_;
  uint64_t next_id_ = 1;
  RingQueue<std::unique_ptr<InFlight>> in_flight_;
  unsigned running_ = 0;
  bool dispatching_ = false;
  uint64_t last_cmd_ = 0;
  sc_core::sc_event any_done_{"any_done"};  // named: see ServiceQueue
  Stats stats_;
};

}  // namespace kb
