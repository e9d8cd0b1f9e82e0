// VCD waveforms of the platform's occupancy, limited to a scope.
//
// Traced, for every module whose hierarchical name is in scope: each
// ServiceQueue's busy flag and queue depth (HBM pseudo-channels, link
// directions' wires, memory ports) and each PE_DMA channel's busy flag and
// outstanding bursts; each stage engine lane's busy flag, queue depth and
// current command id; PE_CPU's dispatching flag and last command id;
// PE_SCHEDULER's tokens in flight; for a PE_MATH on RTL (pe.math.impl: rtl or
// scoreboard) the vector unit's clk, rst, in/out valid and ready and opcode
// under "<engine>.rtl.". Values are written only when they change, with a 1 ps
// timebase.
//
// A scope is a glob (fnmatch) on hierarchical names; a module is in scope when
// its name or any of its ancestors' names matches one of the patterns. The
// default scope is the first PE and its cube's router, SRAM, PE links and
// cube links.
//
// Beside the VCD, finish() writes a GTKWave save file (gtkw_path(PATH): the
// VCD's name with .gtkw) that opens it with every traced signal shown, one
// comment line per module, bits in binary and counts in decimal. A save file
// that is there already and was not written by kernbench (its first line is
// not kGtkwHeader: a user's own view) is kept, and none is written.
//
// The file is written to a temporary beside PATH (".kb-XXXXXX.vcd", see
// atomic_file.h); finish() hands it, and the save file, to the run's
// OutputTransaction, so an aborted, failed or interrupted run leaves no
// half-written VCD behind (abandon() removes it).
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace sc_core {
class sc_trace_file;
}

namespace kb {

class AtomicFile;
class OutputTransaction;

// The first line of every save file kernbench writes.
inline constexpr const char* kGtkwHeader = "[*] GTKWave save file written by kernbench";
// True unless `gtkw` is a regular file that is not a save file kernbench wrote.
bool gtkw_is_ours(const std::string& gtkw);

std::vector<std::string> default_vcd_scopes();
bool in_vcd_scope(const std::string& name, const std::vector<std::string>& scopes);
// The GTKWave save file written beside the VCD at `vcd_path`.
std::string gtkw_path(const std::string& vcd_path);
// The save file's text for the VCD `vcd_text` (only its header is read).
std::string gtkw_text(const std::string& vcd_path, const std::string& vcd_text);

class VcdTracer {
 public:
  // Must be called after elaboration and before the first sc_start().
  // `save_file`: write the GTKWave save file beside it.
  VcdTracer(const std::string& path, const std::vector<std::string>& scopes, bool save_file = true);
  ~VcdTracer();
  VcdTracer(const VcdTracer&) = delete;
  VcdTracer& operator=(const VcdTracer&) = delete;

  unsigned traced_signals() const { return signals_; }
  // Traces `phase` (the platform's run number, Platform::phase) as
  // "system.phase". Before the first sc_start() too.
  void trace_phase(const unsigned& phase);
  // Closes the file and stages it, with its save file, in `outputs` (throws
  // OutputError); false, and nothing staged, when nothing was simulated (no
  // cycle to trace).
  bool finish(OutputTransaction& outputs);
  void abandon();  // close and delete

 private:
  std::string path_;
  std::unique_ptr<AtomicFile> file_;
  sc_core::sc_trace_file* tf_ = nullptr;
  unsigned signals_ = 0;
  bool save_file_ = true;
};

}  // namespace kb
