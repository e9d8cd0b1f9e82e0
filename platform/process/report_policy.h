// How SystemC reports are handled in kernbench and its tests.
//   SC_ERROR / SC_FATAL -> throw the sc_report (out of sc_start() when raised
//                          in a process); models put their hierarchical name
//                          in the message
//   SC_WARNING          -> printed, and handed to `on_warning` if given (the
//                          tests make every warning a failure)
//   SC_INFO             -> printed unless quiet
#pragma once

#include <functional>
#include <string>

namespace kb {

using WarningHook = std::function<void(const std::string&)>;

// Sets the kernel's time resolution to 1 ps. Call first thing in sc_main,
// before any sc_time exists.
void set_time_resolution();

void install_report_policy(WarningHook on_warning = {}, bool quiet = false);

// Number of warnings reported since install_report_policy().
unsigned reported_warning_count();

}  // namespace kb
