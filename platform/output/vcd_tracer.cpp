#include "platform/output/vcd_tracer.h"

#include "models/common/errors.h"

#include <fnmatch.h>

#include <sysc/tracing/sc_tracing_ids.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <systemc>

#include "models/common/instrumented.h"
#include "platform/output/atomic_file.h"
#include "platform/output/output_transaction.h"

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

std::string gtkw_path(const std::string& vcd_path) {
  const std::string ext = ".vcd";
  if (vcd_path.size() > ext.size() &&
      vcd_path.compare(vcd_path.size() - ext.size(), ext.size(), ext) == 0)
    return vcd_path.substr(0, vcd_path.size() - ext.size()) + ".gtkw";
  return vcd_path + ".gtkw";
}

std::string gtkw_text(const std::string& vcd_path, const std::string& vcd_text) {
  std::string out = std::string(kGtkwHeader) + "\n[dumpfile] \"" + vcd_path +
                    "\"\n[timestart] 0\n[sst_width] 300\n[signals_width] 360\n";
  std::vector<std::string> scope;
  std::string shown_module;
  std::istringstream in(vcd_text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string w;
    words >> w;
    if (w == "$enddefinitions") break;
    if (w == "$scope") {
      std::string kind, name;
      words >> kind >> name;
      scope.push_back(name);
    } else if (w == "$upscope") {
      if (!scope.empty()) scope.pop_back();
    } else if (w == "$var") {
      std::string type, width, id, name, range;
      words >> type >> width >> id >> name >> range;
      std::string module;
      for (const std::string& s : scope) module += (module.empty() ? "" : ".") + s;
      if (module != shown_module) {
        // A comment trace naming the module (SystemC's top scope left out).
        const size_t dot = module.find('.');
        out += "@200\n-" + (dot == std::string::npos ? module : module.substr(dot + 1)) + "\n";
        shown_module = module;
      }
      const bool bit = width == "1" && type != "real";
      out += std::string(bit ? "@28" : "@24") + "\n" + module + "." + name +
             (range.empty() || range == "$end" ? "" : range) + "\n";
    }
  }
  return out;
}

bool gtkw_is_ours(const std::string& gtkw) {
  // Only a regular file can be a user's save file; anything else there is
  // refused by the output checks as for any output.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(gtkw, ec)) return true;
  std::ifstream in(gtkw);
  if (!in) return true;
  std::string first;
  std::getline(in, first);
  return first == kGtkwHeader;
}

VcdTracer::VcdTracer(const std::string& path, const std::vector<std::string>& scopes,
                     bool save_file)
    : path_(path), file_(std::make_unique<AtomicFile>(path, ".vcd")), save_file_(save_file) {
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

void VcdTracer::trace_phase(const unsigned& phase) {
  sc_core::sc_trace(tf_, phase, "system.phase");
  ++signals_;
}

VcdTracer::~VcdTracer() {
  if (tf_) abandon();
}

bool VcdTracer::finish(OutputTransaction& outputs) {
  if (!tf_) return false;
  if (sc_core::sc_delta_count() == 0) {  // SystemC writes no file without a cycle
    abandon();
    return false;
  }
  sc_core::sc_close_vcd_trace_file(tf_);
  tf_ = nullptr;
  const std::string temp = file_->temp_path();
  outputs.adopt(std::move(file_));
  if (!save_file_) return true;
  // The save file from the VCD's header (read from the temporary).
  std::string header;
  {
    std::ifstream vcd(temp);
    std::string line;
    while (std::getline(vcd, line)) {
      header += line + "\n";
      if (line.find("$enddefinitions") != std::string::npos) break;
    }
  }
  AtomicFile& save = outputs.stage(gtkw_path(path_));
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path_, ec);
  save.write(gtkw_text(ec ? path_ : absolute.string(), header));
  return true;
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
