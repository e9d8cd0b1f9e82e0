#include "platform/analytic/allreduce_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/topology/fabric_route.h"
#include "platform/analytic/pe_paths.h"

namespace kb {

namespace {

// A memory a transfer reads or writes: a PE's TCM or HBM, or the SRAM of a
// PE's cube.
struct Place {
  RingSpace mem;
  PeAddr pe;
};

// The resources a model charges time to (link directions, memory ports, DMA
// channels, MATH units), each named once and then known by a number: a model
// adds up the same resources over and over, and names are for the report.
class Resources {
 public:
  uint32_t id(const std::string& name) {
    const auto [it, added] = ids_.emplace(name, static_cast<uint32_t>(names_.size()));
    if (added) names_.push_back(name);
    return it->second;
  }
  const std::string& name(uint32_t id) const { return names_[id]; }

 private:
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<std::string> names_;
};

// One direction of a path: its fixed latencies (crossbars, routers) and the
// link directions it crosses (Resources ids); the energy knobs of the routers
// it goes through (each counts a transaction's data bytes once, on its way out).
struct Route {
  double fixed_ns = 0;
  std::vector<std::pair<uint32_t, const LinkConfig*>> wires;
  std::vector<const BitEnergyConfig*> routers;
};

// The hash of a cached route's or hop's key: a tuple of PE addresses,
// enums, flags and byte counts.
struct KeyHash {
  template <class... T>
  size_t operator()(const std::tuple<T...>& key) const {
    uint64_t h = 0;
    std::apply(
        [&h](const auto&... part) {
          ((h ^= bits(part) + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2)), ...);
        },
        key);
    return h;
  }

 private:
  static uint64_t bits(const PeAddr& p) {
    return (uint64_t{p.sip} << 42) ^ (uint64_t{p.cube} << 21) ^ p.pe;
  }
  static uint64_t bits(double d) {
    const double v = d == 0 ? 0.0 : d;  // -0 == 0: one hash
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof b);
    return b;
  }
  static uint64_t bits(RingSpace m) { return static_cast<uint64_t>(m); }
  static uint64_t bits(bool b) { return b ? 1 : 0; }
};

// to += from, class by class.
void add_energy(EnergyByClass& to, const EnergyByClass& from) {
  for (unsigned i = 0; i < kNumEnergyClasses; ++i) to[i] += from[i];
}

// What one chunk of a step occupies, per resource (ns), its latency, and the
// dynamic energy it spends (pJ, by class). `busy` holds each resource once,
// in the order first charged; a hop's cost is put in the order of the
// resources' names when it is priced.
struct Cost {
  double latency_ns = 0;
  std::vector<std::pair<uint32_t, double>> busy;
  EnergyByClass pj{};
  void occupy(uint32_t resource, double ns) {
    for (auto& [r, t] : busy)
      if (r == resource) {
        t += ns;
        return;
      }
    busy.emplace_back(resource, 0.0).second += ns;
  }
  void add(const Cost& o) {
    for (const auto& [r, t] : o.busy) occupy(r, t);
    add_energy(pj, o.pj);
  }
  void spend(EnergyClass c, double e) { pj[static_cast<unsigned>(c)] += e; }
};

// The busy time of many hops' resources added up (a whole step): a value per
// resource id, and the resources charged, so that clearing costs only those.
class Tally {
 public:
  void add(const Cost& c) {
    for (const auto& [r, t] : c.busy) {
      if (r >= ns_.size()) {
        ns_.resize(r + 1, 0.0);
        charged_.resize(r + 1, false);
      }
      if (!charged_[r]) {
        charged_[r] = true;
        order_.push_back(r);
      }
      ns_[r] += t;
    }
  }
  bool has(uint32_t r) const { return r < charged_.size() && charged_[r]; }
  double ns(uint32_t r) const { return ns_[r]; }
  const std::vector<uint32_t>& charged() const { return order_; }
  // The resource with the most time and that time (the first by name among
  // equals); none (and 0) when no resource has any.
  std::pair<const std::string*, double> busiest(const Resources& names) const {
    const std::string* name = nullptr;
    double most = 0;
    for (uint32_t r : order_) {
      const double t = ns_[r];
      if (t > most || (t == most && name && names.name(r) < *name)) {
        most = t;
        name = &names.name(r);
      }
    }
    return {name, most};
  }
  void clear() {
    for (uint32_t r : order_) {
      ns_[r] = 0;
      charged_[r] = false;
    }
    order_.clear();
  }

 private:
  std::vector<double> ns_;
  std::vector<bool> charged_;
  std::vector<uint32_t> order_;
};

std::string pe_name(const PeAddr& p) {
  return std::to_string(p.sip) + "." + std::to_string(p.cube) + "." + std::to_string(p.pe);
}

class Fabric {
 public:
  explicit Fabric(const TopologyConfig& c) : c_(c), routing_(c.routing()) {}

  // The path from PE `a` to `x` (`back`: from `x` to `a`, the response's way).
  // Built once per (a, x, back): a model prices the same paths over and over
  // (every step, chunk size and energy charge of a hop), and naming the
  // wires is most of a path's cost.
  const Route& route(const PeAddr& a, const Place& x, bool back) const {
    const RouteKey key{a, x.mem, x.pe, back};
    auto it = routes_.find(key);
    if (it == routes_.end()) it = routes_.emplace(key, build_route(a, x, back)).first;
    return it->second;
  }

 private:
  // The fabric's own path (models/topology/fabric_route.h), priced: each
  // node's latency and energy, each link it crosses (the other way round on
  // the way back).
  Route build_route(const PeAddr& a, const Place& x, bool back) const {
    Location dest{Space::kTcm, x.pe.sip, x.pe.cube, x.pe.pe, 0};
    if (x.mem == RingSpace::kHbm) dest.space = Space::kHbm;
    if (x.mem == RingSpace::kSram) dest = Location{Space::kSram, x.pe.sip, x.pe.cube, 0, 0};
    Route r;
    for (const RouteStep& s : routing_.path(RouteNode::xbar(a.sip, a.cube, a.pe), dest)) {
      const RouteNodeCost node = route_node_cost(c_, s.at);
      r.fixed_ns += node.latency_ns;
      r.routers.push_back(node.energy);
      if (s.hop.exit != RouteExit::kDeliver)
        r.wires.push_back(back ? wire(s.next, s.at, s.hop.exit) : wire(s.at, s.next, s.hop.exit));
    }
    return r;
  }
  // The link direction from node `from` to node `to`, which a hop of `exit`
  // joins, and its configuration.
  std::pair<uint32_t, const LinkConfig*> wire(const RouteNode& from, const RouteNode& to,
                                              RouteExit exit) const {
    switch (link_kind(exit)) {
      case LinkKind::kPe:
        return {from.kind == RouteNode::Kind::kXbar
                    ? unit(Unit::kPeLinkOut, PeAddr{from.sip, from.cube, from.pe})
                    : unit(Unit::kPeLinkIn, PeAddr{to.sip, to.cube, to.pe}),
                &c_.cube.pe_link};
      case LinkKind::kCube:
        return {unit(Unit::kCubeLink, PeAddr{from.sip, from.cube, to.cube}), &c_.sip.cube_link};
      case LinkKind::kIo:
        return {unit(from.kind == RouteNode::Kind::kHub ? Unit::kIoLinkDown : Unit::kIoLinkUp,
                     PeAddr{from.sip, 0, 0}),
                &c_.sip.io_link};
      case LinkKind::kSip:
        return {unit(Unit::kSipLink, PeAddr{from.sip, to.sip, 0}), &c_.system.sip_link};
      case LinkKind::kHost:
      case LinkKind::kNone:
        break;
    }
    throw std::logic_error("allreduce model: a path through the host");
  }

