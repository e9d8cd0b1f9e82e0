#include "models/hbm/hbm_ctrl.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/common/address_map.h"
#include "models/common/burst_run.h"
#include "models/common/energy.h"
#include "models/common/request_order.h"
#include "models/common/sim_time.h"
#include "models/hbm/pc_mapping.h"

namespace kb {

HbmCtrl::HbmCtrl(const sc_core::sc_module_name& name, const HbmConfig& cfg)
    : MemoryTargetBase(name, cfg.size_bytes, ns_to_time(cfg.access_latency_ns), cfg.energy,
                       EnergyClass::kHbm),
      cfg_(cfg) {
  for (unsigned i = 0; i < cfg_.num_pcs; ++i) {
    const std::string pc = "pc" + std::to_string(i);
    if (cfg_.model == HbmModel::kBanked)
      pcs_.push_back(std::make_unique<BankedChannel>(
          pc.c_str(), cfg_.banked, cfg_.banked.lockstep(cfg_.pc_bandwidth_gbps), cfg_.queue_depth));
    else
      pcs_.push_back(
          std::make_unique<QueuedChannel>(pc.c_str(), cfg_.pc_bandwidth_gbps, cfg_.queue_depth));
  }
  pc_bytes_.resize(cfg_.num_pcs);
  pc_offset_.resize(cfg_.num_pcs);
}

const ServiceQueue& HbmCtrl::pc(unsigned i) const {
  const auto* q = dynamic_cast<const QueuedChannel*>(pcs_.at(i).get());
  if (!q) throw std::logic_error(std::string(name()) + ": pc(): the banked model has no queues");
  return q->queue();
}

unsigned HbmCtrl::pc_of(uint64_t offset) const {
  return pc_of_offset(cfg_, offset);
}

uint64_t HbmCtrl::pc_local_offset(uint64_t offset) const {
  // Each run of num_pcs chunks puts exactly one chunk on every PC (both
  // mappings), so a chunk's index within its PC is its run.
  return offset / cfg_.interleave_bytes / cfg_.num_pcs * cfg_.interleave_bytes +
         offset % cfg_.interleave_bytes;
}

void HbmCtrl::queue(tlm::tlm_generic_payload& trans, const sc_core::sc_time& delay,
                    Completion* served) {
  const double pj_per_byte = this->pj_per_byte(trans);
  const uint64_t order = order_key(trans);
  const bool write = trans.is_write();
  const BurstRun* run = BurstRun::of(trans);
  if (run && pcs_.front()->sums_runs()) {
    // A stream transaction: each pseudo-channel is handed once every byte
    // its bursts' chunks would have brought it, in channel order.
    std::fill(pc_bytes_.begin(), pc_bytes_.end(), 0);
    run->for_each_piece([&](uint64_t addr, uint64_t len) {
      for_each_chunk(addr & addr_bits::kOffsetMask, len, [&](uint64_t pos, uint64_t bytes) {
        const unsigned i = pc_of(pos);
        if (pc_bytes_[i] == 0) pc_offset_[i] = pc_local_offset(pos);
        pc_bytes_[i] += bytes;
      });
    });
    for (unsigned i = 0; i < cfg_.num_pcs; ++i)
      if (pc_bytes_[i])
        pcs_[i]->serve(delay, pc_offset_[i], pc_bytes_[i], write, served, order,
                       static_cast<double>(pc_bytes_[i]) * pj_per_byte);
    return;
  }
  auto serve = [&](uint64_t pos, uint64_t bytes) {
    pcs_[pc_of(pos)]->serve(delay, pc_local_offset(pos), bytes, write, served, order,
                            static_cast<double>(bytes) * pj_per_byte);
  };
  if (run)  // chunk by chunk, as its bursts' would be
    run->for_each_piece([&](uint64_t addr, uint64_t len) {
      for_each_chunk(addr & addr_bits::kOffsetMask, len, serve);
    });
  else
    for_each_chunk(trans.get_address() & addr_bits::kOffsetMask, trans.get_data_length(), serve);
}

}  // namespace kb
