#include "models/common/tlm_checker.h"
#include "models/common/fault.h"

#if KB_TLM_CHECKS

#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "models/common/address_map.h"
#include "models/common/errors.h"

namespace kb {

namespace {

// The modules a payload is currently inside (a checked b_transport that has
// not returned), kept on the payload itself: a payload is nested through at
// most a dozen modules, so a short list beats a global (module, payload) set,
// whose lookups missed the cache on every hop of a busy platform. SystemC runs
// every process on one OS thread, so plain containers are enough.
struct InFlightExt : tlm::tlm_extension<InFlightExt> {
  std::vector<const sc_core::sc_object*> modules;
  tlm::tlm_extension_base* clone() const override { return new InFlightExt(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    modules = static_cast<const InFlightExt&>(other).modules;
  }
};

size_t g_in_flight = 0;

InFlightExt& in_flight_of(const tlm::tlm_generic_payload& trans) {
  auto& t = const_cast<tlm::tlm_generic_payload&>(trans);
  InFlightExt* e = nullptr;
  t.get_extension(e);
  if (!e) {
    e = new InFlightExt;
    t.set_extension(e);  // the payload owns and frees it
  }
  return *e;
}

// sc_time is unsigned: a delay computed as a negative difference wraps to a
// huge value. Nothing in a simulation legitimately annotates 2^63 ps (106 days).
constexpr uint64_t kWrappedDelayPs = uint64_t{1} << 63;

const char* command_name(tlm::tlm_command c) {
  switch (c) {
    case tlm::TLM_READ_COMMAND:
      return "READ";
    case tlm::TLM_WRITE_COMMAND:
      return "WRITE";
    case tlm::TLM_IGNORE_COMMAND:
      return "IGNORE";
  }
  return "invalid command";
}

bool valid_command(tlm::tlm_command c) {
  return c == tlm::TLM_READ_COMMAND || c == tlm::TLM_WRITE_COMMAND || c == tlm::TLM_IGNORE_COMMAND;
}

[[noreturn]] void violation(const sc_core::sc_object& module, const tlm::tlm_generic_payload& trans,
                            const char* interface, const char* section, const std::string& rule) {
  std::ostringstream msg;
  msg << module.name() << ": TLM-2.0 base protocol violation in "
      << interface << " (IEEE 1666-2011 " << section << "): " << rule << "; payload "
      << command_name(trans.get_command()) << " " << format_address(trans.get_address()) << ", "
      << trans.get_data_length() << " bytes";
  // raise_fault throws even under a report handler that returns, so the
  // transaction cannot go on.
  raise_fault(kTlmProtocolMsgType, msg.str());
}

}  // namespace

size_t tlm_payloads_in_flight() {
  return g_in_flight;
}

TlmCheck::TlmCheck(const sc_core::sc_object& module, const tlm::tlm_generic_payload& trans,
                   const sc_core::sc_time& delay)
    : module_(module),
      trans_(trans),
      command_(trans.get_command()),
      data_(trans.get_data_ptr()),
      length_(trans.get_data_length()),
      byte_enable_(trans.get_byte_enable_ptr()),
      byte_enable_length_(trans.get_byte_enable_length()),
      streaming_width_(trans.get_streaming_width()),
      uncaught_at_entry_(std::uncaught_exceptions()) {
  constexpr const char* kIf = "b_transport";
  InFlightExt& inside = in_flight_of(trans);
  if (std::find(inside.modules.begin(), inside.modules.end(), &module) != inside.modules.end())
    violation(module, trans, kIf, "§14.5",
              "the payload entered this module while still in flight through it (reused by a "
              "second initiator process before its transaction completed, or a routing loop)");
  if (!valid_command(command_))
    violation(module, trans, kIf, "§14.10",
              "command " + std::to_string(static_cast<int>(command_)) + " is not a tlm_command");
  const bool moves_data = command_ != tlm::TLM_IGNORE_COMMAND;
  if (moves_data && data_ == nullptr)
    violation(module, trans, kIf, "§14.11 e)", "data pointer is null");
  if (moves_data && length_ == 0) violation(module, trans, kIf, "§14.12 d)", "data length is 0");
  if (streaming_width_ < length_)
    violation(module, trans, kIf, "§14.15",
              "streaming width " + std::to_string(streaming_width_) + " < data length " +
                  std::to_string(length_) +
                  " (streaming bursts are not modelled by this platform's targets)");
  if (byte_enable_ != nullptr && byte_enable_length_ == 0)
    violation(module, trans, kIf, "§14.14 f)", "byte-enable pointer set with byte-enable length 0");
  if (trans.is_dmi_allowed())
    violation(module, trans, kIf, "§14.16", "DMI hint already true at the start of a transaction");
  if (trans.get_gp_option() != tlm::TLM_MIN_PAYLOAD)
    violation(module, trans, kIf, "§14.8 g)", "gp_option is not TLM_MIN_PAYLOAD");
  if (trans.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE)
    violation(module, trans, kIf, "§14.17 e)",
              "response status is " + trans.get_response_string() +
                  " on entry; the initiator must reset it to TLM_INCOMPLETE_RESPONSE before "
                  "each transaction");
  if (delay.value() >= kWrappedDelayPs)
    violation(module, trans, kIf, "§11.1.3",
              "negative timing annotation (the sc_time delay wrapped around)");
  const sc_core::sc_process_handle proc = sc_core::sc_get_current_process_handle();
  if (proc.valid() && proc.proc_kind() == sc_core::SC_METHOD_PROC_)
    violation(module, trans, kIf, "§11.1.1.4 b)", "b_transport called from an SC_METHOD");
  // Registered last: a constructor that throws never runs the destructor.
  inside.modules.push_back(&module);
  ++g_in_flight;
}

// NOLINTNEXTLINE(bugprone-exception-escape): throwing is how a violation is reported.
TlmCheck::~TlmCheck() noexcept(false) {
  InFlightExt& inside = in_flight_of(trans_);
  auto it = std::find(inside.modules.begin(), inside.modules.end(), &module_);
  if (it != inside.modules.end()) {
    inside.modules.erase(it);
    --g_in_flight;
  }
  if (std::uncaught_exceptions() > uncaught_at_entry_) return;  // abandoned, not completed
  constexpr const char* kIf = "b_transport";
  if (trans_.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
    violation(module_, trans_, kIf, "§14.17",
              "returned with TLM_INCOMPLETE_RESPONSE: the target behind this module did not set a "
              "response status");
  if (trans_.get_command() != command_)
    violation(module_, trans_, kIf, "§14.7", "command modified by the target");
  if (trans_.get_data_ptr() != data_)
    violation(module_, trans_, kIf, "§14.7", "data pointer modified by the target");
  if (trans_.get_data_length() != length_)
    violation(module_, trans_, kIf, "§14.7", "data length modified by the target");
  if (trans_.get_byte_enable_ptr() != byte_enable_ ||
      trans_.get_byte_enable_length() != byte_enable_length_)
    violation(module_, trans_, kIf, "§14.7", "byte enables modified by the target");
  if (trans_.get_streaming_width() != streaming_width_)
    violation(module_, trans_, kIf, "§14.7", "streaming width modified by the target");
}

TlmDbgCheck::TlmDbgCheck(const sc_core::sc_object& module, const tlm::tlm_generic_payload& trans)
    : module_(module), trans_(trans) {
  constexpr const char* kIf = "transport_dbg";
  if (!valid_command(trans.get_command()))
    violation(module, trans, kIf, "§11.3.4",
              "command " + std::to_string(static_cast<int>(trans.get_command())) +
                  " is not a tlm_command");
  if (trans.get_command() != tlm::TLM_IGNORE_COMMAND && trans.get_data_length() > 0 &&
      trans.get_data_ptr() == nullptr)
    violation(module, trans, kIf, "§11.3.4", "data pointer is null");
}

unsigned int TlmDbgCheck::result(unsigned int count) const {
  if (count > trans_.get_data_length())
    violation(module_, trans_, "transport_dbg", "§11.3.4",
              "returned " + std::to_string(count) + " bytes, more than the data length");
  return count;
}

}  // namespace kb

#endif  // KB_TLM_CHECKS
