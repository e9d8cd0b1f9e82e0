// The op log as JSON lines (--oplog): one object per record, in the op log's
// canonical order (models/trace/op_log.h), and its fingerprint.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "models/trace/op_log.h"

namespace kb {

// One line per call, with its newline; concatenated, they are op_log_jsonl().
void for_each_op_log_line(const OpLog& log, const std::function<void(const std::string&)>& f);
std::string op_log_jsonl(const OpLog& log);
// FNV-1a 64 of op_log_jsonl(): a compact fingerprint for golden tests and the
// JSON result's "op_log".
uint64_t op_log_hash(const OpLog& log);

}  // namespace kb
