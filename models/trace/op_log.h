// The op log: one record per engine stage. Written as JSON lines (--oplog) and
// as a Chrome/Perfetto trace with one track per engine (--trace), in canonical
// order: by end time, then PE, engine, command, tile, start time, stage, op,
// address and bytes. Stages that end at the same picosecond are recorded in
// whatever order the SystemC kernel happened to run their processes, which
// depends on the kernel's event-queue internals (and its version); the output
// order does not, so a model change that keeps every time keeps the file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kb {

struct OpRecord {
  double t_start_ns = 0;
  double t_end_ns = 0;
  std::string pe;      // hierarchical name of the PE, e.g. system.sip0.cube0.pe0
  std::string engine;  // dma.read, dma.write, tcm, gemm, math
  std::string stage;   // DMA_READ, FETCH, GEMM, ...
  std::string op_kind;
  uint64_t cmd_id = 0;
  std::string tile;
  uint64_t bytes = 0;
  uint64_t addr = 0;
};

class OpLog {
 public:
  void add(OpRecord r) { records_.push_back(std::move(r)); }
  // In the order they were added (stage end, then kernel order).
  const std::vector<OpRecord>& records() const { return records_; }
  void clear() { records_.clear(); }

  // The records in canonical order (see above).
  std::vector<const OpRecord*> ordered() const;

  std::string to_jsonl() const;
  std::string to_chrome_trace() const;
  // FNV-1a 64 of to_jsonl(): a compact fingerprint for golden tests.
  uint64_t hash() const;

 private:
  std::vector<OpRecord> records_;
};

}  // namespace kb