 public:
  double one_way(const Route& r, double bytes) const {
    double t = r.fixed_ns;
    for (const auto& w : r.wires) t += w.second->latency_ns + wire_ns(*w.second, bytes);
    return t;
  }
  // The wires of `r` carry `bytes` of payload: their time, and their energy.
  void load(Cost& cost, const Route& r, double bytes) const {
    for (const auto& w : r.wires) {
      cost.occupy(w.first, wire_ns(*w.second, bytes));
      cost.spend(EnergyClass::kLink,
                 w.second->energy.pj_per_bit * 8 * wire_bytes(*w.second, bytes));
    }
  }
  // A transaction of `bytes` of data goes out through the routers of `r`.
  static void route_energy(Cost& cost, const Route& r, double bytes) {
    for (const BitEnergyConfig* e : r.routers)
      cost.spend(EnergyClass::kRouter, e->pj_per_bit * 8 * bytes);
  }

  // A memory's service of one access of `bytes`: its latency and its share
  // of the memory's bandwidth (HBM: the PE's pseudo-channels together).
  double access_ns(const Place& x, double bytes) const {
    switch (x.mem) {
      case RingSpace::kTcm:
        return c_.pe.tcm.latency_ns + bytes / c_.pe.tcm.bandwidth_gbps;
      case RingSpace::kHbm:  // one burst is served by one pseudo-channel
        return c_.pe.hbm.access_latency_ns + bytes / c_.pe.hbm.pc_bandwidth_gbps;
      case RingSpace::kSram:
        return c_.cube.sram.latency_ns + bytes / c_.cube.sram.bandwidth_gbps;
    }
    return 0;
  }
  // A memory's share of a transfer: its port time, and its energy per byte
  // read or written.
  void load_memory(Cost& cost, const Place& x, double bytes, bool write) const {
    auto energy = [&](EnergyClass c, const MemoryEnergyConfig& e) {
      cost.spend(c, bytes * (write ? e.write_pj_per_byte : e.read_pj_per_byte));
    };
    switch (x.mem) {
      case RingSpace::kTcm:
        cost.occupy(unit(Unit::kTcm, x.pe), bytes / c_.pe.tcm.bandwidth_gbps);
        energy(EnergyClass::kTcm, c_.pe.tcm.energy);
        break;
      case RingSpace::kHbm:
        cost.occupy(unit(Unit::kHbm, x.pe), bytes / c_.pe_hbm_bandwidth_gbps());
        energy(EnergyClass::kHbm, c_.pe.hbm.energy);
        break;
      case RingSpace::kSram:
        cost.occupy(unit(Unit::kSram, x.pe), bytes / c_.cube.sram.bandwidth_gbps);
        energy(EnergyClass::kSram, c_.cube.sram.energy);
        break;
    }
  }

  // A PE_DMA transfer of `bytes` by PE `a` (one burst: a chunk is at most a
  // slot): setup on its channel, a READ of `src`, then a WRITE of `dst`
  // whose acknowledgement ends it.
  Cost transfer(const PeAddr& a, const Place& src, const Place& dst, double bytes) const {
    Cost t;
    const bool into_tcm = dst.mem == RingSpace::kTcm && dst.pe == a;
    t.occupy(unit(into_tcm ? Unit::kDmaRead : Unit::kDmaWrite, a), c_.pe.dma.setup_ns);
    const Route &rq = route(a, src, false), &rs = route(a, src, true);
    const Route &wq = route(a, dst, false), &wa = route(a, dst, true);
    t.latency_ns = c_.pe.dma.setup_ns + one_way(rq, 0) + access_ns(src, bytes) +
                   one_way(rs, bytes) + one_way(wq, bytes) + access_ns(dst, bytes) + one_way(wa, 0);
    load(t, rq, 0);
    load(t, rs, bytes);
    load(t, wq, bytes);
    load(t, wa, 0);
    route_energy(t, rq, bytes);
    route_energy(t, wq, bytes);
    load_memory(t, src, bytes, false);
    load_memory(t, dst, bytes, true);
    const double bursts =
        std::ceil(bytes / static_cast<double>(std::max<uint64_t>(c_.pe.dma.burst_bytes, 1)));
    t.spend(EnergyClass::kDma, std::max(1.0, bursts) * c_.pe.dma.energy.pj_per_burst);
    return t;
  }

  // A control message (grant, doorbell, credit) from `a` to `b`'s registers.
  const Route& message_route(const PeAddr& a, const PeAddr& b) const {
    return route(a, Place{RingSpace::kTcm, b}, false);
  }
  double message_ns(const PeAddr& a, const PeAddr& b) const {
    return one_way(message_route(a, b), static_cast<double>(c_.pe.ipcq.message_bytes));
  }
  double message_round_trip_ns(const PeAddr& a, const PeAddr& b) const {
    return message_ns(a, b) + one_way(route(a, Place{RingSpace::kTcm, b}, true), 0);
  }

  const TopologyConfig& config() const { return c_; }
  const Resources& resources() const { return names_; }

  // A unit of PE `p` (of its cube, for kSram) that a transfer or an add keeps
  // busy; for kCubeLink, the link of SIP p.sip from cube p.cube to cube p.pe;
  // for kIoLink*, SIP p.sip's I/O link; for kSipLink, from SIP p.sip to p.cube.
  enum class Unit : uint8_t {
    kTcm,
    kHbm,
    kSram,
    kDmaRead,
    kDmaWrite,
    kMath,
    kPeLinkOut,
    kPeLinkIn,
    kCubeLink,
    kIoLinkUp,
    kIoLinkDown,
    kSipLink
  };
  uint32_t unit(Unit u, const PeAddr& p) const {
    const auto key = std::make_pair(u, u == Unit::kSram ? PeAddr{p.sip, p.cube, 0} : p);
    auto it = units_.find(key);
    if (it != units_.end()) return it->second;
    return units_.emplace(key, names_.id(unit_name(u, p))).first->second;
  }
  static std::string unit_name(Unit u, const PeAddr& p) {
    if (u == Unit::kSram) return "SRAM " + std::to_string(p.sip) + "." + std::to_string(p.cube);
    if (u == Unit::kCubeLink)
      return "cube link " + (p.sip == 0 ? std::string() : std::to_string(p.sip) + ":") +
             std::to_string(p.cube) + "->" + std::to_string(p.pe);
    if (u == Unit::kIoLinkUp || u == Unit::kIoLinkDown)
      return "io link " + std::to_string(p.sip) + (u == Unit::kIoLinkUp ? " up" : " down");
    if (u == Unit::kSipLink)
      return "SIP link " + std::to_string(p.sip) + "->" + std::to_string(p.cube);
    // A PE's unit: its name around the PE's (in the order of Unit).
    static const char* const kBefore[] = {
        "TCM ",  "HBM ",     "",        "DMA read channel ", "DMA write channel ",
        "MATH ", "PE link ", "PE link "};
    static const char* const kAfter[] = {"", "", "", "", "", "", " out", " in"};
    const auto i = static_cast<size_t>(u);
    return kBefore[i] + pe_name(p) + kAfter[i];
  }
  // The order of `c`'s resources by name (how a hop's cost keeps them).
  void sort_by_name(Cost& c) const {
    std::sort(c.busy.begin(), c.busy.end(), [this](const auto& a, const auto& b) {
      return names_.name(a.first) < names_.name(b.first);
    });
  }

