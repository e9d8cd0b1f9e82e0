// How faithfully a run simulates (docs/ARCHITECTURE.md §1.6): `exact`, every
// burst and every K step's tile token, the reference; `fast`, the shortcuts
// that simulate fewer events with their error measured against exact:
//   pe.dma.transactions: stream      a DMA descriptor as stream transactions
//   pe.scheduler.gemm_plan: stream   a GEMM's K steps (and output tiles) streamed
// --fidelity picks one (each bench has a default: Bench::default_fidelity);
// it sets those knobs as a --set placed before the user's would, so a --set
// of either knob still wins. Every result names what the run used
// (fidelity_json).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kb {

struct TopologyConfig;

enum class Fidelity { kExact, kFast };

// "exact" or "fast"; UsageError naming the valid ones otherwise.
Fidelity parse_fidelity(const std::string& text);
const char* to_string(Fidelity f);
// The knob settings (KEY=VALUE, as --set takes them) of a fidelity.
std::vector<std::string> fidelity_overrides(Fidelity f);
// What the run uses: the setting asked for, each shortcut knob's value as
// resolved, and `exact` or `fast` when the knobs match one of them, else
// `mixed` (a --set changed one). Data mode moves every burst and tile
// whatever the knobs say: `exact`.
nlohmann::json fidelity_json(Fidelity asked, const TopologyConfig& cfg, bool data_mode);

}  // namespace kb
