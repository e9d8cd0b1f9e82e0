// Parameters of PE_DMA (models/dma/pe_dma.h). Each field's default, unit and
// bound: visit() below (models/common/knob_spec.h).
#pragma once

#include <cstdint>

#include "models/common/knob_spec.h"

namespace kb {

// Energy of PE_DMA: per burst it issues (descriptor, address generation),
// and its static power.
struct DmaEnergyConfig {
  double pj_per_burst = 20;
  double static_mw = 10;
};

// How a descriptor reaches the fabric (docs/ARCHITECTURE.md §1.6): burst,
// every burst its own transaction (the exact model); stream, a descriptor of
// three bursts or more as three to five transactions that the targets price
// as its bursts (models/common/burst_run.h).
enum class DmaTransactions { kBurst, kStream };
constexpr EnumName<DmaTransactions> kDmaTransactionsNames[] = {
    {DmaTransactions::kBurst, "burst"}, {DmaTransactions::kStream, "stream"}};

struct DmaConfig {
  uint64_t burst_bytes = 1024;
  DmaTransactions transactions = DmaTransactions::kBurst;
  unsigned max_outstanding = 64;
  double setup_ns = 2;
  DmaEnergyConfig energy;

  template <class V>
  void visit(V& v) {
    v.size(burst_bytes,
           {"burst_bytes", "a transfer is split into bursts of this size", Bound::kAtLeastOne});
    v.choice(transactions, kDmaTransactionsNames,
             {"transactions",
              "burst: every burst is a transaction (the exact model); stream: a descriptor of 3 "
              "or more bursts moves as a first burst, the rest's read, and two writes, priced by "
              "the targets as its bursts (fewer events; timing mode only; its error against "
              "burst is measured in docs/ARCHITECTURE.md)"});
    v.count(max_outstanding,
            {"max_outstanding", "bursts in flight per channel", Bound::kAtLeastOne});
    v.real(setup_ns,
           {"setup_ns", "setup per transfer, before its first burst, ns", Bound::kNonNegative});
    v.section("energy", "DMA energy", [&] {
      v.real(energy.pj_per_burst,
             {"pj_per_burst",
              "per burst issued (descriptor and address generation; the bytes are priced by "
              "the memories, wires and routers they cross), pJ (default 20: two 64-bit accesses "
              "of an 8 KB SRAM at 10 pJ, Horowitz, ISSCC 2014)",
              Bound::kNonNegative});
      v.real(energy.static_mw,
             {"static_mw", "static power, mW (default 10: an estimate)", Bound::kNonNegative});
    });
  }
};

}  // namespace kb