 private:
  using RouteKey = std::tuple<PeAddr, RingSpace, PeAddr, bool>;  // (a, x's memory, x, back)

  const TopologyConfig& c_;
  FabricRouting routing_;
  mutable std::unordered_map<RouteKey, Route, KeyHash> routes_;
  mutable Resources names_;
  mutable std::map<std::pair<Unit, PeAddr>, uint32_t> units_;
};

uint64_t chunks_of(double bytes, uint64_t slot) {
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(bytes / static_cast<double>(slot))));
}

// One chunk's way from `s` into `r`'s ring and through `r`'s consumption.
struct Hop {
  PeAddr s, r;
  bool operator<(const Hop& o) const { return std::tie(s, r) < std::tie(o.s, o.r); }
};

struct StepCost {
  double hop_ns = 0;       // the slowest hop's latency
  double chunk_ns = 0;     // time per chunk: resource_ns, or the credit loop's if longer
  double resource_ns = 0;  // the busiest resource's time per chunk
  std::string bottleneck;
  std::map<PeAddr, std::pair<PeAddr, double>> from;  // sender -> (receiver, hop latency)
};

class Model {
 public:
  // Rings in `buffer`, the vectors in `data` (the all-reduce bench keeps both
  // in one space).
  Model(const TopologyConfig& c, RingSpace buffer, RingSpace data)
      : f_(c), c_(c), buffer_(buffer), data_(data) {}

  double dispatch_ns(uint64_t logical_bytes) const {
    return (c_.pe.cost_model.fixed_per_single_op_cmd_cycles +
            static_cast<double>(logical_bytes) * c_.pe.cost_model.per_byte_cycles) /
           c_.pe.clock_ghz;
  }
  double send_dispatch_ns() const { return dispatch_ns(IpcqSendCmd::logical_bytes()); }

  // Every hop of `hops` moving one chunk of `bytes` at once, consumed as an
  // add (`reduce`) or a copy. Priced once per (hops, bytes, reduce): a
  // ring's steps move the same hops again and again.
  const StepCost& step(const std::vector<Hop>& hops, double bytes, bool reduce) const {
    auto it = steps_.find(StepKeyRef{bytes, reduce, &hops});
    if (it == steps_.end())
      it = steps_.emplace(StepKey{bytes, reduce, hops}, price_step(hops, bytes, reduce)).first;
    return it->second;
  }

  // A ring's `slots` credits circulate: a chunk's credit comes back after its
  // hop and the credit's trip. Mean-value analysis of that closed loop, with
  // the hop's resources as queues (their demand per chunk the whole step's
  // load on them, every hop moving its chunk) and the rest of the hop as pure
  // delay, gives the time per chunk once queueing at busy resources has
  // stretched the loop (never below the busiest resource's time).
  double credit_cycle_ns(const Cost& one, const Tally& all, double credit_ns) const {
    std::vector<double> demand;
    double own = 0;
    for (const auto& [r, t] : one.busy) {  // by name: a hop's cost
      demand.push_back(all.ns(r));
      own += t;
    }
    const double delay = std::max(0.0, one.latency_ns + credit_ns - own);
    std::vector<double> queue(demand.size(), 0.0), resid(demand.size());
    double x = 0;
    for (unsigned n = 1; n <= c_.pe.ipcq.slots; ++n) {
      double r = delay;
      for (size_t k = 0; k < demand.size(); ++k) {
        resid[k] = demand[k] * (1 + queue[k]);
        r += resid[k];
      }
      x = n / r;
      for (size_t k = 0; k < demand.size(); ++k) queue[k] = x * resid[k];
    }
    return x > 0 ? 1 / x : 0;
  }

  // Per chunk, how long the chunks of `earlier` hold up those of `later`
  // that enter the fabric behind them: the busiest resource both cross (the
  // sender's DMA write channel and PE link at least), every hop moving its
  // chunk at once.
  double shared_ns(const std::vector<Hop>& earlier, const std::vector<Hop>& later, double bytes,
                   bool reduce) const {
    Tally &a = tally_[0], &b = tally_[1];
    for (const Hop& h : earlier) a.add(hop(h, bytes, reduce));
    for (const Hop& h : later) b.add(hop(h, bytes, reduce));
    double s = 0;
    for (uint32_t r : a.charged())
      if (b.has(r)) s = std::max(s, a.ns(r));
    a.clear();
    b.clear();
    return s;
  }

  // The dynamic energy of `hops` each moving `bytes` chunk by chunk (chunks
  // of a slot, the last one what is left), consumed as an add or a copy.
  void charge(EnergyByClass& pj, const std::vector<Hop>& hops, double bytes, bool reduce) const {
    const auto slot = static_cast<double>(c_.pe.ipcq.slot_bytes);
    const uint64_t m = chunks_of(bytes, c_.pe.ipcq.slot_bytes);
    const double chunk = std::min(bytes, slot), last = bytes - static_cast<double>(m - 1) * chunk;
    for (const Hop& h : hops) {
      const Cost &full = hop(h, chunk, reduce), &tail = hop(h, last, reduce);
      for (unsigned i = 0; i < kNumEnergyClasses; ++i)
        pj[i] += static_cast<double>(m - 1) * full.pj[i] + tail.pj[i];
    }
  }

  // One IPCQ control message from `a` to `b`.
  void charge_message(EnergyByClass& pj, const PeAddr& a, const PeAddr& b) const {
    Cost c;
    const Route& r = f_.message_route(a, b);
    const auto msg = static_cast<double>(c_.pe.ipcq.message_bytes);
    f_.load(c, r, msg);
    Fabric::route_energy(c, r, msg);
    c.spend(EnergyClass::kIpcq, c_.pe.ipcq.energy.pj_per_message);
    add_energy(pj, c.pj);
  }

  double fill_ns(const std::vector<Hop>& first_hops, unsigned sources) const {
    double grant = 0;
    for (const Hop& h : first_hops) grant = std::max(grant, f_.message_round_trip_ns(h.r, h.s));
    return dispatch_ns(IpcqOpenCmd{std::vector<PeAddr>(sources)}.logical_bytes()) + grant +
           send_dispatch_ns();
  }

