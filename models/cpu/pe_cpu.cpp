#include "models/cpu/pe_cpu.h"

#include <cstdio>

#include "models/common/energy.h"
#include "models/common/fault.h"

#include "models/commands/op_kinds.h"
#include "models/common/errors.h"
#include "models/common/sim_time.h"
#include "models/common/stack_color.h"
#include "models/pe/borrowed_extension.h"
#include "models/pe/lowering.h"
#include "models/pe/pe_engine.h"
#include "models/scheduler/composite_request.h"

namespace kb {

PeCpu::PeCpu(const sc_core::sc_module_name& name, const CpuConfig& cfg,
             const CostModelConfig& cost_model, const GemmConfig& gemm, double clock_ghz,
             const Location& self)
    : sc_core::sc_module(name),
      cmd_out("cmd_out"),
      stage_out("stage_out"),
      cost_(cost_model, clock_ghz),
      cfg_(cfg),
      gemm_(gemm),
      self_(self) {
  const std::string full = this->name();
  pe_path_ = full.substr(0, full.rfind('.'));
}

void PeCpu::launch(std::function<void()> kernel, const std::string& label) {
  sc_core::sc_spawn_options opts;
  color_stack(opts, static_cast<int>(cfg_.stack_bytes));
  ++running_;
  sc_core::sc_spawn(
      [this, k = std::move(kernel)] {
        k();
        --running_;
      },
      sc_core::sc_gen_unique_name(label.c_str()), &opts);
}

void PeCpu::fault(uint64_t id, const char* kind, const std::string& why) {
  const std::string msg =
      std::string(name()) + ": command #" + std::to_string(id) + " (" + kind + "): " + why;
  raise_fault("/kernbench/pe_cpu", msg);
}

void PeCpu::dispatch_overflow(const InFlight& f, double ns) {
  char text[160];
  std::snprintf(text, sizeof text, "%.6g cycles at pe.clock_ghz = %.6g",
                cost_.dispatch_cycles(f.cmd), cost_.clock_ghz());
  fault(f.status->id, f.status->kind,
        time_overflow_text(std::string("its dispatch, ") + text + " (pe.cost_model),", ns));
}

void PeCpu::build_token(InFlight& f) {
  TileToken& t = f.token;
  t.cmd_id = f.status->id;
  t.tile = "op";
  auto need_tcm = [&](const TensorHandle& h, const char* what) {
    if (!h.in_tcm())
      fault(t.cmd_id, f.status->kind,
            std::string(what) + " " + h.describe() + " is not in TCM: this command reads TCM only");
  };
  if (auto* c = std::get_if<DmaReadCmd>(&f.cmd)) {
    t.stages.push_back(lowering::dma_command(*c, t.cmd_id));
  } else if (auto* w = std::get_if<DmaWriteCmd>(&f.cmd)) {
    t.stages.push_back(lowering::dma_command(*w, t.cmd_id));
  } else if (auto* g = std::get_if<GemmCmd>(&f.cmd)) {
    need_tcm(g->a, "operand a");
    need_tcm(g->b, "operand b");
    need_tcm(g->out, "output");
    if (g->a.numel() != g->m * g->k || g->b.numel() != g->k * g->n || g->out.numel() != g->m * g->n)
      fault(t.cmd_id, f.status->kind,
            "mismatched shapes: a " + g->a.describe() + ", b " + g->b.describe() + ", out " +
                g->out.describe() + " for m,k,n = " + std::to_string(g->m) + "," +
                std::to_string(g->k) + "," + std::to_string(g->n));
    if (g->a.dtype != g->b.dtype)
      fault(t.cmd_id, f.status->kind,
            std::string("dtype mismatch: a is ") + to_string(g->a.dtype) + " but b is " +
                to_string(g->b.dtype));
    t.stages = lowering::gemm_command(*g, gemm_.tile_m, gemm_.tile_k, gemm_.tile_n);
  } else if (auto* m = std::get_if<MathCmd>(&f.cmd)) {
    if (!is_math_kind(m->kind)) fault(t.cmd_id, f.status->kind, unknown_op_kind(m->kind, false));
    for (const auto& in : m->inputs) {
      need_tcm(in, "input");
      if (in.dtype != m->inputs.front().dtype)
        fault(t.cmd_id, f.status->kind,
              std::string("dtype mismatch between operands: ") +
                  to_string(m->inputs.front().dtype) + " and " + to_string(in.dtype));
    }
    need_tcm(m->out, "output");
    t.stages.push_back(lowering::math_command(*m));
  } else if (std::holds_alternative<IpcqOpenCmd>(f.cmd) ||
             std::holds_alternative<IpcqSendCmd>(f.cmd) ||
             std::holds_alternative<IpcqRecvCmd>(f.cmd)) {
    build_ipcq_stage(f);
  } else if (auto* c = std::get_if<CopyCmd>(&f.cmd)) {
    need_tcm(c->src, "source");
    need_tcm(c->dst, "destination");
    t.stages = lowering::copy_command(*c);
  }
}

void PeCpu::build_ipcq_stage(InFlight& f) {
  TileToken& t = f.token;
  auto local = [&](const TensorHandle& h, const char* what) {
    const auto loc = decode_address(h.addr);
    const bool mine =
        loc && loc->sip == self_.sip && loc->cube == self_.cube &&
        (loc->space == Space::kSram ||
         ((loc->space == Space::kTcm || loc->space == Space::kHbm) && loc->pe == self_.pe));
    if (!mine)
      fault(t.cmd_id, f.status->kind,
            std::string(what) + " " + h.describe() +
                " is not this PE's TCM or HBM or its cube's SRAM");
  };
  auto not_self = [&](const PeAddr& p) {
    if (p.sip == self_.sip && p.cube == self_.cube && p.pe == self_.pe)
      fault(t.cmd_id, f.status->kind, "peer " + to_string(p) + " is this PE itself");
  };
  if (auto* o = std::get_if<IpcqOpenCmd>(&f.cmd)) {
    for (const PeAddr& p : o->peers) not_self(p);
  } else if (auto* snd = std::get_if<IpcqSendCmd>(&f.cmd)) {
    not_self(snd->peer);
    local(snd->src, "source");
    if (snd->src.row_stride != 0 && snd->src.row_stride != snd->src.cols())
      fault(t.cmd_id, f.status->kind, "source " + snd->src.describe() + " is not contiguous");
  } else {
    const auto& r = std::get<IpcqRecvCmd>(f.cmd);
    not_self(r.peer);
    if (r.forward) not_self(r.forward_to);
    local(r.dst, "destination");
  }
  t.stages.push_back(lowering::ipcq_command(f.cmd));
}

CommandHandle PeCpu::issue(Command cmd) {
  // Drop finished commands from the front (they complete roughly in order).
  while (!in_flight_.empty() && in_flight_.front()->status->done) in_flight_.pop_front();
  auto f = std::make_unique<InFlight>();
  f->cmd = std::move(cmd);
  f->status = std::make_shared<CommandStatus>();
  f->status->id = next_id_++;
  f->status->kind = command_name(f->cmd);
  const std::string why = cost_.check(f->cmd);
  if (!why.empty()) fault(f->status->id, f->status->kind, why);
  build_token(*f);

  const double ns = cost_.dispatch_ns(f->cmd);
  f->status->dispatch_start_ns = to_ns(sim_now());
  dispatching_ = true;
  last_cmd_ = f->status->id;
  if (ns > 0) {
    if (ns >= kTimeLimitNs) dispatch_overflow(*f, ns);
    sc_core::wait(ns_to_time(ns));
  }
  dispatching_ = false;
  f->status->issued_ns = to_ns(sim_now());
  ++stats_.commands;
  stats_.dispatch_ns += ns;
  ++stats_.by_kind[f->status->kind];
  stats_.dispatch_ns_by_kind[f->status->kind] += ns;

  InFlight* raw = f.get();
  CommandHandle handle = f->status;
  in_flight_.push_back(std::move(f));
  if (auto* comp = std::get_if<CompositeCmd>(&raw->cmd)) {
    CompositeRequest req;
    req.cmd = comp;
    req.cmd_id = raw->status->id;
    req.on_done = [this, raw] { complete(*raw); };
    post_extension(*cmd_out.operator->(), req);
  } else if (raw->token.stages.empty()) {
    complete(*raw);  // PeCpuOverheadCmd: its cost was the whole command
  } else {
    raw->token.on_done = [this, raw](TileToken&) { complete(*raw); };
    post_token(*stage_out[static_cast<int>(engine_of(raw->token.current().kind))], &raw->token);
  }
  return handle;
}

void PeCpu::complete(InFlight& f) {
  f.status->done = true;
  f.status->done_ns = to_ns(sim_now());
  f.status->event.notify();
  any_done_.notify();
}

void PeCpu::wait(const CommandHandle& h) {
  while (!h->done) sc_core::wait(h->event);
}

void PeCpu::wait_all() {
  for (;;) {
    bool all = true;
    for (const auto& f : in_flight_) all = all && f->status->done;
    if (all) return;
    sc_core::wait(any_done_);
  }
}

void PeCpu::report_energy(EnergySink& out) const {
  out.static_mw(EnergyClass::kCpu, cfg_.static_mw);
}

void PeCpu::report_stats(StatsSink& out, double /*now_ns*/) const {
  if (stats_.commands == 0 && !out.describing()) return;
  out.group(name());
  out.count("commands", stats_.commands, "", "commands dispatched");
  out.real("dispatch_ns", stats_.dispatch_ns, "ns", "time spent dispatching them");
  out.count_by("commands_by_kind", stats_.by_kind, "", "commands dispatched, by command kind");
  out.real_by("dispatch_ns_by_kind", stats_.dispatch_ns_by_kind, "ns",
              "dispatch time, by command kind");
}

unsigned PeCpu::trace_signals(sc_core::sc_trace_file* tf, const std::string& name) const {
  sc_core::sc_trace(tf, dispatching_flag(), name + ".dispatching");
  sc_core::sc_trace(tf, last_cmd_value(), name + ".cmd_id");
  return 2;
}

}  // namespace kb
