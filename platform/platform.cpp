#include "platform/platform.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <sstream>
#include <systemc>

#include "firmware/recipes.h"
#include "models/common/errors.h"
#include "models/common/service_queue.h"
#include "models/common/sim_time.h"
#include "models/hbm/hbm_ctrl.h"
#include "models/link/link.h"
#include "models/math/math_ops.h"
#include "models/memory/memory_target.h"
#include "models/trace/op_log.h"
#include "platform/fabric/elaboration_budget.h"
#include "platform/fabric/pe.h"
#include "platform/fabric/sip.h"
#include "platform/fabric/system.h"
#include "platform/llm/norm_kernels.h"
#include "platform/output/stats_sinks.h"
#include "platform/process/sanitizer_support.h"
#include "platform/process/stack_overflow_report.h"

namespace kb {

TopologyShape shape_of(const TopologyConfig& cfg) {
  TopologyShape s;
  s.n_sips = cfg.system.n_sips;
  s.cubes_per_sip = cfg.cubes_per_sip();
  s.pes_per_cube = cfg.cube.pes;
  s.hbm_bytes = cfg.pe.hbm.size_bytes;
  s.tcm_bytes = cfg.pe.tcm.size_bytes;
  s.sram_bytes = cfg.cube.sram.size_bytes;
  s.host_bytes = cfg.host.memory_bytes;
  return s;
}

namespace {

// The topology, once its elaboration is known to fit the process.
const TopologyConfig& within_budget(const TopologyConfig& cfg) {
  check_elaboration_budget(cfg);
  install_stack_overflow_report(cfg.pe.cpu.stack_bytes);
  return cfg;
}

}  // namespace

Platform::Platform(const TopologyConfig& cfg)
    : cfg_(within_budget(cfg)),
      map_(shape_of(cfg)),
      op_log_(std::make_unique<OpLog>()),
      system_(std::make_unique<System>("system", cfg_, map_)) {
  for (unsigned s = 0; s < system_->num_sips(); ++s)
    for (unsigned c = 0; c < system_->sip(s).num_cubes(); ++c)
      for (unsigned p = 0; p < system_->sip(s).cube(c).num_pes(); ++p)
        system_->sip(s).cube(c).pe(p).set_op_log(op_log_.get());
  // What a simulation may run is fixed from here on: a program registers its
  // op kinds, recipes and norm kernels before its first Platform.
  close_math_op_registry();
  fw::close_recipe_registry();
  close_norm_kernel_registry();
}

Platform::~Platform() = default;

Pe& Platform::pe(const PeId& id) {
  return system_->pe(id.sip, id.cube, id.pe);
}

namespace {

void for_each_object(const std::function<void(sc_core::sc_object*)>& fn) {
  std::function<void(sc_core::sc_object*)> walk = [&](sc_core::sc_object* o) {
    fn(o);
    for (sc_core::sc_object* c : o->get_child_objects()) walk(c);
  };
  for (sc_core::sc_object* o : sc_core::sc_get_top_level_objects()) walk(o);
}

}  // namespace

void Platform::set_data_mode(bool on) {
  if (on == data_mode_) return;
  data_mode_ = on;
  for_each_object([on](sc_core::sc_object* o) {
    if (auto* pe = dynamic_cast<Pe*>(o)) pe->set_data_mode(on);
    if (auto* m = dynamic_cast<MemoryTarget*>(o)) m->set_data_mode(on);  // SRAM, host
  });
}

namespace {

// `after - before` for every additive counter of stats() (nested by module
// and by kind); counters that did not move, maxima, peaks and utilisations
// are left out, and so are modules left with nothing.
nlohmann::json stats_delta(const nlohmann::json& before, const nlohmann::json& after) {
  nlohmann::json out = nlohmann::json::object();
  for (auto it = after.begin(); it != after.end(); ++it) {
    const std::string& key = it.key();
    if (key.rfind("max_", 0) == 0 || key.rfind("peak_", 0) == 0 || key == "utilization") continue;
    const nlohmann::json* old = before.is_object() && before.contains(key) ? &before[key] : nullptr;
    if (it->is_object()) {
      nlohmann::json d = stats_delta(old ? *old : nlohmann::json::object(), *it);
      if (!d.empty()) out[key] = std::move(d);
    } else if (it->is_number_unsigned()) {
      const uint64_t was = old && old->is_number() ? old->get<uint64_t>() : 0;
      if (it->get<uint64_t>() != was) out[key] = it->get<uint64_t>() - was;
    } else if (it->is_number()) {
      const double was = old && old->is_number() ? old->get<double>() : 0;
      if (it->get<double>() != was) out[key] = it->get<double>() - was;
    }
  }
  return out;
}

}  // namespace

double Platform::run() {
  const nlohmann::json stats_before = run_stats_ ? stats() : nlohmann::json();
  ++phase_;
  runs_.push_back({next_run_label_.empty() ? "run " + std::to_string(phase_) : next_run_label_,
                   now_ns(), now_ns()});
  next_run_label_.clear();
  std::vector<uint64_t> ids_before;
  for_each_pe([&](Pe& pe) { ids_before.push_back(pe.cpu.next_command_id()); });
  try {
    // As sc_start() (which runs to sc_max_time), but up to kTimeLimitPs: past
    // it, sc_time's unchecked sums could wrap.
    const uint64_t now_ps = sim_now().value();
    sc_core::sc_start(
        sc_core::sc_time::from_value(kTimeLimitPs > now_ps ? kTimeLimitPs - now_ps : 0),
        sc_core::SC_EXIT_ON_STARVATION);
  } catch (...) {
    recover_stack_after_sc_exception();  // ASan bookkeeping; no-op otherwise
    throw;
  }
  resync_stack_after_sc_start();
  if (sc_core::sc_pending_activity_at_future_time()) {  // stopped at the limit, not done
    char at[32];
    std::snprintf(at, sizeof at, "%.6g", now_ns());
    throw SimulationError(time_overflow_text(
        std::string("the run (stopped at ") + at + " ns, with events still to come)",
        to_ns(sim_now() + sc_core::sc_time_to_pending_activity())));
  }
  runs_.back().end_ns = now_ns();
  size_t i = 0;
  for_each_pe([&](Pe& pe) {
    const uint64_t before = ids_before[i++], after = pe.cpu.next_command_id();
    if (after > before) runs_.back().cmd_ids[pe.cpu.pe_path()] = {before, after - 1};
  });
  if (run_stats_) runs_.back().stats = stats_delta(stats_before, stats());
  check_drained();
  for_each_pe([](Pe& pe) { pe.ipcq.reset(); });
  return now_ns();
}

void Platform::set_op_log_enabled(bool on) {
  op_log_enabled_ = on;
  for_each_pe([&](Pe& pe) { pe.set_op_log(on ? op_log_.get() : nullptr); });
}

void Platform::for_each_pe(const std::function<void(Pe&)>& fn) {
  for (unsigned s = 0; s < system_->num_sips(); ++s)
    for (unsigned c = 0; c < system_->sip(s).num_cubes(); ++c)
      for (unsigned p = 0; p < system_->sip(s).cube(c).num_pes(); ++p)
        fn(system_->sip(s).cube(c).pe(p));
}

void Platform::check_drained() {
  std::ostringstream why;
  unsigned stuck = 0;
  for_each_pe([&](Pe& pe) {
    if (!pe.cpu.running() && pe.ipcq.idle()) return;
    ++stuck;
    why << "\n  " << pe.name() << ": "
        << (pe.cpu.running() ? "kernel blocked" : "kernel done, IPCQ not drained");
    for (const std::string& w : pe.ipcq.waiting()) why << "\n    waits in " << w;
  });
  if (stuck == 0) return;
  const std::string msg =
      "the simulation ran dry at " + std::to_string(now_ns()) + " ns with " +
      std::to_string(stuck) +
      " PE(s) still waiting (a deadlock: nothing left can wake them):" + why.str();
  throw SimulationError(msg);
}

Platform::Traffic Platform::traffic() const {
  Traffic t;
  for_each_object([&](sc_core::sc_object* o) {
    auto* l = dynamic_cast<Link*>(o);
    if (!l) return;
    const uint64_t b = l->wire().stats().bytes;
    t.link_bytes += b;
    if (dynamic_cast<Sip*>(l->get_parent_object())) {
      const std::string n = l->basename();
      if (n.rfind("cube", 0) == 0 && n.find("_to_cube") != std::string::npos)
        t.cube_link_bytes += b;
    } else if (dynamic_cast<System*>(l->get_parent_object())) {
      const std::string n = l->basename();
      if (n.rfind("sip", 0) == 0 && n.find("_to_sip") != std::string::npos) t.sip_link_bytes += b;
    }
  });
  return t;
}

double Platform::now_ns() const {
  return to_ns(sc_core::sc_time_stamp());
}

FabricPath Platform::route(const PeId& from, uint64_t addr) const {
  FabricPath path;
  std::string why;
  auto dest = map_.resolve(addr, 1, &why);
  if (!dest) throw std::invalid_argument(why);
  const Router* r = &system_->pe(from.sip, from.cube, from.pe).xbar;
  for (unsigned guard = 0; guard < 10000; ++guard) {
    const Router::PortTarget& pt = r->port(r->route(*dest));
    if (!pt.link) {
      path.endpoint = pt.endpoint;
      return path;
    }
    path.links.push_back(pt.link);
    r = pt.next;
  }
  throw std::logic_error("routing loop towards " + format_address(addr));
}

namespace {

void debug_access(System& sys, const AddressMap& map, tlm::tlm_command cmd, uint64_t addr,
                  uint8_t* data, uint64_t len) {
  std::string why;
  if (!map.resolve(addr, len, &why)) throw std::invalid_argument(why);
  // Page-sized pieces keep each debug payload small.
  for (uint64_t done = 0; done < len;) {
    const auto n = static_cast<unsigned>(std::min<uint64_t>(len - done, 1u << 20));
    tlm::tlm_generic_payload t;
    t.set_command(cmd);
    t.set_address(addr + done);
    t.set_data_ptr(data + done);
    t.set_data_length(n);
    t.set_streaming_width(n);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    const unsigned got = sys.host.debug->transport_dbg(t);
    if (got != n)
      throw std::invalid_argument("debug access to " + format_address(addr + done) + " moved " +
                                  std::to_string(got) + " of " + std::to_string(n) + " bytes");
    done += n;
  }
}

}  // namespace

void Platform::finish_elaboration() {
  // Multi-target sockets complete their bindings at the end of elaboration;
  // a backdoor access before the first run needs that done. Running zero
  // time initialises every process and lets them go to sleep.
  if (sc_core::sc_get_status() == sc_core::SC_ELABORATION) {
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    resync_stack_after_sc_start();
  }
}

void Platform::debug_write(uint64_t addr, const uint8_t* data, uint64_t len) {
  finish_elaboration();
  debug_access(*system_, map_, tlm::TLM_WRITE_COMMAND, addr, const_cast<uint8_t*>(data), len);
}

void Platform::debug_read(uint64_t addr, uint8_t* data, uint64_t len) {
  finish_elaboration();
  debug_access(*system_, map_, tlm::TLM_READ_COMMAND, addr, data, len);
}

const std::vector<std::pair<std::string, const Instrumented*>>& Platform::instrumented() const {
  if (instrumented_.empty())
    for_each_object([&](sc_core::sc_object* o) {
      if (const auto* m = dynamic_cast<const Instrumented*>(o))
        instrumented_.emplace_back(o->name(), m);
    });
  return instrumented_;
}

namespace {

// A module's counters, then its energy in a group named after it when it
// spent dynamic energy (or when the sink describes the counters).
void report_module(StatsSink& sink, const std::string& name, const Instrumented& m, double now) {
  m.report_stats(sink, now);
  EnergyTally t;
  m.report_energy(t);
  if (t.dynamic_total_pj() <= 0 && !sink.describing()) return;
  sink.group(name);
  sink.real("energy_dynamic_pj", t.dynamic_total_pj(), "pJ",
            "dynamic energy: the module's event counts x its energy knobs");
  sink.real("energy_static_pj", t.static_total_mw() * now, "pJ",
            "static energy: the module's static power x the simulated time");
}

}  // namespace

nlohmann::json Platform::stats() const {
  nlohmann::json out = nlohmann::json::object();
  const double now = now_ns();
  JsonStatsSink sink(out);
  for (const auto& [name, m] : instrumented()) report_module(sink, name, *m, now);
  return out;
}

std::string Platform::describe_stats() const {
  DescribeStatsSink sink;
  for (const auto& [name, m] : instrumented()) report_module(sink, name, *m, 0);
  return sink.listing();
}

void Platform::enable_power_meters() {
  for (unsigned s = 0; s < system_->num_sips(); ++s)
    for (unsigned c = 0; c < system_->sip(s).num_cubes(); ++c)
      system_->sip(s).cube(c).enable_power_meter();
  power_meters_on_ = true;
}

void Platform::enable_queue_depth_tracks(const std::function<bool(const std::string&)>& keep) {
  std::function<void(sc_core::sc_object*)> walk = [&](sc_core::sc_object* o) {
    if (auto* q = dynamic_cast<ServiceQueue*>(o); q && keep(q->name())) {
      depth_tracks_.emplace_back(q->name(), std::make_unique<DepthTrack>());
      q->set_depth_track(depth_tracks_.back().second.get());
    }
    for (sc_core::sc_object* c : o->get_child_objects()) walk(c);
  };
  for (sc_core::sc_object* o : sc_core::sc_get_top_level_objects()) walk(o);
}

std::vector<Platform::QueueTrack> Platform::queue_depth_tracks() const {
  std::vector<QueueTrack> out;
  for (const auto& [name, track] : depth_tracks_)
    if (!track->samples.empty()) out.push_back({name, track.get()});
  return out;
}

std::vector<Platform::PowerTrack> Platform::power_tracks() {
  std::vector<PowerTrack> out;
  if (!power_meters_on_) return out;
  for (unsigned s = 0; s < system_->num_sips(); ++s)
    for (unsigned c = 0; c < system_->sip(s).num_cubes(); ++c) {
      PowerMeter& m = system_->sip(s).cube(c).power;
      m.flush();
      out.push_back({system_->sip(s).cube(c).name(), m.bin_ns(), m.static_mw(), m.binned_pj()});
    }
  return out;
}

EnergySnapshot Platform::energy(const std::string& scope) const {
  EnergySnapshot s;
  s.now_ns = now_ns();
  for (const auto& [name, m] : instrumented()) {
    if (!scope.empty() && (name.compare(0, scope.size(), scope) != 0 ||
                           (name.size() > scope.size() && name[scope.size()] != '.')))
      continue;
    EnergyTally t;
    m->report_energy(t);
    for (unsigned c = 0; c < kNumEnergyClasses; ++c) {
      s.tally.dynamic[c] += t.dynamic[c];
      s.tally.power[c] += t.power[c];
    }
    if (t.dynamic_total_pj() <= 0) s.idle_static_mw += t.static_total_mw();
  }
  return s;
}

std::string Platform::describe() const {
  std::ostringstream os;
  const auto& c = cfg_;
  unsigned cube_links = 0, sip_links = 0;
  for (unsigned s = 0; s < system_->num_sips(); ++s)
    for (unsigned k = 0; k < system_->sip(s).num_cubes(); ++k)
      cube_links += static_cast<unsigned>(system_->sip(s).grid().neighbors(k).size());
  for (unsigned s = 0; s < system_->num_sips(); ++s)
    sip_links += static_cast<unsigned>(system_->sip_graph().neighbors(s).size());
  os << "topology " << c.name << " (" << c.source << ")\n"
     << "  SIPs         " << c.system.n_sips << " (" << to_string(c.system.sip_topology) << "), "
     << sip_links << " SIP link directions @ " << c.system.sip_link.bandwidth_gbps << " GB/s, "
     << c.system.sip_link.latency_ns << " ns\n"
     << "  cubes/SIP    " << c.sip.cubes_x << "x" << c.sip.cubes_y << " "
     << to_string(c.sip.topology) << ", " << cube_links << " cube link directions @ "
     << c.sip.cube_link.bandwidth_gbps << " GB/s, " << c.sip.cube_link.latency_ns << " ns, packet "
     << c.sip.cube_link.packet_bytes << " B\n"
     << "  PEs          " << c.cube.pes << " per cube, " << c.total_pes() << " in total; PE link "
     << c.cube.pe_link.bandwidth_gbps << " GB/s\n"
     << "  PE HBM       " << c.pe.hbm.num_pcs << " PCs x " << c.pe.hbm.pc_bandwidth_gbps
     << " GB/s = " << c.pe_hbm_bandwidth_gbps() << " GB/s, " << c.pe.hbm.size_bytes
     << " B per PE\n";
  if (c.pe.hbm.model == HbmModel::kBanked) {
    const DramTimingConfig& d = c.pe.hbm.banked;
    const unsigned lockstep = d.lockstep(c.pe.hbm.pc_bandwidth_gbps);
    os << "  HBM banked   " << name_of(kDramPresetNames, d.preset) << " device, " << lockstep
       << " device PCs of " << d.device_gbps() << " GB/s in lockstep per PC (peak "
       << lockstep * d.device_gbps() << " GB/s), " << d.bank_groups << "x" << d.banks_per_group
       << " banks, " << d.column_bytes * lockstep << " B columns, " << d.page_bytes * lockstep
       << " B rows, " << name_of(kPagePolicyNames, d.page_policy) << " page\n";
  }
  os << "  PE TCM       " << c.pe.tcm.size_bytes << " B @ " << c.pe.tcm.bandwidth_gbps << " GB/s\n"
     << "  cube SRAM    " << c.cube.sram.size_bytes << " B @ " << c.cube.sram.bandwidth_gbps
     << " GB/s\n"
     << "  host link    H2D " << c.host.h2d.bandwidth_gbps << " GB/s, D2H "
     << c.host.d2h.bandwidth_gbps << " GB/s, " << c.host.h2d.latency_ns << " ns, on SIP "
     << c.system.host_sip << "\n"
     << "  what a kernel gets of each PE's memories (docs/library.md, \"Limits a kernel meets\"):\n"
     << describe_pe_memory(c, "    ");
  return os.str();
}

}  // namespace kb