 private:
  StepCost price_step(const std::vector<Hop>& hops, double bytes, bool reduce) const {
    StepCost st;
    Tally& all = tally_[0];
    std::vector<const Cost*> each;
    for (const Hop& h : hops) {
      each.push_back(&hop(h, bytes, reduce));
      all.add(*each.back());
      st.hop_ns = std::max(st.hop_ns, each.back()->latency_ns);
      st.from[h.s] = {h.r, each.back()->latency_ns};
    }
    const auto b = all.busiest(f_.resources());
    const std::string busiest = b.first ? *b.first : std::string();
    st.chunk_ns = st.resource_ns = b.second;
    st.bottleneck = busiest;
    for (size_t i = 0; i < hops.size(); ++i) {
      const double cycle = credit_cycle_ns(*each[i], all, f_.message_ns(hops[i].r, hops[i].s));
      if (cycle > st.chunk_ns * (1 + 1e-9)) {
        st.chunk_ns = cycle;
        st.bottleneck = "IPCQ credits with queueing (" + busiest + ")";
      }
    }
    all.clear();
    return st;
  }

  // One hop's cost, priced once per (hop, bytes, reduce): a model asks for
  // the same hop in every step and energy charge that moves it.
  const Cost& hop(const Hop& h, double bytes, bool reduce) const {
    const HopKey key{h.s, h.r, bytes, reduce};
    auto it = hops_.find(key);
    if (it == hops_.end()) {
      Cost c = price_hop(h, bytes, reduce);
      f_.sort_by_name(c);
      it = hops_.emplace(key, std::move(c)).first;
    }
    return it->second;
  }
  Cost price_hop(const Hop& h, double bytes, bool reduce) const {
    const Place data_s{data_, h.s}, ring_r{buffer_, h.r}, data_r{data_, h.r};
    Cost c = f_.transfer(h.s, data_s, ring_r, bytes);
    const Route &bell = f_.message_route(h.s, h.r), &credit = f_.message_route(h.r, h.s);
    const auto msg = static_cast<double>(c_.pe.ipcq.message_bytes);
    c.latency_ns += f_.one_way(bell, msg);
    f_.load(c, bell, msg);
    f_.load(c, credit, msg);
    Fabric::route_energy(c, bell, msg);
    Fabric::route_energy(c, credit, msg);
    c.spend(EnergyClass::kIpcq, 2 * c_.pe.ipcq.energy.pj_per_message);
    const Place tcm_r{RingSpace::kTcm, h.r};
    const double math = std::ceil(bytes / 4 / c_.pe.math.lanes) / c_.pe.clock_ghz;  // fp32 elements
    if (reduce)
      c.spend(EnergyClass::kMath, bytes / 4 * c_.pe.math.energy.elementwise_pj_per_element);
    if (buffer_ == RingSpace::kTcm && data_ == RingSpace::kTcm) {
      if (reduce) {
        c.latency_ns += math;
        c.occupy(f_.unit(Fabric::Unit::kMath, h.r), math);
      } else {
        const Cost copy = f_.transfer(h.r, ring_r, tcm_r, bytes);
        c.latency_ns += copy.latency_ns;
        c.add(copy);
      }
      return c;
    }
    if (!reduce) {
      const Cost copy = f_.transfer(h.r, ring_r, data_r, bytes);
      c.latency_ns += copy.latency_ns;
      c.add(copy);
      return c;
    }
    if (buffer_ == RingSpace::kTcm) {
      // A ring in TCM, the vector outside: the vector's chunk staged in, the
      // add, the sum back.
      const Cost in = f_.transfer(h.r, data_r, tcm_r, bytes);
      const Cost out = f_.transfer(h.r, tcm_r, data_r, bytes);
      c.latency_ns += in.latency_ns + math + out.latency_ns;
      c.add(in);
      c.add(out);
      c.occupy(f_.unit(Fabric::Unit::kMath, h.r), math);
      return c;
    }
    // Staged through TCM scratch: ring and vector in (submitted together, the
    // second one setup behind), the add, the sum back.
    const Cost in1 = f_.transfer(h.r, ring_r, tcm_r, bytes);
    const Cost in2 = f_.transfer(h.r, data_r, tcm_r, bytes);
    const Cost out = f_.transfer(h.r, tcm_r, data_r, bytes);
    c.latency_ns += in1.latency_ns + c_.pe.dma.setup_ns + math + out.latency_ns;
    c.add(in1);
    c.add(in2);
    c.add(out);
    c.occupy(f_.unit(Fabric::Unit::kMath, h.r), math);
    return c;
  }

  // The key of a priced step, and a look-up's view of one (no copy of the hops).
  struct StepKey {
    double bytes;
    bool reduce;
    std::vector<Hop> hops;
  };
  struct StepKeyRef {
    double bytes;
    bool reduce;
    const std::vector<Hop>* hops;
  };
  struct StepKeyLess {
    using is_transparent = void;
    static auto tie(const StepKey& k) { return std::tie(k.bytes, k.reduce, k.hops); }
    static auto tie(const StepKeyRef& k) { return std::tie(k.bytes, k.reduce, *k.hops); }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return tie(a) < tie(b);
    }
  };

  Fabric f_;
  const TopologyConfig& c_;
  RingSpace buffer_, data_;
  using HopKey = std::tuple<PeAddr, PeAddr, double, bool>;  // (s, r, bytes, reduce)
  mutable std::unordered_map<HopKey, Cost, KeyHash> hops_;
  mutable std::map<StepKey, StepCost, StepKeyLess> steps_;
  mutable Tally tally_[2];  // scratch sums of a step (and of shared_ns's second group)
};

using RingOf = fw::RingView (fw::CollectiveGroup::*)(const PeAddr&) const;

std::vector<Hop> ring_hops(const fw::CollectiveGroup& g, RingOf which, bool reverse = false) {
  std::vector<Hop> hops;
  for (const PeAddr& me : g.members()) {
    const fw::RingView r = (g.*which)(me);
    if (r.size > 1) hops.push_back({me, reverse ? r.left : r.right});
  }
  return hops;
}

class Builder {
 public:
  Builder(const TopologyConfig& c, RingSpace buffer, RingSpace data, AllReduceModel& out)
      : m_(c, buffer, data), c_(c), out_(out) {}

