#include "models/pe/stage.h"

namespace kb {

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

}  // namespace kb
