// Attaches a caller-owned extension to a payload for the length of a scope
// and always detaches it, also when the callee throws (an SC_REPORT_ERROR):
// otherwise the payload's destructor would free an object it does not own.
#pragma once

#include <systemc>
#include <tlm>

namespace kb {

template <typename Ext>
class BorrowedExtension {
 public:
  BorrowedExtension(tlm::tlm_generic_payload& trans, Ext& ext) : trans_(trans), ext_(ext) {
    trans_.set_extension(&ext_);
  }
  ~BorrowedExtension() { trans_.clear_extension(&ext_); }
  BorrowedExtension(const BorrowedExtension&) = delete;
  BorrowedExtension& operator=(const BorrowedExtension&) = delete;

 private:
  tlm::tlm_generic_payload& trans_;
  Ext& ext_;
};

// A payload for one control transaction, taken from a free list for the
// length of a scope and returned to it after. Constructing a generic payload
// allocates its extension array, and a control transaction is posted for
// every stage a tile token moves through. The payload comes back with its
// attributes as the callee left them; the caller sets every one it uses.
class PooledPayload {
 public:
  PooledPayload();
  ~PooledPayload();
  PooledPayload(const PooledPayload&) = delete;
  PooledPayload& operator=(const PooledPayload&) = delete;
  tlm::tlm_generic_payload& get() { return *trans_; }

 private:
  tlm::tlm_generic_payload* trans_;
};

// Hands `ext` to `target` in a payload that carries no data (a control
// transaction between two modules of a PE: a tile token, a composite
// request), in zero time.
template <typename Ext>
void post_extension(tlm::tlm_fw_transport_if<>& target, Ext& ext) {
  PooledPayload pooled;
  tlm::tlm_generic_payload& trans = pooled.get();
  trans.set_command(tlm::TLM_IGNORE_COMMAND);
  trans.set_address(0);
  trans.set_data_ptr(nullptr);
  trans.set_data_length(0);
  trans.set_streaming_width(0);
  trans.set_byte_enable_ptr(nullptr);
  trans.set_byte_enable_length(0);
  trans.set_dmi_allowed(false);
  trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  BorrowedExtension<Ext> attach(trans, ext);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  target.b_transport(trans, delay);
}

}  // namespace kb
