// NumPy .npy files (platform/runtime/npy.h): format_npy / parse_npy round
// trips for '<f2', '<f4' and '<i4' and the shapes (), (5,), (2,3), headers
// as NumPy writes them, and a UsageError naming the file and the problem for
// each kind of malformed input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/common/dtype_convert.h"
#include "models/common/errors.h"
#include "platform/runtime/npy.h"

namespace kb {
namespace {

// The raw bytes of `count` elements 1, -2, 3, -4, ... in `dtype`.
std::vector<uint8_t> element_bytes(DType dtype, int64_t count) {
  std::vector<float> v;
  for (int64_t i = 0; i < count; ++i)
    v.push_back(static_cast<float>((i % 2 ? -1 : 1) * (i + 1)) *
                (dtype == DType::kInt32 ? 1 : 0.5f));
  std::vector<uint8_t> b(static_cast<size_t>(count) * dtype_bytes(dtype));
  encode_elements(v.data(), v.size(), dtype, b.data());
  return b;
}

// A .npy file as NumPy's format 1.0 writer lays it out: magic, version, a
// little-endian header length, the header dict padded with spaces and a
// newline to a multiple of 64 bytes, the data.
std::string numpy_file(const std::string& dict, const std::string& data, int major = 1) {
  const size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  header += std::string((64 - (prefix + header.size() + 1) % 64) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += static_cast<char>(0);
  const size_t len = header.size();
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>((len >> 8) & 0xff);
  if (major != 1) {
    out += static_cast<char>((len >> 16) & 0xff);
    out += static_cast<char>((len >> 24) & 0xff);
  }
  return out + header + data;
}

std::string bytes_str(const std::vector<uint8_t>& b) {
  return {b.begin(), b.end()};
}

// parse_npy must throw a UsageError whose message names the file and
// contains `part`; returns the message.
std::string expect_usage_error(const std::string& content, const std::string& part) {
  try {
    parse_npy(content, "weights.npy");
  } catch (const UsageError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("weights.npy"), std::string::npos) << msg;
    EXPECT_NE(msg.find(part), std::string::npos) << "'" << part << "' not in: " << msg;
    return msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a UsageError: " << e.what();
    return "";
  }
  ADD_FAILURE() << "no error; expected one mentioning '" << part << "'";
  return "";
}

TEST(Npy, FormatThenParseRoundTripsEveryDtypeAndShape) {
  for (DType dtype : {DType::kFp16, DType::kFp32, DType::kInt32})
    for (const std::vector<int64_t>& shape :
         {std::vector<int64_t>{}, std::vector<int64_t>{5}, std::vector<int64_t>{2, 3}}) {
      int64_t count = 1;
      for (int64_t d : shape) count *= d;
      NpyArray a;
      a.shape = shape;
      a.dtype = dtype;
      a.bytes = element_bytes(dtype, count);
      const std::string file = format_npy(a);
      const std::string what =
          std::string(to_string(dtype)) + " rank " + std::to_string(shape.size());
      // Layout: magic, version 1.0, header padded so the data is 64-byte aligned.
      ASSERT_GE(file.size(), 10u) << what;
      EXPECT_EQ(file.compare(0, 8, std::string("\x93NUMPY\x01\x00", 8)), 0) << what;
      const size_t header_len =
          static_cast<unsigned char>(file[8]) | (static_cast<unsigned char>(file[9]) << 8);
      EXPECT_EQ((10 + header_len) % 64, 0u) << what;
      EXPECT_EQ(file[10 + header_len - 1], '\n') << what;
      EXPECT_EQ(file.size(), 10 + header_len + a.bytes.size()) << what;

      const NpyArray b = parse_npy(file, "round-trip");
      EXPECT_EQ(b.shape, a.shape) << what;
      EXPECT_EQ(b.dtype, a.dtype) << what;
      EXPECT_EQ(b.bytes, a.bytes) << what;
    }
}

TEST(Npy, HeadersReadAsNumpyWritesThem) {
  NpyArray a;
  a.dtype = DType::kFp16;
  a.shape = {2, 3};
  a.bytes = element_bytes(DType::kFp16, 6);
  const std::string header = format_npy(a).substr(10);
  EXPECT_EQ(header.substr(0, header.find('}') + 1),
            "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }");
  a.shape = {5};
  a.bytes = element_bytes(DType::kFp16, 5);
  EXPECT_NE(format_npy(a).find("'shape': (5,)"), std::string::npos);
  a.shape = {};
  a.bytes = element_bytes(DType::kFp16, 1);
  EXPECT_NE(format_npy(a).find("'shape': ()"), std::string::npos);

  // Hand-written files in NumPy's own spelling (format 1.0 and 2.0).
  const std::string f4 = bytes_str(element_bytes(DType::kFp32, 6));
  NpyArray p = parse_npy(
      numpy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", f4), "np1");
  EXPECT_EQ(p.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(p.dtype, DType::kFp32);
  EXPECT_EQ(bytes_str(p.bytes), f4);
  p = parse_npy(numpy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", f4, 2),
                "np2");
  EXPECT_EQ(p.shape, (std::vector<int64_t>{2, 3}));
  const std::string i4 = bytes_str(element_bytes(DType::kInt32, 5));
  p = parse_npy(numpy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (5,), }", i4), "np");
  EXPECT_EQ(p.shape, (std::vector<int64_t>{5}));
  EXPECT_EQ(p.dtype, DType::kInt32);
  const std::string f2 = bytes_str(element_bytes(DType::kFp16, 1));
  p = parse_npy(numpy_file("{'descr': '<f2', 'fortran_order': False, 'shape': (), }", f2), "np");
  EXPECT_TRUE(p.shape.empty());
  EXPECT_EQ(p.bytes.size(), 2u);
  // Empty arrays have no data.
  p = parse_npy(numpy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", ""),
                "np");
  EXPECT_EQ(p.shape, (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(p.bytes.empty());
}

TEST(Npy, WriteAndReadFiles) {
  char tmpl[] = "/tmp/kb_npy_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string path = std::string(tmpl) + "/a.npy";
  NpyArray a;
  a.dtype = DType::kInt32;
  a.shape = {2, 3};
  a.bytes = element_bytes(DType::kInt32, 6);
  write_npy(path, a);
  const NpyArray b = read_npy(path);
  EXPECT_EQ(b.shape, a.shape);
  EXPECT_EQ(b.bytes, a.bytes);
  std::remove(path.c_str());
  rmdir(tmpl);
  try {
    read_npy(path);
    FAIL() << "no error for a missing file";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

const char* const kDict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";

TEST(Npy, BadMagicIsAUsageError) {
  const std::string data = bytes_str(element_bytes(DType::kFp32, 6));
  std::string file = numpy_file(kDict, data);
  file[1] = 'n';  // "\x93nUMPY"
  expect_usage_error(file, "bad magic");
  expect_usage_error("PK\x03\x04 this is a zip file, not an array", "bad magic");
  expect_usage_error("", "bad magic");
  expect_usage_error("\x93NUMPY", "bad magic");  // too short for a header length
}

TEST(Npy, TruncatedInputIsAUsageError) {
  const std::string data = bytes_str(element_bytes(DType::kFp32, 6));
  const std::string file = numpy_file(kDict, data);
  expect_usage_error(file.substr(0, 40), "truncated");  // cut inside the header
  expect_usage_error(file.substr(0, 11), "truncated");
  std::string v2 = numpy_file(kDict, data, 2);
  expect_usage_error(v2.substr(0, 11), "truncated");  // cut inside a 2.0 header length
  // A header length beyond the end of the file.
  std::string big = file;
  big[9] = '\x7f';
  expect_usage_error(big, "truncated");
}

TEST(Npy, WrongDataLengthIsAUsageError) {
  const std::string data = bytes_str(element_bytes(DType::kFp32, 6));
  const std::string file = numpy_file(kDict, data);
  std::string msg = expect_usage_error(file.substr(0, file.size() - 4), "20 data bytes");
  EXPECT_NE(msg.find("needs 24"), std::string::npos) << msg;
  msg = expect_usage_error(file + "xxxx", "28 data bytes");
  EXPECT_NE(msg.find("needs 24"), std::string::npos) << msg;
  expect_usage_error(numpy_file(kDict, ""), "needs 24");
  // The data length follows the dtype: 6 fp16 elements are 12 bytes, not 24.
  expect_usage_error(
      numpy_file("{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }", data), "needs 12");
}

TEST(Npy, FortranOrderIsAUsageError) {
  const std::string data = bytes_str(element_bytes(DType::kFp32, 6));
  expect_usage_error(numpy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", data),
                     "Fortran");
}

TEST(Npy, UnsupportedDtypesAreAUsageError) {
  const std::string data = bytes_str(element_bytes(DType::kFp32, 6));
  for (const std::string descr : {"<f8", ">f4", ">f2", "<i8", "|u1", "|b1", "<c8", "<U3"}) {
    const std::string msg = expect_usage_error(
        numpy_file("{'descr': '" + descr + "', 'fortran_order': False, 'shape': (2, 3), }", data),
        "unsupported dtype");
    EXPECT_NE(msg.find(descr), std::string::npos) << msg;  // names the offending dtype
    EXPECT_NE(msg.find("<f2"), std::string::npos) << msg;  // and what would do
  }
}

TEST(Npy, OtherMalformedHeadersAreUsageErrors) {
  const std::string data = bytes_str(element_bytes(DType::kFp32, 6));
  expect_usage_error(numpy_file("{'fortran_order': False, 'shape': (2, 3), }", data), "descr");
  expect_usage_error(numpy_file("{'descr': '<f4', 'fortran_order': False, }", data), "shape");
  expect_usage_error(
      numpy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", data), "bad shape");
  expect_usage_error(
      numpy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 3), }", data),
      "bad shape");
  std::string v9 = numpy_file(kDict, data);
  v9[6] = 9;
  expect_usage_error(v9, "version 9");
}

}  // namespace
}  // namespace kb
