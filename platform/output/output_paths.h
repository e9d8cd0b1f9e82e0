// Checking every output path before anything is simulated, so that a run
// never ends by losing its result to a path that could not be written.
#pragma once

#include <string>
#include <vector>

namespace kb {

// The directory a path's file lives in: "." for a bare name, "/" for "/x".
std::string directory_of(const std::string& path);

// The file an output path finally names: every symbolic link on it followed,
// also a link whose target does not exist yet, so that the output replaces
// that target and the link stays a link. Throws UsageError naming `flag` for
// a loop of links.
std::string final_target(const std::string& path, const std::string& flag = "output");

struct OutputRequest {
  std::string flag;  // the option that named it, for messages: "--json"
  std::string path;
  bool allow_char_device = true;  // written straight into (/dev/stdout, /dev/null)
};

// Throws UsageError naming the flag and the path unless every output, with
// its symbolic links followed to the final target (final_target),
//   - has a non-empty name no longer than the file system allows,
//   - is absent or a regular file (or a character device where allowed):
//     never a directory, FIFO, socket or block device, nor a file that is
//     append-only or immutable (chattr +a, +i), which could not be replaced,
//   - lies in an existing directory where a file can be created (checked by
//     creating and removing a temporary there); a link into a missing
//     directory is named as such,
//   - and names a file no other output names (character devices aside), also
//     when two outputs reach one file through links.
void check_output_paths(const std::vector<OutputRequest>& outputs);

}  // namespace kb