  // Steps that forward chunk by chunk: steps[j] = (hops, bytes per member, reduce).
  struct Step {
    std::vector<Hop> hops;
    double bytes;
    bool reduce;
  };
  void pipelined(const std::string& name, const std::vector<Step>& steps, bool barrier_before) {
    if (steps.empty()) return;
    out_.phases.push_back(pipelined_phase(name, steps, barrier_before));
    charge(steps);
  }
  // The energy of data movements that happen (the phases price time only,
  // and may price a movement more than once).
  void charge(const std::vector<Step>& steps) {
    for (const Step& s : steps) charge(s.hops, s.bytes, s.reduce);
  }
  void charge(const std::vector<Hop>& hops, double bytes, bool reduce) {
    m_.charge(out_.dynamic_pj, hops, bytes, reduce);
    for (const Hop& h : hops) rings_.insert({h.r, h.s});
  }
  // Every ring charged so far opened by its receiver: one grant message to
  // its source each.
  void charge_ring_openings() {
    for (const auto& [r, s] : rings_) m_.charge_message(out_.dynamic_pj, r, s);
  }
  AllReduceModel::Phase pipelined_phase(const std::string& name, const std::vector<Step>& steps,
                                        bool barrier_before) const {
    AllReduceModel::Phase ph;
    ph.name = name;
    ph.steps = static_cast<unsigned>(steps.size());
    const uint64_t slot = c_.pe.ipcq.slot_bytes;
    std::vector<const StepCost*> cost;
    std::vector<uint64_t> chunks;
    for (const Step& s : steps) {
      chunks.push_back(chunks_of(s.bytes, slot));
      cost.push_back(
          &m_.step(s.hops, std::min<double>(s.bytes, static_cast<double>(slot)), s.reduce));
      if (cost.back()->chunk_ns > ph.chunk_ns) {
        ph.chunk_ns = cost.back()->chunk_ns;
        ph.resource_ns = cost.back()->resource_ns;
        ph.bottleneck = cost.back()->bottleneck;
        ph.chunks = chunks.back();
      }
    }
    ph.hop_ns = cost.front()->hop_ns;
    // A chunk forwarded from step to step walks consecutive hops of its ring
    // (a mesh's long wrap hop once per lap): the slowest such walk.
    double t = 0;
    for (const auto& start : cost.front()->from) {
      PeAddr at = start.first;
      double walk = 0;
      for (size_t j = 0; j < steps.size(); ++j) {
        const StepCost& c = *cost[j];
        const auto it = c.from.find(at);
        const double hop = it == c.from.end() ? c.hop_ns : it->second.second;
        const double stream = static_cast<double>(chunks[j]) * c.chunk_ns;
        walk += j == 0 ? hop : std::max(hop, stream);
        if (it != c.from.end()) at = it->second.first;
      }
      t = std::max(t, walk);
    }
    t += static_cast<double>(chunks.back() - 1) * cost.back()->chunk_ns;
    if (barrier_before) t += m_.send_dispatch_ns();
    ph.ns = t;
    return ph;
  }
  // The whole vector hop by hop down a chain, chunk by chunk: no member
  // carries two steps, so the steps' latencies add and the chunks stream once.
  void chain(const std::string& name, const std::vector<Hop>& hops, double bytes, bool reduce) {
    if (hops.empty()) return;
    charge(hops, bytes, reduce);
    const uint64_t slot = c_.pe.ipcq.slot_bytes;
    const uint64_t m = chunks_of(bytes, slot);
    const double chunk = std::min<double>(bytes, static_cast<double>(slot));
    const StepCost& all = m_.step(hops, chunk, reduce);
    double lat = 0;  // every hop's latency once: the step priced them all
    for (const auto& hop : all.from) lat += hop.second.second;
    out_.phases.push_back({name, static_cast<unsigned>(hops.size()), m,
                           lat / static_cast<double>(hops.size()), all.chunk_ns, all.bottleneck,
                           lat + static_cast<double>(m - 1) * all.chunk_ns, all.resource_ns});
  }
  // Steps that each move a whole message and wait for it (a tree level).
  AllReduceModel::Phase level(const std::string& name, const std::vector<Hop>& hops, double bytes,
                              bool reduce) const {
    const uint64_t slot = c_.pe.ipcq.slot_bytes;
    const uint64_t m = chunks_of(bytes, slot);
    const StepCost& sc = m_.step(hops, std::min<double>(bytes, static_cast<double>(slot)), reduce);
    return {name,
            1,
            m,
            sc.hop_ns,
            sc.chunk_ns,
            sc.bottleneck,
            sc.hop_ns + static_cast<double>(m - 1) * sc.chunk_ns,
            sc.resource_ns};
  }
  void add(const AllReduceModel::Phase& ph) { out_.phases.push_back(ph); }
  const Model& model() const { return m_; }
  const TopologyConfig& config() const { return c_; }

 private:
  Model m_;
  const TopologyConfig& c_;
  AllReduceModel& out_;
  std::set<std::pair<PeAddr, PeAddr>> rings_;  // (receiver, source) of each ring charged
};

// A ring's reduce-scatter (reduce) or all-gather (copy) steps on `hops`, each
// moving `bytes` / ring size per member.
std::vector<Builder::Step> ring_steps(const std::vector<Hop>& hops, unsigned size, double bytes,
                                      bool reduce) {
  std::vector<Builder::Step> s;
  for (unsigned i = 0; i + 1 < size; ++i) s.push_back({hops, bytes / size, reduce});
  return s;
}

std::vector<Builder::Step> ring_allreduce_steps(const std::vector<Hop>& hops, unsigned size,
                                                double bytes) {
  auto s = ring_steps(hops, size, bytes, true);
  auto g = ring_steps(hops, size, bytes, false);
  s.insert(s.end(), g.begin(), g.end());
  return s;
}

void two_d(Builder& b, const fw::CollectiveGroup& g, RingOf row, RingOf col, double bytes,
           bool barrier_before, const std::string& prefix) {
  const PeAddr first = g.member(0);
  const unsigned X = (g.*row)(first).size, Y = (g.*col)(first).size;
  const auto rows = ring_hops(g, row), cols = ring_hops(g, col);
  b.pipelined(prefix + "row reduce-scatter", ring_steps(rows, X, bytes, true), barrier_before);
  b.pipelined(prefix + "column all-reduce", ring_allreduce_steps(cols, Y, bytes / X),
              barrier_before || X > 1);
  b.pipelined(prefix + "row all-gather", ring_steps(rows, X, bytes, false), true);
}

