// Benches `gqa-long` and `gqa-sweep` (long context): the decode
// step of Llama-70B attention with every KV head on its own group of C cubes
// x P PEs (firmware/kernels/attention_long_decode.h), in the four
// parallelism cases {Cube-SP, Cube-Repl} x {PE-TP, PE-SP}. KV head h runs on
// the cubes [g_h, g_h + C) of one SIP, g_h = h*C by default (DPPolicy
// cube_start; --param groups= places them explicitly). gqa-sweep runs the
// four cases at S_kv = 8192 and 131072 for one KV-head group of Llama-70B
// (heads=8, kv_heads=1: G = 8) on C = 8 cubes
// (the groups are independent, so one stands for all eight; --param
// kv_heads=8 --param heads=64 with llama70b_4sip.yaml runs the whole
// layer); scripts/plot_gqa.py plots it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "firmware/kernels/attention_long_decode.h"
#include "platform/bench/bench.h"

namespace kb {

class HostRuntime;
struct TopologyConfig;

// Where one KV head runs and how it splits its work.
struct HeadPlan {
  fw::AttnPlacement at;
  fw::DecodeCase mode;
  fw::ReduceShape intra = fw::ReduceShape::kTree;
};

// The attention shapes every head shares.
struct DecodeShape {
  int64_t g = 8, d_head = 128, s_kv = 8192, tile = 64;
  double score_std = 10;
  std::string variant = "opt2";
  // KV in HBM in the GEMM's native blocks (one contiguous run per streamed
  // tile) instead of plain row-major (a strided row per tile row).
  bool tiled_kv = true;
};

// Allocates every head's Q, KV blocks (random in data mode) and a shared
// output [heads * G, d] in sip0.cube0.pe0's HBM, runs attention_long_decode
// on every rank of every plan at once, and measures: latency_ns (launch to
// the last rank's end), kv_bytes_per_cube, ipcq_ops, dma_ops (reads, writes,
// bursts), link/cube-link/SIP-link bytes, wall_s, and max_abs_err in data
// mode (and the output itself in `out` when given). Releases its
// allocations afterwards.
// --param kv_layout (tiled | rowmajor): true for tiled.
bool parse_kv_layout(const BenchParams& p);
// UsageError unless d_head and the tile are whole native GEMM blocks (when tiled_kv).
void check_tiled_kv(const DecodeShape& shape, const TopologyConfig& cfg, const std::string& bench);

nlohmann::json run_decode_heads(HostRuntime& rt, const std::vector<HeadPlan>& plans,
                                const DecodeShape& shape, bool data_mode,
                                std::vector<float>* out = nullptr);
// The fields of run_decode_heads' point, data mode's included (Bench::point_fields).
std::vector<std::string> decode_heads_point_fields();

// One point of the study.
struct LongDecodeSpec {
  int case_no = 4;
  int64_t s_kv = 8192, tile = 64, heads = 64, kv_heads = 8, d_head = 128;
  unsigned cubes = 0;            // C; 0 = the largest of 8, 4, 2, 1 that fits every head
  unsigned pes = 0;              // P; 0 = every PE of a cube
  std::vector<unsigned> groups;  // first cube of each head (global: sip*cubes + cube); empty = h*C
  double score_std = 10;
  std::string variant = "opt2";
  bool tiled_kv = true;
};

// The spec's C, P and groups resolved against the platform, or UsageError
// (C*P larger than the platform, overlapping groups, fewer KV positions than
// ranks, ...).
LongDecodeSpec resolve_long_decode(const LongDecodeSpec& spec, const TopologyConfig& cfg);

// Runs one point on `rt`'s platform (releasing its allocations afterwards);
// returns the point's JSON (latency_ns, kv_bytes_per_cube, ipcq_ops, dma_ops,
// traffic, and max_abs_err in data mode).
nlohmann::json run_long_decode(HostRuntime& rt, const LongDecodeSpec& spec, bool data_mode,
                               std::vector<float>* out = nullptr);
// The fields of run_long_decode's point (Bench::point_fields).
std::vector<std::string> long_decode_point_fields();

class GqaLongBench : public Bench {
 public:
  std::string name() const override { return "gqa-long"; }
  std::string description() const override {
    return "long-context GQA decode of Llama-70B shapes, every KV head on C cubes x P PEs, in the "
           "four parallelism cases (1 Cube-SP x PE-TP, 2 Cube-Repl x PE-TP, 3 Cube-Repl x PE-SP, "
           "4 Cube-SP x PE-SP) with a two-level log-sum-exp reduce: latency, KV bytes per cube, "
           "IPCQ and DMA ops, traffic; with --data the error vs a double-precision reference";
  }
  std::vector<ParamSpec> params() const override;
  bool uses_op_log() const override { return false; }
  std::vector<std::string> point_fields() const override;
  BenchResult run(BenchContext& ctx) override;
};

class GqaSweepBench : public Bench {
 public:
  std::string name() const override { return "gqa-sweep"; }
  std::string description() const override {
    return "gqa-long in all four cases at S_kv = 8192 and 131072: one table of latency, IPCQ/DMA "
           "traffic and KV memory per cube (scripts/plot_gqa.py RESULT.json [OUT_DIR] plots it)";
  }
  std::vector<ParamSpec> params() const override;
  bool uses_op_log() const override { return false; }
  std::vector<std::string> point_fields() const override;
  std::vector<std::string> metric_fields() const override;
  BenchResult run(BenchContext& ctx) override;
};

}  // namespace kb
