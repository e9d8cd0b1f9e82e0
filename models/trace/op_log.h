// The op log: one record per engine stage, read back in canonical order: by
// end time, then PE, engine, command, tile, start time, stage, op, address and
// bytes (platform/output writes it as JSON lines, --oplog, and as a
// Chrome/Perfetto trace, --trace: op_log_writer.h, trace_writer.h). Stages that end at the same
// picosecond are recorded in whatever order the SystemC kernel happened to run their processes,
// which depends on the kernel's event-queue internals (and its version); the output order does not,
// so a model change that keeps every time keeps the file.
//
// Memory: a long run's log need not be held whole. After spill_to(PATH) the
// log keeps at most `chunk` records in memory: each full chunk is sorted
// canonically and appended to PATH as a sorted run, and the output merges the
// runs with what is left in memory. The output is byte-identical to the
// in-memory log's. records() is only available while nothing was spilled (the
// benches that read records back keep their log in memory).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kb {

struct OpRecord {
  // When the stage reached its engine (the wait before t_start_ns); -1: unknown.
  double t_queued_ns = -1;
  double t_start_ns = 0;
  double t_end_ns = 0;
  std::string pe;      // hierarchical name of the PE, e.g. system.sip0.cube0.pe0
  std::string engine;  // the lane: dma.read, dma.write, tcm.fetch, tcm.store, gemm, math,
                       // ipcq.send, ipcq.recv, ipcq.msg
  std::string stage;   // DMA_READ, FETCH, GEMM, ...
  std::string op_kind;
  uint64_t cmd_id = 0;
  std::string tile;
  uint64_t bytes = 0;
  uint64_t addr = 0;
  uint64_t src = 0, dst = 0;  // DMA stages: the transfer's source and destination (else 0)
  std::string peer;           // the peer PE of an IPCQ chunk or message (hierarchical name)
  // Trace only (not in the JSON-lines op log): the doorbell message id that
  // links a sender's doorbell (engine ipcq.msg) to the receiver's chunk.
  uint64_t msg = 0;
};

class OpLog {
 public:
  void add(OpRecord r);
  // The records held in memory, in the order they were added (stage end, then
  // kernel order). Throws std::logic_error once records were spilled.
  const std::vector<OpRecord>& records() const;
  size_t size() const { return spilled_records_ + records_.size(); }
  void clear();

  // Spill sorted runs of `chunk` records to `path` (created or truncated
  // now; the caller owns and removes the file). Throws std::runtime_error
  // when it cannot be written.
  void spill_to(const std::string& path, size_t chunk = size_t{1} << 18);
  bool spilled() const { return spilled_records_ != 0; }

  // Every record in canonical order (see above), merged from the spilled
  // runs and memory.
  void for_each_ordered(const std::function<void(const OpRecord&)>& f) const;
  // The records in canonical order, in memory only (tests, small logs).
  std::vector<const OpRecord*> ordered() const;

 private:
  void spill_chunk();
  std::vector<OpRecord> records_;
  std::string spill_path_;
  size_t chunk_ = 0;
  size_t spilled_records_ = 0;
  std::vector<std::pair<uint64_t, size_t>> runs_;  // (byte offset, records) in the spill file
};

}  // namespace kb