// Binomial tree: reduce level by level (a sender's send waits for its own
// last receive), then the broadcast, in which a PE sends to all its children
// at once after the PE_CPU's wait, one send dispatch per child (largest
// distance first); the sends still running share the PE's links. `trees`
// are equally long member lists (root first) that run side by side, each
// hop of one tree together with the same hop of the others; `reduce` false
// gives the broadcast alone.
void binomial(Builder& b, const std::vector<std::vector<PeAddr>>& trees, double bytes,
              bool reduce = true) {
  const auto p = static_cast<unsigned>(trees.front().size());
  // Position i's hop to position j in every tree.
  auto hops_of = [&trees](const std::vector<std::pair<unsigned, unsigned>>& pairs) {
    std::vector<Hop> hops;
    for (const auto& t : trees)
      for (const auto& [i, j] : pairs) hops.push_back({t[i], t[j]});
    return hops;
  };
  // When each position holds its subtree's sum. A position without a child
  // at a level sends at once (not a power of two: its level overlaps the
  // earlier ones), so each level adds to the root's time only what its
  // child's arrival exceeds the root's.
  std::vector<double> ready(p, 0.0);
  unsigned levels = 0;
  for (unsigned mask = 1; mask < p; mask <<= 1, ++levels) {
    std::vector<std::pair<unsigned, unsigned>> pairs;
    for (unsigned i = mask; i < p; i += 2 * mask) pairs.emplace_back(i, i - mask);
    if (!reduce) continue;
    const std::vector<Hop> hops = hops_of(pairs);
    b.charge(hops, bytes, true);
    AllReduceModel::Phase lv =
        b.level("reduce level " + std::to_string(levels + 1), hops, bytes, true);
    const double root = ready[0];
    for (const auto& [i, j] : pairs) ready[j] = std::max(ready[j], ready[i] + lv.ns);
    lv.ns = std::max(0.0, ready[mask] - root + lv.ns);
    b.add(lv);
  }
  unsigned top = 1;
  while (top * 2 < p) top *= 2;
  auto low = [](unsigned i) { return i & (~i + 1); };
  std::vector<double> done(p, 0.0);
  AllReduceModel::Phase bc{"broadcast", levels, 0, 0, 0, "", 0};
  const uint64_t slot = b.config().pe.ipcq.slot_bytes, slots = b.config().pe.ipcq.slots;
  for (unsigned i = 0; i < p; ++i) {  // a parent, i - lowbit(i), comes before i
    std::vector<std::pair<unsigned, unsigned>> sends;
    for (unsigned mask = i == 0 ? top : low(i) >> 1; mask >= 1; mask >>= 1)
      if (i + mask < p) sends.emplace_back(i, i + mask);
    for (size_t k = 0; k < sends.size(); ++k) {
      b.charge(hops_of({sends[k]}), bytes, false);
      const double start = done[i] + static_cast<double>(k + 1) * b.model().send_dispatch_ns();
      AllReduceModel::Phase lv;
      if (chunks_of(bytes, slot) <= slots) {
        // Every chunk of a send enters the DMA write channel at its dispatch:
        // a send's chunks follow the earlier sends' chunks wherever their
        // ways share a resource.
        lv = b.level("", hops_of({sends[k]}), bytes, false);
        const double chunk = std::min<double>(bytes, static_cast<double>(slot));
        for (size_t j = 0; j < k; ++j)
          lv.ns += static_cast<double>(lv.chunks) *
                   b.model().shared_ns(hops_of({sends[j]}), hops_of({sends[k]}), chunk, false);
      } else {
        // Credit-paced, the sends still running interleave and share.
        const std::vector<std::pair<unsigned, unsigned>> running(
            sends.begin() + static_cast<std::ptrdiff_t>(k), sends.end());
        lv = b.level("", hops_of(running), bytes, false);
      }
      done[sends[k].second] = start + lv.ns;
      if (lv.chunk_ns > bc.chunk_ns) {
        bc.chunk_ns = lv.chunk_ns;
        bc.resource_ns = lv.resource_ns;
        bc.bottleneck = lv.bottleneck;
        bc.chunks = lv.chunks;
        bc.hop_ns = lv.hop_ns;
      }
    }
  }
  bc.ns = *std::max_element(done.begin(), done.end());
  b.add(bc);
}

// Recursive halving, then doubling (fw::CrossCube::kHalving) over `lists`
// (equally long, a power of two, side by side): at level k every position
// exchanges a 2^-(k+1) share of `bytes` with the one whose index differs in
// bit k, all lists at once. Each level waits for its receive and then
// dispatches the next level's send (the first level's is the caller's
// phase); the receive's dispatch, into a ring already open, overlaps the
// partner's send. The all-gather retraces the levels, copying.
// `first_in_fill`: the first level's send is the collective's first command,
// whose dispatch fill_ns already counts.
void halving_doubling(Builder& b, const std::vector<std::vector<PeAddr>>& lists, double bytes,
                      bool halving = true, bool doubling = true, bool first_in_fill = false) {
  const auto p = static_cast<unsigned>(lists.front().size());
  std::vector<unsigned> masks;
  for (unsigned mask = 1; mask < p; mask <<= 1) masks.push_back(mask);
  const double dispatch = b.model().send_dispatch_ns();
  auto level = [&](const std::string& name, unsigned k, bool reduce) {
    std::vector<Hop> hops;
    for (const auto& l : lists)
      for (unsigned i = 0; i < p; ++i) hops.push_back({l[i], l[i ^ masks[k]]});
    const double share = bytes / static_cast<double>(2u << k);
    b.charge(hops, share, reduce);
    AllReduceModel::Phase lv = b.level(name, hops, share, reduce);
    // The send, after the previous level's wait.
    if ((!reduce || k > 0) && !first_in_fill) lv.ns += dispatch;
    first_in_fill = false;
    b.add(lv);
  };
  if (halving)
    for (unsigned k = 0; k < masks.size(); ++k)
      level("halving level " + std::to_string(k + 1), k, true);
  if (doubling)
    for (auto k = static_cast<unsigned>(masks.size()); k-- > 0;)
      level("doubling level " + std::to_string(k + 1), k, false);
}

// The total (fill and every phase), the longest phase's bottleneck, and β.
void total_up(AllReduceModel& out, uint64_t slot_bytes) {
  out.total_ns = out.fill_ns;
  double longest = -1;
  for (const auto& ph : out.phases) {
    out.total_ns += ph.ns;
    if (ph.ns > longest) {
      longest = ph.ns;
      out.bottleneck = ph.bottleneck;
    }
    out.beta_ns_per_byte =
        std::max(out.beta_ns_per_byte, ph.chunk_ns / static_cast<double>(slot_bytes));
  }
}

}  // namespace

