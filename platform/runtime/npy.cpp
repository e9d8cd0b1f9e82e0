#include "platform/runtime/npy.h"

#include <fstream>
#include <sstream>

#include "models/common/errors.h"
#include "platform/output/result_writer.h"

namespace kb {

namespace {

std::string dict_value(const std::string& header, const std::string& key, const std::string& what) {
  const size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) throw UsageError(what + ": .npy header has no '" + key + "'");
  size_t v = header.find(':', k);
  if (v == std::string::npos) throw UsageError(what + ": malformed .npy header");
  ++v;
  while (v < header.size() && header[v] == ' ') ++v;
  size_t end = v;
  if (end < header.size() && header[end] == '(') {
    end = header.find(')', end);
    if (end == std::string::npos) throw UsageError(what + ": malformed shape in .npy header");
    return header.substr(v, end - v + 1);
  }
  while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  return header.substr(v, end - v);
}

}  // namespace

NpyArray parse_npy(const std::string& c, const std::string& what) {
  if (c.size() < 10 || c.compare(0, 6, "\x93NUMPY") != 0)
    throw UsageError(what + ": not a .npy file (bad magic)");
  const unsigned major = static_cast<unsigned char>(c[6]);
  size_t header_len = 0, pos = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(c[8]) | (static_cast<unsigned char>(c[9]) << 8);
    pos = 10;
  } else if (major == 2 || major == 3) {
    if (c.size() < 12) throw UsageError(what + ": truncated .npy header");
    header_len = 0;
    for (int i = 0; i < 4; ++i)
      header_len |= size_t{static_cast<unsigned char>(c[8 + i])} << (8 * i);
    pos = 12;
  } else {
    throw UsageError(what + ": unsupported .npy version " + std::to_string(major));
  }
  if (pos + header_len > c.size()) throw UsageError(what + ": truncated .npy header");
  const std::string header = c.substr(pos, header_len);
  pos += header_len;
  NpyArray a;
  const std::string descr = dict_value(header, "descr", what);
  if (descr == "'<f2'")
    a.dtype = DType::kFp16;
  else if (descr == "'<f4'")
    a.dtype = DType::kFp32;
  else if (descr == "'<i4'")
    a.dtype = DType::kInt32;
  else
    throw UsageError(what + ": unsupported dtype " + descr + " (use <f2, <f4 or <i4)");
  if (dict_value(header, "fortran_order", what) != "False")
    throw UsageError(what + ": Fortran-order arrays are not supported");
  const std::string shape = dict_value(header, "shape", what);
  // (An empty or unparenthesised shape used to escape as std::out_of_range;
  // found by tests/fuzz/fuzz_npy.)
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')')
    throw UsageError(what + ": malformed shape in .npy header");
  std::string inner = shape.substr(1, shape.size() - 2);
  std::stringstream ss(inner);
  std::string item;
  uint64_t count = 1;
  while (std::getline(ss, item, ',')) {
    size_t b = item.find_first_not_of(' ');
    if (b == std::string::npos) continue;
    item = item.substr(b);
    char* end = nullptr;
    const long long d = std::strtoll(item.c_str(), &end, 10);
    if (end == item.c_str() || d < 0 || d > (1ll << 40))
      throw UsageError(what + ": bad shape " + shape);
    a.shape.push_back(d);
    // Checked before multiplying: (2^40, 2^40) must not wrap to a small count.
    constexpr uint64_t kMaxElements = uint64_t{1} << 40;
    if (d != 0 && count > kMaxElements / static_cast<uint64_t>(d))
      throw UsageError(what + ": array too large");
    count *= static_cast<uint64_t>(d);
  }
  const uint64_t bytes = count * dtype_bytes(a.dtype);
  if (c.size() - pos != bytes)
    throw UsageError(what + ": holds " + std::to_string(c.size() - pos) + " data bytes, shape " +
                     shape + " needs " + std::to_string(bytes));
  a.bytes.assign(c.begin() + static_cast<std::ptrdiff_t>(pos), c.end());
  return a;
}

NpyArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot open '" + path + "'");
  std::ostringstream buf;
  buf << in.rdbuf();
  return parse_npy(buf.str(), path);
}

std::string format_npy(const NpyArray& a) {
  std::string descr = a.dtype == DType::kFp16 ? "<f2" : a.dtype == DType::kInt32 ? "<i4" : "<f4";
  std::string shape = "(";
  for (const int64_t d : a.shape) shape += std::to_string(d) + ", ";
  if (a.shape.size() > 1) shape.resize(shape.size() - 2);
  if (a.shape.size() == 1) shape.resize(shape.size() - 1);
  shape += ")";
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  const size_t total = 10 + header.size() + 1;
  header += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += static_cast<char>(1);
  out += static_cast<char>(0);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(a.bytes.begin(), a.bytes.end());
  return out;
}

void write_npy(const std::string& path, const NpyArray& a) {
  write_file_atomically(path, format_npy(a));
}

}  // namespace kb
