#include "firmware/tl.h"

#include <iterator>
#include <systemc>

#include "firmware/recipes.h"
#include "models/common/errors.h"
#include "models/common/fault.h"
#include "models/common/sim_time.h"
#include "models/common/spelling.h"
#include "models/tcm/tcm_arena.h"

namespace kb {
namespace fw {

Tl::Tl(PeCpu& cpu, const IpcqConfig& ipcq, TcmArena& arena, const AddressMap& map,
       const Location& pe, IdSource& ids, LaunchPosition pos)
    : cpu_(cpu), ipcq_(ipcq), arena_(arena), map_(map), pe_(pe), ids_(ids), pos_(pos) {}

double Tl::now_ns() const {
  return to_ns(sc_core::sc_time_stamp());
}

Tensor Tl::ref(uint64_t addr, Shape shape, DType dtype) {
  Tensor t;
  t.h.id = ids_.next();
  t.h.addr = addr;
  t.h.shape = std::move(shape);
  t.h.dtype = dtype;
  return t;
}

TensorHandle Tl::tcm_handle(Shape shape, DType dtype, const std::string& name) {
  TensorHandle h;
  h.id = ids_.next();
  h.shape = std::move(shape);
  h.dtype = dtype;
  uint64_t offset = 0;
  try {
    offset = arena_.allocate(h.bytes());
  } catch (const TcmOverflow& e) {
    const std::string what = name.empty() ? "tensor " + h.describe_unplaced()
                                          : name + " (tensor " + h.describe_unplaced() + ")";
    raise_fault("/kernbench/tl", cpu_.pe_path() + ": " + e.message(what));
  }
  h.addr = map_.tcm(pe_.sip, pe_.cube, pe_.pe, offset);
  return h;
}

Tensor Tl::empty(Shape shape, DType dtype) {
  Tensor t;
  t.h = tcm_handle(std::move(shape), dtype);
  return t;
}

void Tl::resolve(const Tensor& t) {
  if (t.pending) cpu_.wait(t.pending);
}

Tensor Tl::load(const Tensor& src) {
  resolve(src);
  return load_into(empty(src.h.shape, src.h.dtype), src);
}

Tensor Tl::load_into(const Tensor& dst_in, const Tensor& src) {
  resolve(src);
  resolve(dst_in);
  if (dst_in.h.numel() != src.h.numel() || dst_in.h.dtype != src.h.dtype || !dst_in.h.in_tcm())
    fail("tl.load_into: destination " + dst_in.h.describe() + " does not fit source " +
         src.h.describe() + " (same element count and dtype, in TCM)");
  Tensor dst = dst_in;
  DmaReadCmd c;
  const uint64_t esize = dtype_bytes(src.h.dtype);
  c.src = src.h.addr;
  c.dst = dst.h.addr;
  c.row_bytes = static_cast<uint64_t>(src.h.cols()) * esize;
  c.rows = static_cast<uint32_t>(src.h.rows());
  c.src_stride = static_cast<uint64_t>(src.h.stride()) * esize;
  c.dst_stride = c.row_bytes;
  dst.pending = cpu_.issue(c);
  return dst;
}

Tensor Tl::store(const Tensor& dst, const Tensor& src) {
  resolve(src);
  DmaWriteCmd c;
  const uint64_t esize = dtype_bytes(src.h.dtype);
  c.src = src.h.addr;
  c.dst = dst.h.addr;
  c.row_bytes = static_cast<uint64_t>(src.h.cols()) * esize;
  c.rows = static_cast<uint32_t>(src.h.rows());
  c.src_stride = static_cast<uint64_t>(src.h.stride()) * esize;
  c.dst_stride = static_cast<uint64_t>(dst.h.stride()) * esize;
  Tensor out = dst;
  out.pending = cpu_.issue(c);
  return out;
}

void Tl::ipcq_open(const std::vector<PeAddr>& peers, RingSpace space) {
  for (const PeAddr& p : peers) {
    std::string why;
    if (!map_.resolve(map_.ipcq(p.sip, p.cube, p.pe), 1, &why))
      fail("ipcq_open: peer " + to_string(p) + " does not exist: " + why);
    rings_[p] = space;
  }
  IpcqOpenCmd c;
  c.peers = peers;
  c.space = space;
  cpu_.wait(cpu_.issue(c));
}

Tensor Tl::send(const PeAddr& peer, const Tensor& src) {
  resolve(src);
  IpcqSendCmd c;
  c.peer = peer;
  c.src = src.h;
  Tensor out = src;
  out.pending = cpu_.issue(c);
  return out;
}

Tensor Tl::issue_recv(const PeAddr& peer, const Tensor& dst, bool reduce, const PeAddr* to) {
  resolve(dst);
  IpcqRecvCmd c;
  c.peer = peer;
  c.dst = dst.h;
  c.reduce = reduce;
  if (to) {
    c.forward = true;
    c.forward_to = *to;
  }
  auto ring = rings_.find(peer);
  const bool ring_tcm = ring == rings_.end() || ring->second == RingSpace::kTcm;
  if (reduce && (!ring_tcm || !dst.h.in_tcm())) {
    // Staging is indexed by ring slot, so each peer's ring needs its own.
    auto it = ipcq_scratch_.find(peer);
    if (it == ipcq_scratch_.end()) {
      const IpcqConfig& q = ipcq_;
      Tensor staging;
      staging.h = tcm_handle({static_cast<int64_t>(q.slots * q.slot_bytes)}, DType::kFp16,
                             "the reduce staging of the ring from PE " + to_string(peer));
      it = ipcq_scratch_.emplace(peer, staging).first;
    }
    c.scratch = it->second.h;
  }
  Tensor out = dst;
  out.pending = cpu_.issue(c);
  return out;
}

Tensor Tl::recv(const PeAddr& peer, Shape shape, DType dtype) {
  Tensor t = recv_async(peer, empty(std::move(shape), dtype));
  resolve(t);
  t.pending = nullptr;
  return t;
}

Tensor Tl::recv_async(const PeAddr& peer, const Tensor& dst) {
  return issue_recv(peer, dst, false, nullptr);
}

Tensor Tl::recv_reduce(const PeAddr& peer, const Tensor& dst) {
  return issue_recv(peer, dst, true, nullptr);
}

Tensor Tl::recv_forward(const PeAddr& peer, const Tensor& dst, const PeAddr& to, bool reduce) {
  return issue_recv(peer, dst, reduce, &to);
}

Tensor Tl::dot(const Tensor& a, const Tensor& b, std::optional<Tensor> acc) {
  resolve(a);
  resolve(b);
  if (acc) resolve(*acc);
  GemmCmd c;
  c.a = a.h;
  c.b = b.h;
  c.m = a.h.shape.empty() ? 0 : a.h.shape.front();
  c.k = a.h.cols();
  c.n = b.h.cols();
  Tensor out = acc ? *acc : empty({c.m, c.n}, DType::kFp32);
  c.out = out.h;
  c.accumulate = acc.has_value();
  out.pending = cpu_.issue(c);
  return out;
}

Tensor Tl::math(const std::string& kind, std::vector<Tensor> inputs,
                std::vector<std::pair<std::string, ExtraValue>> extra, std::optional<Tensor> out) {
  for (const auto& in : inputs) resolve(in);
  if (out) resolve(*out);
  MathCmd c;
  c.kind = kind;
  for (const auto& in : inputs) c.inputs.push_back(in.h);
  // Without an explicit output the result takes the op's result shape: like
  // the first input, with the last two dimensions swapped for a transpose and
  // the reduced (last, unless reduce_axis says otherwise) dimension kept as 1.
  Shape shape = inputs.at(0).h.shape;
  if (kind == "trans" && shape.size() >= 2)
    std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
  if ((kind == "rmax" || kind == "rsum") && !shape.empty()) {
    int64_t axis = -1;
    for (const auto& [k, v] : extra)
      if (k == "reduce_axis" && std::holds_alternative<int64_t>(v)) axis = std::get<int64_t>(v);
    if (axis < 0) axis += static_cast<int64_t>(shape.size());
    if (axis >= 0 && axis < static_cast<int64_t>(shape.size()))
      shape[static_cast<size_t>(axis)] = 1;
  }
  Tensor result = out ? *out : empty(shape, inputs.at(0).h.dtype);
  c.out = result.h;
  c.extra = std::move(extra);
  result.pending = cpu_.issue(c);
  return result;
}

void Tl::fail(const std::string& why) {
  const std::string msg = cpu_.pe_path() + ": " + why;
  raise_fault("/kernbench/tl", msg);
}

const TensorHandle& Tl::recipe_slot(const Recipe& r, const RecipeSlots& slots,
                                    const std::string& name) {
  for (const auto& s : slots)
    if (s.first == name) return s.second;
  fail("recipe " + r.name + ": internal slot '" + name + "' missing");
}

void Tl::bind_recipe_operands(const Recipe& r, const RecipeCall& call, CompositeCmd& cmd,
                              RecipeSlots& slots) {
  for (const RecipeOperand& o : r.operands) {
    const Tensor* t = nullptr;
    for (const auto& [n, v] : call.operands)
      if (n == o.name) t = &v;
    if (!t) fail("tl.composite: recipe " + r.name + " needs operand '" + o.name + "'");
    if (!t->h.in_tcm())
      fail("tl.composite: recipe " + r.name + " operand '" + o.name + "' " + t->h.describe() +
           " is not in TCM: recipe operands must be in TCM");
    // Read-only operands may still be in flight (e.g. the scores of the
    // previous composite): wait for them. Read-write ones are ordered by
    // PE_SCHEDULER through rw_handles, so the CPU runs ahead.
    if (o.access == Access::kRead)
      resolve(*t);
    else
      cmd.rw_handles.push_back(t->h);
    slots.emplace_back(o.name, t->h);
  }
}

void Tl::bind_recipe_scratch(const Recipe& r, const RecipeCall& call, const CompositeArgs& args,
                             RecipeSlots& slots, std::optional<Tensor>& primary) {
  for (const RecipeScratch& sc : r.scratch) {
    Shape shape = recipe_slot(r, slots, sc.shape_from).shape;
    if (sc.reduce_last && !shape.empty()) shape.back() = 1;
    DType dt = recipe_slot(r, slots, sc.shape_from).dtype;
    if (sc.primary_out && args.b) dt = args.b->h.dtype;
    TensorHandle h;
    for (const auto& [n, t] : call.scratch)
      if (n == sc.name) h = t.h;
    if (!h.valid()) h = tcm_handle(shape, dt, "scratch " + sc.name + " of recipe " + r.name);
    slots.emplace_back(sc.name, h);
    if (sc.primary_out) {
      if (args.a)
        fail("tl.composite: auto-bind conflict: recipe " + r.name + " binds its primary output " +
             sc.name + " to the GEMM's 'a'; do not pass 'a' as well");
      Tensor t;
      t.h = h;
      primary = t;
    }
  }
}

std::optional<Tensor> Tl::lower_recipes(const CompositeArgs& args, CompositeCmd& cmd) {
  std::optional<Tensor> primary;
  for (const RecipeCall& call : args.prologue) {
    const Recipe* r = find_recipe(call.recipe);
    if (!r) {
      std::string known;
      for (const auto& n : recipe_names()) known += (known.empty() ? "" : ", ") + n;
      fail("tl.composite: unknown recipe '" + call.recipe + "'" +
           did_you_mean(call.recipe, recipe_names()) + " (known: " + known + ")");
    }
    RecipeSlots slots;
    bind_recipe_operands(*r, call, cmd, slots);
    bind_recipe_scratch(*r, call, args, slots, primary);
    for (const RecipeStep& st : r->steps) {
      OpSpec op;
      op.kind = st.op_kind;
      op.scope = Scope::kKernel;
      op.operands.reserve(st.reads.size());
      for (const auto& name : st.reads)
        op.operands.emplace_back(name, recipe_slot(*r, slots, name));
      op.out = recipe_slot(*r, slots, st.writes);
      op.extra = st.extra;
      cmd.ops.push_back(std::move(op));
    }
  }
  return primary;
}

Tensor Tl::composite(const CompositeArgs& args) {
  Tensor out;
  CompositeCmd cmd = build_composite(args, &out);
  out.pending = cpu_.issue(std::move(cmd));
  return out;
}

CompositeCmd Tl::build_composite(const CompositeArgs& args, Tensor* out_tensor) {
  CompositeCmd cmd;
  const std::optional<Tensor> auto_a = lower_recipes(args, cmd);
  for (const OpSpec& p : args.prologue_ops) cmd.ops.push_back(p);
  OpSpec head;
  head.kind = args.op;
  head.scope = Scope::kKernel;
  Tensor out;
  if (args.op == "gemm") {
    const std::optional<Tensor> a = auto_a ? auto_a : args.a;
    if (!a || !args.b) fail("tl.composite(op=gemm) needs a and b");
    resolve(*a);
    resolve(*args.b);
    const int64_t m = a->h.shape.empty() ? 0 : a->h.shape.front();
    const int64_t k = a->h.cols(), n = args.b->h.cols();
    head.operands = {{"a", a->h}, {"b", args.b->h}};
    head.extra = {{"m", m}, {"k", k}, {"n", n}};
    if (args.out) {
      out = *args.out;
    } else if (args.out_ptr) {
      out = ref(*args.out_ptr, {m, n}, args.out_dtype.value_or(a->h.dtype));
    } else {
      out = empty({m, n}, args.out_dtype.value_or(a->h.dtype));
    }
  } else {
    if (args.a) {
      resolve(*args.a);
      head.operands.emplace_back("src", args.a->h);
    }
    if (args.b) {
      resolve(*args.b);
      head.operands.emplace_back("other", args.b->h);
    }
    if (args.out)
      out = *args.out;
    else if (args.a)
      out = empty(args.a->h.shape, args.out_dtype.value_or(args.a->h.dtype));
  }
  if (out.h.valid()) head.out = out.h;
  cmd.ops.push_back(std::move(head));
  for (const OpArgs& e : args.epilogue) {
    OpSpec op;
    op.kind = e.op;
    op.scope = e.scope;
    op.operands.reserve(e.operands.size());
    for (const auto& [name, t] : e.operands) {
      // The accumulate form (an epilogue naming the composite's own output, or
      // a handle in rw) is ordered by the scheduler, not awaited here.
      bool ordered = t.h.id == out.h.id;
      for (const auto& h : cmd.rw_handles) ordered = ordered || h.id == t.h.id;
      if (!ordered) resolve(t);
      op.operands.emplace_back(name, t.h);
    }
    op.extra = e.extra;
    if (e.out) op.out = e.out->h;
    cmd.ops.push_back(std::move(op));
  }
  for (const Tensor& t : args.rw) cmd.rw_handles.push_back(t.h);
  if (out_tensor) *out_tensor = out;
  return cmd;
}

void Tl::overhead(double cycles) {
  PeCpuOverheadCmd c;
  c.cycles = cycles;
  cpu_.wait(cpu_.issue(c));
}

void Tl::wait(const Tensor& t) {
  resolve(t);
}

void Tl::wait() {
  cpu_.wait_all();
}

Tl::ScratchScope::ScratchScope(Tl& tl) : tl_(tl), mark_(tl.arena_.mark()) {}

Tl::ScratchScope::~ScratchScope() {
  tl_.arena_.release_to(mark_);
  // Reduce staging allocated inside the scope is gone with it: forget it, so
  // a later reduce allocates its own rather than reuse space now someone else's.
  for (auto it = tl_.ipcq_scratch_.begin(); it != tl_.ipcq_scratch_.end();)
    it = (it->second.h.addr & addr_bits::kOffsetMask) >= mark_ ? tl_.ipcq_scratch_.erase(it)
                                                               : std::next(it);
}

Tensor Tl::copy_to(const Tensor& dst, const Tensor& src) {
  resolve(src);
  CopyCmd c;
  c.src = src.h;
  c.dst = dst.h;
  Tensor out = dst;
  out.pending = cpu_.issue(c);
  return out;
}

}  // namespace fw
}  // namespace kb