AllReduceModel allreduce_model(const TopologyConfig& cfg, fw::AllReduceAlgo algo,
                               const fw::CollectiveGroup& g, RingSpace buffer,
                               uint64_t bytes_per_pe) {
  AllReduceModel out;
  if (g.size() <= 1) return out;
  Builder b(cfg, buffer, buffer, out);
  const auto n = static_cast<double>(bytes_per_pe);
  const unsigned p = g.size();
  const PeAddr first = g.member(0);
  std::vector<Hop> first_hops;
  unsigned sources = 1;
  std::ostringstream f;
  switch (algo) {
    case fw::AllReduceAlgo::kRing: {
      first_hops = ring_hops(g, &fw::CollectiveGroup::ring);
      b.pipelined("reduce-scatter + all-gather", ring_allreduce_steps(first_hops, p, n), false);
      f << "ring: hop + sum over 2(p-1)-1 steps of max(hop, chunks x chunk) + (chunks-1) chunk, p="
        << p;
      break;
    }
    case fw::AllReduceAlgo::kRingBidir: {
      first_hops = ring_hops(g, &fw::CollectiveGroup::ring);
      if (p > 2) {
        const auto back = ring_hops(g, &fw::CollectiveGroup::ring, true);
        first_hops.insert(first_hops.end(), back.begin(), back.end());
        sources = 2;
        const AllReduceModel::Phase both =
            b.pipelined_phase("both rings, reduce-scatter + all-gather",
                              ring_allreduce_steps(first_hops, p, n / 2), false);
        b.add(both);
        b.charge(ring_allreduce_steps(first_hops, p, n / 2));
        // The PE_CPU issues the first ring's send and 2(p-1) receives before
        // the second ring's send: that ring starts late, and alone it ends at
        // least that much after its own time.
        const double late = b.model().send_dispatch_ns() +
                            2.0 * (p - 1) * b.model().dispatch_ns(IpcqRecvCmd::logical_bytes());
        const AllReduceModel::Phase alone = b.pipelined_phase(
            "", ring_allreduce_steps(ring_hops(g, &fw::CollectiveGroup::ring), p, n / 2), false);
        if (late + alone.ns > both.ns)
          b.add({"second ring's start, after the first ring's command dispatch", 0, 0, 0, 0, "",
                 late + alone.ns - both.ns});
      } else {
        b.pipelined("reduce-scatter + all-gather", ring_allreduce_steps(first_hops, p, n), false);
      }
      f << "two rings on n/2 at once, p=" << p;
      break;
    }
    case fw::AllReduceAlgo::kTwoD: {
      first_hops = ring_hops(g, &fw::CollectiveGroup::row_ring);
      sources = 2;
      two_d(b, g, &fw::CollectiveGroup::row_ring, &fw::CollectiveGroup::column_ring, n, false, "");
      f << "2D: row reduce-scatter, column all-reduce on n/X, row all-gather, X="
        << g.row_ring(first).size << " Y=" << g.column_ring(first).size;
      break;
    }
    case fw::AllReduceAlgo::kHierarchical: {
      const unsigned P = g.cube_ring(first).size;
      first_hops = ring_hops(g, &fw::CollectiveGroup::cube_ring);
      sources = 3;
      b.pipelined("cube reduce-scatter", ring_steps(first_hops, P, n, true), false);
      const bool had = P > 1;
      if (fw::natural_allreduce(cfg.sip.topology) == fw::AllReduceAlgo::kRing) {
        sources = 2;
        const auto inter = ring_hops(g, &fw::CollectiveGroup::inter_cube_ring);
        const unsigned C = g.inter_cube_ring(first).size;
        b.pipelined("inter-cube ring all-reduce", ring_allreduce_steps(inter, C, n / P), had);
      } else {
        two_d(b, g, &fw::CollectiveGroup::inter_cube_row, &fw::CollectiveGroup::inter_cube_column,
              n / P, had, "inter-cube ");
      }
      b.pipelined("cube all-gather", ring_steps(first_hops, P, n, false), true);
      if (first_hops.empty()) first_hops = ring_hops(g, &fw::CollectiveGroup::inter_cube_ring);
      f << "hierarchical: cube ring reduce-scatter, inter-cube all-reduce on n/P, cube "
           "all-gather, P="
        << P << " C=" << g.cubes();
      break;
    }
    case fw::AllReduceAlgo::kChain: {
      std::vector<Hop> up, down;
      for (unsigned i = 0; i + 1 < p; ++i) {
        up.push_back({g.member(i + 1), g.member(i)});
        down.push_back({g.member(i), g.member(i + 1)});
      }
      first_hops = up;
      sources = 2;
      b.chain("reduce down the chain", up, n, true);
      b.chain("broadcast back up", down, n, false);
      f << "chain: (p-1) hops + (chunks-1) chunk, each way, p=" << p;
      break;
    }
    case fw::AllReduceAlgo::kBinomial: {
      for (unsigned i = 1; i < p; i += 2) first_hops.push_back({g.member(i), g.member(i - 1)});
      sources = 0;  // the root opens a ring per level
      for (unsigned mask = 1; mask < p; mask <<= 1) ++sources;
      binomial(b, {g.members()}, n);
      f << "binomial: " << sources << " reduce levels, then the broadcast's critical path";
      break;
    }
  }
  out.fill_ns = b.model().fill_ns(first_hops, sources);
  b.charge_ring_openings();
  total_up(out, cfg.pe.ipcq.slot_bytes);
  // α: one chunk's hop from the first member to its neighbour on the flat ring.
  const PeAddr next = g.ring(first).right;
  out.alpha_ns =
      b.model().step({{first, next}}, static_cast<double>(cfg.pe.ipcq.slot_bytes), true).hop_ns;
  out.formula = f.str();
  return out;
}

double AllReduceModel::dynamic_total_pj() const {
  double t = 0;
  for (const double pj : dynamic_pj) t += pj;
  return t;
}

std::string AllReduceModel::regime() const {
  bool latency = false, bandwidth = false;
  for (const Phase& ph : phases) {
    const double stream = static_cast<double>(ph.chunks) * ph.chunk_ns;
    if (stream < 0.5 * ph.hop_ns)
      latency = true;
    else if (stream > 2 * ph.hop_ns)
      bandwidth = true;
    else
      latency = bandwidth = true;
  }
  return latency && bandwidth ? "mixed" : latency ? "latency" : "bandwidth";
}

std::string allreduce_model_gap(const AllReduceModel& model, fw::AllReduceAlgo algo,
                                RingSpace buffer, double measured_over_model) {
  const double ratio = measured_over_model;
  const AllReduceModel& m = model;
  if (ratio >= 0.9 && ratio <= 1.1) return "";
  if (ratio < 0.9) {
    for (const AllReduceModel::Phase& ph : m.phases)
      if (ph.bottleneck.rfind("IPCQ credits", 0) == 0)
        return "the credit loop's queueing is priced by mean-value analysis, which assumes "
               "service times that vary; the simulated services are fixed and queue less";
    return "the model charges a step its slowest hop or its busiest resource where the "
           "simulation overlaps them";
  }
  if (algo == fw::AllReduceAlgo::kChain)
    return "doorbells share the wire with data: the leaf sends its whole vector at once, so "
           "each chunk's doorbell queues behind the chunks issued after it, the next PE "
           "learns of its chunks in bursts, and the bursts carry down the chain; the model "
           "prices a steady stream";
  if (m.regime() == "mixed")
    return "steps are neither latency- nor bandwidth-bound (chunks x chunk_ns within 2x of the "
           "hop), and a step's first chunk waits behind the previous step's: its write-back "
           "completes only after the earlier forwards on the in-order DMA write channel, and "
           "its doorbell queues behind data on the link; the model does not price that wait";
  if (algo == fw::AllReduceAlgo::kRingBidir)
    return "the two rings' hops of a step serialise on each PE's DMA write channel, PE_MATH and "
           "doorbells; the model prices their share of bandwidth, not that serialisation";
  if (buffer == RingSpace::kSram)
    return "the cube SRAM and the PE link are both near saturation: queueing between the two "
           "is not priced";
  return "queueing between resources the model prices one by one";
}

// ---- The collectives over ordered lists of PEs (the llm step's) ----------------

