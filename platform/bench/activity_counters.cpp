#include "platform/bench/activity_counters.h"

#include "platform/fabric/pe.h"

namespace kb {

ActivityCounters ActivityCounters::take(Platform& p) {
  ActivityCounters c;
  p.for_each_pe([&](Pe& pe) {
    const auto& rd = pe.dma.stats(PeDma::Channel::kRead);
    const auto& wr = pe.dma.stats(PeDma::Channel::kWrite);
    c.ipcq_ops += pe.ipcq.stats().commands;
    c.dma_reads += rd.transfers;
    c.dma_writes += wr.transfers;
    c.dma_bursts += rd.bursts + wr.bursts;
  });
  c.traffic = p.traffic();
  return c;
}

ActivityCounters ActivityCounters::since(const ActivityCounters& before) const {
  ActivityCounters d;
  d.ipcq_ops = ipcq_ops - before.ipcq_ops;
  d.dma_reads = dma_reads - before.dma_reads;
  d.dma_writes = dma_writes - before.dma_writes;
  d.dma_bursts = dma_bursts - before.dma_bursts;
  d.traffic.link_bytes = traffic.link_bytes - before.traffic.link_bytes;
  d.traffic.cube_link_bytes = traffic.cube_link_bytes - before.traffic.cube_link_bytes;
  d.traffic.sip_link_bytes = traffic.sip_link_bytes - before.traffic.sip_link_bytes;
  return d;
}

}  // namespace kb
