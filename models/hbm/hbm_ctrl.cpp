#include "models/hbm/hbm_ctrl.h"

#include <algorithm>
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
      cfg_(cfg),
      pc_time_(cfg.pc_bandwidth_gbps) {
  for (unsigned i = 0; i < cfg_.num_pcs; ++i) {
    const std::string pc = "pc" + std::to_string(i);
    if (cfg_.model == HbmModel::kBanked)
      banked_.push_back(std::make_unique<BankedChannel>(
          pc.c_str(), cfg_.banked, cfg_.banked.lockstep(cfg_.pc_bandwidth_gbps), cfg_.queue_depth));
    else
      pcs_.push_back(std::make_unique<ServiceQueue>(pc.c_str(), cfg_.queue_depth));
  }
  pc_bytes_.resize(cfg_.num_pcs);
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
  const BurstRun* run = BurstRun::of(trans);
  if (run && banked_.empty()) {
    // A stream transaction on the queue model: each pseudo-channel is
    // pushed once with every byte its bursts' chunks would have brought it,
    // in channel order.
    std::fill(pc_bytes_.begin(), pc_bytes_.end(), 0);
    run->for_each_piece([&](uint64_t addr, uint64_t len) {
      for_each_chunk(addr & addr_bits::kOffsetMask, len,
                     [&](uint64_t pos, uint64_t bytes) { pc_bytes_[pc_of(pos)] += bytes; });
    });
    for (unsigned i = 0; i < cfg_.num_pcs; ++i)
      if (pc_bytes_[i])
        pcs_[i]->push_after(delay, pc_time_(pc_bytes_[i]), pc_bytes_[i], served, order_key(trans),
                            static_cast<double>(pc_bytes_[i]) * pj_per_byte);
    return;
  }
  auto push = [&](uint64_t pos, uint64_t bytes) {
    const double pj = static_cast<double>(bytes) * pj_per_byte;
    if (banked_.empty())
      pcs_[pc_of(pos)]->push_after(delay, pc_time_(bytes), bytes, served, order_key(trans), pj);
    else
      banked_[pc_of(pos)]->push(pc_local_offset(pos), bytes, trans.is_write(), served,
                                order_key(trans), pj);
  };
  if (run)  // the banked model takes a stream's chunks one by one, as its bursts'
    run->for_each_piece([&](uint64_t addr, uint64_t len) {
      for_each_chunk(addr & addr_bits::kOffsetMask, len, push);
    });
  else
    for_each_chunk(trans.get_address() & addr_bits::kOffsetMask, trans.get_data_length(), push);
}

}  // namespace kb
