#include "platform/output/vcd_tracer.h"

#include "models/common/errors.h"

#include <fnmatch.h>

#include <sysc/tracing/sc_tracing_ids.h>
#include <functional>
#include <systemc>

#include "models/common/instrumented.h"
#include "platform/output/atomic_file.h"

namespace kb {

std::vector<std::string> default_vcd_scopes() {
  return {"system.sip0.cube0.pe0",           "system.sip0.cube0.router",
          "system.sip0.cube*.power",         "system.sip0.cube0.sram",
          "system.sip0.cube0.pe0_to_router", "system.sip0.cube0.router_to_pe0",
          "system.sip0.cube0_to_*",          "system.sip0.cube*_to_cube0"};
}

bool in_vcd_scope(const std::string& name, const std::vector<std::string>& scopes) {
  // The name itself, then each ancestor: "a.b.c", "a.b", "a".
  std::string candidate = name;
  for (;;) {
    for (const auto& s : scopes)
      if (fnmatch(s.c_str(), candidate.c_str(), 0) == 0) return true;
    const size_t dot = candidate.rfind('.');
    if (dot == std::string::npos) return false;
    candidate.resize(dot);
  }
}

VcdTracer::VcdTracer(const std::string& path, const std::vector<std::string>& scopes)
    : file_(std::make_unique<AtomicFile>(path, ".vcd")) {
  // SystemC opens the file itself, by a name to which it appends ".vcd".
  file_->release_descriptor();
  const std::string& temp = file_->temp_path();
  tf_ = sc_core::sc_create_vcd_trace_file(temp.substr(0, temp.size() - 4).c_str());
  // SystemC announces the unit on stderr: noise beside a result or an error.
  sc_core::sc_report_handler::set_actions(sc_core::SC_ID_TRACING_TIMESCALE_UNIT_,
                                          sc_core::SC_DO_NOTHING);
  tf_->set_time_unit(1, sc_core::SC_PS);
  std::function<void(sc_core::sc_object*)> walk = [&](sc_core::sc_object* o) {
    const std::string n = o->name();
    if (in_vcd_scope(n, scopes))
      if (const auto* m = dynamic_cast<const Instrumented*>(o))
        signals_ += m->trace_signals(tf_, n);
    for (sc_core::sc_object* c : o->get_child_objects()) walk(c);
  };
  for (sc_core::sc_object* o : sc_core::sc_get_top_level_objects()) walk(o);
  if (signals_ == 0) {
    abandon();
    std::string list;
    for (const auto& s : scopes) list += (list.empty() ? "'" : ", '") + s + "'";
    throw UsageError("--vcd-scope " + list +
                     ": matches no module that traces a signal (names are hierarchical, e.g. "
                     "'system.sip0.cube0.pe0' or 'system.sip0.cube1*'; --describe-stats lists "
                     "the modules of the topology)");
  }
}

VcdTracer::~VcdTracer() {
  if (tf_) abandon();
}

void VcdTracer::finish() {
  if (!tf_) return;
  sc_core::sc_close_vcd_trace_file(tf_);
  tf_ = nullptr;
  file_->commit();
}

void VcdTracer::abandon() {
  if (!tf_) return;
  // A run that failed before simulating (a bad --param) has traced nothing:
  // SystemC's warning that the file is empty would be a second stderr line.
  sc_core::sc_report_handler::set_actions(sc_core::SC_ID_TRACING_CLOSE_EMPTY_FILE_,
                                          sc_core::SC_DO_NOTHING);
  sc_core::sc_close_vcd_trace_file(tf_);
  tf_ = nullptr;
  file_.reset();  // removes the temporary
}

}  // namespace kb
