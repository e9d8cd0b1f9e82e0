// What a module tells about itself: its statistics (each counter with a name, a
// unit and a one-line description) and the signals it traces into a VCD. Every
// module that counts or traces something implements `Instrumented`; the
// platform walks the module tree and hands each one a sink, so nothing outside
// a module needs to know its counters (docs/ARCHITECTURE.md, "Statistics and
// waveforms").
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace sc_core {
class sc_trace_file;
}

namespace kb {

class EnergySink;

// Receives a module's counters, group by group. A group is one JSON object of
// the result's "stats", keyed by a hierarchical name (a module's, or a module's
// plus a suffix such as ".read_channel").
class StatsSink {
 public:
  virtual ~StatsSink() = default;
  // True when a module should list its counters even if it counted nothing
  // (the sink describes the counters rather than reporting a run).
  virtual bool describing() const { return false; }
  // Starts the group `key`; the counters that follow belong to it.
  virtual void group(const std::string& key) = 0;
  virtual void count(const char* name, uint64_t value, const char* unit, const char* what) = 0;
  virtual void real(const char* name, double value, const char* unit, const char* what) = 0;
  virtual void text(const char* name, const std::string& value, const char* what) = 0;
  // A counter broken down by a key (command kind, ...): one value per key.
  virtual void count_by(const char* name, const std::map<std::string, uint64_t>& value,
                        const char* unit, const char* what) = 0;
  virtual void real_by(const char* name, const std::map<std::string, double>& value,
                       const char* unit, const char* what) = 0;
};

class Instrumented {
 public:
  virtual ~Instrumented() = default;
  // Writes this module's counters; `now_ns` is the simulated time, for
  // utilisations. A module that did nothing writes nothing unless the sink is
  // describing.
  virtual void report_stats(StatsSink& out, double now_ns) const = 0;
  // Traces this module's signals into `tf` under the module's hierarchical
  // `name`; returns how many signals it traced.
  virtual unsigned trace_signals(sc_core::sc_trace_file* tf, const std::string& name) const = 0;
  // Reports the energy this module has spent so far and its static power
  // (models/common/energy.h); a module without an energy model reports nothing.
  virtual void report_energy(EnergySink& /*out*/) const {}
};

}  // namespace kb