namespace {

AllReduceModel finish_ordered(const TopologyConfig& cfg, const Builder& b, AllReduceModel out,
                              const std::string& formula) {
  out.fill_ns = b.model().send_dispatch_ns();
  total_up(out, cfg.pe.ipcq.slot_bytes);
  out.formula = formula;
  return out;
}

// The rings of cube_allreduce over `order` in blocks of P: every block's
// ring hops, and the positions holding the same segment in every block,
// side by side.
struct CubeRings {
  std::vector<Hop> ring;
  std::vector<std::vector<PeAddr>> lists;
};
CubeRings cube_rings(const std::vector<PeAddr>& order, unsigned P) {
  CubeRings r;
  const auto blocks = static_cast<unsigned>(order.size() / P);
  for (unsigned c = 0; c < blocks; ++c)
    for (unsigned j = 0; j < P; ++j)
      r.ring.push_back({order[c * P + j], order[c * P + (j + 1) % P]});
  r.lists.resize(P);
  for (unsigned j = 0; j < P; ++j)
    for (unsigned c = 0; c < blocks; ++c) r.lists[j].push_back(order[c * P + j]);
  return r;
}

AllReduceModel ordered_tree(const TopologyConfig& cfg, const std::vector<PeAddr>& order,
                            RingSpace data, uint64_t bytes, bool reduce) {
  AllReduceModel out;
  if (order.size() <= 1) return out;
  Builder b(cfg, RingSpace::kTcm, data, out);
  binomial(b, {order}, static_cast<double>(bytes), reduce);
  out.alpha_ns =
      b.model()
          .step({{order[1], order[0]}}, static_cast<double>(cfg.pe.ipcq.slot_bytes), reduce)
          .hop_ns;
  return finish_ordered(cfg, b, out,
                        std::string(reduce ? "binomial tree" : "binomial broadcast") + " over " +
                            std::to_string(order.size()) + " PEs");
}

}  // namespace

AllReduceModel tree_allreduce_model(const TopologyConfig& cfg, const std::vector<PeAddr>& order,
                                    RingSpace data, uint64_t bytes) {
  return ordered_tree(cfg, order, data, bytes, true);
}

AllReduceModel tree_broadcast_model(const TopologyConfig& cfg, const std::vector<PeAddr>& order,
                                    RingSpace data, uint64_t bytes) {
  return ordered_tree(cfg, order, data, bytes, false);
}

AllReduceModel cube_allreduce_model(const TopologyConfig& cfg, const std::vector<PeAddr>& order,
                                    unsigned per_cube, RingSpace data, uint64_t bytes,
                                    fw::CrossCube across) {
  const bool halving =
      across == fw::CrossCube::kHalving && fw::cube_allreduce_halves(order.size(), per_cube);
  if (per_cube <= 1 && !halving) return tree_allreduce_model(cfg, order, data, bytes);
  AllReduceModel out;
  Builder b(cfg, RingSpace::kTcm, data, out);
  const auto n = static_cast<double>(bytes);
  const unsigned P = per_cube;
  const auto blocks = static_cast<unsigned>(order.size() / P);
  const CubeRings cr = cube_rings(order, P);
  const std::vector<Hop>& ring = cr.ring;
  b.pipelined("cube reduce-scatter", ring_steps(ring, P, n, true), false);
  if (blocks > 1) {
    const std::vector<std::vector<PeAddr>>& lists = cr.lists;
    // The first sends across the cubes wait for the reduce-scatter's last
    // receive (with one PE per cube they are the first sends, in fill_ns).
    if (P > 1)
      b.add({halving ? "halving's first send dispatch" : "trees' first send dispatch", 0, 0, 0, 0,
             "", b.model().send_dispatch_ns()});
    if (halving)
      halving_doubling(b, lists, n / P);
    else
      binomial(b, lists, n / P);
  }
  b.pipelined("cube all-gather", ring_steps(ring, P, n, false), true);
  // A ring hop; a cube of one PE has none: the hop to the next cube.
  const Hop first = P > 1 ? ring.front() : Hop{order[0], order[1]};
  out.alpha_ns = b.model().step({first}, static_cast<double>(cfg.pe.ipcq.slot_bytes), true).hop_ns;
  return finish_ordered(
      cfg, b, out,
      "cube ring reduce-scatter, " +
          std::string(halving ? "recursive halving and doubling" : "binomial trees") + " across " +
          std::to_string(blocks) + " cubes on n/" + std::to_string(P) + ", cube ring all-gather");
}

AllReduceModel list_allreduce_model(const TopologyConfig& cfg, const std::vector<PeAddr>& order,
                                    RingSpace data, uint64_t bytes) {
  // Blocks of one PE: no ring steps, the halving and doubling over them all.
  return fw::list_allreduce_halves(order.size())
             ? cube_allreduce_model(cfg, order, 1, data, bytes, fw::CrossCube::kHalving)
             : tree_allreduce_model(cfg, order, data, bytes);
}

AllReduceModel cube_half_model(const TopologyConfig& cfg, const std::vector<PeAddr>& order,
                               unsigned per_cube, RingSpace data, uint64_t bytes,
                               bool reduce_scatter) {
  AllReduceModel out;
  if (!fw::cube_allreduce_halves(order.size(), per_cube)) return out;
  Builder b(cfg, RingSpace::kTcm, data, out);
  const auto n = static_cast<double>(bytes);
  const unsigned P = per_cube;
  const auto blocks = static_cast<unsigned>(order.size() / P);
  const CubeRings cr = cube_rings(order, P);
  const std::vector<Hop>& ring = cr.ring;
  const std::vector<std::vector<PeAddr>>& lists = cr.lists;
  if (reduce_scatter) {
    b.pipelined("cube reduce-scatter", ring_steps(ring, P, n, true), false);
    // The first sends across the cubes wait for the reduce-scatter's last receive.
    if (P > 1)
      b.add({"halving's first send dispatch", 0, 0, 0, 0, "", b.model().send_dispatch_ns()});
    halving_doubling(b, lists, n / P, true, false);
  } else {
    // The doubling's first send is the all-gather's first command.
    halving_doubling(b, lists, n / P, false, true, true);
    b.pipelined("cube all-gather", ring_steps(ring, P, n, false), true);
  }
  const Hop first = P > 1 ? ring.front() : Hop{order[0], order[1]};
  out.alpha_ns = b.model().step({first}, static_cast<double>(cfg.pe.ipcq.slot_bytes), true).hop_ns;
  return finish_ordered(cfg, b, out,
                        reduce_scatter
                            ? "cube ring reduce-scatter, recursive halving across " +
                                  std::to_string(blocks) + " cubes on n/" + std::to_string(P)
                            : "recursive doubling across " + std::to_string(blocks) +
                                  " cubes on n/" + std::to_string(P) + ", cube ring all-gather");
}

double ipcq_open_model_ns(const TopologyConfig& cfg, const PeAddr& me,
                          const std::vector<PeAddr>& sources) {
  if (sources.empty()) return 0;
  const Model m(cfg, RingSpace::kTcm, RingSpace::kTcm);
  std::vector<Hop> hops;
  hops.reserve(sources.size());
  for (const PeAddr& s : sources) hops.push_back({s, me});
  return m.fill_ns(hops, static_cast<unsigned>(sources.size())) - m.send_dispatch_ns();
}

}  // namespace kb
