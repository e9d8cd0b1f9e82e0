// Reporting a simulation fault from a model or from firmware: one message,
// naming the module's hierarchical path and the command, raised as an
// SC_REPORT_ERROR of `msg_type` (the report policy turns it into an
// exception that ends sc_start(); kernbench exits 3). Without a policy that
// throws, a SimulationError is thrown instead, so a fault never returns.
#pragma once

#include <string>

namespace kb {

[[noreturn]] void raise_fault(const char* msg_type, const std::string& message);

}  // namespace kb
