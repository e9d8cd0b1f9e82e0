// The `tl` kernel API (firmware/tl.h): what a firmware kernel, running on a PE's
// PE_CPU thread, writes against. It builds command descriptors
// (models/commands) and issues them through PE_CPU, which charges their
// dispatch cost. Every call that consumes a tensor first waits for the
// command that produces it (lazy loads and composites return at once);
// composites that only share rw_handles are ordered by PE_SCHEDULER, not
// here, so the kernel runs ahead.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/commands/commands.h"
#include "models/common/address_map.h"
#include "models/cpu/pe_cpu.h"
#include "models/ipcq/ipcq_config.h"

namespace kb {
class TcmArena;

namespace fw {

struct Recipe;

// Hands out tensor identities (unique within one platform).
class IdSource {
 public:
  uint64_t next() { return ++last_; }

 private:
  uint64_t last_ = 0;
};

// A tensor handle plus the command that produces it (null once resolved or
// for data that was already there).
struct Tensor {
  TensorHandle h;
  CommandHandle pending;
  const Shape& shape() const { return h.shape; }
  uint64_t addr() const { return h.addr; }
};

// One epilogue (or explicit) op of a composite.
struct OpArgs {
  std::string op;
  Scope scope = Scope::kOutputTile;
  std::vector<std::pair<std::string, Tensor>> operands;
  std::vector<std::pair<std::string, ExtraValue>> extra;
  std::optional<Tensor> out;
};

// A recipe in a composite's prologue, e.g. {"softmax_merge", {{"s", S}, {"m", m},
// {"l", l}, {"O", O}}} (see firmware/recipes.h).
struct RecipeCall {
  std::string recipe;
  std::vector<std::pair<std::string, Tensor>> operands;
  // Optional caller-owned scratch (by name, e.g. "P"); missing ones come from
  // the TCM arena. Kernels that pipeline tiles pass ping-pong buffers here.
  std::vector<std::pair<std::string, Tensor>> scratch;
};

struct CompositeArgs {
  std::string op = "gemm";           // the head op: gemm, or a MATH kind
  std::optional<Tensor> a, b;        // gemm operands (a TCM or HBM tensor)
  std::optional<Tensor> out;         // output tensor (HBM via ref, or TCM)
  std::optional<uint64_t> out_ptr;   // HBM shorthand for out
  std::optional<DType> out_dtype;    // dtype of an implicit output (default: a's)
  std::vector<RecipeCall> prologue;  // recipes, lowered to KERNEL-scope MATH ops
  std::vector<OpSpec> prologue_ops;  // explicit KERNEL-scope ops before the head
  std::vector<OpArgs> epilogue;
  std::vector<Tensor> rw;  // extra read-and-written handles
};

struct LaunchPosition {
  unsigned program[3] = {0, 0, 0};
  unsigned programs[3] = {1, 1, 1};
};

class Tl {
 public:
  // `ipcq`: the PE's PE_IPCQ parameters (the ring slots a reduce stages through).
  Tl(PeCpu& cpu, const IpcqConfig& ipcq, TcmArena& arena, const AddressMap& map, const Location& pe,
     IdSource& ids, LaunchPosition pos);

  // Data already in memory (no movement).
  Tensor ref(uint64_t addr, Shape shape, DType dtype = DType::kFp16);
  // A fresh TCM tensor from the arena (contents undefined).
  Tensor empty(Shape shape, DType dtype = DType::kFp16);
  // DMA into TCM; lazy: returns at once, the first consumer waits.
  Tensor load(const Tensor& src);
  // DMA into an existing TCM tensor `dst` (same shape); lazy like load().
  // The caller makes sure nothing still reads dst.
  Tensor load_into(const Tensor& dst, const Tensor& src);
  // TCM -> HBM (or anywhere) DMA.
  Tensor store(const Tensor& dst, const Tensor& src);
  // Primitive GEMM on TCM operands: a [m,k] x b [k,n] (+ acc).
  Tensor dot(const Tensor& a, const Tensor& b, std::optional<Tensor> acc = std::nullopt);
  // Primitive MATH op on TCM operands; the output is a fresh TCM tensor
  // shaped like the first input unless `out` is given.
  Tensor math(const std::string& kind, std::vector<Tensor> inputs,
              std::vector<std::pair<std::string, ExtraValue>> extra = {},
              std::optional<Tensor> out = std::nullopt);
  // One CompositeCmd; returns its output at once (non-blocking).
  Tensor composite(const CompositeArgs& args);
  // The CompositeCmd composite() would issue (recipes lowered, scratch
  // allocated), without issuing it; `out` receives its output tensor.
  CompositeCmd build_composite(const CompositeArgs& args, Tensor* out = nullptr);
  // Charges an explicit PE_CPU cost.
  void overhead(double cycles);

