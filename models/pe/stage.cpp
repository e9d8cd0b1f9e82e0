#include "models/pe/stage.h"

#include <algorithm>

#include "models/common/free_list.h"

namespace kb {

const StageOperands& StageOperands::none() {
  static const StageOperands empty;
  return empty;
}

// StageOperands no stage holds are kept in a FreeList, with their vectors'
// storage.
StageOperands* StageOperandsRef::take(const StageOperands* copy) {
  using Spare = FreeList<StageOperands>;
  const bool kept = Spare::next() != nullptr;
  StageOperands* p = Spare::take();
  // The next one taken is most likely for the next stage of the same tile,
  // built right after this one: it is fetched meanwhile. (A kept one was
  // given back when its stage's token was reused, long after its stage ran:
  // it is seldom in cache still.)
  if (const StageOperands* next = Spare::next()) {
    const char* at = reinterpret_cast<const char*>(next);
    for (size_t off = 0; off < sizeof(StageOperands); off += 64) __builtin_prefetch(at + off, 1);
  }
  if (copy) {
    *p = *copy;
  } else if (kept) {
    // Back to a new one's values; the vectors keep their storage. Done here,
    // not when the last stage gave it back: the stage about to write it has
    // it in cache then.
    p->a_view = TensorHandle{};
    p->b_view = TensorHandle{};
    p->out_view = TensorHandle{};
    p->inputs.clear();
    p->staged_inputs.clear();
    p->output = TensorHandle{};
    p->math_extra.clear();
  }
  return p;
}

void StageOperandsRef::release() noexcept {
  if (!p_) return;
  try {
    FreeList<StageOperands>::give(p_);
  } catch (...) {  // no room to keep it: free it
    delete p_;
  }
  p_ = nullptr;
}

const char* to_string(EngineKind e) {
  switch (e) {
    case EngineKind::kDma:
      return "dma";
    case EngineKind::kTcm:
      return "tcm";
    case EngineKind::kGemm:
      return "gemm";
    case EngineKind::kMath:
      return "math";
    case EngineKind::kIpcq:
      return "ipcq";
  }
  return "?";
}

const char* to_string(StageKind s) {
  switch (s) {
    case StageKind::kDmaRead:
      return "DMA_READ";
    case StageKind::kDmaWrite:
      return "DMA_WRITE";
    case StageKind::kFetch:
      return "FETCH";
    case StageKind::kStore:
      return "STORE";
    case StageKind::kGemm:
      return "GEMM";
    case StageKind::kMath:
      return "MATH";
    case StageKind::kIpcq:
      return "IPCQ";
    case StageKind::kIpcqSignal:
      return "IPCQ_SIGNAL";
  }
  return "?";
}

EngineKind engine_of(StageKind s) {
  switch (s) {
    case StageKind::kDmaRead:
    case StageKind::kDmaWrite:
      return EngineKind::kDma;
    case StageKind::kFetch:
    case StageKind::kStore:
      return EngineKind::kTcm;
    case StageKind::kGemm:
      return EngineKind::kGemm;
    case StageKind::kMath:
      return EngineKind::kMath;
    case StageKind::kIpcq:
    case StageKind::kIpcqSignal:
      return EngineKind::kIpcq;
  }
  return EngineKind::kMath;
}

uint64_t logged_bytes(const Stage& s) {
  constexpr uint64_t kFp32 = 4;
  uint64_t in = 0;
  switch (s.kind) {
    case StageKind::kGemm: {
      const StageOperands& o = s.operands();
      if (o.a_view.shape.size() != 2 || o.b_view.shape.size() != 2) return 0;
      const auto m = static_cast<uint64_t>(o.a_view.shape[0]);
      const auto n = static_cast<uint64_t>(o.b_view.shape[1]);
      const uint64_t out = s.single_op ? o.out_view.bytes() : m * n * kFp32;
      // A streamed GEMM (Stage::stream_tiles) reads an a and b tile per K step.
      return (o.a_view.bytes() + o.b_view.bytes()) * std::max<uint64_t>(1, s.stream_tiles) + out;
    }
    case StageKind::kMath:
      for (const TensorHandle& h : s.operands().inputs) in += h.bytes();
      if (s.math_on == Stage::MathOn::kTensors) return in + s.operands().output.bytes();
      return in + 2 * s.elements * kFp32;  // the partial or accumulator, read and written
    default:
      return s.bytes;
  }
}

}  // namespace kb
