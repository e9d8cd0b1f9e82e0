// A TLM-2.0 base-protocol checker for the blocking and debug transport
// interfaces, which are the only ones this platform's sockets use.
//
// Usage: the first statement of a module's b_transport / transport_dbg is a
// guard object; it checks the payload on entry and, when it goes out of scope,
// what the target made of it:
//
//   void Link::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
//     TlmCheck check(*this, trans, delay);
//     ...
//   }
//   unsigned int Link::transport_dbg(tlm::tlm_generic_payload& trans) {
//     TlmDbgCheck check(*this, trans);
//     return check.result(out->transport_dbg(trans));
//   }
//
// Rules (IEEE 1666-2011 section numbers in the messages):
//   b_transport entry  valid command (read, write or ignore); for read/write a
//                      non-null data pointer and a non-zero data length;
//                      streaming width >= data length (our targets do not
//                      model streaming bursts, so a narrower width would be
//                      silently mis-served); byte-enable pointer null or with
//                      a non-zero length; DMI hint false; gp_option
//                      TLM_MIN_PAYLOAD; response status TLM_INCOMPLETE_RESPONSE;
//                      called from a thread (b_transport may wait); the delay
//                      not "negative" (sc_time is unsigned, so a negative
//                      delay shows up as a wrapped value of >= 2^63 ps); the
//                      payload not already inside this module's b_transport
//                      (reused while in flight, or a routing loop).
//   b_transport exit   response status set (not TLM_INCOMPLETE_RESPONSE); the
//                      command, data pointer, data length, byte enables and
//                      streaming width unchanged (only the target's response
//                      and the read data may change).
//   transport_dbg      valid command, non-null data pointer when the length is
//                      non-zero; the returned count <= the data length.
// A violation is SC_REPORT_ERROR("/kernbench/tlm_protocol", ...) naming the
// module's hierarchical name, the rule and the address. When an exception is
// already unwinding through the call (another fault, a killed process) the
// exit checks are skipped: the transaction was abandoned, not completed.
//
// Cost: built in only when the compile definition KB_TLM_CHECKS is 1 (CMake
// option KB_TLM_CHECKS, ON by default, OFF by default for the Release build
// type). Otherwise the guards are empty inline classes and compile to nothing.
#pragma once

#include <cstddef>
#include <systemc>
#include <tlm>

#ifndef KB_TLM_CHECKS
#define KB_TLM_CHECKS 0
#endif

namespace kb {

inline constexpr const char* kTlmProtocolMsgType = "/kernbench/tlm_protocol";

#if KB_TLM_CHECKS

class TlmCheck {
 public:
  TlmCheck(const sc_core::sc_object& module, const tlm::tlm_generic_payload& trans,
           const sc_core::sc_time& delay);
  // Reports exit violations by throwing (through the report handler), hence
  // noexcept(false); never throws while another exception is unwinding.
  ~TlmCheck() noexcept(false);  // NOLINT(bugprone-exception-escape): see above
  TlmCheck(const TlmCheck&) = delete;
  TlmCheck& operator=(const TlmCheck&) = delete;

 private:
  const sc_core::sc_object& module_;
  const tlm::tlm_generic_payload& trans_;
  // The attributes a target must leave alone (IEEE 1666-2011 §14.7).
  tlm::tlm_command command_;
  const unsigned char* data_;
  unsigned int length_;
  const unsigned char* byte_enable_;
  unsigned int byte_enable_length_;
  unsigned int streaming_width_;
  int uncaught_at_entry_;
};

class TlmDbgCheck {
 public:
  TlmDbgCheck(const sc_core::sc_object& module, const tlm::tlm_generic_payload& trans);
  // Checks and passes through the count transport_dbg returns.
  unsigned int result(unsigned int count) const;

 private:
  const sc_core::sc_object& module_;
  const tlm::tlm_generic_payload& trans_;
};

// How many payloads are inside a checked b_transport right now (tests).
size_t tlm_payloads_in_flight();

#else  // !KB_TLM_CHECKS: nothing to construct, nothing to check.

class TlmCheck {
 public:
  TlmCheck(const sc_core::sc_object&, const tlm::tlm_generic_payload&, const sc_core::sc_time&) {}
};

class TlmDbgCheck {
 public:
  TlmDbgCheck(const sc_core::sc_object&, const tlm::tlm_generic_payload&) {}
  unsigned int result(unsigned int count) const { return count; }
};

inline size_t tlm_payloads_in_flight() {
  return 0;
}

#endif  // KB_TLM_CHECKS

}  // namespace kb
