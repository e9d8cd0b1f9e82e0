#include "firmware/tl.h"

#include <systemc>

#include "models/common/errors.h"
#include "models/common/sim_time.h"
#include "models/tcm/tcm_arena.h"

namespace kb {
namespace fw {

Tl::Tl(PeCpu& cpu, TcmArena& arena, const AddressMap& map, const Location& pe, IdSource& ids,
       LaunchPosition pos)
    : cpu_(cpu), arena_(arena), map_(map), pe_(pe), ids_(ids), pos_(pos) {}

double Tl::now_ns() const {
  return to_ns(sc_core::sc_time_stamp());
}

Tensor Tl::ref(uint64_t addr, std::vector<int64_t> shape, DType dtype) {
  Tensor t;
  t.h.id = ids_.next();
  t.h.addr = addr;
  t.h.shape = std::move(shape);
  t.h.dtype = dtype;
  return t;
}

TensorHandle Tl::tcm_handle(std::vector<int64_t> shape, DType dtype) {
  TensorHandle h;
  h.id = ids_.next();
  h.shape = std::move(shape);
  h.dtype = dtype;
  uint64_t offset = 0;
  try {
    offset = arena_.allocate(h.bytes());
  } catch (const TcmOverflow& e) {
    const std::string msg = cpu_.pe_path() + ": " + e.what() + " (tensor " + h.describe() + ")";
    SC_REPORT_ERROR("/kernbench/tl", msg.c_str());
    throw SimulationError(msg);
  }
  h.addr = map_.tcm(pe_.sip, pe_.cube, pe_.pe, offset);
  return h;
}

Tensor Tl::empty(std::vector<int64_t> shape, DType dtype) {
  Tensor t;
  t.h = tcm_handle(std::move(shape), dtype);
  return t;
}

void Tl::resolve(const Tensor& t) {
  if (t.pending) cpu_.wait(t.pending);
}

Tensor Tl::load(const Tensor& src) {
  resolve(src);
  Tensor dst = empty(src.h.shape, src.h.dtype);
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
  Tensor result = out ? *out : empty(inputs.at(0).h.shape, inputs.at(0).h.dtype);
  c.out = result.h;
  c.extra = std::move(extra);
  result.pending = cpu_.issue(c);
  return result;
}

Tensor Tl::composite(const CompositeArgs& args) {
  CompositeCmd cmd;
  for (const OpSpec& p : args.prologue_ops) cmd.ops.push_back(p);
  OpSpec head;
  head.kind = args.op;
  head.scope = Scope::kKernel;
  Tensor out;
  if (args.op == "gemm") {
    if (!args.a || !args.b) {
      const std::string msg = cpu_.pe_path() + ": tl.composite(op=gemm) needs a and b";
      SC_REPORT_ERROR("/kernbench/tl", msg.c_str());
      throw SimulationError(msg);
    }
    resolve(*args.a);
    resolve(*args.b);
    const int64_t m = args.a->h.shape.empty() ? 0 : args.a->h.shape.front();
    const int64_t k = args.a->h.cols(), n = args.b->h.cols();
    head.operands = {{"a", args.a->h}, {"b", args.b->h}};
    head.extra = {{"m", m}, {"k", k}, {"n", n}};
    if (args.out) {
      out = *args.out;
    } else if (args.out_ptr) {
      out = ref(*args.out_ptr, {m, n}, args.out_dtype.value_or(args.a->h.dtype));
    } else {
      out = empty({m, n}, args.out_dtype.value_or(args.a->h.dtype));
    }
  } else {
    if (args.a) {
      resolve(*args.a);
      head.operands.push_back({"src", args.a->h});
    }
    if (args.b) {
      resolve(*args.b);
      head.operands.push_back({"other", args.b->h});
    }
    if (args.out)
      out = *args.out;
    else if (args.a)
      out = empty(args.a->h.shape, args.out_dtype.value_or(args.a->h.dtype));
  }
  if (out.h.valid()) head.out = out.h;
  cmd.ops.push_back(head);
  for (const OpArgs& e : args.epilogue) {
    OpSpec op;
    op.kind = e.op;
    op.scope = e.scope;
    for (const auto& [name, t] : e.operands) {
      if (t.h.id != out.h.id) resolve(t);
      op.operands.push_back({name, t.h});
    }
    op.extra = e.extra;
    if (e.out) op.out = e.out->h;
    cmd.ops.push_back(op);
  }
  for (const Tensor& t : args.rw) cmd.rw_handles.push_back(t.h);
  out.pending = cpu_.issue(std::move(cmd));
  return out;
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
