#include "models/common/fault.h"

#include <systemc>

#include "models/common/errors.h"

namespace kb {

void raise_fault(const char* msg_type, const std::string& message) {
  SC_REPORT_ERROR(msg_type, message.c_str());
  throw SimulationError(message);  // not reached when the report policy throws
}

}  // namespace kb