  void wait(const Tensor& t);
  void wait();  // everything this kernel issued

  // RAII: TCM allocated inside the scope is released when it ends.
  class ScratchScope {
   public:
    explicit ScratchScope(Tl& tl);
    ~ScratchScope();
    ScratchScope(const ScratchScope&) = delete;
    ScratchScope& operator=(const ScratchScope&) = delete;

   private:
    Tl& tl_;
    uint64_t mark_;
  };
  ScratchScope scratch_scope() { return ScratchScope(*this); }
  // Persists `src` into `dst` (a tensor allocated outside the current scope).
  Tensor copy_to(const Tensor& dst, const Tensor& src);

  // ---- IPCQ point-to-point (models/ipcq/pe_ipcq.h) ----------------------
  // Opens a receive ring per peer in this PE's `space` memory and grants the
  // peer its credits; returns once the grants are out. A send to this PE
  // waits for its grant, a recv needs its ring open.
  void ipcq_open(const std::vector<PeAddr>& peers, RingSpace space = RingSpace::kTcm);
  // Sends `src` (contiguous, in this PE's TCM or HBM or its cube's SRAM) to
  // `peer`; returns `src` pending on the send at once. Do not overwrite src
  // before wait() on it.
  Tensor send(const PeAddr& peer, const Tensor& src);
  // Receives the next message from `peer` into a fresh TCM tensor (blocks).
  Tensor recv(const PeAddr& peer, Shape shape, DType dtype = DType::kFp32);
  // Receives into `dst`; returns `dst` pending (the first consumer waits).
  Tensor recv_async(const PeAddr& peer, const Tensor& dst);
  // dst += the next message from `peer` (PE_MATH add), async.
  Tensor recv_reduce(const PeAddr& peer, const Tensor& dst);
  // As recv_async / recv_reduce, and every chunk, once in `dst`, is sent on to
  // `to` by PE_IPCQ (no PE_CPU in the loop): recvCopySend / recvReduceSend.
  Tensor recv_forward(const PeAddr& peer, const Tensor& dst, const PeAddr& to, bool reduce);
  PeAddr self() const { return {pe_.sip, pe_.cube, pe_.pe}; }

  unsigned program_id(unsigned axis) const { return pos_.program[axis]; }
  unsigned num_programs(unsigned axis) const { return pos_.programs[axis]; }
  const Location& pe() const { return pe_; }
  PeCpu& cpu() { return cpu_; }
  double now_ns() const;

 private:
  void resolve(const Tensor& t);
  [[noreturn]] void fail(const std::string& why);
  // Expands the recipes into `cmd`; returns the primary output (if any).
  std::optional<Tensor> lower_recipes(const CompositeArgs& args, CompositeCmd& cmd);
  // A recipe's operands and scratch tensors, by name.
  using RecipeSlots = std::vector<std::pair<std::string, TensorHandle>>;
  void bind_recipe_operands(const Recipe& r, const RecipeCall& call, CompositeCmd& cmd,
                            RecipeSlots& slots);
  // Scratch from the call or the TCM arena; the one marked primary_out also
  // goes to `primary`.
  void bind_recipe_scratch(const Recipe& r, const RecipeCall& call, const CompositeArgs& args,
                           RecipeSlots& slots, std::optional<Tensor>& primary);
  const TensorHandle& recipe_slot(const Recipe& r, const RecipeSlots& slots,
                                  const std::string& name);
  // A fresh TCM tensor from the arena; `name` says what it is for when it
  // does not fit (empty: a tensor, named by its id and shape).
  TensorHandle tcm_handle(Shape shape, DType dtype, const std::string& name = {});
  Tensor issue_recv(const PeAddr& peer, const Tensor& dst, bool reduce, const PeAddr* to);

  PeCpu& cpu_;
  IpcqConfig ipcq_;
  TcmArena& arena_;
  const AddressMap& map_;
  Location pe_;
  IdSource& ids_;
  LaunchPosition pos_;
  std::map<PeAddr, RingSpace> rings_;      // receive rings this kernel opened
  std::map<PeAddr, Tensor> ipcq_scratch_;  // per peer: TCM staging for reduces outside TCM
};

}  // namespace fw
}  // namespace kb
