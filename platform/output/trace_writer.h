// The Chrome/Perfetto trace of a run (--trace): the op log's records as
// slices, one process per PE and one track per engine lane (overlapping
// stages on sub-tracks), with flow arrows (a tile's stages; an IPCQ doorbell
// to the chunk it announced), then the counter tracks of the run: each cube's
// power, each service queue's depth and each link direction's busy share, and
// a marker at the start of each run window (docs/ARCHITECTURE.md §4.6).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "models/trace/op_log.h"

namespace kb {

class Platform;

// The trace's process ids, one space per kind of track, allocated here only:
// PEs from 1 (at most 64 SIPs x 128 PEs), cubes' power tracks, then queue
// groups (one per cube or other module under a SIP).
namespace trace_pid {
constexpr int kFirstPe = 1;
constexpr int kFirstPowerTrack = 1000001;
constexpr int kFirstQueueGroup = 2000001;
static_assert(kFirstPe + 64 * 128 < kFirstPowerTrack);
}  // namespace trace_pid

// A simulated time in ns as a trace timestamp in microseconds, exact to the
// picosecond (no binary-fraction noise in the printed number).
double trace_us(double ns);

// The op log's trace in pieces (concatenated: chrome_trace()). `extra_events`:
// more trace events (each one JSON object, such as a counter track's
// samples), written after the records. `keep_pe`, when given, keeps only the
// records of the PEs (hierarchical names) it accepts.
void for_each_trace_piece(const OpLog& log, const std::function<void(const std::string&)>& f,
                          const std::vector<std::string>& extra_events = {},
                          const std::function<bool(const std::string&)>& keep_pe = {});
std::string chrome_trace(const OpLog& log);

// The whole trace of `platform`'s run: its op log's slices of the PEs in
// `scopes` (all when empty), each in-scope cube's power track, the queue and
// link tracks and the run markers, piece by piece to `out`.
void write_trace(Platform& platform, const std::vector<std::string>& scopes,
                 const std::function<void(const std::string&)>& out);

}  // namespace kb
