#include "platform/process/report_policy.h"

#include <iostream>
#include <systemc>

#include "platform/process/sanitizer_support.h"

namespace kb {
namespace {

WarningHook g_on_warning;
bool g_quiet = false;
unsigned g_warning_count = 0;

std::string format_report(const sc_core::sc_report& rep) {
  std::string msg = rep.get_msg_type();
  msg += ": ";
  msg += rep.get_msg();
  return msg;
}

void handler(const sc_core::sc_report& rep, const sc_core::sc_actions& actions) {
  switch (rep.get_severity()) {
    case sc_core::SC_INFO:
      // Informational kernel chatter goes to stderr: stdout carries results only.
      if (!g_quiet && (actions & sc_core::SC_DISPLAY)) std::cerr << format_report(rep) << "\n";
      return;
    case sc_core::SC_WARNING: {
      // A warning the platform silenced on purpose (set_actions with
      // SC_DO_NOTHING, e.g. an abandoned VCD's "file is empty") is no warning.
      if (actions == sc_core::SC_DO_NOTHING) return;
      ++g_warning_count;
      std::string msg = format_report(rep);
      std::cerr << "warning: " << msg << "\n";
      if (g_on_warning) g_on_warning(msg);
      return;
    }
    case sc_core::SC_ERROR:
    case sc_core::SC_FATAL:
    default:
      // Thrown as the sc_report itself: the kernel catches exceptions raised
      // inside processes and rethrows sc_reports out of sc_start().
      prepare_stack_for_sc_exception();  // ASan builds: see sanitizer_support.h
      throw rep;
  }
}

}  // namespace

void set_time_resolution() {
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
}

void install_report_policy(WarningHook on_warning, bool quiet) {
  g_on_warning = std::move(on_warning);
  g_quiet = quiet;
  g_warning_count = 0;
  sc_core::sc_report_handler::set_handler(handler);
}

unsigned reported_warning_count() {
  return g_warning_count;
}

}  // namespace kb
