// Attaches a caller-owned extension to a payload for the length of a scope
// and always detaches it, also when the callee throws (an SC_REPORT_ERROR):
// otherwise the payload's destructor would free an object it does not own.
#pragma once

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

}  // namespace kb
